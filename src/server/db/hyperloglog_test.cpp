// Tests of server/db/hyperloglog.h: the string format against values
// produced by Redis 7.0.15's PFADD, the dense register packing, sparse and
// dense encodings agreeing register for register, promotion, corrupt sparse
// bodies, the cached cardinality and the estimator's accuracy.
#include "server/db/hyperloglog.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

namespace server::db::hll {
namespace {

std::string fromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

std::vector<uint8_t> registersOf(std::string hll) {
  EXPECT_TRUE(toDense(&hll));
  std::vector<uint8_t> regs(kRegisters);
  for (uint32_t i = 0; i < kRegisters; i++)
    regs[i] = denseGet(reinterpret_cast<const uint8_t*>(hll.data()) + kHeaderSize, i);
  return regs;
}

TEST(Hll, EmptyValueIsRedisBytes) {
  std::string e = createEmpty();
  EXPECT_EQ(e, fromHex("48594c4c010000000000000000000000"
                       "7fff"));
  EXPECT_TRUE(looksValid(e));
  EXPECT_TRUE(cacheValid(e));
  uint64_t n = 1;
  ASSERT_TRUE(count(e, &n));
  EXPECT_EQ(n, 0u);
}

TEST(Hll, ElementsLandWhereRedisPutsThem) {
  // PFDEBUG DECODE of Redis 7.0.15 after PFADD of one element.
  uint32_t index;
  EXPECT_EQ(hashElement("", &index), 2);
  EXPECT_EQ(index, 5938u);
  EXPECT_EQ(hashElement("abcdefghi", &index), 1);  // one 8-byte block and a tail
  EXPECT_EQ(index, 6903u);
  EXPECT_EQ(hashElement("hello", &index), 1);
  EXPECT_EQ(index, 9216u);
}

TEST(Hll, SparseBytesMatchRedis) {
  // GET after "PFADD hx a b c" on Redis 7.0.15 (cache marked stale).
  std::string h = createEmpty();
  for (const char* e : {"a", "b", "c"}) EXPECT_EQ(add(&h, e, 3000), 1);
  EXPECT_EQ(add(&h, "a", 3000), 0);
  invalidateCache(reinterpret_cast<uint8_t*>(h.data()));
  EXPECT_EQ(h, fromHex("48594c4c01000000000000000000008060f38050b1844bfb80425a"));
  EXPECT_EQ(describeSparse(h), "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603");
  uint64_t n;
  ASSERT_TRUE(count(h, &n));
  EXPECT_EQ(n, 3u);
  setCachedCount(reinterpret_cast<uint8_t*>(h.data()), n);
  EXPECT_EQ(h, fromHex("48594c4c01000000030000000000000060f38050b1844bfb80425a"));
  EXPECT_TRUE(cacheValid(h));
  EXPECT_EQ(cachedCount(h), 3u);
}

TEST(Hll, DenseRegistersRoundTrip) {
  std::mt19937_64 rng(5);
  std::vector<uint8_t> regs(kDenseSize - kHeaderSize);
  std::vector<uint8_t> model(kRegisters);
  for (int round = 0; round < 3; round++) {
    for (uint32_t i = 0; i < kRegisters; i++) {
      model[i] = static_cast<uint8_t>(rng() & 63);
      denseSet(regs.data(), i, model[i]);
    }
    for (uint32_t i = 0; i < kRegisters; i++) ASSERT_EQ(denseGet(regs.data(), i), model[i]) << i;
  }
  // Register 1 spans bytes 0 and 1: bits 6..11, least significant first.
  std::fill(regs.begin(), regs.end(), 0);
  denseSet(regs.data(), 1, 63);
  EXPECT_EQ(regs[0], 0xc0);
  EXPECT_EQ(regs[1], 0x0f);
}

TEST(Hll, SparseAndDenseAgree) {
  std::mt19937_64 rng(6);
  std::string sparse = createEmpty();  // never promoted (huge limit)
  std::string dense = createEmpty();
  ASSERT_TRUE(toDense(&dense));
  ASSERT_EQ(dense.size(), kDenseSize);
  for (int n = 1; n <= 3000; n++) {
    std::string e = std::to_string(rng());
    int a = add(&sparse, e, 1 << 20), b = add(&dense, e, 1 << 20);
    ASSERT_EQ(a, b) << "element " << n;
    if (n % 250 == 0) {
      ASSERT_EQ(encodingOf(sparse), kSparse);
      ASSERT_EQ(registersOf(sparse), registersOf(dense)) << "after " << n;
      uint64_t cs, cd;
      ASSERT_TRUE(count(sparse, &cs));
      ASSERT_TRUE(count(dense, &cd));
      ASSERT_EQ(cs, cd);
    }
  }
}

TEST(Hll, PromotionBySizeAndByValue) {
  std::string h = createEmpty();
  int n = 0;
  while (encodingOf(h) == kSparse) {
    ASSERT_GE(add(&h, "e" + std::to_string(n++), 300), 0);
    ASSERT_LE(h.size(), encodingOf(h) == kSparse ? 300u : kDenseSize);
  }
  EXPECT_EQ(h.size(), kDenseSize);
  EXPECT_GT(n, 20);
  // A register above 32 cannot be a VAL opcode.
  std::string v = createEmpty();
  EXPECT_EQ(setRegister(&v, 100, 33, 3000), 1);
  EXPECT_EQ(encodingOf(v), kDense);
  EXPECT_EQ(denseGet(reinterpret_cast<const uint8_t*>(v.data()) + kHeaderSize, 100), 33);
}

TEST(Hll, SetRegisterSplitsAndJoinsRuns) {
  std::string h = createEmpty();
  EXPECT_EQ(setRegister(&h, 0, 3, 3000), 1);
  EXPECT_EQ(describeSparse(h), "v:3,1 Z:16383");
  EXPECT_EQ(setRegister(&h, 1, 3, 3000), 1);
  EXPECT_EQ(describeSparse(h), "v:3,2 Z:16382");
  EXPECT_EQ(setRegister(&h, 1, 2, 3000), 0);
  EXPECT_EQ(setRegister(&h, 16383, 32, 3000), 1);
  EXPECT_EQ(describeSparse(h), "v:3,2 Z:16381 v:32,1");
  EXPECT_EQ(setRegister(&h, 40, 1, 3000), 1);
  EXPECT_EQ(describeSparse(h), "v:3,2 z:38 v:1,1 Z:16342 v:32,1");
}

TEST(Hll, CorruptSparseBodiesAreDetected) {
  std::string good = createEmpty();
  add(&good, "x", 3000);
  uint32_t hist[64];
  uint8_t max[kRegisters] = {};
  for (std::string bad : {good + "hello", good.substr(0, good.size() - 1),
                          good.substr(0, kHeaderSize), good + std::string(1, '\x40')}) {
    EXPECT_FALSE(histogram(bad, hist));
    EXPECT_FALSE(mergeInto(max, bad));
    std::string copy = bad;
    EXPECT_FALSE(toDense(&copy));
    EXPECT_EQ(copy, bad);  // left as it was
  }
  // Runs that add up past 16384 in one opcode: refused, not overflowed.
  std::string overlong = good.substr(0, kHeaderSize) + fromHex("7fff7fff");
  EXPECT_FALSE(histogram(overlong, hist));
  EXPECT_EQ(setRegister(&overlong, 0, 1, 3000), 1);  // only the touched run is read
  std::string truncated = good.substr(0, kHeaderSize) + fromHex("7f");
  EXPECT_EQ(setRegister(&truncated, 5, 1, 3000), -1);
}

TEST(Hll, HeaderValidation) {
  std::string d = createEmpty();
  ASSERT_TRUE(toDense(&d));
  EXPECT_TRUE(looksValid(d));
  EXPECT_FALSE(looksValid(d.substr(0, d.size() - 1)));
  EXPECT_FALSE(looksValid("HYLL"));
  std::string e = createEmpty();
  e[4] = 2;
  EXPECT_FALSE(looksValid(e));
  e = createEmpty();
  e[0] = 'h';
  EXPECT_FALSE(looksValid(e));
  e = createEmpty();
  e[4] = 0;  // claims dense but has the sparse size
  EXPECT_FALSE(looksValid(e));
}

TEST(Hll, EstimateWithinErrorBounds) {
  std::string h = createEmpty();
  uint64_t next = 0;
  for (uint64_t target : {10u, 100u, 1000u, 10000u, 100000u, 500000u}) {
    while (next < target) add(&h, "element:" + std::to_string(next++), 3000);
    uint64_t est;
    ASSERT_TRUE(count(h, &est));
    double err = std::abs(static_cast<double>(est) - static_cast<double>(target)) / target;
    EXPECT_LT(err, 0.03) << target << " estimated as " << est;
  }
}

TEST(Hll, MergeTakesRegisterMaximum) {
  std::string a = createEmpty(), b = createEmpty();
  for (int i = 0; i < 2000; i++) add(&a, "a" + std::to_string(i), 3000);
  for (int i = 0; i < 20000; i++) add(&b, "b" + std::to_string(i), 3000);
  ASSERT_EQ(encodingOf(b), kDense);
  uint8_t max[kRegisters] = {};
  ASSERT_TRUE(mergeInto(max, a));
  ASSERT_TRUE(mergeInto(max, b));
  auto ra = registersOf(a), rb = registersOf(b);
  for (uint32_t i = 0; i < kRegisters; i++) ASSERT_EQ(max[i], std::max(ra[i], rb[i]));
  uint64_t est = estimateRaw(max);
  EXPECT_NEAR(static_cast<double>(est), 22000.0, 22000 * 0.03);
}

}  // namespace
}  // namespace server::db::hll
