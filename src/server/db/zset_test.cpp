#include "server/db/zset.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace server::db {
namespace {

using Pairs = std::vector<std::pair<std::string, double>>;

Pairs all(const ZSet& z) {
  Pairs out;
  z.forEach([&](std::string_view m, double s) {
    out.emplace_back(m, s);
    return true;
  });
  return out;
}

Pairs collect(const std::function<void(const ZSet::Visitor&)>& walk) {
  Pairs out;
  walk([&](std::string_view m, double s) {
    out.emplace_back(m, s);
    return true;
  });
  return out;
}

// Every test runs on both encodings.
class ZSetTest : public ::testing::TestWithParam<bool> {
 protected:
  std::unique_ptr<ZSet> make() {
    if (GetParam()) return std::make_unique<ListpackZSet>();
    return std::make_unique<SkiplistZSet>();
  }
};

TEST_P(ZSetTest, SetScoreRemove) {
  auto z = make();
  EXPECT_TRUE(z->set("b", 2));
  EXPECT_TRUE(z->set("a", 0.1));
  EXPECT_TRUE(z->set("c", -INFINITY));
  EXPECT_FALSE(z->set("b", 1.5));  // update
  EXPECT_EQ(all(*z), (Pairs{{"c", -INFINITY}, {"a", 0.1}, {"b", 1.5}}));
  double s;
  ASSERT_TRUE(z->score("a", &s));
  EXPECT_EQ(s, 0.1);  // exact round trip through the listpack text
  EXPECT_FALSE(z->score("zz", &s));
  EXPECT_TRUE(z->remove("a"));
  EXPECT_FALSE(z->remove("a"));
  EXPECT_EQ(z->size(), 2u);
  EXPECT_EQ(z->encodingName(), std::string(GetParam() ? "listpack" : "skiplist"));
}

TEST_P(ZSetTest, EqualScoresOrderByMemberBytes) {
  auto z = make();
  for (const char* m : {"b", "a", "ab", "B", "10", "9"}) z->set(m, 1);
  EXPECT_EQ(all(*z), (Pairs{{"10", 1}, {"9", 1}, {"B", 1}, {"a", 1}, {"ab", 1}, {"b", 1}}));
}

TEST_P(ZSetTest, RanksBothWays) {
  auto z = make();
  for (int i = 0; i < 5; i++) z->set("m" + std::to_string(i), i);
  size_t r;
  ASSERT_TRUE(z->rank("m1", false, &r));
  EXPECT_EQ(r, 1u);
  ASSERT_TRUE(z->rank("m1", true, &r));
  EXPECT_EQ(r, 3u);
  EXPECT_FALSE(z->rank("nope", false, &r));
  EXPECT_EQ(collect([&](auto& fn) { z->rangeByRank(1, 2, true, fn); }),
            (Pairs{{"m3", 3}, {"m2", 2}}));
}

TEST_P(ZSetTest, ScoreAndLexRangesWithOffset) {
  auto z = make();
  for (int i = 0; i < 6; i++) z->set(std::string(1, static_cast<char>('a' + i)), i);
  ScoreRange r{1, 4, false, true};  // [1, 4)
  EXPECT_EQ(collect([&](auto& fn) { z->rangeByScore(r, false, 1, fn); }),
            (Pairs{{"c", 2}, {"d", 3}}));
  EXPECT_EQ(collect([&](auto& fn) { z->rangeByScore(r, true, 0, fn); }),
            (Pairs{{"d", 3}, {"c", 2}, {"b", 1}}));
  EXPECT_EQ(collect([&](auto& fn) { z->rangeByScore(r, true, 5, fn); }), Pairs{});
  EXPECT_EQ(z->countByScore(r), 3u);
  LexRange lr;
  lr.min_kind = LexRange::kNegInf;
  lr.max = "c";
  EXPECT_EQ(z->countByLex(lr), 3u);
  EXPECT_EQ(collect([&](auto& fn) { z->rangeByLex(lr, true, 1, fn); }),
            (Pairs{{"b", 1}, {"a", 0}}));
}

TEST_P(ZSetTest, RemoveRanges) {
  auto z = make();
  for (int i = 0; i < 10; i++) z->set("m" + std::to_string(i), i);
  EXPECT_EQ(z->removeRangeByRank(0, 1), 2u);
  EXPECT_EQ(z->removeRangeByScore({8, INFINITY, true, false}), 1u);  // m9
  LexRange lr;
  lr.min = "m5";
  lr.max_kind = LexRange::kPosInf;
  EXPECT_EQ(z->removeRangeByLex(lr), 4u);  // m5..m8
  EXPECT_EQ(all(*z), (Pairs{{"m2", 2}, {"m3", 3}, {"m4", 4}}));
}

TEST_P(ZSetTest, CloneIsIndependent) {
  auto z = make();
  z->set("a", 1);
  std::unique_ptr<Collection> copy(z->clone());
  z->set("b", 2);
  EXPECT_EQ(all(*static_cast<ZSet*>(copy.get())), (Pairs{{"a", 1}}));
}

TEST_P(ZSetTest, ConversionsKeepContents) {
  auto z = make();
  for (int i = 0; i < 50; i++) z->set("m" + std::to_string(i), i * 0.5);
  std::unique_ptr<ZSet> sl(toSkiplist(*z));
  std::unique_ptr<ZSet> lp(toListpack(*z));
  EXPECT_EQ(all(*sl), all(*z));
  EXPECT_EQ(all(*lp), all(*z));
  EXPECT_FALSE(sl->isListpack());
  EXPECT_TRUE(lp->isListpack());
}

// Random operations against a (score, member) set model.
TEST_P(ZSetTest, RandomOperationsMatchAModel) {
  std::mt19937 rng(GetParam() ? 7 : 8);
  auto z = make();
  std::map<std::string, double> scores;
  std::set<std::pair<double, std::string>> order;
  const int kOps = GetParam() ? 3000 : 20000;
  const unsigned kMembers = GetParam() ? 100 : 1000;
  for (int op = 0; op < kOps; op++) {
    std::string m = "m" + std::to_string(rng() % kMembers);
    double s = static_cast<double>(rng() % 20) / 4;
    auto it = scores.find(m);
    switch (rng() % 4) {
      case 0:
      case 1:
        EXPECT_EQ(z->set(m, s), it == scores.end());
        if (it != scores.end()) order.erase({it->second, m});
        scores[m] = s;
        order.emplace(s, m);
        break;
      case 2:
        EXPECT_EQ(z->remove(m), it != scores.end());
        if (it != scores.end()) {
          order.erase({it->second, m});
          scores.erase(it);
        }
        break;
      default: {
        size_t r;
        bool found = z->rank(m, false, &r);
        ASSERT_EQ(found, it != scores.end());
        if (found) {
          EXPECT_EQ(r,
                    static_cast<size_t>(std::distance(order.begin(), order.find({it->second, m}))));
        }
        ScoreRange range{s, s + 1, false, true};
        size_t want = 0;
        for (const auto& [ms, mm] : order) want += range.contains(ms);
        EXPECT_EQ(z->countByScore(range), want);
      }
    }
    ASSERT_EQ(z->size(), scores.size());
  }
  Pairs want;
  for (const auto& [s, m] : order) want.emplace_back(m, s);
  EXPECT_EQ(all(*z), want);
}

INSTANTIATE_TEST_SUITE_P(Encodings, ZSetTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Listpack" : "Skiplist"; });

TEST(ZSetScore, FormatsAsRedis) {
  char buf[32];
  auto f = [&](double v) { return std::string(buf, formatScore(v, buf)); };
  EXPECT_EQ(f(1.5), "1.5");
  EXPECT_EQ(f(0.1), "0.10000000000000001");
  EXPECT_EQ(f(3.0), "3");
  EXPECT_EQ(f(INFINITY), "inf");
  EXPECT_EQ(f(-INFINITY), "-inf");
  EXPECT_EQ(f(-2.5e-10), "-2.5000000000000002e-10");
}

}  // namespace
}  // namespace server::db
