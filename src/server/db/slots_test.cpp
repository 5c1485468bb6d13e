#include "server/db/slots.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/crc16.h"
#include "server/db/db.h"

namespace server::db {
namespace {

TEST(SlotCrc16, KnownVectors) {
  EXPECT_EQ(common::crc16("123456789", 9), 0x31c3);
  EXPECT_EQ(common::crc16("", 0), 0);
  EXPECT_EQ(common::crc16("A", 1), 0x58e5);
  const char zeros[4] = {0, 0, 0, 0};
  EXPECT_EQ(common::crc16(zeros, sizeof(zeros)), 0);
  EXPECT_EQ(common::crc16("\xff", 1), 0x1ef0);
}

TEST(SlotHash, HashTags) {
  EXPECT_EQ(keyHashSlot("{user1000}.following"), keyHashSlot("{user1000}.followers"));
  EXPECT_EQ(keyHashSlot("{user1000}.following"), keyHashSlot("user1000"));
  // An empty first tag: the whole key is hashed.
  EXPECT_EQ(keyHashSlot("foo{}{bar}"), common::crc16("foo{}{bar}", 10) & 16383);
  // The tag runs from the first '{' to the first '}' after it.
  EXPECT_EQ(keyHashSlot("foo{{bar}}zap"), keyHashSlot("{bar"));
  EXPECT_EQ(keyHashSlot("foo{{bar}}zap"), common::crc16("{bar", 4) & 16383);
  EXPECT_EQ(keyHashSlot("foo{bar}{zap}"), keyHashSlot("bar"));
  // No closing brace, or a '}' only before the '{': the whole key.
  EXPECT_EQ(keyHashSlot("foo{bar"), common::crc16("foo{bar", 7) & 16383);
  EXPECT_EQ(keyHashSlot("}bar{"), common::crc16("}bar{", 5) & 16383);
  EXPECT_EQ(keyHashSlot(""), 0);
  // Binary keys: a NUL byte is an ordinary byte.
  EXPECT_EQ(keyHashSlot(std::string_view("a\0b", 3)), common::crc16("a\0b", 3) & 16383);
}

// Values from Debian's redis-server 7.0 (CLUSTER KEYSLOT).
TEST(SlotHash, MatchesRedis) {
  EXPECT_EQ(keyHashSlot("somekey"), 11058);
  EXPECT_EQ(keyHashSlot("foo"), 12182);
  EXPECT_EQ(keyHashSlot("bar"), 5061);
  EXPECT_EQ(keyHashSlot("hello"), 866);
  EXPECT_EQ(keyHashSlot("key:000000000042"), 7803);
  EXPECT_EQ(keyHashSlot("123456789"), 12739);
  EXPECT_EQ(keyHashSlot(""), 0);
  EXPECT_EQ(keyHashSlot("{user1000}.following"), 3443);
  EXPECT_EQ(keyHashSlot("foo{}{bar}"), 8363);
  EXPECT_EQ(keyHashSlot("foo{{bar}}zap"), 4015);
  EXPECT_EQ(keyHashSlot("foo{bar}{zap}"), 5061);
}

class SlotIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Clock::update();
    db.enableSlotIndex();
  }
  void TearDown() override {
    Db::lazy_free_value = nullptr;
    Db::onExpired = nullptr;
  }

  // Checks the index against the keyspace: every key is listed in its slot
  // exactly once and the counts add up.
  static void expectExact(const Db& d_const) {
    Db& d = const_cast<Db&>(d_const);  // forEach is not const
    ASSERT_TRUE(d.slotIndexEnabled());
    std::map<int, std::multiset<std::string>> want;
    d.forEach([&](Entry* e) { want[keyHashSlot(e->keyView())].insert(std::string(e->keyView())); });
    size_t total = 0;
    for (int slot = 0; slot < kClusterSlots; slot++) total += d.countKeysInSlot(slot);
    EXPECT_EQ(total, d.size());
    for (auto& [slot, keys] : want) {
      EXPECT_EQ(d.countKeysInSlot(slot), keys.size()) << slot;
      std::multiset<std::string> got;
      d.keysInSlot(slot, SIZE_MAX, [&](std::string_view k) { got.insert(std::string(k)); });
      EXPECT_EQ(got, keys) << slot;
    }
  }

  Db db{0};
};

TEST_F(SlotIndexTest, AddSetOverwriteRemove) {
  int s = keyHashSlot("{t}a");
  db.add("{t}a", Value::fromString("1"));
  db.set("{t}b", Value::fromString("2"), false);
  db.set("{t}c", Value::fromString("3"), false);
  EXPECT_EQ(db.countKeysInSlot(s), 3u);
  // Overwrite: same key, no change.
  db.set("{t}b", Value::fromString("22"), false);
  db.set("{t}b", Value::fromString("222"), true);
  EXPECT_EQ(db.countKeysInSlot(s), 3u);
  expectExact(db);
  EXPECT_TRUE(db.remove("{t}a"));
  EXPECT_TRUE(db.remove("{t}c", true));
  EXPECT_EQ(db.countKeysInSlot(s), 1u);
  db.removeEntry(db.find("{t}b"));
  EXPECT_EQ(db.countKeysInSlot(s), 0u);
  EXPECT_EQ(db.keysInSlot(s, 10, [](std::string_view) {}), 0u);
  expectExact(db);
}

TEST_F(SlotIndexTest, TakeForRenameAndMove) {
  Entry* e = db.set("{src}k", Value::fromString("payload-bigger-than-inline"), false);
  db.setExpire(e, Clock::nowMs + 5000);
  int64_t when;
  Value v = db.take(db.find("{src}k"), &when);
  EXPECT_EQ(db.countKeysInSlot(keyHashSlot("src")), 0u);
  db.add("{dst}k", std::move(v));
  db.setExpire(db.find("{dst}k"), when);
  EXPECT_EQ(db.countKeysInSlot(keyHashSlot("dst")), 1u);
  expectExact(db);
  // MOVE: the value lands in another db with its own index.
  Db other(1);
  other.enableSlotIndex();
  other.add("{dst}k", db.take(db.find("{dst}k"), &when));
  EXPECT_EQ(db.countKeysInSlot(keyHashSlot("dst")), 0u);
  EXPECT_EQ(other.countKeysInSlot(keyHashSlot("dst")), 1u);
  expectExact(db);
  expectExact(other);
}

TEST_F(SlotIndexTest, LazyAndActiveExpiry) {
  Db::onExpired = [](Db*, std::string_view) {};
  for (int i = 0; i < 2000; i++) {
    Entry* e = db.set("key:" + std::to_string(i), Value::fromString("v"), false);
    if (i % 2) db.setExpire(e, Clock::nowMs - 1);
  }
  // Expired keys not yet deleted are still indexed.
  EXPECT_EQ(db.size(), 2000u);
  expectExact(db);
  // Lazy: a lookup deletes it.
  int s1 = keyHashSlot("key:1");
  size_t before = db.countKeysInSlot(s1);
  EXPECT_EQ(db.find("key:1"), nullptr);
  EXPECT_EQ(db.countKeysInSlot(s1), before - 1);
  // set() over an expired key: deleted as expired, then added again.
  db.set("key:3", Value::fromString("w"), false);
  expectExact(db);
  for (int round = 0; round < 100000 && db.size() > 1001; round++) {
    db.activeExpireCycle(1000000, 1);
  }
  EXPECT_EQ(db.size(), 1001u);
  expectExact(db);
}

TEST_F(SlotIndexTest, RandomEntryDeletesExpired) {
  Entry* e = db.set("dead", Value::fromString("v"), false);
  db.setExpire(e, Clock::nowMs - 1);
  db.set("live", Value::fromString("v"), false);
  for (int i = 0; i < 20; i++) ASSERT_NE(db.randomEntry(), nullptr);
  EXPECT_EQ(db.countKeysInSlot(keyHashSlot("dead")), 0u);
  expectExact(db);
}

TEST_F(SlotIndexTest, EvictionRemoval) {
  for (int i = 0; i < 100; i++) db.set("e" + std::to_string(i), Value::fromInt(i), false);
  Entry* sample[16];
  size_t n = db.sampleForEviction(false, sample, 16);
  ASSERT_GT(n, 0u);
  std::string victim(sample[0]->keyView());
  EXPECT_TRUE(db.removeForEviction(victim, false));
  EXPECT_EQ(db.size(), 99u);
  EXPECT_EQ(db.countKeysInSlot(keyHashSlot(victim)), 0u);
  expectExact(db);
}

TEST_F(SlotIndexTest, ClearAndDetachAll) {
  for (int i = 0; i < 500; i++) db.set("c" + std::to_string(i), Value::fromInt(i), false);
  EXPECT_EQ(db.clear(), 500u);
  expectExact(db);
  for (int i = 0; i < 500; i++) db.set("d" + std::to_string(i), Value::fromInt(i), false);
  auto detached = db.detachAll();
  EXPECT_EQ(detached->size(), 500u);
  EXPECT_EQ(db.size(), 0u);
  expectExact(db);
  // The db is usable while the old keys wait to be freed.
  db.set("d1", Value::fromInt(1), false);
  EXPECT_EQ(db.countKeysInSlot(keyHashSlot("d1")), 1u);
  detached.reset();
  expectExact(db);
}

TEST_F(SlotIndexTest, SwapWithIndexedDb) {
  Db other(1);
  other.enableSlotIndex();
  db.set("{a}1", Value::fromInt(1), false);
  other.set("{b}1", Value::fromInt(1), false);
  other.set("{b}2", Value::fromInt(2), false);
  db.swapWith(other);
  EXPECT_EQ(db.countKeysInSlot(keyHashSlot("b")), 2u);
  EXPECT_EQ(db.countKeysInSlot(keyHashSlot("a")), 0u);
  EXPECT_EQ(other.countKeysInSlot(keyHashSlot("a")), 1u);
  expectExact(db);
  expectExact(other);
}

TEST_F(SlotIndexTest, SwapWithUnindexedDbKeepsEachSetting) {
  Db plain(1);
  for (int i = 0; i < 300; i++) {
    Entry* e = plain.set("p" + std::to_string(i), Value::fromInt(i), false);
    if (i % 3 == 0) plain.setExpire(e, Clock::nowMs + 100000);
  }
  db.set("{a}1", Value::fromInt(1), false);
  db.swapWith(plain);
  // The indexed db indexed the keys it got; the other one stays plain.
  EXPECT_TRUE(db.slotIndexEnabled());
  EXPECT_FALSE(plain.slotIndexEnabled());
  EXPECT_EQ(db.size(), 300u);
  EXPECT_EQ(db.expiresSize(), 100u);
  expectExact(db);
  EXPECT_GT(db.expireOf(db.find("p0")), Clock::nowMs);
  // The plain db frees entries that carry links as any others.
  EXPECT_TRUE(plain.remove("{a}1"));
  plain.set("{a}2", Value::fromInt(2), false);
  // Swapping back: the links the plain db's entries have are rebuilt.
  db.swapWith(plain);
  expectExact(db);
  EXPECT_EQ(db.size(), 1u);
  EXPECT_EQ(plain.size(), 300u);
  EXPECT_TRUE(db.remove("{a}2"));
  expectExact(db);
}

TEST_F(SlotIndexTest, KeysInSlotLimit) {
  for (int i = 0; i < 50; i++) db.set("{lim}" + std::to_string(i), Value::fromInt(i), false);
  int s = keyHashSlot("lim");
  std::vector<std::string> got;
  EXPECT_EQ(db.keysInSlot(s, 10, [&](std::string_view k) { got.emplace_back(k); }), 10u);
  EXPECT_EQ(got.size(), 10u);
  for (auto& k : got) EXPECT_EQ(k.rfind("{lim}", 0), 0u);
  EXPECT_EQ(db.keysInSlot(s, 0, [](std::string_view) { FAIL(); }), 0u);
  EXPECT_EQ(db.keysInSlot(s, 1000, [](std::string_view) {}), 50u);
  EXPECT_EQ(db.keysInSlot((s + 1) % kClusterSlots, 1000, [](std::string_view) {}), 0u);
}

TEST_F(SlotIndexTest, RemoveKeysInSlot) {
  static int lazily_freed;
  lazily_freed = 0;
  static int expired_signals;
  expired_signals = 0;
  Db::onExpired = [](Db*, std::string_view) { expired_signals++; };
  for (int i = 0; i < 40; i++) {
    Entry* e = db.set("{gone}" + std::to_string(i), Value::fromInt(i), false);
    if (i % 4 == 0) db.setExpire(e, i % 8 ? Clock::nowMs + 100000 : Clock::nowMs - 1);
  }
  db.set("{kept}1", Value::fromInt(1), false);
  EXPECT_EQ(db.removeKeysInSlot(keyHashSlot("gone")), 40u);
  EXPECT_EQ(expired_signals, 0);
  EXPECT_EQ(db.size(), 1u);
  EXPECT_EQ(db.expiresSize(), 0u);
  EXPECT_EQ(db.countKeysInSlot(keyHashSlot("gone")), 0u);
  expectExact(db);
  EXPECT_EQ(db.removeKeysInSlot(keyHashSlot("gone")), 0u);
  // Values are freed as remove() frees them: lazily under lazy_server_del.
  Db::lazy_free_value = [](Value&) {
    lazily_freed++;
    return false;
  };
  bool saved = Db::lazy_server_del;
  Db::lazy_server_del = true;
  EXPECT_EQ(db.removeKeysInSlot(keyHashSlot("kept")), 1u);
  Db::lazy_server_del = saved;
  EXPECT_EQ(lazily_freed, 1);
  EXPECT_EQ(db.size(), 0u);
}

TEST(SlotIndexEnable, OnNonEmptyDb) {
  Clock::update();
  Db db(0);
  for (int i = 0; i < 1000; i++) {
    Entry* e =
        db.set("k" + std::to_string(i), Value::fromString("value-" + std::to_string(i)), false);
    if (i % 5 == 0) db.setExpire(e, Clock::nowMs + 100000 + i);
  }
  EXPECT_FALSE(db.slotIndexEnabled());
  db.enableSlotIndex();
  db.enableSlotIndex();  // a second call changes nothing
  EXPECT_TRUE(db.slotIndexEnabled());
  EXPECT_EQ(db.size(), 1000u);
  EXPECT_EQ(db.expiresSize(), 200u);
  char scratch[24];
  for (int i = 0; i < 1000; i++) {
    std::string k = "k" + std::to_string(i);
    Entry* e = db.find(k);
    ASSERT_NE(e, nullptr) << k;
    EXPECT_TRUE(e->hasSlotLinks());
    EXPECT_EQ(e->val.str(scratch), "value-" + std::to_string(i));
    EXPECT_EQ(db.expireOf(e), i % 5 == 0 ? Clock::nowMs + 100000 + i : -1) << k;
  }
  size_t total = 0;
  for (int slot = 0; slot < kClusterSlots; slot++) total += db.countKeysInSlot(slot);
  EXPECT_EQ(total, 1000u);
  for (int i = 0; i < 1000; i += 2) EXPECT_TRUE(db.remove("k" + std::to_string(i)));
  EXPECT_EQ(db.expiresSize(), 100u);  // the odd multiples of 5 remain
  total = 0;
  for (int slot = 0; slot < kClusterSlots; slot++) total += db.countKeysInSlot(slot);
  EXPECT_EQ(total, 500u);
}

TEST(SlotIndexEnable, PlainDbAllocatesNoLinks) {
  Db db(0);
  Entry* e = db.set("k", Value::fromInt(1), false);
  EXPECT_FALSE(e->hasSlotLinks());
  EXPECT_FALSE(db.slotIndexEnabled());
}

}  // namespace
}  // namespace server::db
