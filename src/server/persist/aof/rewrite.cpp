#include "server/persist/aof/rewrite.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "server/core/state.h"
#include "server/persist/aof/base.h"
#include "server/persist/aof/state.h"
#include "server/persist/child_info.h"
#include "server/persist/snapshot.h"

namespace server::persist::aof {

namespace {

// Rewrites that fail this many times in a row back off (as Redis: a minute,
// doubling up to an hour) before an automatic one tries again.
constexpr uint64_t kFailuresBeforeBackoff = 3;
constexpr int64_t kMaxBackoffMinutes = 60;

std::string childTempName(pid_t pid) {
  return "temp-rewriteaof-bg-" + std::to_string(static_cast<int>(pid)) + ".aof";
}

uint64_t sizeOf(const std::string& path) {
  struct stat sb;
  return stat(path.c_str(), &sb) == 0 ? static_cast<uint64_t>(sb.st_size) : 0;
}

[[noreturn]] void childMain() {
  closeListeningSockets();
  ChildProgress progress(ChildKind::kAof);
  std::string tmp = childTempName(getpid());
  std::string err;
  bool ok = writeBaseFile(tmp, server::g_server->config.aof_use_rdb_preamble, &err);
  if (ok) {
    LOG_NOTICE("Successfully created the temporary AOF base file %s", tmp.c_str());
    progress.finished();  // "Fork CoW for AOF rewrite: ..." and aof_last_cow_size
  } else {
    LOG_WARNING("%s", err.c_str());
  }
  // _exit: no destructors and no atexit handlers; nothing here touches the
  // parent's connections (RDMA.md, "Fork safety").
  _exit(ok ? 0 : 1);
}

void rewriteFailed() {
  State& st = state();
  st.last_bgrewrite_ok = false;
  st.consecutive_failures++;
  if (st.consecutive_failures >= kFailuresBeforeBackoff) {
    int64_t minutes = 1;
    for (uint64_t i = kFailuresBeforeBackoff;
         i < st.consecutive_failures && minutes < kMaxBackoffMinutes; i++)
      minutes *= 2;
    if (minutes > kMaxBackoffMinutes) minutes = kMaxBackoffMinutes;
    st.next_auto_try_ms = monoMs() + minutes * 60 * 1000;
    LOG_WARNING(
        "Background AOF rewrite has repeatedly failed and triggered the limit, will retry in "
        "%lld minutes",
        static_cast<long long>(minutes));
  }
}

// The child wrote its temp file: install it as the new base.
bool installNewBase(pid_t pid) {
  State& st = state();
  const server::Config& c = server::g_server->config;
  std::string tmp = childTempName(pid);
  bool rdb = c.aof_use_rdb_preamble;
  int64_t seq = st.manifest.base_seq + 1;
  std::string base = baseName(c.appendfilename, seq, rdb);
  if (mkdir(dirName().c_str(), 0755) != 0 && errno != EEXIST) {
    LOG_WARNING("Can't create the AOF directory %s: %s", dirName().c_str(), strerror(errno));
    return false;
  }
  if (rename(tmp.c_str(), pathOf(base).c_str()) != 0) {
    LOG_WARNING("Error trying to rename the temporary AOF base file %s into %s: %s", tmp.c_str(),
                base.c_str(), strerror(errno));
    unlink(tmp.c_str());
    return false;
  }
  LOG_NOTICE("Successfully renamed the temporary AOF base file %s into %s", tmp.c_str(),
             base.c_str());
  Manifest before = st.manifest;
  Manifest& m = st.manifest;
  std::string temp_incr, new_incr;
  if (st.mode == Mode::kWaitRewrite) {
    // The writes made since appendonly was switched on become incr 1 of
    // the new set.
    temp_incr = tempIncrName(c.appendfilename);
    new_incr = incrName(c.appendfilename, m.incr_seq + 1);
    if (rename(pathOf(temp_incr).c_str(), pathOf(new_incr).c_str()) != 0) {
      LOG_WARNING("Error trying to rename the temporary AOF incr file %s into %s: %s",
                  temp_incr.c_str(), new_incr.c_str(), strerror(errno));
      unlink(pathOf(base).c_str());
      return false;
    }
  }
  // All incr files but the one being appended are covered by the new base;
  // with AOF off every one of them is. History lists the newest first, as
  // 7.0 does: the retired incrs from the last one back, then the old base.
  size_t keep = st.mode == Mode::kOn ? 1 : 0;
  std::vector<FileInfo> history;
  while (m.incrs.size() > keep) {
    history.insert(history.begin(), m.incrs.front());
    m.incrs.erase(m.incrs.begin());
  }
  if (m.base) history.push_back(*m.base);
  for (FileInfo& f : history) f.type = FileType::kHistory;
  history.insert(history.end(), m.history.begin(), m.history.end());
  m.history = std::move(history);
  m.base = FileInfo{base, seq, FileType::kBase};
  m.base_seq = seq;
  if (st.mode == Mode::kWaitRewrite) {
    m.incr_seq++;
    m.incrs = {FileInfo{new_incr, m.incr_seq, FileType::kIncr}};
  }
  std::string err;
  if (!persistManifest(&err)) {
    LOG_WARNING("%s", err.c_str());
    st.manifest = before;
    unlink(pathOf(base).c_str());
    if (!temp_incr.empty()) rename(pathOf(new_incr).c_str(), pathOf(temp_incr).c_str());
    return false;
  }
  if (st.mode == Mode::kWaitRewrite) {
    st.mode = Mode::kOn;
    LOG_NOTICE("Background AOF rewrite finished successfully (AOF is now on)");
  }
  uint64_t incr = m.incrs.empty() ? 0 : sizeOf(pathOf(m.incrs.back().name));
  st.current_size = sizeOf(pathOf(base)) + incr;
  st.base_size = st.current_size;
  st.last_incr_size = incr;
  return true;
}

}  // namespace

bool startRewrite(std::string* err) {
  State& st = state();
  // Whatever is buffered belongs to the incr file being closed.
  flush(true);
  if (st.mode != Mode::kOff && !openNewIncr("background rewrite")) {
    *err = "Can't open new incr AOF for append";
    rewriteFailed();
    return false;
  }
  int64_t t0 = monoMs();
  pid_t pid = forkChild(ChildKind::kAof, "redis-aof-rewrite");
  if (pid == 0) childMain();
  if (pid < 0) {
    *err = std::string("Can't rewrite append only file in background: fork: ") + strerror(errno);
    LOG_WARNING("%s", err->c_str());
    rewriteFailed();
    return false;
  }
  st.child_pid = pid;
  st.rewrite_start_ms = t0;
  st.rewrite_scheduled = false;
  LOG_NOTICE("Background append only file rewriting started by pid %d", static_cast<int>(pid));
  return true;
}

void checkRewriteChild() {
  State& st = state();
  if (st.child_pid <= 0) return;
  pollChildInfo();  // current_cow_size and friends
  int status;
  pid_t r = waitpid(st.child_pid, &status, WNOHANG);
  if (r != st.child_pid) return;
  pid_t pid = st.child_pid;
  st.child_pid = -1;
  childReaped();
  st.last_rewrite_time_sec = (monoMs() - st.rewrite_start_ms) / 1000;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    LOG_NOTICE("Background AOF rewrite terminated with success");
    flush(true);
    if (installNewBase(pid)) {
      LOG_NOTICE("Background AOF rewrite finished successfully");
      st.last_bgrewrite_ok = true;
      st.consecutive_failures = 0;
      st.rewrites++;
      deleteHistoryFiles();
      return;
    }
    rewriteFailed();
    return;
  }
  unlink(childTempName(pid).c_str());
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    LOG_WARNING("Background AOF rewrite terminated by signal %d", sig);
    // SIGUSR1: stopped on purpose (appendonly no, shutdown): not an error.
    if (sig == SIGUSR1) return;
  } else {
    LOG_WARNING("Background AOF rewrite terminated with error");
  }
  rewriteFailed();
}

void killRewriteChild() {
  State& st = state();
  if (st.child_pid <= 0) return;
  LOG_NOTICE("Killing running AOF rewrite child: %d", static_cast<int>(st.child_pid));
  kill(st.child_pid, SIGUSR1);
  int status;
  waitpid(st.child_pid, &status, 0);
  unlink(childTempName(st.child_pid).c_str());
  childReaped();
  st.child_pid = -1;
}

bool createBaseAtStart() {
  State& st = state();
  const server::Config& c = server::g_server->config;
  st.manifest = Manifest();
  bool rdb = c.aof_use_rdb_preamble;
  std::string base = baseName(c.appendfilename, 1, rdb);
  if (mkdir(dirName().c_str(), 0755) != 0 && errno != EEXIST) {
    LOG_WARNING("Can't create the append-only directory %s: %s", dirName().c_str(),
                strerror(errno));
    return false;
  }
  std::string err;
  if (!writeBaseFile(pathOf(base), rdb, &err)) {
    LOG_WARNING("%s", err.c_str());
    return false;
  }
  LOG_NOTICE("Creating AOF base file %s on server start", base.c_str());
  st.manifest.base = FileInfo{base, 1, FileType::kBase};
  st.manifest.base_seq = 1;
  if (!openNewIncr("server start")) return false;
  st.current_size = sizeOf(pathOf(base));
  st.base_size = st.current_size;
  return true;
}

}  // namespace server::persist::aof
