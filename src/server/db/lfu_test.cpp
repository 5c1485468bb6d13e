#include "server/db/lfu.h"

#include <gtest/gtest.h>

namespace server::db::lfu {
namespace {

constexpr int64_t kMinute = 60 * 1000;

TEST(Lfu, NewKeyStartsAtInitialCounter) {
  int64_t now = 1000 * kMinute;
  uint32_t f = initialField(now);
  EXPECT_EQ(f & 0xff, kInitialCounter);
  EXPECT_EQ(f >> 8, 1000u);
  EXPECT_EQ(decayedCounter(f, now, 1), kInitialCounter);
}

TEST(Lfu, DecayOnePerPeriod) {
  int64_t t0 = 5000 * kMinute;
  uint32_t f = (minutesOf(t0) << 8) | 20;
  EXPECT_EQ(decayedCounter(f, t0 + 3 * kMinute, 1), 17u);
  EXPECT_EQ(decayedCounter(f, t0 + 3 * kMinute, 2), 19u);
  EXPECT_EQ(decayedCounter(f, t0 + 100 * kMinute, 1), 0u);
  // decay_time 0 never decays.
  EXPECT_EQ(decayedCounter(f, t0 + 100 * kMinute, 0), 20u);
}

TEST(Lfu, DecayAcrossTheMinutesWrap) {
  uint32_t f = (0xfffeu << 8) | 10;
  int64_t now = (0x10000 + 2) * kMinute;  // minutes wrap to 2
  EXPECT_EQ(decayedCounter(f, now, 1), 7u);
}

TEST(Lfu, LogIncrementProbability) {
  // At or below the initial value every access counts.
  EXPECT_EQ(logIncrement(0, 10, 0.999), 1u);
  EXPECT_EQ(logIncrement(5, 10, 0.999), 6u);
  // Above it the chance is 1 / ((c - 5) * factor + 1).
  EXPECT_EQ(logIncrement(6, 10, 1.0 / 11 - 1e-9), 7u);
  EXPECT_EQ(logIncrement(6, 10, 1.0 / 11 + 1e-9), 6u);
  EXPECT_EQ(logIncrement(255, 0, 0.0), 255u);
  // Factor 0 counts every access.
  EXPECT_EQ(logIncrement(100, 0, 0.999), 101u);
}

TEST(Lfu, TouchedFieldStoresTheCurrentMinute) {
  params.log_factor = 0;
  params.decay_time = 1;
  int64_t t0 = 777 * kMinute;
  uint32_t f = initialField(t0);
  f = touchedField(f, t0 + 2 * kMinute);
  EXPECT_EQ(f >> 8, 779u);
  EXPECT_EQ(f & 0xff, kInitialCounter - 2 + 1);
  params = Params();
}

TEST(Lfu, ManyAccessesGrowLogarithmically) {
  params.log_factor = 10;
  params.decay_time = 1;
  int64_t t = 42 * kMinute;
  uint32_t f = initialField(t);
  for (int i = 0; i < 100000; i++) f = touchedField(f, t);
  uint32_t c = f & 0xff;
  // Redis's table: about 100 hits -> 10, 100k hits -> ~ 100+, never 255.
  EXPECT_GT(c, 60u);
  EXPECT_LT(c, 200u);
  params = Params();
}

}  // namespace
}  // namespace server::db::lfu
