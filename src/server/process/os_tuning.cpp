#include "server/process/os_tuning.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "common/strutil.h"
#include "server/conf/config.h"

namespace server::process {

namespace {

const char kOomFile[] = "/proc/self/oom_score_adj";
bool g_oom_adjusted = false;  // we changed the score: `no` must restore it
int g_oom_base = 0;           // the score before we first changed it

bool readOomScore(int* out) {
  int fd = open(kOomFile, O_RDONLY);
  char buf[32] = {};
  if (fd == -1 || read(fd, buf, sizeof(buf) - 1) < 0) {
    LOG_WARNING("Unable to read oom_score_adj: %s", strerror(errno));
    if (fd != -1) close(fd);
    return false;
  }
  close(fd);
  *out = atoi(buf);
  return true;
}

bool writeOomScore(int value) {
  char buf[32];
  int n = snprintf(buf, sizeof(buf), "%d\n", value);
  int fd = open(kOomFile, O_WRONLY);
  if (fd == -1 || write(fd, buf, static_cast<size_t>(n)) < 0) {
    LOG_WARNING("Unable to write oom_score_adj: %s", strerror(errno));
    if (fd != -1) close(fd);
    return false;
  }
  close(fd);
  return true;
}

}  // namespace

bool applyOomScoreAdj(const std::string& mode, const int64_t values[3], OomClass cls) {
  if (mode == "no") {
    if (!g_oom_adjusted) return true;
    g_oom_adjusted = false;
    return writeOomScore(g_oom_base);
  }
  if (!g_oom_adjusted) {
    if (!readOomScore(&g_oom_base)) return false;
    g_oom_adjusted = true;
  }
  int64_t v = values[cls];
  if (mode != "absolute") v += g_oom_base;
  return writeOomScore(static_cast<int>(std::clamp<int64_t>(v, -1000, 1000)));
}

bool applyServerOomScoreAdj(const Config& cfg) {
  return applyOomScoreAdj(cfg.oom_score_adj, cfg.oom_score_adj_values,
                          cfg.replicaof.empty() ? kOomMaster : kOomReplica);
}

bool thpAlways() {
  FILE* f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (f == nullptr) return false;
  char buf[128] = {};
  bool always = fgets(buf, sizeof(buf), f) != nullptr && strstr(buf, "[always]") != nullptr;
  fclose(f);
  return always;
}

void disableTransparentHugePages() {
  // In "madvise" or "never" mode the kernel gives huge pages only to who
  // asks; Redis leaves those alone, and so do we.
  if (!thpAlways()) return;
  if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == -1) {
    LOG_WARNING("Unable to disable transparent huge pages for this process: %s", strerror(errno));
  }
}

bool parseCpuList(const std::string& list, std::string* err, std::vector<int>* cpus) {
  cpus->clear();
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    std::string item = list.substr(pos, comma - pos);
    int64_t a, b, stride = 1;
    size_t colon = item.find(':');
    if (colon != std::string::npos) {
      if (!common::strutil::parseInt64(item.substr(colon + 1), &stride) || stride < 1) {
        *err = "bad stride in cpu list item '" + item + "'";
        return false;
      }
      item.resize(colon);
    }
    size_t dash = item.find('-');
    bool ok;
    if (dash == std::string::npos) {
      ok = common::strutil::parseInt64(item, &a);
      b = a;
    } else {
      ok = common::strutil::parseInt64(item.substr(0, dash), &a) &&
           common::strutil::parseInt64(item.substr(dash + 1), &b);
    }
    if (!ok || a < 0 || b < a || b >= CPU_SETSIZE) {
      *err = "bad cpu list item '" + list.substr(pos, comma - pos) + "'";
      return false;
    }
    for (int64_t c = a; c <= b; c += stride) cpus->push_back(static_cast<int>(c));
    pos = comma + 1;
  }
  return !cpus->empty();
}

void setCpuAffinity(const std::string& list) {
  std::vector<int> cpus;
  std::string err;
  if (!parseCpuList(list, &err, &cpus)) {
    LOG_WARNING("server_cpulist '%s' ignored: %s", list.c_str(), err.c_str());
    return;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  if (sched_setaffinity(0, sizeof(set), &set) == -1) {
    LOG_WARNING("server_cpulist '%s' could not be applied: %s", list.c_str(), strerror(errno));
  }
}

}  // namespace server::process
