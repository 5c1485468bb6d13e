// The special working modes of redis-cli 7.0, over any connection type:
// --pipe, --scan, --bigkeys/--memkeys/--hotkeys, --stat, --latency,
// --latency-history, --latency-dist, --intrinsic-latency, --lru-test,
// --replica, --rdb, --functions-rdb.
// Each mode takes over after option parsing, prints what redis-cli 7.0
// prints, and returns the process exit status.
#pragma once

#include <optional>
#include <string>

#include "cli/session.h"

namespace cli::modes {

// Runs the mode the options select (redis-cli's precedence when several are
// given); nullopt when none is selected.
std::optional<int> runSelected(Session* session);

int pipeMode(Session* session);             // pipe.cpp
int scanMode(Session* session);             // scan.cpp
int bigKeysMode(Session* session);          // key_stats.cpp: element counts
int memKeysMode(Session* session);          // key_stats.cpp: MEMORY USAGE
int hotKeysMode(Session* session);          // key_stats.cpp: OBJECT FREQ
int statMode(Session* session);             // stat.cpp
int latencyMode(Session* session);          // latency.cpp (--latency, -history, -dist)
int intrinsicLatencyMode(int64_t seconds);  // latency.cpp; needs no server
int lruTestMode(Session* session);  // lru_workload.cpp (not *_test.cpp: that names unit tests)
int replicaMode(Session* session);  // sync.cpp: --replica
int rdbMode(Session* session);      // sync.cpp: --rdb, --functions-rdb
// sync.cpp: SYNC on a connected session, the payload written to `file`
// ("-": stdout), with --rdb's messages; no REPLCONF first (--cluster backup).
int saveRdb(Session* session, const std::string& file);

// Shared helpers (modes.cpp).
// Sleeps the -i interval (in microseconds) if one was given.
void sleepInterval(const Options& opt);
// Sends argv and waits for the reply; on a lost connection prints
// "Error: <why>" as redis-cli does and returns false.
bool callOrReport(Session* session, const std::vector<std::string>& argv, resp::Reply* reply);
// "1.09M"-style sizes, as redis-cli prints them.
std::string bytesToHuman(long double n);

}  // namespace cli::modes
