// SAVE, BGSAVE and their bookkeeping: the forked child, its reaping from the
// server cron, save points, loading at start and the INFO fields.
#include "server/persist/snapshot.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/log.h"
#include "common/strutil.h"
#include "resp/request_parser.h"
#include "server/commands/server/introspection.h"
#include "server/core/state.h"
#include "server/persist/aof/aof.h"
#include "server/persist/child_info.h"
#include "server/persist/persist.h"
#include "server/persist/rdb_format.h"
#include "server/pubsub/tracking.h"
#include "server/request/keyspace.h"
#include "server/script/functions.h"

namespace server::persist {

namespace {

// Redis waits this long after a failed BGSAVE before a save point may try
// again.
constexpr int64_t kBgsaveRetryDelay = 5;

const char kMisconf[] =
    "-MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "
    "disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB "
    "error.";

int64_t nowSec() {
  return static_cast<int64_t>(time(nullptr));
}

int64_t monoUs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

pid_t g_parent_pid = 0;  // the server, as the child saw it at the fork

[[noreturn]] void childMain(SaveOptions opt, int out_fd, const std::string& trailer) {
  closeListeningSockets();
  std::string err;
  ChildProgress progress(ChildKind::kRdb);
  opt.progress = &progress;
  bool ok;
  if (out_fd < 0) {
    ok = saveRdbFile(server::g_server->config.dbfilename, serverDbs(), opt, &err);
    if (ok) LOG_NOTICE("DB saved on disk");
  } else {
    // A broken pipe (the parent dropped every replica) must end the child
    // with an error, not a signal.
    signal(SIGPIPE, SIG_IGN);
    // Without the server nothing reads the pipe, and the replicas' sockets
    // this child inherited would stay open (the replicas waiting) until it
    // ended on its own: it ends with the server.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != g_parent_pid) _exit(1);
    ok = writeRdb(out_fd, opt.skip_data ? std::vector<db::Db*>() : serverDbs(), opt, &err);
    size_t off = 0;
    while (ok && off < trailer.size()) {
      ssize_t w = write(out_fd, trailer.data() + off, trailer.size() - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        ok = false;
        err = std::string("Write error sending the RDB to replicas: ") + strerror(errno);
      } else {
        off += static_cast<size_t>(w);
      }
    }
    close(out_fd);
  }
  if (ok)
    progress.finished();  // the final copy-on-write size (rdb_last_cow_size)
  else
    LOG_WARNING("%s", err.c_str());
  // _exit: no destructors, no atexit handlers, no stdio flush of the
  // parent's buffers; in particular nothing in the child calls into verbs.
  _exit(ok ? 0 : 1);
}

ChildDoneHook g_child_done_hook = nullptr;
bool g_child_to_fd = false;

void childDone(pid_t pid, int status) {
  SnapshotState& st = state();
  bool by_signal = WIFSIGNALED(status);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (g_child_to_fd) {
    // A diskless SYNC: no file, no LASTSAVE, no -MISCONF on failure.
    bool ok = !by_signal && code == 0;
    if (ok) {
      LOG_NOTICE("Background RDB transfer terminated with success");
    } else if (by_signal) {
      LOG_WARNING("Background transfer terminated by signal %d", WTERMSIG(status));
    } else {
      LOG_WARNING("Background transfer error");
    }
    childReaped();
    st.child_pid = -1;
    g_child_to_fd = false;
    if (g_child_done_hook) g_child_done_hook(ok, true);
    return;
  }
  if (!by_signal && code == 0) {
    LOG_NOTICE("Background saving terminated with success");
    server::g_server->dirty -= st.dirty_before_bgsave;
    st.lastsave = nowSec();
    st.last_bgsave_ok = true;
  } else if (!by_signal) {
    LOG_WARNING("Background saving error");
    st.last_bgsave_ok = false;
  } else {
    int sig = WTERMSIG(status);
    LOG_WARNING("Background saving terminated by signal %d", sig);
    // SIGUSR1 is how a save is cancelled on purpose: not an error.
    if (sig != SIGUSR1) st.last_bgsave_ok = false;
    // A killed child leaves its temp file behind.
    std::string tmp = "temp-" + std::to_string(pid) + ".rdb";
    unlink(tmp.c_str());
  }
  childReaped();
  st.last_bgsave_time_sec = (monoUs() / 1000 - st.child_start_ms) / 1000;
  st.child_pid = -1;
  if (g_child_done_hook) g_child_done_hook(!by_signal && code == 0, false);
}

}  // namespace

// The child keeps no listening socket: a restarted server must be able to
// bind the port while a child still writes. Only TCP/Unix listeners are
// closed here (plain fds); RDMA resources are left alone entirely (see
// RDMA.md, "Fork safety").
void closeListeningSockets() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return;
  std::vector<int> fds;
  while (struct dirent* e = readdir(d)) {
    int fd = atoi(e->d_name);
    if (fd <= 2 || fd == dirfd(d)) continue;
    int acc = 0;
    socklen_t len = sizeof(acc);
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) == 0 && acc) fds.push_back(fd);
  }
  closedir(d);
  for (int fd : fds) close(fd);
}

SnapshotState& state() {
  static SnapshotState s;
  return s;
}

namespace {
ReplAuxHook g_repl_aux_hook = nullptr;
ReplInfo g_loaded_repl;
}  // namespace

void setReplAuxHook(ReplAuxHook hook) {
  g_repl_aux_hook = hook;
}

const ReplInfo& loadedReplInfo() {
  return g_loaded_repl;
}

std::vector<std::pair<int, std::string>> g_load_expired;

std::vector<std::pair<int, std::string>> takeLoadExpiredKeys() {
  std::vector<std::pair<int, std::string>> out;
  out.swap(g_load_expired);
  return out;
}

SaveOptions saveOptions() {
  const server::Config& c = server::g_server->config;
  SaveOptions o;
  o.compression = c.rdbcompression;
  o.checksum = c.rdbchecksum;
  o.fsync_every = c.rdb_save_incremental_fsync ? 4u << 20 : 0;
  o.used_mem = static_cast<int64_t>(server::memoryNumbers().used);
  o.key_save_delay_us = c.rdb_key_save_delay;
  o.function_libraries = server::script::libraryCodes();
  if (g_repl_aux_hook != nullptr) o.extra_aux = g_repl_aux_hook();
  return o;
}

// Replaces the function libraries with those of a loaded file. False (with
// *err) when one does not load; the libraries before it stay loaded.
bool applyFunctions(const LoadStats& stats, std::string* err) {
  server::script::flushFunctions();
  for (const std::string& code : stats.function_libraries) {
    std::string why;
    if (!server::script::loadLibrary(code, true, &why)) {
      *err = "Failed loading library: " + why;
      return false;
    }
  }
  return true;
}

LoadLimits loadLimits() {
  const server::Config& c = server::g_server->config;
  LoadLimits l;
  l.hash = {static_cast<size_t>(c.hash_max_listpack_entries),
            static_cast<size_t>(c.hash_max_listpack_value)};
  l.set = {static_cast<size_t>(c.set_max_intset_entries)};
  l.zset_max_entries = static_cast<size_t>(c.zset_max_listpack_entries);
  l.zset_max_value = static_cast<size_t>(c.zset_max_listpack_value);
  l.list_fill = static_cast<int>(c.list_max_listpack_size);
  l.list_compress = static_cast<int>(c.list_compress_depth);
  return l;
}

std::vector<std::pair<int64_t, int64_t>> savePoints() {
  std::vector<std::string> w;
  resp::splitArgs(server::g_server->config.save, &w);
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i + 1 < w.size(); i += 2) {
    int64_t s, ch;
    if (common::strutil::parseInt64(w[i], &s) && common::strutil::parseInt64(w[i + 1], &ch))
      out.emplace_back(s, ch);
  }
  return out;
}

std::vector<db::Db*> serverDbs() {
  std::vector<db::Db*> v;
  for (auto& d : server::g_server->dbs) v.push_back(d.get());
  return v;
}

bool saveNow() {
  SnapshotState& st = state();
  std::string err;
  st.rdb_saves++;
  if (!saveRdbFile(server::g_server->config.dbfilename, serverDbs(), saveOptions(), &err)) {
    LOG_WARNING("%s", err.c_str());
    return false;
  }
  LOG_NOTICE("DB saved on disk");
  server::g_server->dirty = 0;
  st.lastsave = nowSec();
  st.last_bgsave_ok = true;
  return true;
}

bool startBgsave(std::string* err) {
  return startBgsaveWith(saveOptions(), -1, std::string(), err);
}

bool childActive() {
  // One child at a time (the reports pipe of child_info.h serves one): a
  // SYNC waits for an AOF rewrite as it waits for a BGSAVE.
  return state().child_pid > 0 || aof::rewriteInProgress();
}

void setChildDoneHook(ChildDoneHook hook) {
  g_child_done_hook = hook;
}

bool startBgsaveWith(const SaveOptions& opt, int out_fd, const std::string& trailer,
                     std::string* err) {
  SnapshotState& st = state();
  if (out_fd < 0) {
    st.dirty_before_bgsave = server::g_server->dirty;
    st.last_bgsave_try = nowSec();
  }
  g_parent_pid = getpid();
  pid_t pid = forkChild(ChildKind::kRdb, out_fd < 0 ? "redis-rdb-bgsave" : "redis-rdb-to-slaves");
  if (pid == 0) childMain(opt, out_fd, trailer);
  if (pid < 0) {
    if (out_fd < 0) st.last_bgsave_ok = false;
    *err = std::string("Can't save in background: fork: ") + strerror(errno);
    LOG_WARNING("%s", err->c_str());
    return false;
  }
  st.child_pid = pid;
  st.child_start_ms = monoUs() / 1000;
  g_child_to_fd = out_fd >= 0;
  if (g_child_to_fd) {
    LOG_NOTICE("Background RDB transfer started by pid %d", static_cast<int>(pid));
    return true;
  }
  st.rdb_saves++;
  st.bgsave_scheduled = false;
  LOG_NOTICE("Background saving started by pid %d", static_cast<int>(pid));
  return true;
}

void logLoadOrigin(const LoadStats& stats) {
  if (!stats.valkey_ver.empty())
    LOG_NOTICE("Loading RDB produced by Valkey version %s", stats.valkey_ver.c_str());
  else if (!stats.redis_ver.empty())
    LOG_NOTICE("Loading RDB produced by version %s", stats.redis_ver.c_str());
  if (stats.version != kRdbVersion)
    LOG_NOTICE("RDB format version %d%s: its encodings were converted to this server's",
               stats.version, stats.valkey ? " (Valkey)" : "");
  std::string note = fieldTtlNote(stats);
  if (!note.empty()) LOG_WARNING("%s", note.c_str());
}

// DEBUG RELOAD's read of `path` into fresh databases; false (with *err)
// when it is missing or bad.
bool loadForReload(const std::string& path, std::vector<std::unique_ptr<db::Db>>* fresh,
                   LoadStats* stats, std::string* err) {
  server::Server& srv = *server::g_server;
  bool missing = false;
  db::Clock::update();
  if (!loadRdbFile(path, static_cast<int>(srv.config.databases), loadLimits(),
                   srv.config.rdbchecksum, db::Clock::nowMs, fresh, stats, &missing, err))
    return false;
  if (missing) {
    *err = "no such file: " + path;
    return false;
  }
  return true;
}

bool reloadFrom(const std::string& path, std::string* err) {
  server::Server& srv = *server::g_server;
  std::vector<std::unique_ptr<db::Db>> fresh;
  LoadStats stats;
  if (!loadForReload(path, &fresh, &stats, err)) return false;
  for (size_t i = 0; i < fresh.size() && i < srv.dbs.size(); i++) {
    // WATCHers of the old contents see them change (as with FLUSHALL).
    server::dbWillChange(srv.dbs[i].get(), nullptr);
    srv.dbs[i]->swapWith(*fresh[i]);
  }
  // Tracking clients drop their caches, as after FLUSHALL.
  server::tracking::invalidateOnFlush(true);
  if (!applyFunctions(stats, err)) return false;
  logLoadOrigin(stats);
  state().last_load_keys_loaded = stats.keys;
  state().last_load_keys_expired = stats.expired_skipped;
  return true;
}

bool reloadInto(const std::string& path, bool merge, std::string* err) {
  server::Server& srv = *server::g_server;
  std::vector<std::unique_ptr<db::Db>> fresh;
  LoadStats stats;
  if (!loadForReload(path, &fresh, &stats, err)) return false;
  size_t n = std::min(fresh.size(), srv.dbs.size());
  if (!merge) {
    // Nothing changes when a key is already there.
    for (size_t i = 0; i < n; i++) {
      bool dup = false;
      fresh[i]->forEach([&](db::Entry* e) {
        if (!dup && srv.dbs[i]->peek(e->keyView()) != nullptr) {
          dup = true;
          *err = "duplicated key '" + std::string(e->keyView()) + "' in DB " + std::to_string(i);
        }
      });
      if (dup) return false;
    }
  }
  for (const std::string& code : stats.function_libraries) {
    std::string why;
    if (!server::script::loadLibrary(code, merge, &why)) {
      *err = "Failed loading library: " + why;
      return false;
    }
  }
  for (size_t i = 0; i < n; i++) {
    db::Db& live = *srv.dbs[i];
    std::vector<std::string> keys;
    fresh[i]->forEach([&](db::Entry* e) { keys.emplace_back(e->keyView()); });
    for (const std::string& k : keys) {
      db::Entry* e = fresh[i]->peek(k);
      int64_t expire_ms = -1;
      db::Value v = fresh[i]->take(e, &expire_ms);
      db::Entry* ne = live.set(k, std::move(v), false);
      if (expire_ms >= 0) live.setExpire(ne, expire_ms, true);
      server::keyModifiedInDb(&live, k);
    }
  }
  state().last_load_keys_loaded = stats.keys;
  state().last_load_keys_expired = stats.expired_skipped;
  return true;
}

// ------------------------------------------------------------ public hooks

bool loadAtStart() {
  server::Server& srv = *server::g_server;
  SnapshotState& st = state();
  st.lastsave = nowSec();
  // With appendonly yes the AOF is the data set, dump.rdb is not read (as
  // Redis 7.0).
  if (srv.config.appendonly) return aof::loadAtStart();
  aof::readManifestAtStart();
  g_loading = Loading::kSync;
  st.loading_start = nowSec();
  st.loading_loaded_bytes = 0;
  int64_t t0 = monoUs();
  std::vector<std::unique_ptr<db::Db>> fresh;
  LoadStats stats;
  bool missing = false;
  std::string err;
  db::Clock::update();
  LoadHooks hooks;
  hooks.key_delay_us = srv.config.key_load_delay;
  int64_t last_events = monoUs();
  size_t last_bytes = 0;
  hooks.progress = [&](size_t loaded, size_t total) {
    st.loading_loaded_bytes = loaded;
    st.loading_total_bytes = total;
    st.loading_rdb_used_mem = stats.used_mem;
    // Serve clients (-LOADING, INFO) every loading-process-events-interval-
    // bytes read (as Redis), and at least every 20 ms.
    int64_t now = monoUs();
    auto interval = static_cast<size_t>(srv.config.loading_process_events_interval_bytes);
    bool crossed = loaded / interval != last_bytes / interval;
    last_bytes = loaded;
    if (crossed || now - last_events >= 20000) {
      last_events = now;
      srv.serveEventsWhileBusy();
    }
    return !srv.shutdown_asap;
  };
  hooks.on_expired = [](int db, std::string_view key) {
    g_load_expired.emplace_back(db, std::string(key));
  };
  // A replica (replicaof set, or a cluster replica) keeps expired keys, as
  // Redis does: they go when its master's DELs arrive.
  bool replica = db::Db::expiry_replica || !srv.config.replicaof.empty();
  bool ok = loadRdbFile(srv.config.dbfilename, static_cast<int>(srv.config.databases), loadLimits(),
                        srv.config.rdbchecksum, replica ? 0 : db::Clock::nowMs, &fresh, &stats,
                        &missing, &err, &hooks);
  g_loading = Loading::kNone;
  if (!ok && srv.shutdown_asap) {
    LOG_WARNING("Loading abandoned: shutdown requested");
    return true;
  }
  if (!ok) {
    LOG_WARNING("%s", err.c_str());
    LOG_WARNING("Fatal error loading the DB (%s), check server logs. Exiting.",
                srv.config.dbfilename.c_str());
    return false;
  }
  if (missing) return true;
  if (!applyFunctions(stats, &err)) {
    LOG_WARNING("%s", err.c_str());
    LOG_WARNING("Fatal error loading the DB (%s), check server logs. Exiting.",
                srv.config.dbfilename.c_str());
    return false;
  }
  for (size_t i = 0; i < fresh.size() && i < srv.dbs.size(); i++) srv.dbs[i]->swapWith(*fresh[i]);
  st.last_load_keys_loaded = stats.keys;
  st.last_load_keys_expired = stats.expired_skipped;
  g_loaded_repl = {stats.repl_id, stats.repl_offset, stats.repl_stream_db};
  logLoadOrigin(stats);
  if (stats.empty_skipped > 0)
    LOG_WARNING("Done loading RDB, %llu empty keys skipped.",
                static_cast<unsigned long long>(stats.empty_skipped));
  LOG_NOTICE("Done loading RDB, keys loaded: %llu, keys expired: %llu.",
             static_cast<unsigned long long>(stats.keys),
             static_cast<unsigned long long>(stats.expired_skipped));
  LOG_NOTICE("DB loaded from disk: %.3f seconds", static_cast<double>(monoUs() - t0) / 1e6);
  return true;
}

void cron() {
  SnapshotState& st = state();
  server::Server& srv = *server::g_server;
  // While loading (the loop runs for -LOADING replies) nothing may save or
  // rewrite: the data set is incomplete. An asynchronous load leaves the
  // old data set whole (and a save of it is killed when the new one lands).
  if (loading()) return;
  if (st.child_pid > 0) {
    pollChildInfo();  // current_cow_size and friends
    int status;
    pid_t r = waitpid(st.child_pid, &status, WNOHANG);
    if (r == st.child_pid) childDone(r, status);
  }
  aof::cron();
  // One child at a time: a BGSAVE waits for the AOF rewrite.
  if (st.child_pid > 0 || aof::rewriteInProgress()) return;
  if (st.bgsave_scheduled) {
    std::string err;
    startBgsave(&err);
    return;
  }
  int64_t now = nowSec();
  for (auto [secs, changes] : savePoints()) {
    if (srv.dirty >= changes && now - st.lastsave > secs &&
        (now - st.last_bgsave_try > kBgsaveRetryDelay || st.last_bgsave_ok)) {
      LOG_NOTICE("%lld changes in %lld seconds. Saving...", static_cast<long long>(changes),
                 static_cast<long long>(secs));
      std::string err;
      startBgsave(&err);
      break;
    }
  }
}

void beforeSleep() {
  aof::beforeSleep();
}

bool applyConfig(const std::string& name, std::string* err) {
  return aof::applyConfig(name, err);
}

const char* writeError() {
  if (const char* e = aof::writeError()) return e;
  const server::Config& c = server::g_server->config;
  if (c.stop_writes_on_bgsave_error && !state().last_bgsave_ok && !savePoints().empty())
    return kMisconf;
  return nullptr;
}

void killChild() {
  aof::killChild();
  killRdbChild();
}

void killRdbChild() {
  SnapshotState& st = state();
  if (st.child_pid <= 0) return;
  LOG_WARNING("There is a child saving an .rdb. Killing it!");
  kill(st.child_pid, SIGUSR1);
  int status;
  waitpid(st.child_pid, &status, 0);
  std::string tmp = "temp-" + std::to_string(st.child_pid) + ".rdb";
  unlink(tmp.c_str());
  childReaped();
  st.child_pid = -1;
  bool to_fd = g_child_to_fd;
  g_child_to_fd = false;
  if (g_child_done_hook) g_child_done_hook(false, to_fd);
}

Loading g_loading = Loading::kNone;

void setTransferLoading(Loading kind) {
  static bool set_here = false;
  SnapshotState& st = state();
  if (kind == Loading::kNone) {
    if (set_here) g_loading = Loading::kNone;
    set_here = false;
    return;
  }
  if (g_loading != Loading::kNone) return;  // another load is under way
  g_loading = kind;
  set_here = true;
  st.loading_start = nowSec();
  st.loading_loaded_bytes = 0;
  st.loading_total_bytes = 0;
}

void afterFlushAll() {
  killRdbChild();
  if (!savePoints().empty()) saveNow();
}

bool shutdownSave(bool save, bool nosave, bool force) {
  if (g_loading == Loading::kSync) {
    // A half-loaded dataset must never replace the file it comes from.
    killChild();
    LOG_WARNING("Shutdown during loading: not saving");
    return true;
  }
  if (aof::writingInitialAof() && !force) {
    // The AOF has no base yet: exiting now would leave nothing to load.
    LOG_WARNING("Writing initial AOF, can't exit.");
    return false;
  }
  killChild();
  aof::shutdown();
  if (nosave || (!save && savePoints().empty())) return true;
  LOG_NOTICE("Saving the final RDB snapshot before exiting.");
  if (saveNow()) return true;
  if (force) {
    LOG_WARNING("Error trying to save the DB, can't exit (ignored: SHUTDOWN FORCE).");
    return true;
  }
  LOG_WARNING("Error trying to save the DB, can't exit.");
  return false;
}

void appendInfoPersistence(std::string* o) {
  using ll = long long;
  SnapshotState& st = state();
  server::Server& s = *server::g_server;
  bool in_progress = st.child_pid > 0;
  server::appendFormat(o, "loading:%d\r\nasync_loading:%d\r\n", loading() ? 1 : 0,
                       asyncLoading() ? 1 : 0);
  appendInfoCurrentChild(o);
  server::appendFormat(o, "rdb_changes_since_last_save:%lld\r\nrdb_bgsave_in_progress:%d\r\n",
                       static_cast<ll>(s.dirty), in_progress ? 1 : 0);
  server::appendFormat(o, "rdb_last_save_time:%lld\r\nrdb_last_bgsave_status:%s\r\n",
                       static_cast<ll>(st.lastsave), st.last_bgsave_ok ? "ok" : "err");
  server::appendFormat(
      o, "rdb_last_bgsave_time_sec:%lld\r\nrdb_current_bgsave_time_sec:%lld\r\nrdb_saves:%llu\r\n",
      static_cast<ll>(st.last_bgsave_time_sec),
      static_cast<ll>(in_progress ? (monoUs() / 1000 - st.child_start_ms) / 1000 : -1),
      static_cast<unsigned long long>(st.rdb_saves));
  server::appendFormat(o, "rdb_last_cow_size:%llu\r\nrdb_last_load_keys_expired:%llu\r\n",
                       static_cast<unsigned long long>(lastCowSize(ChildKind::kRdb)),
                       static_cast<unsigned long long>(st.last_load_keys_expired));
  server::appendFormat(o, "rdb_last_load_keys_loaded:%llu\r\n",
                       static_cast<unsigned long long>(st.last_load_keys_loaded));
  aof::appendInfo(o);
  if (g_loading != Loading::kNone) {
    double perc = st.loading_total_bytes ? 100.0 * static_cast<double>(st.loading_loaded_bytes) /
                                               static_cast<double>(st.loading_total_bytes)
                                         : 0;
    int64_t elapsed = nowSec() - st.loading_start;
    int64_t eta =
        (st.loading_loaded_bytes == 0 || elapsed == 0)
            ? 1
            : static_cast<int64_t>(
                  static_cast<double>(st.loading_total_bytes - st.loading_loaded_bytes) /
                  (static_cast<double>(st.loading_loaded_bytes) / static_cast<double>(elapsed)));
    server::appendFormat(
        o,
        "loading_start_time:%lld\r\nloading_total_bytes:%llu\r\n"
        "loading_rdb_used_mem:%lld\r\nloading_loaded_bytes:%llu\r\n"
        "loading_loaded_perc:%.2f\r\nloading_eta_seconds:%lld\r\n",
        static_cast<ll>(st.loading_start), static_cast<unsigned long long>(st.loading_total_bytes),
        static_cast<ll>(st.loading_rdb_used_mem),
        static_cast<unsigned long long>(st.loading_loaded_bytes), perc, static_cast<ll>(eta));
  }
}

void appendInfoForkStats(std::string* o) {
  appendInfoForkFigures(o);
}

}  // namespace server::persist
