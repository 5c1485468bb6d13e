#include "server/db/hash.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

namespace server::db {
namespace {

std::map<std::string, std::string> contents(const Hash* h) {
  std::map<std::string, std::string> out;
  h->forEach([&](std::string_view f, std::string_view v) { out.emplace(f, v); });
  return out;
}

TEST(Hash, ListpackBasics) {
  Value v = Value::fromCollection(Kind::kHash, Hash::createListpack());
  HashLimits lim{4, 8};
  EXPECT_TRUE(hashSet(&v, "a", "1", lim));
  EXPECT_TRUE(hashSet(&v, "b", "-12", lim));
  EXPECT_FALSE(hashSet(&v, "a", "one", lim));
  Hash* h = asHash(v);
  EXPECT_STREQ(h->encodingName(), "listpack");
  EXPECT_EQ(h->size(), 2u);
  char scratch[Hash::kScratch];
  std::string_view got;
  ASSERT_TRUE(h->get("a", scratch, &got));
  EXPECT_EQ(got, "one");
  ASSERT_TRUE(h->get("b", scratch, &got));
  EXPECT_EQ(got, "-12");  // stored as an integer, read back as its text
  EXPECT_FALSE(h->get("c", scratch, &got));
  EXPECT_TRUE(h->remove("a"));
  EXPECT_FALSE(h->remove("a"));
  EXPECT_EQ(h->size(), 1u);
}

TEST(Hash, ConvertsOnEntriesAndLength) {
  HashLimits lim{3, 5};
  Value v = Value::fromCollection(Kind::kHash, Hash::createListpack());
  for (const char* f : {"a", "b", "c"}) hashSet(&v, f, "x", lim);
  EXPECT_STREQ(v.encodingName(), "listpack");
  hashSet(&v, "a", "y", lim);  // an update does not grow it
  EXPECT_STREQ(v.encodingName(), "listpack");
  hashSet(&v, "d", "x", lim);
  EXPECT_STREQ(v.encodingName(), "hashtable");
  EXPECT_EQ(contents(asHash(v)),
            (std::map<std::string, std::string>{{"a", "y"}, {"b", "x"}, {"c", "x"}, {"d", "x"}}));

  Value w = Value::fromCollection(Kind::kHash, Hash::createListpack());
  hashSet(&w, "f", "12345", lim);
  EXPECT_STREQ(w.encodingName(), "listpack");
  hashSet(&w, "f", "123456", lim);
  EXPECT_STREQ(w.encodingName(), "hashtable");
  Value u = Value::fromCollection(Kind::kHash, Hash::createListpack());
  hashSet(&u, "longfield", "v", lim);
  EXPECT_STREQ(u.encodingName(), "hashtable");
}

TEST(Hash, TableUpdatesValuesOfAnySize) {
  Value v = Value::fromCollection(Kind::kHash, Hash::createTable());
  HashLimits lim{0, 0};
  EXPECT_TRUE(hashSet(&v, "f", "abc", lim));
  EXPECT_FALSE(hashSet(&v, "f", "xyz", lim));  // same size: in place
  EXPECT_FALSE(hashSet(&v, "f", std::string(100, 'q'), lim));
  char scratch[Hash::kScratch];
  std::string_view got;
  ASSERT_TRUE(asHash(v)->get("f", scratch, &got));
  EXPECT_EQ(got, std::string(100, 'q'));
  Value copy = v.clone();
  hashSet(&v, "f", "1", lim);
  ASSERT_TRUE(asHash(copy)->get("f", scratch, &got));
  EXPECT_EQ(got.size(), 100u);
}

TEST(Hash, RandomizedAgainstStdMap) {
  std::mt19937 rng(99);
  HashLimits lim{16, 6};
  Value v = Value::fromCollection(Kind::kHash, Hash::createListpack());
  std::map<std::string, std::string> model;
  for (int op = 0; op < 5000; op++) {
    std::string f = "f" + std::to_string(rng() % 40);
    if (rng() % 3 == 0) {
      EXPECT_EQ(asHash(v)->remove(f), model.erase(f) == 1);
    } else {
      std::string val =
          rng() % 10 == 0 ? std::string(rng() % 12, 'x') : std::to_string(rng() % 999);
      EXPECT_EQ(hashSet(&v, f, val, lim), model.count(f) == 0);
      model[f] = val;
    }
    ASSERT_EQ(asHash(v)->size(), model.size());
  }
  EXPECT_EQ(contents(asHash(v)), model);
  // A full scan of either encoding sees every pair.
  std::map<std::string, std::string> scanned;
  uint64_t cursor = 0;
  do {
    cursor = asHash(v)->scan(
        cursor, [&](std::string_view f, std::string_view val) { scanned.emplace(f, val); });
  } while (cursor != 0);
  EXPECT_EQ(scanned, model);
}

}  // namespace
}  // namespace server::db
