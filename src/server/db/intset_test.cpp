#include "server/db/intset.h"

#include <gtest/gtest.h>

#include <climits>
#include <random>
#include <set>

namespace server::db {
namespace {

TEST(Intset, EmptyAndBasics) {
  Intset s;
  EXPECT_EQ(s.size(), 0u);
  EXPECT_EQ(s.width(), 2u);
  EXPECT_FALSE(s.contains(0));
  EXPECT_FALSE(s.remove(0));
  EXPECT_TRUE(s.add(5));
  EXPECT_TRUE(s.add(-3));
  EXPECT_TRUE(s.add(1));
  EXPECT_FALSE(s.add(5));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.at(0), -3);
  EXPECT_EQ(s.at(1), 1);
  EXPECT_EQ(s.at(2), 5);
  EXPECT_EQ(s.min(), -3);
  EXPECT_EQ(s.max(), 5);
  EXPECT_EQ(s.bytes(), 8u + 3 * 2);
  EXPECT_TRUE(s.remove(1));
  EXPECT_FALSE(s.contains(1));
  EXPECT_EQ(s.size(), 2u);
}

TEST(Intset, WidthFor) {
  EXPECT_EQ(Intset::widthFor(0), 2u);
  EXPECT_EQ(Intset::widthFor(INT16_MAX), 2u);
  EXPECT_EQ(Intset::widthFor(INT16_MIN), 2u);
  EXPECT_EQ(Intset::widthFor(INT16_MAX + 1), 4u);
  EXPECT_EQ(Intset::widthFor(INT16_MIN - 1), 4u);
  EXPECT_EQ(Intset::widthFor(INT32_MAX), 4u);
  EXPECT_EQ(Intset::widthFor(int64_t{INT32_MAX} + 1), 8u);
  EXPECT_EQ(Intset::widthFor(INT64_MIN), 8u);
}

TEST(Intset, UpgradeKeepsOrderAtBothEnds) {
  Intset s;
  for (int v : {10, -10, 0, 300}) s.add(v);
  EXPECT_TRUE(s.add(70000));  // 32 bits, goes last
  EXPECT_EQ(s.width(), 4u);
  EXPECT_TRUE(s.add(-70000));  // goes first
  EXPECT_TRUE(s.add(INT64_MAX));
  EXPECT_TRUE(s.add(INT64_MIN));
  EXPECT_EQ(s.width(), 8u);
  int64_t want[] = {INT64_MIN, -70000, -10, 0, 10, 300, 70000, INT64_MAX};
  ASSERT_EQ(s.size(), 8u);
  for (size_t i = 0; i < 8; i++) EXPECT_EQ(s.at(i), want[i]) << i;
  // Removing the wide members does not downgrade.
  s.remove(INT64_MAX);
  s.remove(INT64_MIN);
  EXPECT_EQ(s.width(), 8u);
  EXPECT_TRUE(s.contains(-70000));
  // A wide value that is absent is not found in a narrow set.
  Intset narrow;
  narrow.add(1);
  EXPECT_FALSE(narrow.contains(int64_t{1} << 40));
  EXPECT_FALSE(narrow.remove(int64_t{1} << 40));
}

TEST(Intset, CloneAndMove) {
  Intset s;
  for (int i = 0; i < 100; i++) s.add(i * 1000);
  Intset c = s.clone();
  s.remove(0);
  EXPECT_EQ(c.size(), 100u);
  EXPECT_TRUE(c.contains(0));
  Intset m = std::move(c);
  EXPECT_EQ(m.size(), 100u);
  EXPECT_EQ(m.at(99), 99000);
}

TEST(Intset, RandomizedAgainstStdSet) {
  std::mt19937_64 rng(12345);
  Intset s;
  std::set<int64_t> model;
  for (int op = 0; op < 20000; op++) {
    int64_t v;
    switch (rng() % 3) {
      case 0:
        v = static_cast<int64_t>(rng() % 200) - 100;
        break;
      case 1:
        v = static_cast<int64_t>(rng() % 200000) - 100000;
        break;
      default:
        v = static_cast<int64_t>(rng());
        break;
    }
    if (rng() % 3 == 0) {
      ASSERT_EQ(s.remove(v), model.erase(v) == 1);
    } else {
      ASSERT_EQ(s.add(v), model.insert(v).second);
    }
    ASSERT_EQ(s.contains(v), model.count(v) == 1);
  }
  ASSERT_EQ(s.size(), model.size());
  size_t i = 0;
  for (int64_t v : model) ASSERT_EQ(s.at(i++), v);
  while (s.size() > 0) s.removeAt(s.size() / 2);
  EXPECT_EQ(s.size(), 0u);
}

}  // namespace
}  // namespace server::db
