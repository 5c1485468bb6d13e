#include "server/persist/aof/loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <strings.h>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "common/log.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/persist/aof/state.h"
#include "server/persist/persist.h"
#include "server/persist/rdb_file.h"
#include "server/persist/snapshot.h"
#include "server/script/functions.h"

namespace server::persist::aof {

namespace {

// Reasons a file's command part stops.
enum class Parse { kOk, kTruncated, kBadFormat, kFailed };

struct Command {
  std::vector<std::string_view> argv;  // views into the mapped file
};

class Replayer {
 public:
  Replayer() {
    server::Server& s = *server::g_server;
    client_ = std::make_unique<server::Client>(nullptr, s.next_client_id++, &s.dbAt(0));
    client_->flags |= server::kAuthenticated | server::kDenyBlocking | server::kMustObey;
    client_->muteReplies(true);
  }
  ~Replayer() { client_->muteReplies(false); }

  // Runs one command; false with *err when it cannot be run at all.
  bool run(std::vector<std::string_view>& argv, std::string* err) {
    server::Server& s = *server::g_server;
    server::Command* cmd = s.commands.find(argv[0]);
    if (cmd != nullptr && !cmd->subcommands.empty() && argv.size() >= 2)
      cmd = s.commands.findSub(cmd, argv[1]);
    int argc = static_cast<int>(argv.size());
    if (cmd == nullptr) {
      *err = "Unknown command '" + std::string(argv[0].substr(0, 128)) + "'";
      return false;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
      *err = "Wrong number of arguments for '" + std::string(argv[0].substr(0, 128)) + "'";
      return false;
    }
    client_->swapArgv(&argv);
    server::Client* outer = s.current_client;
    s.current_client = client_.get();
    client_->cur_cmd = cmd;
    cmd->proc(client_.get());
    s.current_client = outer;
    client_->swapArgv(&argv);
    // Unmuting empties the discard buffer: it does not grow over the load.
    client_->muteReplies(false);
    client_->muteReplies(true);
    return true;
  }

 private:
  std::unique_ptr<server::Client> client_;
};

// Parses "<prefix><digits>\r\n" at p; the value in *out and p moved past.
// kTruncated when the line is incomplete.
Parse readCount(const char*& p, const char* end, char prefix, int64_t* out) {
  if (p >= end) return Parse::kTruncated;
  if (*p != prefix) return Parse::kBadFormat;
  const char* q = p + 1;
  int64_t v = 0;
  bool any = false;
  while (q < end && *q >= '0' && *q <= '9') {
    if (v > (INT64_MAX - 9) / 10) return Parse::kBadFormat;
    v = v * 10 + (*q - '0');
    any = true;
    q++;
  }
  if (q >= end || q + 1 >= end) return Parse::kTruncated;
  if (!any || q[0] != '\r' || q[1] != '\n') return Parse::kBadFormat;
  p = q + 2;
  *out = v;
  return Parse::kOk;
}

// Replays the commands in [data+off, data+n). *valid is the offset after
// the last command that can be kept (a transaction counts whole).
Parse replay(const char* data, size_t n, size_t off, Replayer& r, size_t* valid, std::string* err,
             const std::function<bool(size_t)>& progress) {
  const char* end = data + n;
  const char* p = data + off;
  *valid = off;
  bool in_multi = false;
  size_t before_multi = off;
  std::vector<std::vector<std::string_view>> queued;
  std::vector<std::string_view> argv;
  size_t count = 0;
  while (p < end) {
    if (*p == '#') {
      // An annotation (#TS:...): skipped, as 7.0 does.
      const char* nl = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
      if (nl == nullptr) return Parse::kTruncated;
      p = nl + 1;
      if (!in_multi) *valid = static_cast<size_t>(p - data);
      continue;
    }
    int64_t argc;
    Parse pr = readCount(p, end, '*', &argc);
    if (pr != Parse::kOk) return pr;
    if (argc < 1) return Parse::kBadFormat;
    argv.clear();
    for (int64_t i = 0; i < argc; i++) {
      int64_t len;
      pr = readCount(p, end, '$', &len);
      if (pr != Parse::kOk) return pr;
      if (static_cast<uint64_t>(len) + 2 > static_cast<uint64_t>(end - p)) return Parse::kTruncated;
      if (p[len] != '\r' || p[len + 1] != '\n') return Parse::kBadFormat;
      argv.emplace_back(p, static_cast<size_t>(len));
      p += len + 2;
    }
    bool is_multi = strcasecmp(std::string(argv[0]).c_str(), "multi") == 0 && argc == 1;
    bool is_exec = strcasecmp(std::string(argv[0]).c_str(), "exec") == 0 && argc == 1;
    if (is_multi) {
      // Nested MULTI cannot be written by a server: the file is bad.
      if (in_multi) return Parse::kBadFormat;
      in_multi = true;
      before_multi = *valid;
      continue;
    }
    if (is_exec) {
      if (!in_multi) return Parse::kBadFormat;
      for (auto& q : queued) {
        if (!r.run(q, err)) return Parse::kFailed;
      }
      queued.clear();
      in_multi = false;
      *valid = static_cast<size_t>(p - data);
      continue;
    }
    if (in_multi) {
      queued.push_back(argv);
      continue;
    }
    if (!r.run(argv, err)) return Parse::kFailed;
    *valid = static_cast<size_t>(p - data);
    if (++count % 1024 == 0 && !progress(*valid)) return Parse::kOk;
  }
  if (in_multi) {
    // A transaction without its EXEC: none of it applies, as if truncated
    // before the MULTI.
    *valid = before_multi;
    return Parse::kTruncated;
  }
  return Parse::kOk;
}

struct Mapped {
  const char* data = nullptr;
  size_t n = 0;
  ~Mapped() {
    if (data != nullptr) munmap(const_cast<char*>(data), n);
  }
};

// Loads one file of the manifest. `first`: it may start with an RDB image
// (the base, or an old-style file with a preamble). `last`: a torn end may
// be cut off (aof-load-truncated).
bool loadFile(const std::string& name, bool first, bool last, bool is_base, Replayer& r,
              uint64_t* loaded_before, const std::function<bool(size_t)>& progress_total) {
  server::Server& srv = *server::g_server;
  std::string path = pathOf(name);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      LOG_WARNING("The AOF file %s doesn't exist", name.c_str());
    else
      LOG_WARNING("Fatal error: can't open the append log file %s for reading: %s", name.c_str(),
                  strerror(errno));
    return false;
  }
  struct stat sb;
  fstat(fd, &sb);
  Mapped m;
  m.n = static_cast<size_t>(sb.st_size);
  if (m.n == 0) {
    close(fd);
    return true;  // an empty file (a new incr) holds nothing
  }
  void* p = mmap(nullptr, m.n, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    LOG_WARNING("Fatal error: can't map the append log file %s: %s", name.c_str(), strerror(errno));
    return false;
  }
  m.data = static_cast<const char*>(p);
  madvise(p, m.n, MADV_SEQUENTIAL);
  int64_t t0 = monoMs();
  size_t off = 0;
  // An RDB preamble: "REDIS" (Redis, Valkey <= 8) or "VALKEY" (Valkey 9).
  if ((m.n >= 5 && memcmp(m.data, "REDIS", 5) == 0) ||
      (m.n >= 6 && memcmp(m.data, "VALKEY", 6) == 0)) {
    if (!first) {
      LOG_WARNING("Bad file format reading the append only file %s: an RDB image after the base",
                  name.c_str());
      return false;
    }
    LOG_NOTICE(is_base && name.size() > 4 && name.compare(name.size() - 4, 4, ".rdb") == 0
                   ? "Reading RDB base file on AOF loading..."
                   : "Reading RDB preamble from AOF file...");
    std::vector<std::unique_ptr<db::Db>> fresh;
    LoadStats stats;
    std::string err;
    LoadHooks hooks;
    hooks.key_delay_us = srv.config.key_load_delay;
    hooks.progress = [&](size_t loaded, size_t) { return progress_total(*loaded_before + loaded); };
    hooks.release_behind = true;  // m is a read-only file mapping
    db::Clock::update();
    if (!loadRdbBytes(reinterpret_cast<const uint8_t*>(m.data), m.n,
                      static_cast<int>(srv.config.databases), loadLimits(), srv.config.rdbchecksum,
                      db::Clock::nowMs, &fresh, &stats, &err, &hooks)) {
      if (srv.shutdown_asap) return false;
      LOG_WARNING("%s", err.c_str());
      LOG_WARNING("Error reading the RDB base file %s, AOF loading aborted", name.c_str());
      return false;
    }
    if (!applyFunctions(stats, &err)) {
      LOG_WARNING("%s", err.c_str());
      return false;
    }
    for (size_t i = 0; i < fresh.size() && i < srv.dbs.size(); i++) srv.dbs[i]->swapWith(*fresh[i]);
    logLoadOrigin(stats);
    LOG_NOTICE("Done loading RDB, keys loaded: %llu, keys expired: %llu.",
               static_cast<unsigned long long>(stats.keys),
               static_cast<unsigned long long>(stats.expired_skipped));
    persist::state().last_load_keys_loaded = stats.keys;
    persist::state().last_load_keys_expired = stats.expired_skipped;
    off = stats.bytes_read;
  }
  size_t valid = off;
  std::string err;
  Parse pr = replay(m.data, m.n, off, r, &valid, &err,
                    [&](size_t at) { return progress_total(*loaded_before + at); });
  if (srv.shutdown_asap) return false;
  switch (pr) {
    case Parse::kOk:
      break;
    case Parse::kFailed:
      LOG_WARNING("%s reading the append only file %s", err.c_str(), name.c_str());
      return false;
    case Parse::kBadFormat:
      LOG_WARNING(
          "Bad file format reading the append only file %s: make a backup of your AOF file, "
          "then use ./redis-check-aof --fix <filename.manifest>",
          name.c_str());
      return false;
    case Parse::kTruncated:
      if (!last) {
        LOG_WARNING(
            "Fatal error: the truncated file %s is not the last file of the AOF, refusing to "
            "load it",
            name.c_str());
        return false;
      }
      if (!srv.config.aof_load_truncated) {
        LOG_WARNING(
            "Unexpected end of file reading the append only file %s. You can: 1) Make a backup "
            "of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) "
            "Alternatively you can set the 'aof-load-truncated' configuration option to yes and "
            "restart the server.",
            name.c_str());
        return false;
      }
      LOG_WARNING("!!! Warning: short read while loading the AOF file %s!!!", name.c_str());
      LOG_WARNING("!!! Truncating the AOF %s at offset %llu !!!", name.c_str(),
                  static_cast<unsigned long long>(valid));
      if (truncate(path.c_str(), static_cast<off_t>(valid)) != 0) {
        LOG_WARNING("Error truncating the AOF file %s: %s", name.c_str(), strerror(errno));
        return false;
      }
      LOG_WARNING("AOF %s loaded anyway because aof-load-truncated is enabled", name.c_str());
      *loaded_before += valid;
      LOG_NOTICE("DB loaded from %s file %s: %.3f seconds", is_base ? "base" : "incr", name.c_str(),
                 static_cast<double>(monoMs() - t0) / 1000);
      return true;
  }
  *loaded_before += m.n;
  LOG_NOTICE("DB loaded from %s file %s: %.3f seconds", is_base ? "base" : "incr", name.c_str(),
             static_cast<double>(monoMs() - t0) / 1000);
  return true;
}

bool readManifest(const std::string& path, Manifest* out) {
  std::string err;
  if (!Manifest::readFile(path, out, &err)) {
    if (!err.empty()) LOG_WARNING("%s", err.c_str());
    return false;
  }
  return true;
}

bool exists(const std::string& path) {
  struct stat sb;
  return stat(path.c_str(), &sb) == 0;
}

// An appendonly.aof of Redis < 7.0 in `dir` becomes the base of a new
// manifest, moved into appenddirname (as 7.0 does on its first start).
bool upgradeOldFile(const std::string& fname) {
  State& st = state();
  st.manifest = Manifest();
  st.manifest.base = FileInfo{fname, 1, FileType::kBase};
  st.manifest.base_seq = 1;
  std::string err;
  if (!persistManifest(&err)) {
    LOG_WARNING("%s", err.c_str());
    return false;
  }
  if (rename(fname.c_str(), pathOf(fname).c_str()) != 0) {
    LOG_WARNING("Error trying to rename the old AOF file %s into the AOF directory %s: %s",
                fname.c_str(), dirName().c_str(), strerror(errno));
    unlink(pathOf(manifestName(fname)).c_str());
    return false;
  }
  fsyncDir(dirName());
  LOG_NOTICE("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).",
             fname.c_str(), dirName().c_str());
  return true;
}

uint64_t fileSize(const std::string& name) {
  struct stat sb;
  return stat(pathOf(name).c_str(), &sb) == 0 ? static_cast<uint64_t>(sb.st_size) : 0;
}

}  // namespace

LoadStatus loadFromDisk() {
  server::Server& srv = *server::g_server;
  State& st = state();
  const std::string& fname = srv.config.appendfilename;
  std::string mpath = pathOf(manifestName(fname));
  if (exists(mpath)) {
    if (!readManifest(mpath, &st.manifest)) return LoadStatus::kFailed;
  } else if (exists(fname)) {
    if (!upgradeOldFile(fname)) return LoadStatus::kFailed;
  } else {
    return LoadStatus::kNotExist;
  }
  std::vector<std::pair<FileInfo, bool>> files;  // (file, is base)
  if (st.manifest.base) files.emplace_back(*st.manifest.base, true);
  for (const FileInfo& f : st.manifest.incrs) files.emplace_back(f, false);
  uint64_t total = 0;
  for (auto& [f, b] : files) total += fileSize(f.name);
  SnapshotState& ps = persist::state();
  persist::g_loading = persist::Loading::kSync;
  ps.loading_start = static_cast<int64_t>(time(nullptr));
  ps.loading_total_bytes = total;
  ps.loading_loaded_bytes = 0;
  int64_t t0 = monoMs();
  int64_t last_events = t0;
  auto progress = [&](size_t at) {
    ps.loading_loaded_bytes = at;
    int64_t now = monoMs();
    if (now - last_events >= 20) {
      last_events = now;
      srv.serveEventsWhileBusy();
    }
    return !srv.shutdown_asap;
  };
  Replayer r;
  uint64_t loaded = 0;
  bool ok = true;
  // The log's commands are data, as the master's stream is: on a replica
  // their TTLs are not its own to expire (db::Db::master_view).
  bool saved_view = db::Db::master_view;
  db::Db::master_view = true;
  for (size_t i = 0; i < files.size() && ok; i++) {
    ok = loadFile(files[i].first.name, i == 0, i + 1 == files.size(), files[i].second, r, &loaded,
                  progress);
  }
  db::Db::master_view = saved_view;
  persist::g_loading = persist::Loading::kNone;
  if (!ok && srv.shutdown_asap) {
    LOG_WARNING("Loading abandoned: shutdown requested");
    return LoadStatus::kAbandoned;
  }
  if (!ok) return LoadStatus::kFailed;
  st.current_size = 0;
  for (auto& [f, b] : files) st.current_size += fileSize(f.name);
  // As 7.0: growth for auto rewrites is measured against the base file.
  st.base_size = st.manifest.base ? fileSize(st.manifest.base->name) : 0;
  st.fsync_offset = st.current_size;
  st.last_incr_size = st.manifest.incrs.empty() ? 0 : fileSize(st.manifest.incrs.back().name);
  LOG_NOTICE("DB loaded from append only file: %.3f seconds",
             static_cast<double>(monoMs() - t0) / 1000);
  return LoadStatus::kOk;
}

}  // namespace server::persist::aof
