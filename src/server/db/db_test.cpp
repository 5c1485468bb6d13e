#include "server/db/db.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace server::db {
namespace {

TEST(Value, StringEncodings) {
  char scratch[24];
  Value v = Value::fromString("12345");
  EXPECT_STREQ(v.encodingName(), "int");
  EXPECT_EQ(v.str(scratch), "12345");
  EXPECT_STREQ(Value::fromString("0123").encodingName(), "embstr");
  EXPECT_STREQ(Value::fromString("-0").encodingName(), "embstr");
  EXPECT_STREQ(Value::fromString(std::string(44, 'a')).encodingName(), "embstr");
  EXPECT_STREQ(Value::fromString(std::string(45, 'a')).encodingName(), "raw");
  Value big = Value::fromString(std::string(100, 'b'));
  Value copy = big.clone();
  EXPECT_EQ(copy.str(scratch), std::string(100, 'b'));
  char* p = copy.mutableBytes(102);
  p[100] = 'c';
  p[101] = 'd';
  EXPECT_EQ(copy.str(scratch), std::string(100, 'b') + "cd");
  EXPECT_EQ(big.str(scratch), std::string(100, 'b'));
  Value small = Value::fromString("ab");
  small.mutableBytes(3)[2] = 'c';
  EXPECT_EQ(small.str(scratch), "abc");
  EXPECT_STREQ(small.encodingName(), "raw");
}

class DbTest : public ::testing::Test {
 protected:
  void SetUp() override { Clock::update(); }
  Db db{0};
};

TEST_F(DbTest, SetFindRemove) {
  char scratch[24];
  db.set("k", Value::fromString("v1"), false);
  Entry* e = db.find("k");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->val.str(scratch), "v1");
  db.set("k", Value::fromString("v2"), false);
  EXPECT_EQ(db.size(), 1u);
  EXPECT_EQ(db.find("k")->val.str(scratch), "v2");
  EXPECT_TRUE(db.remove("k"));
  EXPECT_FALSE(db.remove("k"));
  EXPECT_EQ(db.find("k"), nullptr);
}

TEST_F(DbTest, LazyExpiry) {
  Entry* e = db.set("k", Value::fromString("v"), false);
  db.setExpire(e, Clock::nowMs + 100000);
  EXPECT_EQ(db.expiresSize(), 1u);
  EXPECT_NE(db.find("k"), nullptr);
  db.setExpire(db.find("k"), Clock::nowMs - 1);
  EXPECT_EQ(db.find("k"), nullptr);
  EXPECT_EQ(db.size(), 0u);
  EXPECT_EQ(db.expiresSize(), 0u);
  EXPECT_EQ(db.expiredKeys(), 1u);
}

TEST_F(DbTest, OverwriteDropsTtlUnlessKept) {
  Entry* e = db.set("k", Value::fromString("v"), false);
  db.setExpire(e, Clock::nowMs + 100000);
  e = db.set("k", Value::fromString("w"), true);
  EXPECT_GT(db.expireOf(e), 0);
  e = db.set("k", Value::fromString("x"), false);
  EXPECT_EQ(db.expireOf(e), -1);
  EXPECT_EQ(db.expiresSize(), 0u);
}

TEST_F(DbTest, ActiveExpiryRemovesUntouchedKeys) {
  for (int i = 0; i < 5000; i++) {
    Entry* e = db.set("key:" + std::to_string(i), Value::fromString("v"), false);
    db.setExpire(e, i % 2 ? Clock::nowMs - 1 : Clock::nowMs + 1000000);
  }
  size_t removed = 0;
  // Sampling is random: the last few stale keys may take many cycles.
  for (int round = 0; round < 100000 && db.size() > 2500; round++) {
    removed += db.activeExpireCycle(1000000, 1);
  }
  EXPECT_EQ(removed, 2500u);
  EXPECT_EQ(db.size(), 2500u);
  EXPECT_EQ(db.expiresSize(), 2500u);
}

TEST_F(DbTest, ActiveExpiryIsBoundedWhenNothingExpired) {
  for (int i = 0; i < 10000; i++) {
    Entry* e = db.set("key:" + std::to_string(i), Value::fromString("v"), false);
    db.setExpire(e, Clock::nowMs + 1000000);
  }
  // With no stale keys one call looks at one small batch and stops.
  EXPECT_EQ(db.activeExpireCycle(1000000, 1), 0u);
  EXPECT_EQ(db.size(), 10000u);
}

TEST_F(DbTest, ScanSeesEveryKeyWhileGrowing) {
  for (int i = 0; i < 1000; i++) db.set("a" + std::to_string(i), Value::fromInt(i), false);
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int extra = 0;
  do {
    cursor = db.scan(cursor, [&](Entry* e) { seen.insert(std::string(e->keyView())); });
    // Grow the table between calls (bounded: each call visits only about
    // one bucket, so unbounded growth would outrun the cursor).
    if (extra < 4000) {
      for (int j = 0; j < 5; j++) db.set("b" + std::to_string(extra++), Value::fromInt(j), false);
    }
  } while (cursor != 0);
  for (int i = 0; i < 1000; i++) EXPECT_TRUE(seen.count("a" + std::to_string(i))) << i;
}

TEST_F(DbTest, TakeMovesValueAndTtl) {
  Entry* e = db.set("src", Value::fromString("payload-bigger-than-inline"), false);
  db.setExpire(e, Clock::nowMs + 5000);
  int64_t when;
  Value v = db.take(db.find("src"), &when);
  EXPECT_EQ(db.size(), 0u);
  EXPECT_EQ(db.expiresSize(), 0u);
  EXPECT_GT(when, Clock::nowMs);
  char scratch[24];
  EXPECT_EQ(v.str(scratch), "payload-bigger-than-inline");
}

TEST_F(DbTest, RandomEntrySkipsExpired) {
  Entry* e = db.set("dead", Value::fromString("v"), false);
  db.setExpire(e, Clock::nowMs - 1);
  db.set("live", Value::fromString("v"), false);
  for (int i = 0; i < 20; i++) {
    Entry* r = db.randomEntry();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->keyView(), "live");
  }
}

}  // namespace
}  // namespace server::db
