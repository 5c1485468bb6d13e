// --latency, --latency-history, --latency-dist and --intrinsic-latency.
// The first three time PING round trips over the connection in use (so over
// RDMA they measure RDMA round trips; --busy-poll-us makes the client poll
// instead of sleeping for the reply), one sample every 10 ms, and print what
// redis-cli 7.0 prints: min/max/avg in whole milliseconds, or for -dist a
// spectrum with 10 us resolution on a 256-colour terminal.
// --intrinsic-latency measures how long this process is kept off the CPU.
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>

#include "cli/modes/modes.h"
#include "event/event_loop.h"

namespace cli::modes {

namespace {

constexpr int64_t kSampleEveryUs = 10 * 1000;
constexpr int64_t kDefaultLatencyMs = 1000;  // non-interactive --latency run
constexpr int64_t kDefaultHistoryMs = 15000;
constexpr int64_t kDefaultDistMs = 1000;
constexpr int kLegendEvery = 20;

volatile sig_atomic_t g_stop = 0;

void onInterrupt(int) {
  g_stop = 1;
}

// One PING round trip in microseconds; -1 when the connection is lost.
int64_t pingUs(Session* s) {
  resp::Reply r;
  int64_t start = event::EventLoop::nowUs();
  if (!s->client().connected() || !s->client().call({"PING"}, &r)) return -1;
  return event::EventLoop::nowUs() - start;
}

int ioError() {
  fprintf(stderr, "\nI/O error\n");
  return 1;
}

// The spectrum buckets: upper bound in us (0: everything above) and glyph.
struct Bucket {
  int64_t max_us;
  char glyph;
};
constexpr std::array<Bucket, 31> kBuckets = {{
    {10, '.'},      {125, '-'},     {250, '*'},      {500, '#'},      {1000, '1'},
    {2000, '2'},    {3000, '3'},    {4000, '4'},     {5000, '5'},     {6000, '6'},
    {7000, '7'},    {8000, '8'},    {9000, '9'},     {10000, 'A'},    {20000, 'B'},
    {30000, 'C'},   {40000, 'D'},   {50000, 'E'},    {100000, 'F'},   {200000, 'G'},
    {300000, 'H'},  {400000, 'I'},  {500000, 'J'},   {1000000, 'K'},  {2000000, 'L'},
    {4000000, 'M'}, {8000000, 'N'}, {16000000, 'O'}, {30000000, 'P'}, {60000000, 'Q'},
    {0, '?'},
}};
constexpr std::array<int, 19> kPalette = {0,   233, 234, 235, 237, 239, 241, 243, 245, 247,
                                          144, 143, 142, 184, 226, 214, 208, 202, 196};

void printLegend() {
  printf("---------------------------------------------\n");
  printf(". - * #          .01 .125 .25 .5 milliseconds\n");
  printf("1,2,3,...,9      from 1 to 9     milliseconds\n");
  printf("A,B,C,D,E        10,20,30,40,50  milliseconds\n");
  printf("F,G,H,I,J        .1,.2,.3,.4,.5       seconds\n");
  printf("K,L,M,N,O,P,Q,?  1,2,4,8,16,30,60,>60 seconds\n");
  printf("From 0 to 100%%: ");
  for (int c : kPalette) printf("\033[48;5;%dm ", c);
  printf("\033[0m\n");
  printf("---------------------------------------------\n");
}

int latencyDist(Session* s, int64_t interval_ms) {
  std::array<int64_t, kBuckets.size()> counts{};
  int64_t total = 0;
  int outputs = 0;
  int64_t window_start = event::EventLoop::nowUs();
  while (!g_stop) {
    int64_t us = pingUs(s);
    if (us < 0) return ioError();
    size_t b = 0;
    while (kBuckets[b].max_us != 0 && us > kBuckets[b].max_us) b++;
    counts[b]++;
    total++;
    if ((event::EventLoop::nowUs() - window_start) / 1000 > interval_ms) {
      if (outputs++ % kLegendEvery == 0) printLegend();
      printf("\033[38;5;0m");  // black glyphs on the bucket's colour
      for (size_t i = 0; i < kBuckets.size(); i++) {
        double share = static_cast<double>(counts[i]) / static_cast<double>(total);
        auto idx = static_cast<size_t>(std::ceil(share * (kPalette.size() - 1)));
        printf("\033[48;5;%dm%c", kPalette[idx], kBuckets[i].glyph);
        counts[i] = 0;
      }
      printf("\033[0m\n");
      fflush(stdout);
      total = 0;
      window_start = event::EventLoop::nowUs();
    }
    usleep(kSampleEveryUs);
  }
  return 0;
}

}  // namespace

int latencyMode(Session* s) {
  const Options& o = s->options();
  signal(SIGINT, onInterrupt);
  if (o.latency_dist) {
    return latencyDist(s, o.interval_set ? o.interval_us / 1000 : kDefaultDistMs);
  }
  // The live display is for a person at a terminal; otherwise one summary
  // line after the interval.
  bool live = o.format.mode == OutputMode::kStandard;
  int64_t interval_ms = o.interval_set      ? o.interval_us / 1000
                        : o.latency_history ? kDefaultHistoryMs
                                            : kDefaultLatencyMs;
  int64_t min = 0, max = 0, total = 0, count = 0;
  int64_t window_start = event::EventLoop::nowMs();
  while (!g_stop) {
    int64_t us = pingUs(s);
    if (us < 0) return ioError();
    int64_t ms = us / 1000;
    if (count == 0 || ms < min) min = ms;
    if (count == 0 || ms > max) max = ms;
    total += ms;
    count++;
    double avg = static_cast<double>(total) / static_cast<double>(count);
    int64_t elapsed = event::EventLoop::nowMs() - window_start;
    if (live) {
      printf("\x1b[0G\x1b[2Kmin: %lld, max: %lld, avg: %.2f (%lld samples)",
             static_cast<long long>(min), static_cast<long long>(max), avg,
             static_cast<long long>(count));
      fflush(stdout);
      if (o.latency_history && elapsed > interval_ms) {
        printf(" -- %.2f seconds range\n", static_cast<double>(elapsed) / 1000);
        window_start = event::EventLoop::nowMs();
        min = max = total = count = 0;
      }
    } else if (elapsed > interval_ms) {
      const char* fmt =
          o.format.mode == OutputMode::kCsv ? "%lld,%lld,%.2f,%lld\n" : "%lld %lld %.2f %lld\n";
      printf(fmt, static_cast<long long>(min), static_cast<long long>(max), avg,
             static_cast<long long>(count));
      fflush(stdout);
      return 0;
    }
    usleep(kSampleEveryUs);
  }
  if (live) printf("\n");
  return 0;
}

namespace {

// A few microseconds of work the compiler cannot drop: an RC4-like shuffle.
unsigned long busyWork() {
  std::array<unsigned char, 256> box;
  for (int k = 0; k < 256; k++) box[static_cast<size_t>(k)] = static_cast<unsigned char>(k);
  unsigned char i = 0, j = 0;
  unsigned long out = 0;
  for (int n = 0; n < 1000; n++) {
    i++;
    j = static_cast<unsigned char>(j + box[i]);
    std::swap(box[i], box[j]);
    out += box[static_cast<unsigned char>(box[i] + box[j])];
  }
  return out;
}

}  // namespace

int intrinsicLatencyMode(int64_t seconds) {
  signal(SIGINT, onInterrupt);
  const int64_t run_us = seconds * 1000000;
  const int64_t end_at = event::EventLoop::nowUs() + run_us;
  int64_t worst = 0, runs = 0;
  volatile unsigned long sink = 0;
  for (;;) {
    int64_t start = event::EventLoop::nowUs();
    sink = sink + busyWork();
    int64_t end = event::EventLoop::nowUs();
    int64_t took = end - start;
    runs++;
    if (took <= 0) continue;
    if (took > worst) {
      worst = took;
      printf("Max latency so far: %lld microseconds.\n", static_cast<long long>(worst));
      fflush(stdout);
    }
    if (g_stop || end > end_at) {
      double avg_us = static_cast<double>(run_us) / static_cast<double>(runs);
      printf("\n%lld total runs (avg latency: %.4f microseconds / %.2f nanoseconds per run).\n",
             static_cast<long long>(runs), avg_us, avg_us * 1e3);
      printf("Worst run took %.0fx longer than the average latency.\n",
             static_cast<double>(worst) / avg_us);
      return 0;
    }
  }
}

}  // namespace cli::modes
