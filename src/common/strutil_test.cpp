#include "common/strutil.h"

#include <gtest/gtest.h>

namespace common::strutil {
namespace {

TEST(StrUtil, ParseInt64Strict) {
  int64_t v;
  EXPECT_TRUE(parseInt64("0", &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parseInt64("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_TRUE(parseInt64("9223372036854775807", &v));
  EXPECT_FALSE(parseInt64("9223372036854775808", &v));
  EXPECT_FALSE(parseInt64("01", &v));
  EXPECT_FALSE(parseInt64("+1", &v));
  EXPECT_FALSE(parseInt64(" 1", &v));
  EXPECT_FALSE(parseInt64("-", &v));
  EXPECT_FALSE(parseInt64("-0", &v));
  EXPECT_FALSE(parseInt64("", &v));
  EXPECT_FALSE(parseInt64("1a", &v));
  EXPECT_FALSE(parseInt64("9999999999999999999", &v));   // 19 digits, over INT64_MAX
  EXPECT_FALSE(parseInt64("18446744073709551616", &v));  // 20 digits, over UINT64_MAX
  EXPECT_FALSE(parseInt64("-9223372036854775809", &v));
  EXPECT_FALSE(parseInt64("1/", &v));
  EXPECT_FALSE(parseInt64("1:", &v));
}

TEST(StrUtil, FormatInt64) {
  char buf[24];
  EXPECT_EQ(std::string(buf, formatInt64(INT64_MIN, buf)), "-9223372036854775808");
  EXPECT_EQ(std::string(buf, formatInt64(0, buf)), "0");
  EXPECT_EQ(std::string(buf, formatInt64(1234, buf)), "1234");
}

TEST(StrUtil, LongDoubleFormatting) {
  EXPECT_EQ(formatLongDouble(10.5L), "10.5");
  EXPECT_EQ(formatLongDouble(3.0L), "3");
  EXPECT_EQ(formatLongDouble(10.5L + 0.1L), "10.6");
  EXPECT_EQ(formatLongDouble(-0.0L), "0");
  long double d;
  EXPECT_TRUE(parseLongDouble("1e3", &d));
  EXPECT_FALSE(parseLongDouble("nan", &d));
  EXPECT_FALSE(parseLongDouble(" 1", &d));
  EXPECT_FALSE(parseLongDouble("1x", &d));
  EXPECT_FALSE(parseLongDouble("1e5000", &d));  // overflow is an error, not inf
  EXPECT_TRUE(parseLongDouble("inf", &d));
  double x;
  EXPECT_FALSE(parseDouble("1e400", &x));
  EXPECT_TRUE(parseDouble("-inf", &x));
}

TEST(StrUtil, FloatOperand) {
  long double v;
  EXPECT_TRUE(parseFloatOperand("1.5", &v));
  EXPECT_EQ(v, 1.5L);
  EXPECT_TRUE(parseFloatOperand("1e400", &v));    // fits a long double
  EXPECT_FALSE(parseFloatOperand("1e5000", &v));  // overflows to inf: refused
  EXPECT_TRUE(parseFloatOperand("inf", &v));
  EXPECT_TRUE(parseFloatOperand("-Inf", &v));
  EXPECT_FALSE(parseFloatOperand("", &v));
  EXPECT_FALSE(parseFloatOperand("abc", &v));
  EXPECT_FALSE(parseFloatOperand(" 1", &v));
}

TEST(StrUtil, Glob) {
  EXPECT_TRUE(globMatch("*", "anything"));
  EXPECT_TRUE(globMatch("h?llo", "hello"));
  EXPECT_TRUE(globMatch("h*llo", "heeeello"));
  EXPECT_TRUE(globMatch("h[ae]llo", "hallo"));
  EXPECT_FALSE(globMatch("h[ae]llo", "hillo"));
  EXPECT_TRUE(globMatch("h[^e]llo", "hallo"));
  EXPECT_FALSE(globMatch("h[^e]llo", "hello"));
  EXPECT_TRUE(globMatch("h[a-b]llo", "hbllo"));
  EXPECT_TRUE(globMatch("a\\*b", "a*b"));
  EXPECT_FALSE(globMatch("a\\*b", "axb"));
  EXPECT_TRUE(globMatch("*a*", "bab"));
  EXPECT_TRUE(globMatch("HELLO", "hello", true));
  EXPECT_TRUE(globMatch("*", ""));
  EXPECT_TRUE(globMatch("a*", "a"));
  EXPECT_FALSE(globMatch("a?", "a"));
  EXPECT_TRUE(globMatch("*b*c", "xxbyyc"));
  EXPECT_FALSE(globMatch("*b*c", "xxbyycd"));
  EXPECT_TRUE(globMatch("[a-c]*[x-z]", "b123z"));
  EXPECT_TRUE(globMatch("\\?x", "?x"));
  // Pathological patterns stay cheap (exponential in a naive matcher).
  EXPECT_FALSE(globMatch("a*a*a*a*a*a*a*a*a*a*a*a*b", std::string(4000, 'a')));
}

}  // namespace
TEST(StrUtil, EqualsIgnoreCaseFoldsAsciiLettersOnly) {
  EXPECT_TRUE(common::strutil::equalsIgnoreCase("GeT", "get"));
  EXPECT_TRUE(common::strutil::equalsIgnoreCase("ZRANGEBYSCORE", "zrangebyscore"));
  EXPECT_FALSE(common::strutil::equalsIgnoreCase("get", "gets"));
  // Only A-Z fold: '@' / '`' and '[' / '{' differ by the same bit.
  EXPECT_FALSE(common::strutil::equalsIgnoreCase("@", "`"));
  EXPECT_FALSE(common::strutil::equalsIgnoreCase("[", "{"));
  EXPECT_FALSE(common::strutil::equalsIgnoreCase("\xc9", "\xe9"));
  EXPECT_TRUE(common::strutil::equalsIgnoreCase("", ""));
}

}  // namespace common::strutil
