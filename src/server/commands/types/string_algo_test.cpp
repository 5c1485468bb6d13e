// Tests of server/commands/types/string_algo.h: GETRANGE's index clamping and the
// LCS computation (length, text and the runs IDX reports), including a
// comparison with an independent brute-force LCS on random strings.
#include "server/commands/types/string_algo.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace server::stralgo {
namespace {

std::string range(std::string_view s, int64_t start, int64_t end) {
  size_t from, count;
  if (!clampRange(start, end, s.size(), &from, &count)) return "<empty>";
  return std::string(s.substr(from, count));
}

TEST(ClampRange, PositiveAndNegativeIndexes) {
  EXPECT_EQ(range("Hello World", 0, 3), "Hell");
  EXPECT_EQ(range("Hello World", 0, -1), "Hello World");
  EXPECT_EQ(range("Hello World", -3, -1), "rld");
  EXPECT_EQ(range("Hello World", 5, 3), "<empty>");
  EXPECT_EQ(range("Hello World", 5, 5000), " World");
  EXPECT_EQ(range("Hello World", -5000, 10000), "Hello World");
}

TEST(ClampRange, EdgeCases) {
  // Both negative and inverted: empty even though clamping would give "H".
  EXPECT_EQ(range("Hello", -1, -5), "<empty>");
  EXPECT_EQ(range("Hello", -10, -20), "<empty>");
  // Both clamp to 0: one byte.
  EXPECT_EQ(range("Hello", -20, -10), "H");
  EXPECT_EQ(range("", 0, -1), "<empty>");
  EXPECT_EQ(range("", 0, 0), "<empty>");
  EXPECT_EQ(range("abc", 3, 5), "<empty>");
  EXPECT_EQ(range("abc", INT64_MIN, INT64_MAX), "abc");
  EXPECT_EQ(range("abc", INT64_MAX, INT64_MAX), "<empty>");
}

TEST(Lcs, KnownExample) {
  LcsResult r = computeLcs("ohmytext", "mynewtext", true, true);
  EXPECT_EQ(r.length, 6u);
  EXPECT_EQ(r.text, "mytext");
  ASSERT_EQ(r.matches.size(), 2u);
  // Last run first: "text" then "my".
  EXPECT_EQ(r.matches[0].a_start, 4u);
  EXPECT_EQ(r.matches[0].a_end, 7u);
  EXPECT_EQ(r.matches[0].b_start, 5u);
  EXPECT_EQ(r.matches[0].b_end, 8u);
  EXPECT_EQ(r.matches[0].length(), 4u);
  EXPECT_EQ(r.matches[1].a_start, 2u);
  EXPECT_EQ(r.matches[1].a_end, 3u);
  EXPECT_EQ(r.matches[1].b_start, 0u);
  EXPECT_EQ(r.matches[1].b_end, 1u);
}

TEST(Lcs, EmptyAndIdentical) {
  LcsResult r = computeLcs("", "abc", true, true);
  EXPECT_EQ(r.length, 0u);
  EXPECT_EQ(r.text, "");
  EXPECT_TRUE(r.matches.empty());
  r = computeLcs("abc", "abc", true, true);
  EXPECT_EQ(r.text, "abc");
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].a_start, 0u);
  EXPECT_EQ(r.matches[0].a_end, 2u);
  r = computeLcs("abc", "xyz", true, true);
  EXPECT_EQ(r.length, 0u);
  EXPECT_TRUE(r.matches.empty());
}

TEST(Lcs, LengthOnlySkipsText) {
  LcsResult r = computeLcs("ohmytext", "mynewtext", false, false);
  EXPECT_EQ(r.length, 6u);
  EXPECT_TRUE(r.text.empty());
  EXPECT_TRUE(r.matches.empty());
}

TEST(Lcs, TableBytes) {
  EXPECT_EQ(lcsTableBytes(0, 0), 4u);
  EXPECT_EQ(lcsTableBytes(9, 19), 10u * 20u * 4u);
  EXPECT_EQ(lcsTableBytes(20000, 20000), 20001ull * 20001ull * 4ull);
  EXPECT_EQ(lcsTableBytes(SIZE_MAX - 1, SIZE_MAX - 1), UINT64_MAX);
}

// Textbook recursion with memoisation, written independently of the
// implementation under test.
size_t bruteLcs(const std::string& a, const std::string& b) {
  std::vector<std::vector<int>> memo(a.size() + 1, std::vector<int>(b.size() + 1, -1));
  auto rec = [&](auto& self, size_t i, size_t j) -> int {
    if (i == a.size() || j == b.size()) return 0;
    int& m = memo[i][j];
    if (m >= 0) return m;
    if (a[i] == b[j]) return m = 1 + self(self, i + 1, j + 1);
    return m = std::max(self(self, i + 1, j), self(self, i, j + 1));
  };
  return static_cast<size_t>(rec(rec, 0, 0));
}

bool isSubsequence(const std::string& sub, const std::string& s) {
  size_t k = 0;
  for (char ch : s) {
    if (k < sub.size() && sub[k] == ch) k++;
  }
  return k == sub.size();
}

TEST(Lcs, RandomStringsAgreeWithBruteForce) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 300; round++) {
    std::string a(rng() % 40, ' '), b(rng() % 40, ' ');
    for (char& ch : a) ch = static_cast<char>('a' + rng() % 4);
    for (char& ch : b) ch = static_cast<char>('a' + rng() % 4);
    LcsResult r = computeLcs(a, b, true, true);
    ASSERT_EQ(r.length, bruteLcs(a, b)) << a << " / " << b;
    ASSERT_EQ(r.text.size(), r.length);
    EXPECT_TRUE(isSubsequence(r.text, a));
    EXPECT_TRUE(isSubsequence(r.text, b));
    // The runs cover the subsequence exactly, each run is equal in both
    // strings, and they go strictly backwards through both strings.
    size_t covered = 0;
    for (size_t k = 0; k < r.matches.size(); k++) {
      const LcsRange& m = r.matches[k];
      ASSERT_LE(m.a_start, m.a_end);
      ASSERT_EQ(m.a_end - m.a_start, m.b_end - m.b_start);
      EXPECT_EQ(a.substr(m.a_start, m.length()), b.substr(m.b_start, m.length()));
      if (k > 0) {
        EXPECT_LT(m.a_end, r.matches[k - 1].a_start);
        EXPECT_LT(m.b_end, r.matches[k - 1].b_start);
      }
      covered += m.length();
    }
    EXPECT_EQ(covered, r.length);
  }
}

}  // namespace
}  // namespace server::stralgo
