// The latency monitor (LATENCY LATEST / HISTORY / RESET / GRAPH / DOCTOR):
// events that took at least latency-monitor-threshold milliseconds are kept
// per event name ("command", "fast-command", "expire-cycle", ...), as Redis
// 7.0 names them, in a ring of the last kHistoryLen samples (one per second:
// several spikes in the same second keep the largest), with the all-time
// maximum.
//
// Per-command latency tracking (latency-tracking, INFO latencystats,
// LATENCY HISTOGRAM) lives on the commands themselves (histogram.h); this
// module records into it after each call.
//
// Module latency/ (namespace server::latency): may include core/, conf/
// and common/; included by request/ (recording after each call),
// commands/ (LATENCY, INFO latencystats) and the top.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace server {
struct Command;
}

namespace server::latency {

constexpr size_t kHistoryLen = 160;

struct Sample {
  int64_t time = 0;      // unix seconds
  uint32_t latency = 0;  // milliseconds
};

struct EventSeries {
  Sample samples[kHistoryLen];
  size_t idx = 0;    // next slot to write
  uint32_t max = 0;  // all-time maximum (ms)
  // The samples oldest first (empty slots skipped).
  std::vector<Sample> history() const;
};

// Adds a sample when the threshold is set and ms reaches it.
void addSampleIfNeeded(const char* event, int64_t ms);
void addSample(const std::string& event, int64_t ms, int64_t now_s);
const std::map<std::string, EventSeries>& events();
// Forgets one event (true if it existed) or all (returns how many).
bool resetEvent(const std::string& event);
size_t resetAll();

// After a command ran for `usec`: the "command"/"fast-command" event and
// the command's histogram when latency-tracking is on.
void afterCommand(Command* cmd, int64_t usec);

// LATENCY GRAPH <event> text; "" when the event has no samples.
std::string graph(const std::string& event);
// LATENCY DOCTOR text.
std::string doctor();

// INFO latencystats body: one latency_percentiles_usec_<cmd> line per
// command called since the histograms were last reset.
void latencystatsSection(std::string* out);
// CONFIG RESETSTAT: drops every command's histogram.
void resetHistograms();

}  // namespace server::latency
