#include "bench/report.h"

#include <cstdio>

namespace bench {

namespace {

// Latencies are recorded in microseconds and printed in milliseconds.
double ms(uint64_t us) {
  return static_cast<double>(us) / 1000.0;
}

double rps(const TestResult& r) {
  return r.seconds > 0 ? static_cast<double>(r.requests) / r.seconds : 0;
}

// "Latency by percentile distribution": the percentile ladder 0, 50, 75,
// 87.5, ... (halving the distance to 100 each step) until every value is
// covered, then 100%.
void printPercentiles(const Histogram& h, int prec) {
  printf("Latency by percentile distribution:\n");
  const uint64_t total = h.count();
  double level = 0;
  for (int step = 0; step < 64; step++) {
    uint64_t v = step == 0 ? h.min() : h.valueAtPercentile(level);
    uint64_t cum = h.countAtOrBelow(v);
    printf("%.3f%% <= %.*f milliseconds (cumulative count %llu)\n", level, prec, ms(v),
           static_cast<unsigned long long>(cum));
    if (cum >= total) break;
    level = 100.0 - (100.0 - level) / 2;
  }
  printf("%.3f%% <= %.*f milliseconds (cumulative count %llu)\n", 100.0, prec, ms(h.max()),
         static_cast<unsigned long long>(total));
}

// "Cumulative distribution of latencies": steps of 0.1 ms up to 2 ms, then
// of 1 ms; a row only where the step adds values, until all are counted.
void printCumulative(const Histogram& h, int prec) {
  printf("Cumulative distribution of latencies:\n");
  const uint64_t total = h.count();
  uint64_t last = 0;
  uint64_t bound = 100;
  while (true) {
    uint64_t cum = h.countAtOrBelow(bound);
    if (cum > last) {
      printf("%.3f%% <= %.*f milliseconds (cumulative count %llu)\n",
             100.0 * static_cast<double>(cum) / static_cast<double>(total), prec, ms(bound),
             static_cast<unsigned long long>(cum));
      last = cum;
    }
    if (cum >= total) break;
    bound += bound < 2000 ? 100 : 1000;
    // Sparse tails (seconds) would print a row per millisecond: jump ahead
    // to the next recorded value instead.
    if (bound >= 2000 && h.countAtOrBelow(bound) == cum) {
      uint64_t next =
          h.valueAtPercentile(100.0 * static_cast<double>(cum + 1) / static_cast<double>(total));
      if (next > bound) bound += (next - bound + 999) / 1000 * 1000;
    }
  }
}

void printFull(const Options& opt, const std::vector<ServerConfig>& cfgs, const TestResult& r) {
  const Histogram& h = r.latency_us;
  const int prec = opt.precision;
  printf("====== %s ======\n", r.title.c_str());
  printf("  %lld requests completed in %.2f seconds\n", r.requests, r.seconds);
  printf("  %d parallel clients\n", opt.clients);
  printf("  %d bytes payload\n", opt.data_size);
  printf("  keep alive: %d\n", opt.keepalive ? 1 : 0);
  if (opt.cluster) {
    printf("  cluster mode: yes (%zu masters)\n", cfgs.size());
    for (size_t m = 0; m < cfgs.size(); m++) {
      const ServerConfig& c = cfgs[m];
      if (!c.fetched()) continue;
      printf("  node [%zu] configuration:\n", m);
      printf("    save: %s\n", c.save && !c.save->empty() ? c.save->c_str() : "NONE");
      printf("    appendonly: %s\n", c.appendonly ? c.appendonly->c_str() : "");
    }
  } else if (!cfgs.empty()) {
    const ServerConfig& cfg = cfgs.front();
    if (cfg.save) printf("  host configuration \"save\": %s\n", cfg.save->c_str());
    if (cfg.appendonly) {
      printf("  host configuration \"appendonly\": %s\n", cfg.appendonly->c_str());
    }
  }
  if (opt.threads > 0) {
    printf("  multi-thread: yes\n  threads: %d\n", opt.threads);
  } else {
    printf("  multi-thread: no\n");
  }
  if (r.errors > 0) printf("  %llu error replies\n", static_cast<unsigned long long>(r.errors));
  printf("\n");
  if (h.count() > 0) {
    printPercentiles(h, prec);
    printf("\n");
    printCumulative(h, prec);
    printf("\n");
  }
  printf("Summary:\n");
  printf("  throughput summary: %.2f requests per second\n", rps(r));
  printf("  latency summary (msec):\n");
  printf("    %9s %9s %9s %9s %9s %9s\n", "avg", "min", "p50", "p95", "p99", "max");
  printf("    %9.*f %9.*f %9.*f %9.*f %9.*f %9.*f\n", prec, h.mean() / 1000.0, prec, ms(h.min()),
         prec, ms(h.valueAtPercentile(50)), prec, ms(h.valueAtPercentile(95)), prec,
         ms(h.valueAtPercentile(99)), prec, ms(h.max()));
  printf("\n");
}

}  // namespace

void printCsvHeader() {
  printf(
      "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
      "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n");
}

void printResult(const Options& opt, const std::vector<ServerConfig>& cfgs, const TestResult& r) {
  const Histogram& h = r.latency_us;
  if (opt.csv) {
    // CSV keeps three decimals whatever --precision says, like 7.0.
    printf("\"%s\",\"%.2f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\"\n",
           r.title.c_str(), rps(r), h.mean() / 1000.0, ms(h.min()), ms(h.valueAtPercentile(50)),
           ms(h.valueAtPercentile(95)), ms(h.valueAtPercentile(99)), ms(h.max()));
  } else if (opt.quiet) {
    printf("%s: %.2f requests per second, p50=%.*f msec\n", r.title.c_str(), rps(r), opt.precision,
           ms(h.valueAtPercentile(50)));
  } else {
    printFull(opt, cfgs, r);
  }
  fflush(stdout);
}

}  // namespace bench
