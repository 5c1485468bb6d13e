// --lru-test <keys>: a cache workload to watch eviction at work. Each second
// of work alternates pipelines of 250 SETs and 250 GETs on keys drawn from
// <keys> names with an 80/20 power-law skew, then prints the GET hit rate.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "cli/modes/modes.h"
#include "event/event_loop.h"

namespace cli::modes {

namespace {

constexpr int kPipeline = 250;
constexpr int64_t kCycleMs = 1000;
// With this exponent 20% of the names get about 80% of the draws.
constexpr double kAlpha = 6.2;

struct Counts {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t pending = 0;
  bool failed = false;
};

}  // namespace

int lruTestMode(Session* s) {
  const int64_t keys = s->options().lru_test_keys;
  std::mt19937_64 gen(std::random_device{}());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double lo = std::pow(1.0, kAlpha + 1);
  const double hi = std::pow(static_cast<double>(keys + 1), kAlpha + 1);
  auto pick = [&]() {
    double pl = std::pow((hi - lo) * unit(gen) + lo, 1.0 / (kAlpha + 1));
    int64_t n = keys - static_cast<int64_t>(pl) + 1;
    if (n < 1) n = 1;
    return "lru:" + std::to_string(n);
  };
  client::Client& c = s->client();
  for (;;) {
    Counts counts;
    int64_t start = event::EventLoop::nowMs();
    while (event::EventLoop::nowMs() - start < kCycleMs) {
      for (int j = 0; j < kPipeline; j++) {
        counts.pending++;
        c.command({"SET", pick(), "val"}, [&counts](resp::Reply* r) {
          counts.pending--;
          if (r == nullptr) counts.failed = true;
        });
      }
      for (int j = 0; j < kPipeline; j++) {
        counts.pending++;
        c.command({"GET", pick()}, [&counts](resp::Reply* r) {
          counts.pending--;
          if (r == nullptr) {
            counts.failed = true;
          } else if (r->isError()) {
            printf("%s\n", r->str.c_str());
          } else if (r->type == resp::ReplyType::kNil) {
            counts.misses++;
          } else {
            counts.hits++;
          }
        });
      }
      c.waitUntil([&counts] { return counts.pending == 0; }, 0);
      if (counts.failed || counts.pending != 0) {
        fprintf(stderr, "I/O error during LRU test\n");
        return 1;
      }
    }
    int64_t gets = counts.hits + counts.misses;
    double denom = gets > 0 ? static_cast<double>(gets) : 1.0;
    printf("%lld Gets/sec | Hits: %lld (%.2f%%) | Misses: %lld (%.2f%%)\n",
           static_cast<long long>(gets), static_cast<long long>(counts.hits),
           100.0 * static_cast<double>(counts.hits) / denom, static_cast<long long>(counts.misses),
           100.0 * static_cast<double>(counts.misses) / denom);
    fflush(stdout);
  }
}

}  // namespace cli::modes
