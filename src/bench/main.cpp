// redis-benchmark: a load generator compatible with Redis 7.0's
// redis-benchmark (options, tests, output layouts) over any of our
// connection types (tcp, unix, rdma). Event driven: many connections per
// event loop, one loop per --threads thread.
#include <signal.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "bench/cluster.h"
#include "bench/options.h"
#include "bench/report.h"
#include "bench/runner.h"
#include "bench/workload.h"
#include "client/client.h"

namespace {

constexpr int kConfigTimeoutMs = 2000;

// CONFIG GET save / appendonly for the report header; missing when the
// server does not answer them (then only a warning, like 7.0).
bench::ServerConfig fetchServerConfig(const bench::Options& opt, const client::Endpoint& ep) {
  bench::ServerConfig cfg;
  client::Client c;
  if (!c.connect(ep, kConfigTimeoutMs)) return cfg;
  resp::Reply r;
  if (opt.resp3 && (!c.call({"HELLO", "3"}, &r, kConfigTimeoutMs) || r.isError())) return cfg;
  if (opt.auth) {
    std::vector<std::string> argv = {"AUTH"};
    if (opt.user) argv.push_back(*opt.user);
    argv.push_back(*opt.auth);
    if (!c.call(argv, &r, kConfigTimeoutMs) || r.isError()) return cfg;
  }
  for (const char* name : {"save", "appendonly"}) {
    if (!c.call({"CONFIG", "GET", name}, &r, kConfigTimeoutMs) || !r.isAggregate() ||
        r.elements.size() < 2) {
      continue;
    }
    std::string value = r.elements[1].str;
    (std::string(name) == "save" ? cfg.save : cfg.appendonly) = value;
  }
  return cfg;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Options opt;
  switch (bench::parseOptions(argc, argv, &opt)) {
    case bench::ParseOutcome::kRun:
      break;
    case bench::ParseOutcome::kExitOk:
      return 0;
    case bench::ParseOutcome::kExitError:
      return 1;
  }
  if (opt.stdin_last_arg) {
    opt.command.emplace_back(std::istreambuf_iterator<char>(std::cin),
                             std::istreambuf_iterator<char>());
  }
  // A server that goes away must end the run with a message, not SIGPIPE.
  signal(SIGPIPE, SIG_IGN);

  std::vector<bench::Test> tests = bench::selectTests(opt);
  if (tests.empty()) {
    fprintf(stderr, "No test selected: see -t in --help for the test names.\n");
    return 1;
  }
  if (!opt.keepalive) {
    fprintf(stderr,
            "WARNING: keep alive is off (-k 0): every pipeline opens a new connection, and\n"
            "many short-lived TCP connections can exhaust local ports (TIME_WAIT); Linux\n"
            "reuses them sooner with net.ipv4.tcp_tw_reuse=1.\n");
  }
  std::vector<bench::ServerConfig> cfgs;
  bench::ClusterMap cluster;
  if (opt.cluster) {
    // The masters, each with its configuration, before the first test.
    if (!cluster.load(opt)) return 1;
    printf("Cluster has %zu master nodes:\n\n", cluster.size());
    for (size_t i = 0; i < cluster.size(); i++) {
      printf("%s\n", cluster.describe(i).c_str());
      cfgs.push_back(fetchServerConfig(opt, cluster.endpoint(i)));
      if (!cfgs.back().fetched()) {
        fprintf(stderr, "WARNING: Could not fetch node CONFIG %s\n",
                client::describe(cluster.endpoint(i)).c_str());
      }
    }
    printf("\n");
    fflush(stdout);
    if (opt.threads == 0) opt.threads = static_cast<int>(cluster.size());
  } else if (!opt.quiet && !opt.csv) {
    cfgs.push_back(fetchServerConfig(opt, opt.endpoint));
    if (!cfgs.back().fetched()) fprintf(stderr, "WARNING: Could not fetch server CONFIG\n");
  }
  if (opt.csv) bench::printCsvHeader();
  do {
    for (const auto& t : tests) {
      bench::TestResult result;
      if (!bench::runTest(opt, t, &result, opt.cluster ? &cluster : nullptr)) return 1;
      bench::printResult(opt, cfgs, result);
    }
  } while (opt.loop);
  return 0;
}
