// Background children (BGSAVE, AOF rewrite): forking one and the reports
// it sends back, as Redis 7.0 keeps them for INFO.
//
// The child measures its copy-on-write memory (Private_Dirty of
// /proc/self/smaps_rollup: pages it shares no longer with the parent) and
// the keys it has written, and sends both over a pipe: about once a second
// while it works (ChildProgress::keyDone) and once when done
// (ChildProgress::finished). The parent drains the pipe from its cron
// (pollChildInfo) and once more when it reaps the child (childReaped), and
// shows:
//   INFO persistence  current_cow_peak, current_cow_size,
//                     current_cow_size_age, current_fork_perc,
//                     current_save_keys_processed, current_save_keys_total
//                     (zero when no child runs), rdb_last_cow_size,
//                     aof_last_cow_size (lastCowSize)
//   INFO stats        latest_fork_usec, total_forks
//
// Only one background child runs at a time (the callers see to it), so one
// pipe serves every kind. From forkChild() to childReaped() the hash tables
// neither grow (below 5 entries a bucket) nor shrink nor rehash from the
// cron (common::g_dict_avoid_resize), as in Redis: that would copy every
// page the child shares.
//
// Usage, in a module that forks:
//   pid_t pid = forkChild(ChildKind::kAof, "redis-aof-rewrite");
//   if (pid == 0) {                       // child
//     ChildProgress progress(ChildKind::kAof);
//     ... progress.keyDone() per key ...  // or SaveOptions::progress
//     if (ok) progress.finished();
//     _exit(ok ? 0 : 1);
//   }
//   ... later, after waitpid() returned it: childReaped();
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace server::persist {

enum class ChildKind : uint8_t { kRdb = 0, kAof = 1 };

// Forks. In the parent: the child's pid (fork time and count recorded,
// current_save_keys_total set to the keys held now), or -1 with errno set.
// In the child: 0, with the log role set to 'C', the process named
// proc_name and oom-score-adj applied for background children; the caller
// then does its work and leaves with _exit().
pid_t forkChild(ChildKind kind, const char* proc_name);

// Parent: reads the reports the child has sent so far (non-blocking).
void pollChildInfo();
// Parent: the child has been reaped (any outcome, also when killed): reads
// its last reports, closes the pipe and zeroes the current_* figures.
void childReaped();

// Copy-on-write bytes the last child of this kind reported when it finished
// successfully (rdb_last_cow_size, aof_last_cow_size).
uint64_t lastCowSize(ChildKind kind);
// The six current_* lines of INFO persistence.
void appendInfoCurrentChild(std::string* o);
// latest_fork_usec and total_forks for INFO stats.
void appendInfoForkFigures(std::string* o);

// Private_Dirty bytes of this process (/proc/self/smaps_rollup, else the
// sum over /proc/self/smaps); 0 when neither can be read.
uint64_t privateDirtyBytes();

// Child side: progress reports to the parent. Create one in the child after
// forkChild(); without a pipe (not a forked child) it reports nothing.
class ChildProgress {
 public:
  explicit ChildProgress(ChildKind kind);
  // One more key written. Every so many keys (every key while the writer
  // is slowed down on purpose) it checks the clock, and a second after the
  // last report sends a new one with a fresh copy-on-write reading.
  void keyDone();
  // Call when the job succeeded: measures once more, logs "Fork CoW for
  // RDB: current N MB, peak N MB, average N MB" and sends the final size.
  void finished();
  // Check the clock on every key (rdb-key-save-delay makes keys slow).
  void setEveryKey(bool on) { every_key_ = on; }
  uint64_t keys() const { return keys_; }

 private:
  void measure(bool final_report);
  void send(bool final_report);

  ChildKind kind_;
  const char* name_;
  bool every_key_ = false;
  uint64_t keys_ = 0;
  int64_t last_sent_us_ = 0;
  // Copy-on-write readings: reading smaps costs time in proportion to the
  // process size, so a new reading waits kCostFactor times what the last
  // one took.
  uint64_t cow_ = 0;
  uint64_t peak_ = 0;
  uint64_t sum_ = 0;
  uint64_t readings_ = 0;
  int64_t cow_at_us_ = 0;
  int64_t cow_cost_us_ = 0;
};

}  // namespace server::persist
