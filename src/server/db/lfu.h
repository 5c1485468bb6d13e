// Access tracking for the LFU maxmemory policies (allkeys-lfu,
// volatile-lfu). Under those policies an entry's 24-bit access field holds
// Redis's LFU layout instead of an LRU timestamp:
//
//   bits 23..8  last decrement time, minutes since the epoch mod 2^16
//   bits  7..0  logarithmic access counter (0..255)
//
// A new key starts at kInitialCounter. Each access first decays the counter
// by one per `decay_time` minutes elapsed since the stored time, then
// increments it with probability 1 / ((counter - kInitialCounter) *
// log_factor + 1), so the counter grows roughly with the logarithm of the
// access count. Switching policy at run time does not convert existing
// fields (Redis does not either: the values adjust over time).
#pragma once

#include <cstdint>

namespace server::db::lfu {

constexpr uint32_t kInitialCounter = 5;
constexpr uint32_t kMaxCounter = 255;

// Parameters, set from the configuration (maxmemory-policy, lfu-log-factor,
// lfu-decay-time).
struct Params {
  bool enabled = false;
  int64_t log_factor = 10;
  int64_t decay_time = 1;  // minutes per decrement; 0 never decays
};
extern Params params;

// Minutes clock as the field stores it, from a time in milliseconds.
uint32_t minutesOf(int64_t now_ms);
// Field value of a new key.
uint32_t initialField(int64_t now_ms);
// The counter after decay, without storing anything (OBJECT FREQ).
uint32_t decayedCounter(uint32_t field, int64_t now_ms, int64_t decay_time);
// One logarithmic increment; `random01` is a uniform draw in [0, 1).
uint32_t logIncrement(uint32_t counter, int64_t log_factor, double random01);
// Field value after one access (decay, increment, new time).
uint32_t touchedField(uint32_t field, int64_t now_ms);

}  // namespace server::db::lfu
