// The encodings of older and newer servers: ziplists and zipmaps parsed
// from bytes built here from the format's description, every check of the
// parsers made to fail once, the value loaders fed those encodings, and
// random damage to all of them (which must be refused or load whole, never
// read out of bounds: run under `make SANITIZER=address`).
#include "server/persist/legacy_encodings.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "common/crc64.h"
#include "server/db/hash.h"
#include "server/db/list.h"
#include "server/persist/dump_payload.h"
#include "server/persist/rdb_format.h"
#include "server/persist/rdb_value.h"
#include "server/persist/redis_listpack.h"

namespace server::persist {
namespace {

using Elem = std::variant<int64_t, std::string>;

void putLe(std::string* s, uint64_t v, int n) {
  for (int i = 0; i < n; i++) s->push_back(static_cast<char>(v >> (8 * i)));
}

// One ziplist entry's encoding and payload (no prevlen).
std::string zlBody(const Elem& e) {
  std::string b;
  if (const auto* s = std::get_if<std::string>(&e)) {
    size_t n = s->size();
    if (n < 64) {
      b.push_back(static_cast<char>(n));
    } else if (n < 16384) {
      b.push_back(static_cast<char>(0x40 | (n >> 8)));
      b.push_back(static_cast<char>(n & 0xff));
    } else {
      b.push_back(static_cast<char>(0x80));
      for (int i = 3; i >= 0; i--) b.push_back(static_cast<char>(n >> (8 * i)));
    }
    return b + *s;
  }
  int64_t v = std::get<int64_t>(e);
  if (v >= 0 && v <= 12) {
    b.push_back(static_cast<char>(0xf1 + v));
  } else if (v >= -128 && v < 128) {
    b.push_back(static_cast<char>(0xfe));
    putLe(&b, static_cast<uint64_t>(v), 1);
  } else if (v >= -32768 && v < 32768) {
    b.push_back(static_cast<char>(0xc0));
    putLe(&b, static_cast<uint64_t>(v), 2);
  } else if (v >= -(1 << 23) && v < (1 << 23)) {
    b.push_back(static_cast<char>(0xf0));
    putLe(&b, static_cast<uint64_t>(v), 3);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    b.push_back(static_cast<char>(0xd0));
    putLe(&b, static_cast<uint64_t>(v), 4);
  } else {
    b.push_back(static_cast<char>(0xe0));
    putLe(&b, static_cast<uint64_t>(v), 8);
  }
  return b;
}

std::string ziplist(const std::vector<Elem>& elems) {
  std::string entries;
  size_t prev = 0, tail = 10;
  for (const Elem& e : elems) {
    std::string ent;
    if (prev < 254) {
      ent.push_back(static_cast<char>(prev));
    } else {
      ent.push_back(static_cast<char>(0xfe));
      putLe(&ent, prev, 4);
    }
    ent += zlBody(e);
    tail = 10 + entries.size();
    entries += ent;
    prev = ent.size();
  }
  std::string z;
  putLe(&z, 10 + entries.size() + 1, 4);
  putLe(&z, tail, 4);
  putLe(&z, elems.size(), 2);
  return z + entries + "\xff";
}

std::string str(std::string_view s) {
  return std::string(s);
}

std::vector<std::string> texts(const std::vector<db::LpValue>& v) {
  std::vector<std::string> out;
  for (const auto& e : v) out.push_back(e.toString());
  return out;
}

TEST(Ziplist, TheDocumentedExample) {
  // "2" and "5": [0f 00 00 00] [0c 00 00 00] [02 00] [00 f3] [02 f6] [ff]
  std::string z("\x0f\0\0\0\x0c\0\0\0\x02\0\0\xf3\x02\xf6\xff", 15);
  std::vector<db::LpValue> v;
  std::string err;
  ASSERT_TRUE(parseZiplist(z, &v, &err)) << err;
  EXPECT_EQ(texts(v), (std::vector<std::string>{"2", "5"}));
}

TEST(Ziplist, EveryEncodingReadsBack) {
  std::vector<Elem> in = {int64_t{0},
                          int64_t{12},
                          int64_t{13},
                          int64_t{-128},
                          int64_t{30000},
                          int64_t{-8000000},
                          int64_t{INT32_MIN},
                          int64_t{1} << 40,
                          int64_t{INT64_MIN},
                          str(""),
                          str("abc"),
                          std::string(300, 'x'),
                          std::string(20000, 'y')};
  std::vector<db::LpValue> v;
  std::string err;
  std::string z = ziplist(in);  // the elements point into it
  ASSERT_TRUE(parseZiplist(z, &v, &err)) << err;
  ASSERT_EQ(v.size(), in.size());
  for (size_t i = 0; i < in.size(); i++) {
    if (const auto* n = std::get_if<int64_t>(&in[i])) {
      EXPECT_TRUE(v[i].is_int);
      EXPECT_EQ(v[i].ival, *n);
    } else {
      EXPECT_EQ(v[i].str, std::get<std::string>(in[i]));
    }
  }
  ASSERT_TRUE(parseZiplist(ziplist({}), &v, &err)) << err;
  EXPECT_TRUE(v.empty());
}

TEST(Ziplist, EveryCheckRefuses) {
  std::string good = ziplist({str("a"), int64_t{1000}, str("b")});
  std::vector<db::LpValue> v;
  std::string err;
  auto refused = [&](std::string z) { return !parseZiplist(z, &v, &err); };
  EXPECT_TRUE(refused(good.substr(0, 9)));
  std::string z = good;
  z[0]++;  // zlbytes
  EXPECT_TRUE(refused(z));
  z = good;
  z.back() = 0;  // terminator
  EXPECT_TRUE(refused(z));
  z = good;
  z[4] = 10;  // tail points at the first entry
  EXPECT_TRUE(refused(z));
  z = good;
  z[4] = 100;  // tail past the end
  EXPECT_TRUE(refused(z));
  z = good;
  z[8] = 2;  // count
  EXPECT_TRUE(refused(z));
  z = good;
  z[13] = 5;  // the second entry's prevlen
  EXPECT_TRUE(refused(z));
  z = good;
  z[14] = static_cast<char>(0xc5);  // no such encoding
  EXPECT_TRUE(refused(z));
  z = good;
  z[11] = 60;  // the first string runs past the end
  EXPECT_TRUE(refused(z));
  z = good;
  z[10] = static_cast<char>(0xff);  // a terminator before the end
  EXPECT_TRUE(refused(z));
  // Counted only when the count field says "unknown".
  z = good;
  z[8] = z[9] = static_cast<char>(0xff);
  EXPECT_FALSE(refused(z)) << err;
}

TEST(Zipmap, TheDocumentedExampleWithPadding) {
  std::string m(
      "\x02\x03"
      "foo\x03\x00"
      "bar\x05"
      "hello\x05\x02"
      "worldxx\xff",
      26);
  std::vector<db::LpValue> v;
  std::string err;
  ASSERT_TRUE(parseZipmap(m, &v, &err)) << err;
  EXPECT_EQ(texts(v), (std::vector<std::string>{"foo", "bar", "hello", "world"}));
  // A long value (a five-byte length) and an unknown count (254).
  std::string big(300, 'v');
  std::string m2("\xfe\x01k\xfe", 4);
  putLe(&m2, 300, 4);
  m2 += std::string(1, '\0') + big + "\xff";
  ASSERT_TRUE(parseZipmap(m2, &v, &err)) << err;
  EXPECT_EQ(texts(v), (std::vector<std::string>{"k", big}));
}

TEST(Zipmap, EveryCheckRefuses) {
  std::vector<db::LpValue> v;
  std::string err;
  auto refused = [&](std::string_view m) { return !parseZipmap(m, &v, &err); };
  EXPECT_TRUE(refused(std::string_view("\x00\xff", 2)));  // empty
  EXPECT_TRUE(
      refused(std::string_view("\x02\x01"
                               "a\x01\x00"
                               "b\xff",
                               8)));  // count
  EXPECT_TRUE(
      refused(std::string_view("\x01\x01"
                               "a\x05\x00"
                               "b\xff",
                               8)));  // value too long
  EXPECT_TRUE(
      refused(std::string_view("\x01\x01"
                               "a\x01\x09"
                               "b\xff",
                               8)));  // padding too long
  EXPECT_TRUE(
      refused(std::string_view("\x01\x09"
                               "a\xff",
                               4)));  // field too long
  EXPECT_TRUE(
      refused(std::string_view("\x01\x01"
                               "a\x01\x00"
                               "b",
                               7)));  // no terminator
  // A short length in the five-byte form is not what Redis writes.
  EXPECT_TRUE(
      refused(std::string_view("\x01\xfe\x01\x00\x00\x00"
                               "a\x01\x00"
                               "b\xff",
                               12)));
  EXPECT_TRUE(
      refused(std::string_view("\x01\x01"
                               "a\xff\xff",
                               5)));  // 255 as a length
}

// ---------------------------------------------------------------- through the loader

std::string rdbString(const std::string& s) {
  RdbWriter w;
  w.setCompression(false);
  w.string(s);
  return w.buffer();
}

bool load(const std::string& bytes, uint8_t type, db::Value* out, std::string* err,
          int64_t now_ms = 0, bool valkey = false, RdbReader::FieldTtlNotes* notes = nullptr) {
  RdbReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  r.setOrigin(valkey ? 80 : 12, valkey, now_ms);
  *out = db::Value();
  bool ok = loadValue(r, type, LoadLimits(), out);
  *err = r.error();
  if (notes != nullptr) *notes = r.fieldTtlNotes();
  return ok && r.remaining() == 0;
}

TEST(LegacyLoad, ZiplistTypesBecomeOurEncodings) {
  db::Value v;
  std::string err;
  ASSERT_TRUE(load(rdbString(ziplist({str("m"), str("2.5"), str("n"), int64_t{1}})),
                   kTypeZSetZiplist, &v, &err))
      << err;
  EXPECT_EQ(v.kind(), db::Kind::kZSet);
  ASSERT_TRUE(load(rdbString(ziplist({str("f"), int64_t{7}})), kTypeHashZiplist, &v, &err)) << err;
  EXPECT_EQ(db::asHash(v)->size(), 1u);
  // Quicklist v1: nodes are ziplists; an empty node is skipped.
  std::string ql = std::string("\x03") + rdbString(ziplist({str("a"), int64_t{2}})) +
                   rdbString(ziplist({})) + rdbString(ziplist({str("c")}));
  ASSERT_TRUE(load(ql, kTypeListQuicklist, &v, &err)) << err;
  EXPECT_EQ(static_cast<db::List*>(v.collection())->size(), 3u);
  // Empty ziplist collections: no key (Redis 7.0 skips them).
  ASSERT_TRUE(load(rdbString(ziplist({})), kTypeHashZiplist, &v, &err)) << err;
  EXPECT_TRUE(v.empty());
  // Refused: duplicates, odd counts, bad scores, NaN.
  EXPECT_FALSE(load(rdbString(ziplist({str("f"), str("1"), str("f"), str("2")})), kTypeHashZiplist,
                    &v, &err));
  EXPECT_FALSE(load(rdbString(ziplist({str("m"), int64_t{1}, str("m"), int64_t{2}})),
                    kTypeZSetZiplist, &v, &err));
  EXPECT_FALSE(load(rdbString(ziplist({str("f")})), kTypeHashZiplist, &v, &err));
  EXPECT_FALSE(load(rdbString(ziplist({str("m"), str("x1")})), kTypeZSetZiplist, &v, &err));
  EXPECT_FALSE(load(rdbString(ziplist({str("m"), str("nan")})), kTypeZSetZiplist, &v, &err));
  EXPECT_FALSE(load(std::string("\x01") + rdbString(""), kTypeListQuicklist, &v, &err));
}

std::string listpackOf(const std::vector<Elem>& elems) {
  RedisListpackBuilder b;
  for (const Elem& e : elems) {
    if (const auto* n = std::get_if<int64_t>(&e))
      b.addInt(*n);
    else
      b.addString(std::get<std::string>(e));
  }
  return b.finish();
}

TEST(FieldExpiryLoad, TimesAreDroppedOrPassedFieldsLeftOut) {
  const int64_t now = 2000000000000;
  const int64_t later = now + 1000, past = now - 1000;
  db::Value v;
  std::string err;
  RdbReader::FieldTtlNotes notes;
  // Redis 7.4 listpack with field expiry (25): min expiry, then triples.
  std::string body;
  putLe(&body, static_cast<uint64_t>(past), 8);
  body += rdbString(listpackOf({str("gone"), str("1"), past, str("later"), str("2"), later,
                                str("keep"), str("3"), int64_t{0}}));
  ASSERT_TRUE(load(body, kTypeHashListpackEx, &v, &err, now, false, &notes)) << err;
  EXPECT_EQ(db::asHash(v)->size(), 2u);
  EXPECT_EQ(notes.kept_without_ttl, 1u);
  EXPECT_EQ(notes.dropped_expired, 1u);
  // A ttl that is not an integer, or past 2^48, is corrupt.
  EXPECT_FALSE(load(rdbString(listpackOf({str("f"), str("v"), str("x")})), kTypeHashListpackExPreGa,
                    &v, &err));
  EXPECT_FALSE(load(rdbString(listpackOf({str("f"), str("v"), int64_t{1} << 49})),
                    kTypeHashListpackExPreGa, &v, &err));
  // Redis 7.4 metadata hash (24): ttl relative to the min expiry, plus 1.
  std::string md;
  putLe(&md, static_cast<uint64_t>(later), 8);
  md += "\x02";
  md += std::string("\x01") + rdbString("a") + rdbString("1");  // at `later`
  md += std::string("\x00", 1) + rdbString("b") + rdbString("2");
  ASSERT_TRUE(load(md, kTypeHashMetadata, &v, &err, now, false, &notes)) << err;
  EXPECT_EQ(db::asHash(v)->size(), 2u);
  EXPECT_EQ(notes.kept_without_ttl, 1u);
  // Valkey 9's hash 2 (22 in its files): -1 is no expiry, below is corrupt.
  std::string vk("\x02");
  vk += rdbString("a") + rdbString("1");
  putLe(&vk, static_cast<uint64_t>(-1), 8);
  vk += rdbString("b") + rdbString("2");
  putLe(&vk, static_cast<uint64_t>(past), 8);
  ASSERT_TRUE(load(vk, kTypeValkeyHash2, &v, &err, now, true, &notes)) << err;
  EXPECT_EQ(db::asHash(v)->size(), 1u);
  EXPECT_EQ(notes.dropped_expired, 1u);
  std::string vbad("\x01");
  vbad += rdbString("a") + rdbString("1");
  putLe(&vbad, static_cast<uint64_t>(-2), 8);
  EXPECT_FALSE(load(vbad, kTypeValkeyHash2, &v, &err, now, true));
  // Every field expired: no key.
  std::string all("\x01");
  all += rdbString("a") + rdbString("1");
  putLe(&all, static_cast<uint64_t>(past), 8);
  ASSERT_TRUE(load(all, kTypeValkeyHash2, &v, &err, now, true)) << err;
  EXPECT_TRUE(v.empty());
}

std::string payload(uint8_t type, const std::string& body, int version) {
  std::string p = std::string(1, static_cast<char>(type)) + body;
  putLe(&p, static_cast<uint64_t>(version), 2);
  putLe(&p, common::crc64(0, p.data(), p.size()), 8);
  return p;
}

TEST(DumpPayloadVersions, OlderAndNewerVersionsAreTaken) {
  std::string body = rdbString(ziplist({str("f"), str("v")}));
  for (int version : {1, 6, 9, 10, 11, 12, 80})
    EXPECT_TRUE(verifyDumpPayload(payload(kTypeHashZiplist, body, version))) << version;
  for (int version : {0, 13, 79, 82})
    EXPECT_FALSE(verifyDumpPayload(payload(kTypeHashZiplist, body, version))) << version;
  db::Value v;
  std::string err;
  ASSERT_TRUE(decodeDumpPayload(payload(kTypeHashZiplist, body, 6), LoadLimits(), &v, &err)) << err;
  EXPECT_EQ(db::asHash(v)->size(), 1u);
}

// Random damage: truncations, bit flips and spliced runs of a valid value.
// Each result is refused or loads whole; nothing may read outside the input.
TEST(LegacyLoad, DamagedValuesNeverCrash) {
  std::vector<std::pair<uint8_t, std::string>> good = {
      {kTypeHashZipmap,
       rdbString(std::string("\x02\x01"
                             "a\x01\x01"
                             "1x\x02"
                             "bb\xfe",
                             12) +
                 std::string("\x2c\x01\0\0\0", 5) + std::string(300, 'z') + "\xff")},
      {kTypeListZiplist, rdbString(ziplist({str("a"), int64_t{1} << 40, std::string(300, 'b'),
                                            int64_t{-5}, int64_t{7}}))},
      {kTypeZSetZiplist, rdbString(ziplist({str("a"), int64_t{1}, str("b"), str("2.5")}))},
      {kTypeHashZiplist, rdbString(ziplist({str("f1"), str("v1"), str("f2"), int64_t{22}}))},
      {kTypeListQuicklist, std::string("\x02") + rdbString(ziplist({str("a"), str("b")})) +
                               rdbString(ziplist({int64_t{3}, str("d")}))},
      {kTypeHashListpackExPreGa,
       rdbString(listpackOf({str("f"), str("v"), int64_t{5}, str("g"), str("w"), int64_t{0}}))},
  };
  std::mt19937 rnd(28);
  size_t loaded = 0, refused = 0;
  for (const auto& [type, body] : good) {
    for (int i = 0; i < 3000; i++) {
      std::string b = body;
      switch (rnd() % 3) {
        case 0:
          b.resize(rnd() % b.size());
          break;
        case 1:
          for (int k = 0, n = 1 + static_cast<int>(rnd() % 3); k < n; k++)
            b[rnd() % b.size()] ^= static_cast<char>(1 << (rnd() % 8));
          break;
        default: {
          size_t at = rnd() % b.size(), from = rnd() % b.size(), len = 1 + rnd() % 8;
          b.replace(at, std::min(len, b.size() - at), b.substr(from, len));
          break;
        }
      }
      // Exactly the damaged bytes in a buffer of their own, so that a read
      // past them is caught by the address sanitizer.
      std::vector<uint8_t> exact(b.begin(), b.end());
      RdbReader r(exact.data(), exact.size());
      db::Value v;
      if (loadValue(r, type, LoadLimits(), &v)) {
        loaded++;
        if (!v.empty()) (void)makeDumpPayload(v, false);  // walks every element
      } else {
        refused++;
        EXPECT_FALSE(r.error().empty());
      }
    }
  }
  EXPECT_GT(refused, 6000u);
  EXPECT_GT(loaded, 100u);
}

}  // namespace
}  // namespace server::persist
