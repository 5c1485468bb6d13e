#include "server/latency/monitor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>

#include "server/core/command.h"
#include "server/core/reply_helpers.h"
#include "server/latency/histogram.h"
#include "server/conf/config.h"

namespace server::latency {

namespace {

std::map<std::string, EventSeries> g_events;
// Owners of the histograms the commands point to.
std::vector<std::unique_ptr<Histogram>> g_histograms;
std::vector<Command*> g_tracked;  // commands with a histogram, in first-call order

constexpr int kGraphRows = 4;

}  // namespace

std::vector<Sample> EventSeries::history() const {
  std::vector<Sample> out;
  for (size_t k = 0; k < kHistoryLen; k++) {
    const Sample& s = samples[(idx + k) % kHistoryLen];
    if (s.time != 0) out.push_back(s);
  }
  return out;
}

void addSample(const std::string& event, int64_t ms, int64_t now_s) {
  EventSeries& e = g_events[event];
  uint32_t v = static_cast<uint32_t>(std::clamp<int64_t>(ms, 0, UINT32_MAX));
  if (v > e.max) e.max = v;
  // Several spikes within one second make one sample: the largest.
  size_t prev = (e.idx + kHistoryLen - 1) % kHistoryLen;
  if (e.samples[prev].time == now_s) {
    e.samples[prev].latency = std::max(e.samples[prev].latency, v);
    return;
  }
  e.samples[e.idx] = Sample{now_s, v};
  e.idx = (e.idx + 1) % kHistoryLen;
}

void addSampleIfNeeded(const char* event, int64_t ms) {
  int64_t threshold = g_config->latency_monitor_threshold;
  if (threshold > 0 && ms >= threshold) addSample(event, ms, time(nullptr));
}

const std::map<std::string, EventSeries>& events() {
  return g_events;
}

bool resetEvent(const std::string& event) {
  return g_events.erase(event) > 0;
}

size_t resetAll() {
  size_t n = g_events.size();
  g_events.clear();
  return n;
}

void afterCommand(Command* cmd, int64_t usec) {
  const Config& cfg = *g_config;
  if (cfg.latency_monitor_threshold > 0)
    addSampleIfNeeded((cmd->flags & kFast) ? "fast-command" : "command", usec / 1000);
  if (!cfg.latency_tracking) return;
  if (cmd->latency_histogram == nullptr) [[unlikely]] {
    g_histograms.push_back(std::make_unique<Histogram>());
    cmd->latency_histogram = g_histograms.back().get();
    g_tracked.push_back(cmd);
  }
  cmd->latency_histogram->record(static_cast<uint64_t>(usec) * 1000);
}

void resetHistograms() {
  for (Command* c : g_tracked) c->latency_histogram = nullptr;
  g_tracked.clear();
  g_histograms.clear();
}

void latencystatsSection(std::string* out) {
  if (!g_config->latency_tracking) return;
  for (Command* c : g_tracked) {
    const Histogram& h = *c->latency_histogram;
    if (h.total() == 0) continue;
    appendFormat(out, "latency_percentiles_usec_%s:", c->fullName().c_str());
    bool first = true;
    for (double p : g_config->latency_tracking_info_percentiles) {
      appendFormat(out, "%sp%g=%.3f", first ? "" : ",", p,
                   static_cast<double>(h.valueAtPercentile(p)) / 1000.0);
      first = false;
    }
    out->append("\r\n");
  }
}

std::string graph(const std::string& event) {
  auto it = g_events.find(event);
  if (it == g_events.end()) return "";
  std::vector<Sample> hist = it->second.history();
  if (hist.empty()) return "";
  uint32_t lo = UINT32_MAX, hi = 0;
  for (const Sample& s : hist) {
    lo = std::min(lo, s.latency);
    hi = std::max(hi, s.latency);
  }
  std::string out;
  appendFormat(&out, "%s - high %u ms, low %u ms (all time high %u ms)\n", event.c_str(), hi, lo,
               it->second.max);
  out.append(80, '-');
  out += '\n';
  // One column per sample, oldest left: a bar of kGraphRows * 2 half-steps
  // between the low and the high ('_' a half step, '#' a full one, '|' the
  // body below the top), then the sample's age written downwards.
  size_t n = hist.size();
  std::vector<int> level(n);
  for (size_t i = 0; i < n; i++) {
    double frac = hi == lo ? 1.0 : static_cast<double>(hist[i].latency - lo) / (hi - lo);
    level[i] = 1 + static_cast<int>(std::lround(frac * (kGraphRows * 2 - 1)));
  }
  for (int row = kGraphRows - 1; row >= 0; row--) {
    for (size_t i = 0; i < n; i++) {
      int full = row * 2 + 2, half = row * 2 + 1;
      char ch = ' ';
      if (level[i] > full) {
        ch = '|';
      } else if (level[i] == full) {
        ch = '#';
      } else if (level[i] == half) {
        ch = '_';
      }
      out += ch;
    }
    out += '\n';
  }
  out += '\n';
  int64_t now = time(nullptr);
  std::vector<std::string> ages(n);
  size_t tallest = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t age = std::max<int64_t>(0, now - hist[i].time);
    char buf[32];
    if (age < 60) {
      snprintf(buf, sizeof(buf), "%llds", static_cast<long long>(age));
    } else if (age < 3600) {
      snprintf(buf, sizeof(buf), "%lldm", static_cast<long long>(age / 60));
    } else {
      snprintf(buf, sizeof(buf), "%lldh", static_cast<long long>(age / 3600));
    }
    ages[i] = buf;
    tallest = std::max(tallest, ages[i].size());
  }
  for (size_t row = 0; row < tallest; row++) {
    for (size_t i = 0; i < n; i++) out += row < ages[i].size() ? ages[i][row] : ' ';
    out += '\n';
  }
  return out;
}

std::string doctor() {
  std::string out;
  const Config& cfg = *g_config;
  if (g_events.empty()) {
    if (cfg.latency_monitor_threshold == 0) {
      out =
          "The latency monitor is disabled (latency-monitor-threshold is 0), so no latency "
          "spike could be recorded. Enable it with CONFIG SET latency-monitor-threshold "
          "<milliseconds>.\n";
    } else {
      out =
          "No latency spike has been observed since the server started or since the last "
          "LATENCY RESET.\n";
    }
    return out;
  }
  out = "Latency spikes were observed. Per event:\n\n";
  int k = 1;
  bool command_events = false;
  for (const auto& [name, series] : g_events) {
    std::vector<Sample> hist = series.history();
    if (hist.empty()) continue;
    double sum = 0;
    for (const Sample& s : hist) sum += s.latency;
    double avg = sum / static_cast<double>(hist.size());
    double dev = 0;
    for (const Sample& s : hist) dev += std::fabs(s.latency - avg);
    dev /= static_cast<double>(hist.size());
    double period = hist.size() > 1 ? static_cast<double>(hist.back().time - hist.front().time) /
                                          static_cast<double>(hist.size() - 1)
                                    : 0.0;
    appendFormat(&out,
                 "%d. %s: %zu latency spikes (average %.0fms, mean deviation %.0fms, period "
                 "%.2f sec). Worst all time event %ums.\n",
                 k++, name.c_str(), hist.size(), avg, dev, period, series.max);
    if (name == "command" || name == "fast-command") command_events = true;
  }
  out += "\nAdvice:\n\n";
  if (command_events) {
    out +=
        "- Commands were slow: SLOWLOG GET lists which ones and with what arguments. Slow "
        "commands are usually O(N) operations on big values (KEYS, SMEMBERS, LRANGE over long "
        "ranges, DEL of large collections).\n";
    if (cfg.slowlog_log_slower_than < 0 ||
        cfg.slowlog_log_slower_than > cfg.latency_monitor_threshold * 1000) {
      appendFormat(&out,
                   "- The slow log does not record every command slower than the latency "
                   "threshold: CONFIG SET slowlog-log-slower-than %lld makes it do so.\n",
                   static_cast<long long>(cfg.latency_monitor_threshold * 1000));
    }
  }
  if (g_events.count("fast-command")) {
    out +=
        "- Even O(1) or O(log N) commands were slow: the process may be starved of CPU "
        "(other processes, a virtual machine's neighbours) or swapping.\n";
  }
  if (g_events.count("expire-cycle")) {
    out +=
        "- The active expire cycle was slow: many keys expire at the same time. Spreading "
        "their TTLs avoids expiring them all at once.\n";
  }
  return out;
}

}  // namespace server::latency
