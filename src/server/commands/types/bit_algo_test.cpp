// Tests of server/commands/types/bit_algo.h: every fast path (word-wide popcount,
// bit search, BITOP, field access) is compared with a bit-by-bit model on
// random buffers, plus the overflow rules of BITFIELD at their edges.
#include "server/commands/types/bit_algo.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace server::bitalgo {
namespace {

int bitAt(const std::vector<uint8_t>& b, uint64_t i) {
  return i / 8 < b.size() ? (b[i / 8] >> (7 - i % 8)) & 1 : 0;
}

std::vector<uint8_t> randomBytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> b(n);
  // Mostly runs of 0x00 / 0xff so that word skipping is exercised.
  for (auto& x : b) {
    uint64_t r = rng() % 8;
    x = r < 3 ? 0x00 : r < 6 ? 0xff : static_cast<uint8_t>(rng());
  }
  return b;
}

TEST(BitAlgo, PopcountMatchesModel) {
  std::mt19937_64 rng(1);
  for (int round = 0; round < 200; round++) {
    auto b = randomBytes(rng, rng() % 100);
    uint64_t expect = 0;
    for (uint64_t i = 0; i < b.size() * 8; i++) expect += static_cast<uint64_t>(bitAt(b, i));
    ASSERT_EQ(popcount(b.data(), b.size()), expect) << "round " << round;
  }
}

TEST(BitAlgo, CountBitsAndFindBitOnRanges) {
  std::mt19937_64 rng(2);
  for (int round = 0; round < 3000; round++) {
    auto b = randomBytes(rng, 1 + rng() % 70);
    uint64_t nbits = b.size() * 8;
    uint64_t first = rng() % nbits, last = first + rng() % (nbits - first);
    uint64_t count = 0;
    int64_t first1 = -1, first0 = -1;
    for (uint64_t i = first; i <= last; i++) {
      int v = bitAt(b, i);
      count += static_cast<uint64_t>(v);
      if (v && first1 < 0) first1 = static_cast<int64_t>(i);
      if (!v && first0 < 0) first0 = static_cast<int64_t>(i);
    }
    ASSERT_EQ(countBits(b.data(), first, last), count) << first << ".." << last;
    ASSERT_EQ(findBit(b.data(), first, last, 1), first1) << first << ".." << last;
    ASSERT_EQ(findBit(b.data(), first, last, 0), first0) << first << ".." << last;
  }
}

TEST(BitAlgo, FindBitPastLongRuns) {
  std::vector<uint8_t> b(1000, 0xff);
  b[777] = 0xfe;
  EXPECT_EQ(findBit(b.data(), 0, 7999, 0), 777 * 8 + 7);
  EXPECT_EQ(findBit(b.data(), 0, 777 * 8 + 6, 0), -1);
  std::vector<uint8_t> z(1000, 0);
  z[999] = 0x01;
  EXPECT_EQ(findBit(z.data(), 3, 7999, 1), 7999);
  EXPECT_EQ(findBit(z.data(), 3, 7998, 1), -1);
}

TEST(BitAlgo, ClampRange) {
  int64_t f, l;
  ASSERT_TRUE(clampRange(0, -1, 10, &f, &l));
  EXPECT_EQ(f, 0);
  EXPECT_EQ(l, 9);
  ASSERT_TRUE(clampRange(-3, 100, 10, &f, &l));
  EXPECT_EQ(f, 7);
  EXPECT_EQ(l, 9);
  // Both clamp to 0: the first unit (callers reject inverted negatives first).
  ASSERT_TRUE(clampRange(-100, -200, 10, &f, &l));
  EXPECT_EQ(f, 0);
  EXPECT_EQ(l, 0);
  EXPECT_FALSE(clampRange(5, 4, 10, &f, &l));
  EXPECT_FALSE(clampRange(10, 20, 10, &f, &l));
  EXPECT_FALSE(clampRange(0, -1, 0, &f, &l));
  EXPECT_FALSE(clampRange(INT64_MAX, INT64_MAX, 10, &f, &l));
}

TEST(BitAlgo, BitopMatchesModel) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 500; round++) {
    size_t n = 1 + rng() % 4;
    std::vector<std::string> owned(n);
    std::vector<std::string_view> srcs;
    size_t maxlen = 0;
    for (auto& s : owned) {
      auto b = randomBytes(rng, rng() % 40);
      s.assign(b.begin(), b.end());
      maxlen = std::max(maxlen, s.size());
      srcs.push_back(s);
    }
    for (BitOp op : {BitOp::kAnd, BitOp::kOr, BitOp::kXor, BitOp::kNot}) {
      std::vector<std::string_view> use = srcs;
      if (op == BitOp::kNot) use.resize(1);
      size_t len = op == BitOp::kNot ? use[0].size() : maxlen;
      std::string expect(len, '\0');
      for (size_t i = 0; i < len; i++) {
        auto at = [&](size_t k) { return i < use[k].size() ? static_cast<uint8_t>(use[k][i]) : 0; };
        uint8_t v = at(0);
        if (op == BitOp::kNot) v = static_cast<uint8_t>(~v);
        for (size_t k = 1; k < use.size(); k++) {
          if (op == BitOp::kAnd) v &= at(k);
          if (op == BitOp::kOr) v |= at(k);
          if (op == BitOp::kXor) v ^= at(k);
        }
        expect[i] = static_cast<char>(v);
      }
      ASSERT_EQ(bitop(op, use), expect) << "round " << round << " op " << static_cast<int>(op);
    }
  }
}

TEST(BitAlgo, FieldsMatchBitByBitModel) {
  std::mt19937_64 rng(4);
  for (int round = 0; round < 5000; round++) {
    auto b = randomBytes(rng, 20);
    int bits = 1 + static_cast<int>(rng() % 64);
    uint64_t offset = rng() % (20 * 8 - static_cast<uint64_t>(bits) + 1);
    uint64_t expect = 0;
    for (int i = 0; i < bits; i++)
      expect = (expect << 1) | static_cast<uint64_t>(bitAt(b, offset + static_cast<uint64_t>(i)));
    ASSERT_EQ(getField(b.data(), b.size(), offset, bits), expect);
    int64_t sexp = static_cast<int64_t>(expect);
    if (bits < 64 && (expect >> (bits - 1)) & 1)
      sexp = static_cast<int64_t>(expect | (~uint64_t{0} << bits));
    ASSERT_EQ(getSignedField(b.data(), b.size(), offset, bits), sexp);
    // Write a new value; only the field's bits may change.
    uint64_t v = rng();
    auto before = b;
    setField(b.data(), offset, bits, v);
    for (uint64_t i = 0; i < 160; i++) {
      int want = bitAt(before, i);
      if (i >= offset && i < offset + static_cast<uint64_t>(bits))
        want = static_cast<int>((v >> (static_cast<uint64_t>(bits) - 1 - (i - offset))) & 1);
      ASSERT_EQ(bitAt(b, i), want) << "bit " << i;
    }
  }
}

TEST(BitAlgo, FieldReadsPastTheEndAsZero) {
  std::vector<uint8_t> b = {0xff, 0xff};
  EXPECT_EQ(getField(b.data(), b.size(), 8, 16), 0xff00u);
  EXPECT_EQ(getField(b.data(), b.size(), 100, 64), 0u);
  EXPECT_EQ(getSignedField(b.data(), b.size(), 12, 8), -16);
}

TEST(BitAlgo, SignedOverflow) {
  int64_t out;
  EXPECT_FALSE(signedAdd(100, 27, 8, Overflow::kWrap, &out));
  EXPECT_EQ(out, 127);
  EXPECT_TRUE(signedAdd(100, 28, 8, Overflow::kWrap, &out));
  EXPECT_EQ(out, -128);
  EXPECT_TRUE(signedAdd(100, 28, 8, Overflow::kSat, &out));
  EXPECT_EQ(out, 127);
  EXPECT_TRUE(signedAdd(-100, -100, 8, Overflow::kSat, &out));
  EXPECT_EQ(out, -128);
  EXPECT_TRUE(signedAdd(-100, -100, 8, Overflow::kWrap, &out));
  EXPECT_EQ(out, 56);
  EXPECT_TRUE(signedAdd(INT64_MAX, 1, 64, Overflow::kWrap, &out));
  EXPECT_EQ(out, INT64_MIN);
  EXPECT_TRUE(signedAdd(INT64_MIN, -1, 64, Overflow::kSat, &out));
  EXPECT_EQ(out, INT64_MIN);
  EXPECT_FALSE(signedAdd(INT64_MIN, 0, 64, Overflow::kSat, &out));
  // SET of a value out of a narrow field's range (incr 0).
  EXPECT_TRUE(signedAdd(200, 0, 8, Overflow::kWrap, &out));
  EXPECT_EQ(out, -56);
  EXPECT_TRUE(signedAdd(-200, 0, 8, Overflow::kSat, &out));
  EXPECT_EQ(out, -128);
  // Redis's quirk: a value far below the field's range saturates upwards.
  EXPECT_TRUE(signedAdd(INT64_MIN, 0, 41, Overflow::kSat, &out));
  EXPECT_EQ(out, (int64_t{1} << 40) - 1);
  EXPECT_TRUE(signedAdd(1, 0, 1, Overflow::kWrap, &out));  // i1 holds -1..0
  EXPECT_EQ(out, -1);
}

TEST(BitAlgo, UnsignedOverflow) {
  uint64_t out;
  EXPECT_FALSE(unsignedAdd(250, 5, 8, Overflow::kWrap, &out));
  EXPECT_EQ(out, 255u);
  EXPECT_TRUE(unsignedAdd(250, 10, 8, Overflow::kWrap, &out));
  EXPECT_EQ(out, 4u);
  EXPECT_TRUE(unsignedAdd(250, 10, 8, Overflow::kSat, &out));
  EXPECT_EQ(out, 255u);
  EXPECT_TRUE(unsignedAdd(5, -10, 8, Overflow::kSat, &out));
  EXPECT_EQ(out, 0u);
  EXPECT_TRUE(unsignedAdd(5, -10, 8, Overflow::kWrap, &out));
  EXPECT_EQ(out, 251u);
  // A negative SET value is a huge unsigned one: it overflows upwards.
  EXPECT_TRUE(unsignedAdd(static_cast<uint64_t>(-1), 0, 8, Overflow::kSat, &out));
  EXPECT_EQ(out, 255u);
  EXPECT_TRUE(unsignedAdd(static_cast<uint64_t>(-1), 0, 8, Overflow::kWrap, &out));
  EXPECT_EQ(out, 255u);
  EXPECT_TRUE(unsignedAdd(uint64_t{INT64_MAX}, 1, 63, Overflow::kWrap, &out));
  EXPECT_EQ(out, 0u);
}

}  // namespace
}  // namespace server::bitalgo
