#include "server/db/lfu.h"

#include "common/hash.h"

namespace server::db::lfu {

Params params;

namespace {
constexpr uint32_t kMinutesMask = 0xffff;

// Minutes between the stored time and now, allowing for the 16-bit wrap
// (about 45 days): a stored time "ahead" of now means the clock wrapped.
uint32_t minutesElapsed(uint32_t stored, uint32_t now) {
  if (now >= stored) return now - stored;
  return kMinutesMask - stored + now;
}
}  // namespace

uint32_t minutesOf(int64_t now_ms) {
  return static_cast<uint32_t>(now_ms / 1000 / 60) & kMinutesMask;
}

uint32_t initialField(int64_t now_ms) {
  return (minutesOf(now_ms) << 8) | kInitialCounter;
}

uint32_t decayedCounter(uint32_t field, int64_t now_ms, int64_t decay_time) {
  uint32_t counter = field & 0xff;
  if (decay_time <= 0) return counter;
  uint64_t periods =
      minutesElapsed(field >> 8, minutesOf(now_ms)) / static_cast<uint64_t>(decay_time);
  return periods >= counter ? 0 : counter - static_cast<uint32_t>(periods);
}

uint32_t logIncrement(uint32_t counter, int64_t log_factor, double random01) {
  if (counter >= kMaxCounter) return kMaxCounter;
  double base = counter > kInitialCounter ? static_cast<double>(counter - kInitialCounter) : 0.0;
  double p = 1.0 / (base * static_cast<double>(log_factor) + 1.0);
  return random01 < p ? counter + 1 : counter;
}

uint32_t touchedField(uint32_t field, int64_t now_ms) {
  uint32_t counter = decayedCounter(field, now_ms, params.decay_time);
  // 53 random bits give a uniform double in [0, 1).
  double r = static_cast<double>(common::randomU64() >> 11) / 9007199254740992.0;
  counter = logIncrement(counter, params.log_factor, r);
  return (minutesOf(now_ms) << 8) | counter;
}

}  // namespace server::db::lfu
