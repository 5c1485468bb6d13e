// The AOF's life cycle: start-up, switching on and off at runtime, the
// cron's duties, shutdown, INFO and BGREWRITEAOF.
#include "server/persist/aof/aof.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "server/core/client.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"
#include "server/persist/aof/loader.h"
#include "server/persist/aof/rewrite.h"
#include "server/persist/aof/state.h"
#include "server/persist/child_info.h"
#include "server/persist/snapshot.h"
#include "server/pubsub/tracking.h"
#include "server/request/keyspace.h"
#include "server/request/multi.h"

namespace server::persist::aof {

namespace {

bool bgsaveRunning() {
  return persist::state().child_pid > 0;
}

// Reopens the last incr file of a loaded manifest for appending.
bool reopenLastIncr() {
  State& st = state();
  const FileInfo& f = st.manifest.incrs.back();
  int fd = open(pathOf(f.name).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    LOG_WARNING("Can't open the append-only file %s: %s", f.name.c_str(), strerror(errno));
    return false;
  }
  LOG_NOTICE("Opening AOF incr file %s on server start", f.name.c_str());
  st.fd = fd;
  st.selected_db = -1;
  return true;
}

void setMode(Mode m) {
  State& st = state();
  if (st.mode == Mode::kOff && m != Mode::kOff) registerSink();
  if (st.mode != Mode::kOff && m == Mode::kOff) unregisterSink();
  st.mode = m;
}

// CONFIG SET appendonly yes.
bool startAppendOnly(std::string* err) {
  State& st = state();
  st.last_write_ok = true;
  st.buf.clear();
  setMode(Mode::kWaitRewrite);
  if (bgsaveRunning()) {
    st.rewrite_scheduled = true;
    LOG_WARNING(
        "AOF was enabled but there is already another background operation. An AOF background "
        "was scheduled to start when possible.");
    return true;
  }
  if (server::inExec()) {
    // Not forked in the middle of a transaction, as Redis: the cron starts it.
    st.rewrite_scheduled = true;
    LOG_WARNING(
        "AOF was enabled during a transaction. An AOF background was scheduled to start when "
        "possible.");
    return true;
  }
  if (st.child_pid > 0) {
    LOG_WARNING(
        "AOF was enabled but there is already an AOF rewriting in background. Stopping "
        "background AOF and starting a rewrite now.");
    killRewriteChild();
  }
  std::string why;
  if (!startRewrite(&why)) {
    setMode(Mode::kOff);
    LOG_WARNING(
        "Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. "
        "Check the above logs for more info about the error.");
    *err = "Failed to start AOF rewrite";  // CONFIG SET's reason
    return false;
  }
  return true;
}

// CONFIG SET appendonly no.
void stopAppendOnly() {
  State& st = state();
  flush(true);
  if (st.fd >= 0) {
    if (fdatasync(st.fd) != 0) LOG_WARNING("Fail to fsync the AOF file: %s", strerror(errno));
    // Queued behind any fsync of the same fd, so its number is not reused
    // while the background thread may still use it.
    closeInBackground(st.fd);
    st.fd = -1;
  }
  st.fsync_offset = st.current_size;
  killRewriteChild();
  // The temp incr of an unfinished switch-on is of no use now.
  unlink(pathOf(tempIncrName(server::g_server->config.appendfilename)).c_str());
  st.rewrite_scheduled = false;
  st.selected_db = -1;
  st.buf.clear();
  setMode(Mode::kOff);
}

void autoRewrite() {
  State& st = state();
  const server::Config& c = server::g_server->config;
  if (st.mode != Mode::kOn || anyChild() || c.auto_aof_rewrite_percentage == 0) return;
  if (st.current_size <= static_cast<uint64_t>(c.auto_aof_rewrite_min_size)) return;
  if (st.next_auto_try_ms > monoMs()) return;
  uint64_t base = st.base_size ? st.base_size : 1;
  int64_t growth = static_cast<int64_t>(st.current_size * 100 / base) - 100;
  if (growth < c.auto_aof_rewrite_percentage) return;
  LOG_NOTICE("Starting automatic rewriting of AOF on %lld%% growth",
             static_cast<long long>(growth));
  std::string err;
  startRewrite(&err);
}

}  // namespace

bool loadAtStart() {
  State& st = state();
  LoadStatus s = loadFromDisk();
  if (s == LoadStatus::kFailed) return false;
  if (s == LoadStatus::kAbandoned) return true;
  setMode(Mode::kOn);
  st.last_fsync_ms = monoMs();
  if (s == LoadStatus::kNotExist) return createBaseAtStart();
  if (st.manifest.incrs.empty()) return openNewIncr("server start");
  return reopenLastIncr();
}

void readManifestAtStart() {
  std::string path = pathOf(manifestName(server::g_server->config.appendfilename));
  std::string err;
  Manifest m;
  if (Manifest::readFile(path, &m, &err)) {
    state().manifest = m;
  } else if (!err.empty()) {
    LOG_WARNING("Ignoring the AOF manifest %s: %s", path.c_str(), err.c_str());
  }
}

void beforeSleep() {
  if (state().mode != Mode::kOff) flush(false);
}

void cron() {
  State& st = state();
  checkRewriteChild();
  if (st.mode == Mode::kWaitRewrite && st.child_pid <= 0 && !st.rewrite_scheduled &&
      !st.last_bgrewrite_ok) {
    // Switching on failed its rewrite: try again (with the back-off).
    st.rewrite_scheduled = true;
  }
  if (st.rewrite_scheduled && !anyChild() && st.next_auto_try_ms <= monoMs()) {
    std::string err;
    startRewrite(&err);
  }
  if (st.mode == Mode::kOn) {
    if (st.flush_postponed_start != 0) flush(false);
    static int64_t last_retry = 0;
    if (!st.last_write_ok && monoMs() - last_retry >= 1000) {
      last_retry = monoMs();
      flush(false);
    }
    autoRewrite();
  }
  if (!st.manifest.history.empty() && !server::g_server->config.aof_disable_auto_gc)
    deleteHistoryFiles();
}

bool rewriteInProgress() {
  return state().child_pid > 0;
}

bool debugLoadAof(std::string* err) {
  State& st = state();
  server::Server& srv = *server::g_server;
  if (st.mode == Mode::kOn) {
    flush(true);
    if (st.fd >= 0) fdatasync(st.fd);
  }
  // The AOF replaces the data set, as DEBUG LOADAOF in Redis.
  for (auto& d : srv.dbs) {
    db::Db empty(d->id());
    server::dbWillChange(d.get(), &empty);
    d->swapWith(empty);
  }
  server::tracking::invalidateOnFlush(true);
  LoadStatus s = loadFromDisk();
  if (s != LoadStatus::kOk && s != LoadStatus::kNotExist) {
    *err = "Error loading the AOF, check server logs.";
    return false;
  }
  srv.dirty = 0;
  LOG_NOTICE("Append Only File loaded by DEBUG LOADAOF");
  return true;
}

bool writingInitialAof() {
  return state().mode == Mode::kWaitRewrite;
}

bool rewriteScheduled() {
  return state().rewrite_scheduled;
}

void killChild() {
  killRewriteChild();
}

void shutdown() {
  State& st = state();
  killRewriteChild();
  if (st.mode == Mode::kOff || st.fd < 0) return;
  flush(true);
  LOG_NOTICE("Calling fsync() on the AOF file.");
  drainBackground();
  if (fdatasync(st.fd) != 0) LOG_WARNING("Fail to fsync the AOF file: %s", strerror(errno));
}

const char* writeError() {
  State& st = state();
  if (st.mode == Mode::kOff || st.last_write_ok) return nullptr;
  static std::string msg;
  msg = std::string("-MISCONF Errors writing to the AOF file: ") + strerror(st.last_write_errno);
  return msg.c_str();
}

bool applyConfig(const std::string& name, std::string* err) {
  State& st = state();
  if (name == "appendonly") {
    bool want = server::g_server->config.appendonly;
    if (want && st.mode == Mode::kOff) return startAppendOnly(err);
    if (!want && st.mode != Mode::kOff) stopAppendOnly();
  }
  return true;
}

void appendInfo(std::string* o) {
  using ull = unsigned long long;
  using ll = long long;
  State& st = state();
  bool child = st.child_pid > 0;
  server::appendFormat(o, "aof_enabled:%d\r\naof_rewrite_in_progress:%d\r\n",
                       st.mode != Mode::kOff ? 1 : 0, child ? 1 : 0);
  server::appendFormat(o, "aof_rewrite_scheduled:%d\r\naof_last_rewrite_time_sec:%lld\r\n",
                       st.rewrite_scheduled ? 1 : 0, static_cast<ll>(st.last_rewrite_time_sec));
  server::appendFormat(
      o,
      "aof_current_rewrite_time_sec:%lld\r\naof_last_bgrewrite_status:%s\r\naof_rewrites:%llu\r\n",
      static_cast<ll>(child ? (monoMs() - st.rewrite_start_ms) / 1000 : -1),
      st.last_bgrewrite_ok ? "ok" : "err", static_cast<ull>(st.rewrites));
  server::appendFormat(o, "aof_rewrites_consecutive_failures:%llu\r\naof_last_write_status:%s\r\n",
                       static_cast<ull>(st.consecutive_failures), st.last_write_ok ? "ok" : "err");
  server::appendFormat(
      o, "aof_last_cow_size:%llu\r\nmodule_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n",
      static_cast<ull>(lastCowSize(ChildKind::kAof)));
  if (st.mode == Mode::kOff) return;
  server::appendFormat(o, "aof_current_size:%llu\r\naof_base_size:%llu\r\n",
                       static_cast<ull>(st.current_size), static_cast<ull>(st.base_size));
  server::appendFormat(o, "aof_pending_rewrite:%d\r\naof_buffer_length:%llu\r\n",
                       st.rewrite_scheduled ? 1 : 0, static_cast<ull>(st.buf.size()));
  server::appendFormat(o, "aof_pending_bio_fsync:%d\r\naof_delayed_fsync:%llu\r\n", pendingFsyncs(),
                       static_cast<ull>(st.delayed_fsync));
}

namespace {

void bgrewriteaofCommand(server::Client* c) {
  State& st = state();
  if (st.child_pid > 0) {
    c->addError("Background append only file rewriting already in progress");
    return;
  }
  // Inside EXEC it is scheduled too (the cron forks), as Redis does.
  if (anyChild() || server::inExec()) {
    st.rewrite_scheduled = true;
    c->addStatus("Background append only file rewriting scheduled");
    return;
  }
  std::string err;
  if (!startRewrite(&err)) {
    c->addError(
        "Can't execute an AOF background rewriting. Please check the server logs for more "
        "information.");
    return;
  }
  c->addStatus("Background append only file rewriting started");
}

}  // namespace

void registerAofCommands(server::CommandTable& t) {
  using namespace server;
  t.add({"bgrewriteaof", 1, kAdmin | kNoScript | kNoAsyncLoading, bgrewriteaofCommand, 0, 0, 0,
         "server", "Asynchronously rewrite the append-only file", "1.0.0", "O(1)",
         "admin slow dangerous"});
}

}  // namespace server::persist::aof

namespace server::persist {

size_t aofBufferBytes() {
  // As Redis: the buffer's allocation, counted while the AOF is on.
  const aof::State& st = aof::state();
  return st.mode == aof::Mode::kOff ? 0 : st.buf.capacity();
}

}  // namespace server::persist
