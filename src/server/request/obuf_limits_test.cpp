// client-output-buffer-limit parsing and formatting (config.cpp); the
// enforcement itself is covered by tests/unit/obuf-limits.tcl.
#include <gtest/gtest.h>

#include "server/conf/config.h"
#include "server/request/obuf_limits.h"

namespace server {
namespace {

std::string limitsOf(const Config& c) {
  auto got = configGet(c, "client-output-buffer-limit");
  return got.size() == 1 ? got[0].second : "";
}

TEST(OutputBufferLimits, DefaultsAsRedis) {
  Config c;
  EXPECT_EQ(limitsOf(c), "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
}

TEST(OutputBufferLimits, ConfigLinesAddUp) {
  Config c;
  std::string err;
  ASSERT_TRUE(loadConfigText(&c,
                             "client-output-buffer-limit normal 1mb 2k 3\n"
                             "client-output-buffer-limit replica 1 1 1 pubsub 10 20 30\n",
                             &err))
      << err;
  EXPECT_EQ(limitsOf(c), "normal 1048576 2000 3 slave 1 1 1 pubsub 10 20 30");
  EXPECT_EQ(c.obuf_limits[Config::kClassPubSub].soft_seconds, 30);
}

TEST(OutputBufferLimits, ErrorsLeaveTheOldValue) {
  Config c;
  std::string err;
  bool unknown, immutable;
  struct {
    const char* value;
    const char* error;
  } cases[] = {
      {"normal 1 2", "Wrong number of arguments in buffer limit configuration."},
      {"foo 1 2 3", "Invalid client class specified in buffer limit configuration."},
      {"master 1 1 1", "Invalid client class specified in buffer limit configuration."},
      {"normal x 2 3",
       "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
      {"normal 1 2 -3",
       "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
      // The second group is bad: the first must not be applied either.
      {"pubsub 1 1 1 normal 1 1 x",
       "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
  };
  for (const auto& t : cases) {
    err.clear();
    EXPECT_FALSE(configSet(&c, "client-output-buffer-limit", {t.value}, &err, &unknown, &immutable))
        << t.value;
    EXPECT_EQ(err, t.error) << t.value;
  }
  EXPECT_EQ(limitsOf(c), "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  EXPECT_TRUE(configSet(&c, "client-output-buffer-limit", {"PUBSUB 1mb 512kb 5"}, &err, &unknown,
                        &immutable));
  EXPECT_EQ(limitsOf(c), "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 524288 5");
}

// The pre-check every command makes: no call unless some limit can act.
TEST(OutputBufferLimits, PrecheckMatchesTheLimits) {
  Config c;
  // Defaults: normal unlimited, pubsub soft 8mb: only the unauthenticated
  // cap and the pubsub soft limit matter.
  EXPECT_FALSE(outputLimitsMayApply(0, 0, c));
  EXPECT_FALSE(outputLimitsMayApply(kUnauthenticatedOutputLimit, 0, c));
  EXPECT_TRUE(outputLimitsMayApply(kUnauthenticatedOutputLimit + 1, 0, c));
  EXPECT_TRUE(outputLimitsMayApply(0, 12345, c));  // a soft clock to reset
  std::string err;
  bool unknown, immutable;
  ASSERT_TRUE(configSet(&c, "client-output-buffer-limit", {"normal 100 0 0 pubsub 0 0 0"}, &err,
                        &unknown, &immutable));
  EXPECT_FALSE(outputLimitsMayApply(99, 0, c));
  EXPECT_TRUE(outputLimitsMayApply(100, 0, c));
  ASSERT_TRUE(configSet(&c, "client-output-buffer-limit", {"normal 0 0 0 pubsub 0 10 5"}, &err,
                        &unknown, &immutable));
  EXPECT_FALSE(outputLimitsMayApply(9, 0, c));
  EXPECT_TRUE(outputLimitsMayApply(10, 0, c));
}

}  // namespace
}  // namespace server
