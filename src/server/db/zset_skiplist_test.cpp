#include "server/db/zset_skiplist.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace server::db {
namespace {

using Model = std::set<std::pair<double, std::string>>;

std::vector<std::pair<double, std::string>> contents(const ZSkiplist& sl) {
  std::vector<std::pair<double, std::string>> out;
  for (ZNode* n = sl.first(); n; n = ZSkiplist::next(n)) out.emplace_back(n->score, n->member());
  return out;
}

ZNode* findNode(const ZSkiplist& sl, std::string_view member) {
  for (ZNode* n = sl.first(); n; n = ZSkiplist::next(n))
    if (n->member() == member) return n;
  return nullptr;
}

TEST(ZSkiplist, OrdersByScoreThenMember) {
  ZSkiplist sl;
  sl.insert(2, "b");
  sl.insert(1, "z");
  sl.insert(2, "a");
  sl.insert(-INFINITY, "neg");
  std::vector<std::pair<double, std::string>> want = {
      {-INFINITY, "neg"}, {1, "z"}, {2, "a"}, {2, "b"}};
  EXPECT_EQ(contents(sl), want);
  EXPECT_EQ(sl.size(), 4u);
  EXPECT_EQ(sl.last()->member(), "b");
  EXPECT_EQ(ZSkiplist::prev(sl.last())->member(), "a");
  EXPECT_TRUE(sl.checkInvariants());
}

TEST(ZSkiplist, RanksAndByRank) {
  ZSkiplist sl;
  for (int i = 0; i < 100; i++) sl.insert(i, "m" + std::to_string(i));
  EXPECT_EQ(sl.rank(0, "m0"), 1u);
  EXPECT_EQ(sl.rank(99, "m99"), 100u);
  EXPECT_EQ(sl.rank(50, "m50"), 51u);
  EXPECT_EQ(sl.rank(50, "m51"), 0u);  // wrong score: absent
  EXPECT_EQ(sl.byRank(1)->member(), "m0");
  EXPECT_EQ(sl.byRank(100)->member(), "m99");
  EXPECT_EQ(sl.byRank(0), nullptr);
  EXPECT_EQ(sl.byRank(101), nullptr);
}

TEST(ZSkiplist, ScoreRangesWithExclusiveBounds) {
  ZSkiplist sl;
  for (int i = 1; i <= 5; i++) sl.insert(i, std::string(1, static_cast<char>('a' + i - 1)));
  ScoreRange r{2, 4, true, false};  // (2 4
  EXPECT_EQ(sl.firstInRange(r)->member(), "c");
  EXPECT_EQ(sl.lastInRange(r)->member(), "d");
  ScoreRange empty{3, 3, true, false};
  EXPECT_FALSE(empty.nonEmpty());
  EXPECT_EQ(sl.firstInRange(empty), nullptr);
  ScoreRange outside{6, INFINITY, false, false};
  EXPECT_EQ(sl.firstInRange(outside), nullptr);
  EXPECT_EQ(sl.lastInRange(outside), nullptr);
  ScoreRange all{-INFINITY, INFINITY, false, false};
  EXPECT_EQ(sl.firstInRange(all)->member(), "a");
  EXPECT_EQ(sl.lastInRange(all)->member(), "e");
}

TEST(ZSkiplist, LexRanges) {
  ZSkiplist sl;
  for (const char* m : {"a", "b", "c", "d"}) sl.insert(0, m);
  LexRange r;
  r.min = "b";
  r.max = "c";
  r.maxex = true;
  EXPECT_EQ(sl.firstInLexRange(r)->member(), "b");
  EXPECT_EQ(sl.lastInLexRange(r)->member(), "b");
  LexRange all;
  all.min_kind = LexRange::kNegInf;
  all.max_kind = LexRange::kPosInf;
  EXPECT_EQ(sl.firstInLexRange(all)->member(), "a");
  EXPECT_EQ(sl.lastInLexRange(all)->member(), "d");
  LexRange inverted;
  inverted.min_kind = LexRange::kPosInf;
  inverted.max_kind = LexRange::kNegInf;
  EXPECT_FALSE(inverted.nonEmpty());
  EXPECT_EQ(sl.firstInLexRange(inverted), nullptr);
}

TEST(ZSkiplist, RangeDeletionsReportEachNode) {
  ZSkiplist sl;
  for (int i = 0; i < 10; i++) sl.insert(i, "m" + std::to_string(i));
  std::vector<std::string> seen;
  auto note = [&](ZNode* n) { seen.emplace_back(n->member()); };
  EXPECT_EQ(sl.deleteRangeByRank(2, 3, note), 2u);  // m1 m2
  EXPECT_EQ(sl.deleteRangeByScore({7, 100, false, false}, note), 3u);
  EXPECT_EQ(seen, (std::vector<std::string>{"m1", "m2", "m7", "m8", "m9"}));
  EXPECT_EQ(sl.size(), 5u);
  EXPECT_TRUE(sl.checkInvariants());
}

TEST(ZSkiplist, UpdateScoreKeepsTheNode) {
  ZSkiplist sl;
  ZNode* a = sl.insert(1, "a");
  sl.insert(2, "b");
  sl.insert(3, "c");
  sl.updateScore(a, 1.5);  // stays in place
  EXPECT_EQ(sl.first(), a);
  sl.updateScore(a, 10);  // moves to the end
  EXPECT_EQ(sl.last(), a);
  EXPECT_EQ(sl.rank(10, "a"), 3u);
  EXPECT_TRUE(sl.checkInvariants());
}

// Thousands of random operations against a std::set, checking ranks and
// the whole order as they go.
TEST(ZSkiplist, RandomOperationsMatchAModel) {
  std::mt19937 rng(12345);
  ZSkiplist sl;
  Model model;
  std::map<std::string, double> scores;
  for (int op = 0; op < 20000; op++) {
    std::string m = "k" + std::to_string(rng() % 500);
    double s = static_cast<double>(rng() % 50);
    int what = rng() % 10;
    auto it = scores.find(m);
    if (what < 5) {
      if (it == scores.end()) {
        sl.insert(s, m);
        model.emplace(s, m);
        scores[m] = s;
      } else {
        sl.updateScore(findNode(sl, m), s);
        model.erase({it->second, m});
        model.emplace(s, m);
        it->second = s;
      }
    } else if (what < 8) {
      if (it != scores.end()) {
        sl.erase(findNode(sl, m));
        model.erase({it->second, m});
        scores.erase(it);
      }
    } else if (what == 8) {
      double lo = rng() % 50, hi = lo + rng() % 5;
      size_t want = 0;
      for (const auto& [ms, mm] : model) want += ms >= lo && ms < hi;
      EXPECT_EQ(sl.deleteRangeByScore({lo, hi, false, true}, nullptr), want);
      for (auto mi = model.begin(); mi != model.end();) {
        if (mi->first >= lo && mi->first < hi) {
          scores.erase(mi->second);
          mi = model.erase(mi);
        } else {
          ++mi;
        }
      }
    } else if (!model.empty()) {
      size_t r = rng() % model.size();
      auto mi = std::next(model.begin(), static_cast<long>(r));
      EXPECT_EQ(sl.rank(mi->first, mi->second), r + 1);
      EXPECT_EQ(sl.byRank(r + 1)->member(), mi->second);
    }
    ASSERT_EQ(sl.size(), model.size()) << "op " << op;
    if (op % 1000 == 0) {
      ASSERT_TRUE(sl.checkInvariants()) << "op " << op;
      std::vector<std::pair<double, std::string>> want(model.begin(), model.end());
      ASSERT_EQ(contents(sl), want);
    }
  }
  EXPECT_TRUE(sl.checkInvariants());
}

}  // namespace
}  // namespace server::db
