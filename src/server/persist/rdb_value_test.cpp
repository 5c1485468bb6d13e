#include "server/persist/rdb_value.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include "server/db/list.h"
#include "server/db/zset.h"
#include "server/persist/dump_payload.h"
#include "server/persist/rdb_format.h"
#include "server/persist/redis_listpack.h"

namespace server::persist {
namespace {

db::Value roundTrip(const db::Value& v, const LoadLimits& lim = LoadLimits()) {
  RdbWriter w;
  w.byte(rdbTypeOf(v));
  saveValue(w, v);
  const std::string& b = w.buffer();
  RdbReader r(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  uint8_t type = 0;
  EXPECT_TRUE(r.byte(&type));
  db::Value out;
  EXPECT_TRUE(loadValue(r, type, lim, &out)) << r.error();
  EXPECT_EQ(r.remaining(), 0u);
  return out;
}

TEST(RedisListpack, BoundariesRoundTrip) {
  std::vector<int64_t> ints = {0,        127,     128,       -1,        -4096,     4095,
                               4096,     -4097,   32767,     -32768,    32768,     8388607,
                               -8388608, 8388608, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
  std::vector<std::string> strs = {"",
                                   "a",
                                   std::string(63, 'x'),
                                   std::string(64, 'y'),
                                   std::string(4095, 'z'),
                                   std::string(4096, 'w'),
                                   std::string(70000, 'v')};
  RedisListpackBuilder b;
  for (int64_t v : ints) b.addInt(v);
  for (const auto& s : strs) b.addString(s);
  std::string blob = b.finish();
  std::vector<db::LpValue> got;
  std::string err;
  ASSERT_TRUE(parseRedisListpack(blob, &got, &err)) << err;
  ASSERT_EQ(got.size(), ints.size() + strs.size());
  for (size_t i = 0; i < ints.size(); i++) {
    EXPECT_TRUE(got[i].is_int);
    EXPECT_EQ(got[i].ival, ints[i]);
  }
  for (size_t i = 0; i < strs.size(); i++) EXPECT_EQ(got[ints.size() + i].str, strs[i]);
}

TEST(RedisListpack, BytesAsRedisWritesThem) {
  // HSET hh a 1 in Redis 7.0: DUMP shows this listpack.
  RedisListpackBuilder b;
  b.addString("a");
  b.addInt(1);
  EXPECT_EQ(b.finish(), std::string("\x0c\x00\x00\x00\x02\x00\x81"
                                    "a\x02\x01\x01\xff",
                                    12));
}

TEST(RedisListpack, RejectsDamage) {
  RedisListpackBuilder b;
  b.addString("hello");
  b.addInt(1000);
  std::string good = b.finish();
  std::vector<db::LpValue> out;
  std::string err;
  // Every truncation and every single-byte change of the header, the
  // backlens and the terminator is refused (payload bytes of a string may
  // change freely).
  for (size_t n = 0; n < good.size(); n++)
    EXPECT_FALSE(parseRedisListpack(good.substr(0, n), &out, &err)) << n;
  std::string bad = good;
  bad[4] = 3;  // count
  EXPECT_FALSE(parseRedisListpack(bad, &out, &err));
  bad = good;
  bad[12] = 9;  // backlen of "hello"
  EXPECT_FALSE(parseRedisListpack(bad, &out, &err));
  bad = good;
  bad[6] = static_cast<char>(0xff);  // EOF in place of the first entry
  EXPECT_FALSE(parseRedisListpack(bad, &out, &err));
}

TEST(RdbValue, StringsKeepTheirBytes) {
  for (std::string s : {std::string("12345"), std::string("-7"), std::string("0123"),
                        std::string(""), std::string(1000, 'a'), std::string("a\0b", 3)}) {
    db::Value v = roundTrip(db::Value::fromString(s));
    char scratch[32];
    EXPECT_EQ(v.str(scratch), s);
  }
}

// How RdbWriter::string stores a string of n bytes: 'L' for LZF, 'P' plain.
char stringForm(const std::string& s) {
  RdbWriter w;
  w.string(s);
  const std::string& b = w.buffer();
  RdbReader r(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  std::string back;
  EXPECT_TRUE(r.string(&back)) << r.error();
  EXPECT_EQ(back, s);
  return (static_cast<uint8_t>(b[0]) >> 6) == 3 ? 'L' : 'P';
}

std::string noise(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  for (char& c : s) {
    seed = seed * 1103515245u + 12345u;
    c = static_cast<char>(seed >> 16);
  }
  return s;
}

TEST(RdbWriter, CompressesWhatShrinksAndSkipsNoise) {
  EXPECT_EQ(stringForm(std::string(1000, 'a')), 'L');
  std::string text;
  while (text.size() < 5000) text += "{\"user\":\"someone\",\"tags\":[\"a\",\"b\"]} ";
  EXPECT_EQ(stringForm(text), 'L');
  EXPECT_EQ(stringForm(noise(100, 1)), 'P');
  EXPECT_EQ(stringForm(noise(1000, 2)), 'P');
  EXPECT_EQ(stringForm(noise(300000, 3)), 'P');
  // The probe looks at the first 256 bytes only: a noisy head followed by
  // a long run is stored plain (the cost of not compressing noise).
  EXPECT_EQ(stringForm(noise(256, 4) + std::string(10000, 'z')), 'P');
  EXPECT_EQ(stringForm(noise(200, 5) + std::string(10000, 'z')), 'L');
}

TEST(RdbWriter, FileWithIncrementalSyncKeepsEveryByte) {
  char path[] = "/tmp/rdb-writer-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string expect;
  {
    RdbWriter w(fd, 64 * 1024);  // a sync step every 64 KiB
    for (int i = 0; i < 300; i++) {
      std::string chunk = noise(4000 + static_cast<size_t>(i), static_cast<uint32_t>(i));
      w.raw(chunk.data(), chunk.size());
      expect += chunk;
    }
    ASSERT_TRUE(w.flush());
    EXPECT_FALSE(w.failed());
  }
  std::string got(expect.size() + 1, '\0');
  EXPECT_EQ(pread(fd, got.data(), got.size(), 0), static_cast<ssize_t>(expect.size()));
  got.resize(expect.size());
  EXPECT_TRUE(got == expect);
  close(fd);
  unlink(path);
}

TEST(RdbValue, ZSetKeepsScoresAndEncoding) {
  auto* z = new db::ListpackZSet();
  z->set("a", 1.5);
  z->set("b", -INFINITY);
  z->set("c", 3);
  db::Value v = db::Value::fromCollection(db::Kind::kZSet, z);
  db::Value out = roundTrip(v);
  auto* oz = static_cast<db::ZSet*>(out.collection());
  EXPECT_TRUE(oz->isListpack());
  double s = 0;
  ASSERT_TRUE(oz->score("b", &s));
  EXPECT_EQ(s, -INFINITY);
  ASSERT_TRUE(oz->score("a", &s));
  EXPECT_EQ(s, 1.5);
  // Over the limit at load: converted to a skiplist.
  LoadLimits lim;
  lim.zset_max_entries = 2;
  db::Value big = roundTrip(v, lim);
  EXPECT_FALSE(static_cast<db::ZSet*>(big.collection())->isListpack());
}

TEST(RdbValue, ListInQuicklistNodesComesBackInOrder) {
  auto* l = new db::List();
  for (int i = 0; i < 5000; i++) l->push("element-" + std::to_string(i), false);
  l->updateEncoding(-2, 1);  // quicklist, interior nodes compressed
  db::Value v = db::Value::fromCollection(db::Kind::kList, l);
  LoadLimits lim;
  lim.list_compress = 1;
  db::Value out = roundTrip(v, lim);
  auto* ol = static_cast<db::List*>(out.collection());
  ASSERT_EQ(ol->size(), 5000u);
  EXPECT_TRUE(ol->isQuicklist());
  char scratch[32];
  EXPECT_EQ(ol->get(ol->at(0)).view(scratch), "element-0");
  EXPECT_EQ(ol->get(ol->at(4321)).view(scratch), "element-4321");
}

TEST(DumpPayload, VersionAndChecksumAreChecked) {
  std::string p = makeDumpPayload(db::Value::fromString("hello"), true);
  EXPECT_TRUE(verifyDumpPayload(p));
  // As Redis 7.0: type 0, "hello", version 10, CRC-64.
  EXPECT_EQ(p.substr(0, 9), std::string("\x00\x05hello\x0a\x00", 9));
  std::string bad = p;
  bad[3] ^= 1;
  EXPECT_FALSE(verifyDumpPayload(bad));
  EXPECT_FALSE(verifyDumpPayload(p.substr(0, 9)));
}

}  // namespace
}  // namespace server::persist
