// Output of redis-benchmark results in the three layouts of redis-benchmark
// 7.0: the full report, -q one-liners and --csv.
#pragma once

#include <optional>
#include <string>

#include "bench/options.h"
#include "bench/runner.h"

namespace bench {

// What the server says about persistence, shown in the full report.
struct ServerConfig {
  std::optional<std::string> save;
  std::optional<std::string> appendonly;
};

// Prints the CSV header line (once, before the first result).
void printCsvHeader();
void printResult(const Options& opt, const ServerConfig& cfg, const TestResult& r);

}  // namespace bench
