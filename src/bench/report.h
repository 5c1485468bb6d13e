// Output of redis-benchmark results in the three layouts of redis-benchmark
// 7.0: the full report, -q one-liners and --csv.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/options.h"
#include "bench/runner.h"

namespace bench {

// What the server says about persistence, shown in the full report.
struct ServerConfig {
  std::optional<std::string> save;
  std::optional<std::string> appendonly;
  bool fetched() const { return save || appendonly; }
};

// Prints the CSV header line (once, before the first result).
void printCsvHeader();
// cfgs: the server's configuration, or with --cluster one per master.
void printResult(const Options& opt, const std::vector<ServerConfig>& cfgs, const TestResult& r);

}  // namespace bench
