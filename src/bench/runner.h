// Runs one benchmark test: opens the clients (spread over --threads event
// loops, or all on one loop in the calling thread), keeps each one busy with
// pipelines of -P requests until -n replies have arrived, and records each
// reply's latency (from the write of its pipeline to its arrival, in
// microseconds) in a histogram.
//
// While a test runs, the calling thread redraws a progress line every
// 250 ms (unless --csv), like redis-benchmark 7.0.
#pragma once

#include <cstdint>
#include <string>

#include "bench/cluster.h"
#include "bench/histogram.h"
#include "bench/options.h"
#include "bench/workload.h"

namespace bench {

struct TestResult {
  std::string title;
  long long requests = 0;  // replies received and measured
  double seconds = 0;      // wall time of the whole test
  uint64_t errors = 0;     // error replies among them
  Histogram latency_us;
};

// The commands sent before the workload on every connection (HELLO 3,
// AUTH, SELECT), in RESP, and how many replies they produce.
struct Prelude {
  std::string bytes;
  int replies = 0;
};
Prelude buildPrelude(const Options& opt);

// Runs the test. On a fatal error (cannot connect, connection lost, error
// reply to AUTH/SELECT; in cluster mode an error reply that is no
// redirection) prints the reason to stderr and returns false. `cluster`
// (with --cluster) places each client on a master and gives its keys a tag.
bool runTest(const Options& opt, const Test& test, TestResult* result,
             ClusterMap* cluster = nullptr);

}  // namespace bench
