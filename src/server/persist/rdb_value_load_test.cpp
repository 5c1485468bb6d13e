// The one-pass loading paths of rdb_value_load.cpp: each must give what the
// element-by-element path gives, and refuse what it refuses.
#include "server/persist/rdb_value_load.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "server/db/hash.h"
#include "server/db/list.h"
#include "server/db/set.h"
#include "server/db/zset.h"
#include "server/persist/rdb_format.h"
#include "server/persist/redis_listpack.h"

namespace server::persist {
namespace {

using Elem = std::variant<int64_t, std::string>;

std::string listpack(const std::vector<Elem>& elems) {
  RedisListpackBuilder b;
  for (const Elem& e : elems) {
    if (std::holds_alternative<int64_t>(e))
      b.addInt(std::get<int64_t>(e));
    else
      b.addString(std::get<std::string>(e));
  }
  return b.finish();
}

// A value of `type` whose body is the strings written by fill.
template <class Fill>
std::string body(Fill fill) {
  RdbWriter w;
  w.setCompression(false);
  fill(w);
  return w.buffer();
}

bool load(const std::string& bytes, uint8_t type, db::Value* out, std::string* err,
          const LoadLimits& lim = LoadLimits()) {
  RdbReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  bool ok = loadValue(r, type, lim, out);
  *err = r.error();
  return ok && r.remaining() == 0;
}

std::string bytesOf(const db::Listpack& lp) {
  return std::string(reinterpret_cast<const char*>(lp.data()), lp.bytes());
}

const db::ListpackZSet& lpZSet(const db::Value& v) {
  return static_cast<const db::ListpackZSet&>(*static_cast<db::ZSet*>(v.collection()));
}

TEST(RdbLoadFast, ZSetListpackStoredAsZaddStoresIt) {
  // Ascending, as Redis writes it; texts as Redis's %.17g gives them, one
  // with a '+' that only strtod takes.
  std::string lp = listpack({std::string("m0"), std::string("-inf"), std::string("m1"),
                             std::string("0.10000000000000001"), std::string("m2"),
                             std::string("+2.5"), std::string("m3"), int64_t{7}, std::string("m4"),
                             std::string("1e+20"), std::string("m5"), std::string("inf")});
  db::Value v;
  std::string err;
  ASSERT_TRUE(load(body([&](RdbWriter& w) { w.string(lp); }), kTypeZSetListpack, &v, &err)) << err;
  db::ListpackZSet ref;
  ref.set("m0", -INFINITY);
  ref.set("m1", 0.1);
  ref.set("m2", 2.5);
  ref.set("m3", 7);
  ref.set("m4", 1e20);
  ref.set("m5", INFINITY);
  EXPECT_EQ(bytesOf(lpZSet(v).listpack()), bytesOf(ref.listpack()));
}

TEST(RdbLoadFast, ZSetListpackOutOfOrderIsSorted) {
  std::string lp = listpack(
      {std::string("b"), int64_t{2}, std::string("a"), int64_t{1}, std::string("c"), int64_t{1}});
  db::Value v;
  std::string err;
  ASSERT_TRUE(load(body([&](RdbWriter& w) { w.string(lp); }), kTypeZSetListpack, &v, &err)) << err;
  db::ListpackZSet ref;
  ref.set("a", 1);
  ref.set("c", 1);
  ref.set("b", 2);
  EXPECT_EQ(bytesOf(lpZSet(v).listpack()), bytesOf(ref.listpack()));
}

TEST(RdbLoadFast, ZSetDuplicatesAndBadScoresAreRefused) {
  db::Value v;
  std::string err;
  std::string dup = listpack({std::string("a"), int64_t{1}, std::string("a"), int64_t{2}});
  EXPECT_FALSE(load(body([&](RdbWriter& w) { w.string(dup); }), kTypeZSetListpack, &v, &err));
  EXPECT_NE(err.find("duplicate"), std::string::npos) << err;
  std::string nan = listpack({std::string("a"), std::string("nan")});
  EXPECT_FALSE(load(body([&](RdbWriter& w) { w.string(nan); }), kTypeZSetListpack, &v, &err));
  // Type 5, highest first as Redis writes it; a duplicate member.
  std::string z2 = body([](RdbWriter& w) {
    w.length(2);
    w.string("x");
    w.binaryDouble(2);
    w.string("x");
    w.binaryDouble(1);
  });
  EXPECT_FALSE(load(z2, kTypeZSet2, &v, &err));
  EXPECT_TRUE(v.empty());
}

TEST(RdbLoadFast, HashFieldAsTextAndAsIntegerIsOneField) {
  // Our listpacks keep "12" as the integer 12: the two are the same field.
  std::string lp = listpack({std::string("12"), std::string("a"), int64_t{12}, std::string("b")});
  db::Value v;
  std::string err;
  EXPECT_FALSE(load(body([&](RdbWriter& w) { w.string(lp); }), kTypeHashListpack, &v, &err));
  EXPECT_NE(err.find("duplicate hash field"), std::string::npos) << err;
}

TEST(RdbLoadFast, HashOverTheLimitsBecomesATable) {
  std::string lp = listpack({std::string("f"), std::string("short"), std::string("g"),
                             std::string("a longer value"), int64_t{5}, int64_t{-300}});
  LoadLimits lim;
  db::Value v;
  std::string err;
  std::string bytes = body([&](RdbWriter& w) { w.string(lp); });
  ASSERT_TRUE(load(bytes, kTypeHashListpack, &v, &err)) << err;
  EXPECT_TRUE(db::asHash(v)->isListpack());
  lim.hash.max_value = 5;
  ASSERT_TRUE(load(bytes, kTypeHashListpack, &v, &err, lim)) << err;
  db::Hash* h = db::asHash(v);
  EXPECT_FALSE(h->isListpack());
  char scratch[32];
  std::string_view got;
  ASSERT_TRUE(h->get("5", scratch, &got));
  EXPECT_EQ(got, "-300");
  ASSERT_TRUE(h->get("g", scratch, &got));
  EXPECT_EQ(got, "a longer value");
}

TEST(RdbLoadFast, SetsOfStringsAndIntsets) {
  db::Value v;
  std::string err;
  auto strings = [](std::vector<std::string> ms) {
    return body([&](RdbWriter& w) {
      w.length(ms.size());
      for (const auto& m : ms) w.string(m);
    });
  };
  ASSERT_TRUE(load(strings({"x", "y", "7"}), kTypeSet, &v, &err)) << err;
  EXPECT_EQ(db::asSet(v)->encoding(), db::Set::Encoding::kTable);
  EXPECT_TRUE(db::asSet(v)->contains("7"));
  EXPECT_FALSE(load(strings({"x", "y", "x"}), kTypeSet, &v, &err));
  // The first member an integer: intset first, as SADD would make it.
  ASSERT_TRUE(load(strings({"1", "2"}), kTypeSet, &v, &err)) << err;
  EXPECT_EQ(db::asSet(v)->encoding(), db::Set::Encoding::kIntset);
  // Redis 7.2's listpack sets load as SADD of their members would make them.
  auto lpset = [](const std::vector<Elem>& ms) {
    return body([&](RdbWriter& w) { w.string(listpack(ms)); });
  };
  ASSERT_TRUE(load(lpset({std::string("x"), int64_t{7}}), kTypeSetListpack, &v, &err)) << err;
  EXPECT_EQ(db::asSet(v)->encoding(), db::Set::Encoding::kTable);
  EXPECT_TRUE(db::asSet(v)->contains("7") && db::asSet(v)->contains("x"));
  ASSERT_TRUE(load(lpset({int64_t{3}, int64_t{-1}}), kTypeSetListpack, &v, &err)) << err;
  EXPECT_EQ(db::asSet(v)->encoding(), db::Set::Encoding::kIntset);
  EXPECT_FALSE(load(lpset({int64_t{3}, std::string("3")}), kTypeSetListpack, &v, &err));

  auto intset = [](std::vector<int16_t> xs) {
    std::string blob(8 + 2 * xs.size(), '\0');
    uint32_t width = 2, n = static_cast<uint32_t>(xs.size());
    memcpy(&blob[0], &width, 4);
    memcpy(&blob[4], &n, 4);
    for (size_t i = 0; i < xs.size(); i++) memcpy(&blob[8 + 2 * i], &xs[i], 2);
    return body([&](RdbWriter& w) { w.string(blob); });
  };
  ASSERT_TRUE(load(intset({-5, 3, 300}), kTypeSetIntset, &v, &err)) << err;
  db::Set* s = db::asSet(v);
  EXPECT_EQ(s->encoding(), db::Set::Encoding::kIntset);
  EXPECT_EQ(s->size(), 3u);
  EXPECT_TRUE(s->contains("-5") && s->contains("300"));
  EXPECT_FALSE(load(intset({3, 3}), kTypeSetIntset, &v, &err));
  EXPECT_FALSE(load(intset({4, 3}), kTypeSetIntset, &v, &err));
  LoadLimits lim;
  lim.set.max_intset_entries = 2;
  ASSERT_TRUE(load(intset({-5, 3, 300}), kTypeSetIntset, &v, &err, lim)) << err;
  EXPECT_NE(db::asSet(v)->encoding(), db::Set::Encoding::kIntset);
  EXPECT_TRUE(db::asSet(v)->contains("3"));
}

TEST(RdbLoadFast, ListNodesJoinWhole) {
  auto nodes = [](const std::vector<std::vector<Elem>>& ns) {
    return body([&](RdbWriter& w) {
      w.length(ns.size());
      for (const auto& n : ns) {
        w.length(kQuicklistPacked);
        w.string(listpack(n));
      }
    });
  };
  std::string three = nodes({{std::string("a"), int64_t{1}},
                             {std::string("b"), int64_t{2}},
                             {std::string("c"), std::string("d"), std::string("e")}});
  db::Value v;
  std::string err;
  // Default limits: everything fits one listpack.
  ASSERT_TRUE(load(three, kTypeListQuicklist2, &v, &err)) << err;
  auto* l = static_cast<db::List*>(v.collection());
  EXPECT_FALSE(l->isQuicklist());
  // Two elements a node: the first two nodes join whole, the third is
  // over the limit and its elements are pushed.
  LoadLimits lim;
  lim.list_fill = 2;
  ASSERT_TRUE(load(three, kTypeListQuicklist2, &v, &err, lim)) << err;
  l = static_cast<db::List*>(v.collection());
  ASSERT_TRUE(l->isQuicklist());
  EXPECT_EQ(l->quicklist()->nodeCount(), 4u);
  std::vector<std::string> got;
  char scratch[32];
  for (auto it = l->first(); it.valid(); it = l->next(it))
    got.emplace_back(l->get(it).view(scratch));
  EXPECT_EQ(got, (std::vector<std::string>{"a", "1", "b", "2", "c", "d", "e"}));
  // A damaged node is refused.
  std::string bad = three;
  bad[bad.size() - 2] ^= 0x7f;
  EXPECT_FALSE(load(bad, kTypeListQuicklist2, &v, &err));
}

}  // namespace
}  // namespace server::persist
