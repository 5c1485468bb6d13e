// Forking background children and carrying their progress reports back to
// the parent (see child_info.h for the INFO fields they feed).
#include "server/persist/child_info.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/dict.h"
#include "common/log.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"
#include "server/process/os_tuning.h"

namespace server::persist {

namespace {

// How often the child checks the clock when keys are not slowed down: a
// clock read per key would cost more than the report.
constexpr uint64_t kKeysPerClockCheck = 1024;
constexpr int64_t kReportEveryUs = 1000000;
// A copy-on-write reading may take at most 1% of the child's time.
constexpr int64_t kCostFactor = 100;

// One report, written with one write() (below PIPE_BUF, so never split).
struct Report {
  uint8_t final_report;  // 1: the job's last report (the final size)
  uint8_t kind;          // ChildKind
  uint8_t pad[6];
  uint64_t keys;      // keys written so far
  uint64_t cow;       // copy-on-write bytes at the last reading
  int64_t cow_at_us;  // CLOCK_MONOTONIC of that reading (shared clock)
};
static_assert(sizeof(Report) == 32, "child report size changed");

struct ParentState {
  int pipe_r = -1;
  ChildKind kind = ChildKind::kRdb;  // of the running child
  uint64_t cow_peak = 0;
  uint64_t cow_size = 0;
  int64_t cow_at_us = 0;
  uint64_t keys_processed = 0;
  uint64_t keys_total = 0;
  uint64_t last_cow[2] = {0, 0};
  int64_t latest_fork_usec = 0;
  uint64_t total_forks = 0;
};

ParentState& parent() {
  static ParentState s;
  return s;
}

// The write end, in a forked child only.
int g_child_pipe_w = -1;

int64_t monoUs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

const char* kindName(ChildKind k) {
  return k == ChildKind::kAof ? "AOF rewrite" : "RDB";
}

void resetCurrent(ParentState& p) {
  p.cow_peak = 0;
  p.cow_size = 0;
  p.cow_at_us = 0;
  p.keys_processed = 0;
  p.keys_total = 0;
}

void apply(ParentState& p, const Report& r) {
  if (r.kind != static_cast<uint8_t>(p.kind)) return;  // not from this child
  if (r.final_report) {
    p.last_cow[r.kind] = r.cow;
    return;
  }
  p.cow_size = r.cow;
  p.cow_peak = std::max(p.cow_peak, r.cow);
  p.cow_at_us = r.cow_at_us;
  p.keys_processed = r.keys;
}

}  // namespace

pid_t forkChild(ChildKind kind, const char* proc_name) {
  ParentState& st = parent();
  int p[2];
  bool have_pipe = pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0;
  uint64_t total = 0;
  for (auto& d : server::g_server->dbs) total += d->size();
  int64_t t0 = monoUs();
  fflush(nullptr);  // nothing buffered may be written twice
  pid_t parent_pid = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    // A child whose parent is gone (killed) has no one to hand its work
    // to: it dies with it, also if that happened before this line.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent_pid) _exit(1);
    common::logging::setRole('C');
    prctl(PR_SET_NAME, proc_name);
    if (have_pipe) {
      close(p[0]);
      g_child_pipe_w = p[1];
    }
    // oom-score-adj's value for background children (ignored on failure,
    // as Redis does in its children).
    const server::Config& c = server::g_server->config;
    server::process::applyOomScoreAdj(c.oom_score_adj, c.oom_score_adj_values,
                                      server::process::kOomBgChild);
    return 0;
  }
  if (have_pipe) close(p[1]);
  if (pid < 0) {
    int saved = errno;
    if (have_pipe) close(p[0]);
    errno = saved;
    return -1;
  }
  st.latest_fork_usec = monoUs() - t0;
  st.total_forks++;
  common::g_dict_avoid_resize = true;    // until childReaped()
  if (st.pipe_r >= 0) close(st.pipe_r);  // a previous child not reaped through us
  st.pipe_r = have_pipe ? p[0] : -1;
  st.kind = kind;
  resetCurrent(st);
  st.keys_total = total;
  return pid;
}

void pollChildInfo() {
  ParentState& st = parent();
  if (st.pipe_r < 0) return;
  Report r;
  for (;;) {
    ssize_t n = read(st.pipe_r, &r, sizeof(r));
    if (n == static_cast<ssize_t>(sizeof(r))) {
      apply(st, r);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // drained (EAGAIN), closed, or a short read (not ours: ignored)
  }
}

void childReaped() {
  ParentState& st = parent();
  pollChildInfo();
  if (st.pipe_r >= 0) close(st.pipe_r);
  st.pipe_r = -1;
  resetCurrent(st);
  common::g_dict_avoid_resize = false;
}

uint64_t lastCowSize(ChildKind kind) {
  return parent().last_cow[static_cast<int>(kind)];
}

void appendInfoCurrentChild(std::string* o) {
  ParentState& st = parent();
  int64_t age_s = st.cow_at_us > 0 ? (monoUs() - st.cow_at_us) / 1000000 : 0;
  double perc = st.keys_total > 0 ? 100.0 * static_cast<double>(st.keys_processed) /
                                        static_cast<double>(st.keys_total)
                                  : 0.0;
  server::appendFormat(o,
                       "current_cow_peak:%llu\r\ncurrent_cow_size:%llu\r\n"
                       "current_cow_size_age:%lld\r\ncurrent_fork_perc:%.2f\r\n"
                       "current_save_keys_processed:%llu\r\ncurrent_save_keys_total:%llu\r\n",
                       static_cast<unsigned long long>(st.cow_peak),
                       static_cast<unsigned long long>(st.cow_size),
                       static_cast<long long>(std::max<int64_t>(age_s, 0)), perc,
                       static_cast<unsigned long long>(st.keys_processed),
                       static_cast<unsigned long long>(st.keys_total));
}

void appendInfoForkFigures(std::string* o) {
  server::appendFormat(o, "latest_fork_usec:%lld\r\ntotal_forks:%llu\r\n",
                       static_cast<long long>(parent().latest_fork_usec),
                       static_cast<unsigned long long>(parent().total_forks));
}

uint64_t privateDirtyBytes() {
  // smaps_rollup (Linux 4.14+) is one summary; smaps lists every mapping
  // and the same field is summed over them.
  FILE* f = fopen("/proc/self/smaps_rollup", "re");
  if (f == nullptr) f = fopen("/proc/self/smaps", "re");
  if (f == nullptr) return 0;
  char line[256];
  uint64_t total = 0;
  while (fgets(line, sizeof(line), f)) {
    unsigned long long kb;
    if (line[0] == 'P' && sscanf(line, "Private_Dirty: %llu kB", &kb) == 1) total += kb * 1024;
  }
  fclose(f);
  return total;
}

// ------------------------------------------------------------ child side

ChildProgress::ChildProgress(ChildKind kind) : kind_(kind), name_(kindName(kind)) {}

void ChildProgress::keyDone() {
  // The first key reports at once (the parent then sees the child alive).
  if (keys_++ % kKeysPerClockCheck != 0 && !every_key_) return;
  if (g_child_pipe_w < 0) return;
  int64_t now = monoUs();
  if (last_sent_us_ != 0 && now - last_sent_us_ < kReportEveryUs) return;
  last_sent_us_ = now;
  measure(false);
  send(false);
}

void ChildProgress::finished() {
  measure(true);
  send(true);
}

void ChildProgress::measure(bool final_report) {
  int64_t start = monoUs();
  if (!final_report && readings_ > 0 && start - cow_at_us_ <= cow_cost_us_ * kCostFactor) return;
  cow_ = privateDirtyBytes();
  cow_at_us_ = monoUs();
  cow_cost_us_ = cow_at_us_ - start;
  peak_ = std::max(peak_, cow_);
  sum_ += cow_;
  readings_++;
  // Redis logs every reading that found copied pages at verbose level, and
  // the final one always.
  if (final_report || cow_ > 0) {
    LOG_AT(final_report ? common::logging::kNotice : common::logging::kVerbose,
           "Fork CoW for %s: current %llu MB, peak %llu MB, average %llu MB", name_,
           static_cast<unsigned long long>(cow_ >> 20),
           static_cast<unsigned long long>(peak_ >> 20),
           static_cast<unsigned long long>((sum_ / readings_) >> 20));
  }
}

void ChildProgress::send(bool final_report) {
  if (g_child_pipe_w < 0) return;
  Report r;
  memset(&r, 0, sizeof(r));
  r.final_report = final_report ? 1 : 0;
  r.kind = static_cast<uint8_t>(kind_);
  r.keys = keys_;
  r.cow = cow_;
  r.cow_at_us = cow_at_us_;
  // Non-blocking: with the parent not reading, a report is dropped rather
  // than stalling the job.
  ssize_t w = write(g_child_pipe_w, &r, sizeof(r));
  (void)w;
}

}  // namespace server::persist
