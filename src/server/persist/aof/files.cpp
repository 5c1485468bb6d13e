// The files of appenddirname: the manifest on disk, opening the incr file
// appended to, retiring history files.
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "server/core/state.h"
#include "server/persist/aof/state.h"
#include "server/persist/snapshot.h"

namespace server::persist::aof {

State& state() {
  static State s;
  return s;
}

int64_t monoMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::string dirName() {
  return server::g_server->config.appenddirname;
}

std::string pathOf(const std::string& name) {
  return dirName() + "/" + name;
}

bool anyChild() {
  return state().child_pid > 0 || persist::state().child_pid > 0;
}

bool persistManifest(std::string* err) {
  const std::string& fname = server::g_server->config.appendfilename;
  if (mkdir(dirName().c_str(), 0755) != 0 && errno != EEXIST) {
    *err = "Can't create the AOF directory " + dirName() + ": " + strerror(errno);
    return false;
  }
  return writeFileAtomically(dirName(), manifestName(fname), state().manifest.format(), err);
}

bool openNewIncr(const char* why) {
  State& st = state();
  const std::string& fname = server::g_server->config.appendfilename;
  if (mkdir(dirName().c_str(), 0755) != 0 && errno != EEXIST) {
    LOG_WARNING("Can't create the append-only directory %s: %s", dirName().c_str(),
                strerror(errno));
    return false;
  }
  bool temp = st.mode == Mode::kWaitRewrite;
  std::string name = temp ? tempIncrName(fname) : incrName(fname, st.manifest.incr_seq + 1);
  std::string path = pathOf(name);
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (temp ? O_TRUNC : O_APPEND);
  int fd = open(path.c_str(), flags, 0644);
  if (fd < 0) {
    LOG_WARNING("Can't open the append-only file %s: %s", name.c_str(), strerror(errno));
    return false;
  }
  if (!temp) {
    Manifest before = st.manifest;
    st.manifest.incr_seq++;
    st.manifest.incrs.push_back({name, st.manifest.incr_seq, FileType::kIncr});
    std::string err;
    if (!persistManifest(&err)) {
      LOG_WARNING("%s", err.c_str());
      st.manifest = before;
      close(fd);
      unlink(path.c_str());
      return false;
    }
  }
  if (why != nullptr) LOG_NOTICE("Creating AOF incr file %s on %s", name.c_str(), why);
  closeInBackground(st.fd);
  st.fd = fd;
  st.selected_db = -1;  // the new file starts with a SELECT
  st.last_incr_size = 0;
  return true;
}

void deleteHistoryFiles() {
  State& st = state();
  if (st.manifest.history.empty() || server::g_server->config.aof_disable_auto_gc) return;
  std::vector<FileInfo> gone = std::move(st.manifest.history);
  st.manifest.history.clear();
  std::string err;
  if (!persistManifest(&err)) {
    LOG_WARNING("%s", err.c_str());
    st.manifest.history = std::move(gone);
    return;
  }
  for (const FileInfo& f : gone) {
    LOG_NOTICE("Removing the history file %s in the background", f.name.c_str());
    unlinkInBackground(pathOf(f.name));
  }
}

}  // namespace server::persist::aof
