#include "server/db/set.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

namespace server::db {
namespace {

std::set<std::string> members(const Set* s) {
  std::set<std::string> out;
  s->forEach([&](std::string_view m) { out.emplace(m); });
  return out;
}

constexpr SetLimits kLim{5};

TEST(Set, CreateForChoosesTheEncoding) {
  Value a = Value::fromCollection(Kind::kSet, setCreateFor("12"));
  Value b = Value::fromCollection(Kind::kSet, setCreateFor("x"));
  Value c = Value::fromCollection(Kind::kSet, setCreateFor("012"));
  EXPECT_STREQ(a.encodingName(), "intset");
  EXPECT_STREQ(b.encodingName(), "hashtable");
  EXPECT_STREQ(c.encodingName(), "hashtable");
}

TEST(Set, IntsetConversions) {
  Value v = Value::fromCollection(Kind::kSet, Set::createIntset());
  for (const char* m : {"3", "1", "2"}) EXPECT_TRUE(setAdd(&v, m, kLim));
  EXPECT_FALSE(setAdd(&v, "2", kLim));
  EXPECT_STREQ(v.encodingName(), "intset");
  EXPECT_EQ(members(asSet(v)), (std::set<std::string>{"1", "2", "3"}));
  // Any string: a table (Redis 7.0 has no listpack sets).
  EXPECT_TRUE(setAdd(&v, "a", kLim));
  EXPECT_STREQ(v.encodingName(), "hashtable");
  EXPECT_EQ(members(asSet(v)), (std::set<std::string>{"1", "2", "3", "a"}));
  // Past set-max-intset-entries: a table.
  Value x = Value::fromCollection(Kind::kSet, Set::createIntset());
  for (int i = 0; i < 5; i++) setAdd(&x, std::to_string(i), kLim);
  EXPECT_STREQ(x.encodingName(), "intset");
  setAdd(&x, "5", kLim);
  EXPECT_STREQ(x.encodingName(), "hashtable");
}

TEST(Set, PopAndRandomCoverEveryMember) {
  for (Set* s : {Set::createIntset(), Set::createTable()}) {
    Value v = Value::fromCollection(Kind::kSet, s);
    std::set<std::string> model;
    for (int i = 0; i < 3; i++) {
      s->add(std::to_string(i));
      model.insert(std::to_string(i));
    }
    std::set<std::string> seen;
    char scratch[Set::kScratch];
    for (int i = 0; i < 200; i++) seen.emplace(s->random(scratch));
    EXPECT_EQ(seen, model) << s->encodingName();
    std::set<std::string> popped;
    while (s->size() > 0) popped.insert(s->popRandom());
    EXPECT_EQ(popped, model) << s->encodingName();
  }
}

TEST(Set, RandomizedAgainstStdSet) {
  std::mt19937 rng(4242);
  SetLimits lim{20};
  Value v = Value::fromCollection(Kind::kSet, Set::createIntset());
  std::set<std::string> model;
  for (int op = 0; op < 5000; op++) {
    std::string m = rng() % 2 ? std::to_string(static_cast<int>(rng() % 60) - 10)
                              : "m" + std::to_string(rng() % 30);
    if (rng() % 3 == 0) {
      ASSERT_EQ(asSet(v)->remove(m), model.erase(m) == 1);
    } else {
      ASSERT_EQ(setAdd(&v, m, lim), model.insert(m).second);
    }
    ASSERT_EQ(asSet(v)->contains(m), model.count(m) == 1);
    ASSERT_EQ(asSet(v)->size(), model.size());
  }
  EXPECT_EQ(members(asSet(v)), model);
  Value copy = v.clone();
  EXPECT_EQ(members(asSet(copy)), model);
}

}  // namespace
}  // namespace server::db
