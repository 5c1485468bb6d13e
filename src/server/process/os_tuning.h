// Process settings the kernel holds, as Redis 7.0 applies them:
// oom-score-adj / oom-score-adj-values (/proc/self/oom_score_adj),
// disable-thp (prctl PR_SET_THP_DISABLE) and server_cpulist
// (sched_setaffinity).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace server {
struct Config;
}

namespace server::process {

// The classes of oom-score-adj-values, in its order. A forked child (a
// background save) applies kOomBgChild in the child.
enum OomClass { kOomMaster = 0, kOomReplica = 1, kOomBgChild = 2 };

// mode: "no" (leave the score alone; after a change, restore the score the
// process had before), "yes"/"relative" (values[cls] added to that score)
// or "absolute" (values[cls] as is). Results are clamped to -1000..1000.
// Returns false (logged) if /proc/self/oom_score_adj cannot be read or
// written, e.g. lowering the score without CAP_SYS_RESOURCE.
bool applyOomScoreAdj(const std::string& mode, const int64_t values[3], OomClass cls);
// The same for the server process itself, with its class as Redis picks it:
// kOomReplica while it replicates from a master (cfg.replicaof set),
// kOomMaster otherwise. Called at start, on CONFIG SET and on REPLICAOF.
bool applyServerOomScoreAdj(const Config& cfg);

// True when the kernel gives every process transparent huge pages
// (/sys/kernel/mm/transparent_hugepage/enabled is "always").
bool thpAlways();
// prctl(PR_SET_THP_DISABLE) when thpAlways(): transparent huge pages off
// for this process (fork's copy-on-write then copies 4 KiB pages, not
// 2 MiB ones). Logs a warning on failure.
void disableTransparentHugePages();

// Parses a Redis cpu list ("0-3,8,10-15:2": single cpus, ranges, ranges
// with a stride) into the cpus it names. False on a malformed list.
bool parseCpuList(const std::string& list, std::string* err, std::vector<int>* cpus);
// Pins the calling thread (threads it starts later inherit it) to the
// list's cpus; logs a warning when the list is bad or the call fails.
void setCpuAffinity(const std::string& list);

}  // namespace server::process
