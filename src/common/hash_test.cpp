// Tests of common/hash.h: determinism, sensitivity to every input byte,
// avalanche, bucket spread of realistic keys, and the case-folding variant.
#include "common/hash.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace common {
namespace {

uint64_t seeded(const std::string& s, const HashSecret& secret) {
  return hashBytesSeeded(s.data(), s.size(), secret);
}

TEST(Hash, SeededIsDeterministicAndSeedDependent) {
  HashSecret a = makeHashSecret(1), a2 = makeHashSecret(1), b = makeHashSecret(2);
  for (std::string s :
       {"", "x", "key:1", "a much longer key that crosses the 48 byte block loop!"}) {
    EXPECT_EQ(seeded(s, a), seeded(s, a2)) << s;
    EXPECT_NE(seeded(s, a), seeded(s, b)) << s;
  }
  // The process hash agrees with itself across calls.
  EXPECT_EQ(hashBytes("hello", 5), hashBytes("hello", 5));
}

TEST(Hash, EveryLengthAndEveryByteMatters) {
  HashSecret secret = makeHashSecret(42);
  std::mt19937_64 rng(7);
  std::string buf(200, '\0');
  for (auto& c : buf) c = static_cast<char>(rng());
  std::set<uint64_t> prefixes;
  for (size_t len = 0; len <= buf.size(); len++) {
    uint64_t h = hashBytesSeeded(buf.data(), len, secret);
    prefixes.insert(h);
    for (size_t i = 0; i < len; i++) {
      std::string changed = buf.substr(0, len);
      changed[i] ^= 1;
      ASSERT_NE(seeded(changed, secret), h) << "len " << len << " byte " << i;
    }
  }
  EXPECT_EQ(prefixes.size(), buf.size() + 1);
  // Zero bytes of different lengths must not collide.
  std::set<uint64_t> zeros;
  for (size_t len = 0; len < 64; len++) zeros.insert(seeded(std::string(len, '\0'), secret));
  EXPECT_EQ(zeros.size(), 64u);
}

// Flipping one input bit should flip about half of the 64 output bits.
TEST(Hash, Avalanche) {
  HashSecret secret = makeHashSecret(99);
  std::mt19937_64 rng(3);
  for (size_t len : {1, 3, 5, 8, 13, 16, 17, 31, 48, 49, 100, 257}) {
    double total = 0;
    size_t samples = 0;
    for (int trial = 0; trial < 40; trial++) {
      std::string s(len, '\0');
      for (auto& c : s) c = static_cast<char>(rng());
      uint64_t h = seeded(s, secret);
      for (size_t bit = 0; bit < len * 8; bit++) {
        std::string t = s;
        t[bit / 8] ^= static_cast<char>(1 << (bit % 8));
        total += std::popcount(h ^ seeded(t, secret));
        samples++;
      }
    }
    double avg = total / samples;
    EXPECT_GT(avg, 30.0) << "len " << len;
    EXPECT_LT(avg, 34.0) << "len " << len;
  }
}

// Sequential keys ("key:N") thrown into 2^16 buckets by the low bits and by
// the high bits: the empty fraction should be close to e^-1 as for a random
// function.
TEST(Hash, SequentialKeysSpreadEvenly) {
  constexpr size_t kBuckets = 1 << 16;
  std::vector<uint32_t> low(kBuckets), high(kBuckets);
  for (size_t i = 0; i < kBuckets; i++) {
    std::string key = "key:" + std::to_string(i);
    uint64_t h = hashBytes(key.data(), key.size());
    low[h & (kBuckets - 1)]++;
    high[h >> 48]++;
  }
  for (const auto* counts : {&low, &high}) {
    size_t empty = 0, max = 0;
    for (uint32_t c : *counts) {
      empty += c == 0;
      max = std::max<size_t>(max, c);
    }
    double expected = kBuckets * 0.36787944;
    EXPECT_NEAR(empty, expected, expected * 0.03);
    EXPECT_LE(max, 12u);
  }
}

TEST(Hash, NoCaseMatchesLowercasedInput) {
  EXPECT_EQ(hashBytesNoCase("GeT", 3), hashBytes("get", 3));
  EXPECT_EQ(hashBytesNoCase("CLIENT|SETNAME", 14), hashBytesNoCase("client|setname", 14));
  EXPECT_NE(hashBytesNoCase("get", 3), hashBytesNoCase("set", 3));
  // Every byte value, alone and at each position of a 9-byte word.
  for (int c = 0; c < 256; c++) {
    char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : static_cast<char>(c);
    char in = static_cast<char>(c);
    ASSERT_EQ(hashBytesNoCase(&in, 1), hashBytes(&lower, 1)) << c;
    for (size_t pos = 0; pos < 9; pos++) {
      std::string s = "abcdefghi", want = s;
      s[pos] = in;
      want[pos] = lower;
      ASSERT_EQ(hashBytesNoCase(s.data(), s.size()), hashBytes(want.data(), want.size()))
          << c << " at " << pos;
    }
  }
  std::mt19937_64 rng(11);
  for (size_t len = 0; len < 120; len++) {
    std::string s(len, '\0'), want;
    for (auto& ch : s) ch = static_cast<char>(rng());
    for (char ch : s) want += (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch + 32) : ch;
    ASSERT_EQ(hashBytesNoCase(s.data(), len), hashBytes(want.data(), len)) << len;
  }
}

TEST(Hash, IntegerHashAndRandom) {
  std::set<uint64_t> seen;
  for (uint64_t i = 0; i < 100000; i++) seen.insert(hashU64(i));
  EXPECT_EQ(seen.size(), 100000u);

  // Each output bit of randomU64 is set about half of the time.
  constexpr int kDraws = 20000;
  int ones[64] = {};
  std::set<uint64_t> draws;
  for (int i = 0; i < kDraws; i++) {
    uint64_t r = randomU64();
    draws.insert(r);
    for (int b = 0; b < 64; b++) ones[b] += (r >> b) & 1;
  }
  EXPECT_EQ(draws.size(), static_cast<size_t>(kDraws));
  for (int b = 0; b < 64; b++) {
    EXPECT_NEAR(ones[b], kDraws / 2, kDraws * 0.03) << "bit " << b;
  }
}

}  // namespace
}  // namespace common
