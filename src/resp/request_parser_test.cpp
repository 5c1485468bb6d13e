#include "resp/request_parser.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace resp {
namespace {

struct Parsed {
  RequestParser::Result result;
  std::vector<std::string> args;
  size_t consumed = 0;
  std::string error;
};

// Feeds `data` one growing prefix at a time (as if it arrived in pieces of
// `step` bytes) and returns the first request's outcome.
Parsed parseInSteps(const std::string& data, size_t step, ParserLimits limits = {}) {
  RequestParser p;
  Parsed out;
  for (size_t len = std::min(step, data.size());; len = std::min(len + step, data.size())) {
    out.result = p.feed(data.data(), len, limits);
    if (out.result != RequestParser::kNeedMore || len == data.size()) break;
  }
  if (out.result == RequestParser::kDone) {
    const char* base = p.isInline() ? p.inlineStorage().data() : data.data();
    for (const ArgRef& a : p.args()) out.args.emplace_back(base + a.off, a.len);
    out.consumed = p.consumed();
  } else if (out.result == RequestParser::kError) {
    out.error = p.error();
  }
  return out;
}

TEST(RequestParser, MultibulkWhole) {
  Parsed r = parseInSteps("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n", 1000);
  ASSERT_EQ(r.result, RequestParser::kDone);
  EXPECT_EQ(r.args, (std::vector<std::string>{"SET", "k", "hello"}));
  EXPECT_EQ(r.consumed, 31u);
}

TEST(RequestParser, MultibulkSplitAtEveryByte) {
  static const char kReq[] = "*2\r\n$4\r\nECHO\r\n$10\r\na\r\nb\0c\r\nde\r\n";
  std::string req(kReq, sizeof(kReq) - 1);
  for (size_t step = 1; step <= req.size(); step++) {
    Parsed r = parseInSteps(req, step);
    ASSERT_EQ(r.result, RequestParser::kDone) << "step " << step;
    ASSERT_EQ(r.args.size(), 2u);
    EXPECT_EQ(r.args[1], std::string("a\r\nb\0c\r\nde", 10));
    EXPECT_EQ(r.consumed, req.size());
  }
}

TEST(RequestParser, BinaryBulkAllBytes) {
  std::string val;
  for (int i = 0; i < 256; i++) val.push_back(static_cast<char>(i));
  std::string req = "*1\r\n$256\r\n" + val + "\r\n";
  Parsed r = parseInSteps(req, 7);
  ASSERT_EQ(r.result, RequestParser::kDone);
  EXPECT_EQ(r.args[0], val);
}

TEST(RequestParser, Pipelined) {
  std::string req = "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n";
  RequestParser p;
  ParserLimits l;
  ASSERT_EQ(p.feed(req.data(), req.size(), l), RequestParser::kDone);
  size_t first = p.consumed();
  EXPECT_EQ(first, 14u);
  p.reset();
  ASSERT_EQ(p.feed(req.data() + first, req.size() - first, l), RequestParser::kDone);
  EXPECT_EQ(p.consumed(), 14u);
}

TEST(RequestParser, EmptyMultibulkIsSkipped) {
  Parsed r = parseInSteps("*0\r\n", 100);
  ASSERT_EQ(r.result, RequestParser::kDone);
  EXPECT_TRUE(r.args.empty());
  EXPECT_EQ(r.consumed, 4u);
  r = parseInSteps("*-1\r\n", 100);
  ASSERT_EQ(r.result, RequestParser::kDone);
  EXPECT_TRUE(r.args.empty());
}

TEST(RequestParser, Inline) {
  Parsed r = parseInSteps("SET  k \"a b\\x41\\n\" 'it''s'\r\n", 3);
  // 'it''s' is unbalanced: a closing quote must be followed by a space.
  EXPECT_EQ(r.result, RequestParser::kError);
  EXPECT_EQ(r.error, "Protocol error: unbalanced quotes in request");
  r = parseInSteps("SET  k \"a b\\x41\\n\" 'it\\'s'\n", 3);
  ASSERT_EQ(r.result, RequestParser::kDone);
  EXPECT_EQ(r.args, (std::vector<std::string>{"SET", "k", "a bA\n", "it's"}));
}

TEST(RequestParser, InlineWithNulBeforeNewlineNeverCompletes) {
  // As Redis (strchr stops at the NUL): no request until the too-big error.
  RequestParser p;
  ParserLimits l;
  std::string req("ECHO a\0b\r\nPING\r\n", 16);
  EXPECT_EQ(p.feed(req.data(), req.size(), l), RequestParser::kNeedMore);
  req += std::string(70000, 'x');
  EXPECT_EQ(p.feed(req.data(), req.size(), l), RequestParser::kError);
  EXPECT_STREQ(p.error(), "Protocol error: too big inline request");
  // A NUL inside a multibulk argument is plain data.
  Parsed r = parseInSteps(std::string("*1\r\n$3\r\na\0b\r\n", 13), 1);
  ASSERT_EQ(r.result, RequestParser::kDone);
  EXPECT_EQ(r.args, (std::vector<std::string>{std::string("a\0b", 3)}));
}

TEST(RequestParser, MoreThanAMillionArgumentsAccepted) {
  std::string req = "*2000000\r\n";
  for (int i = 0; i < 2000000; i++) req += "$1\r\nx\r\n";
  RequestParser p;
  ParserLimits l;
  ASSERT_EQ(p.feed(req.data(), req.size(), l), RequestParser::kDone);
  EXPECT_EQ(p.args().size(), 2000000u);
}

TEST(RequestParser, EmptyInlineLine) {
  Parsed r = parseInSteps("\r\n", 1);
  ASSERT_EQ(r.result, RequestParser::kDone);
  EXPECT_TRUE(r.args.empty());
  EXPECT_EQ(r.consumed, 2u);
}

TEST(RequestParser, ProtocolErrors) {
  EXPECT_EQ(parseInSteps("*abc\r\n", 100).error, "Protocol error: invalid multibulk length");
  EXPECT_EQ(parseInSteps("*3000000000\r\n", 100).error, "Protocol error: invalid multibulk length");
  EXPECT_EQ(parseInSteps("*1\r\n+foo\r\n", 100).error, "Protocol error: expected '$', got '+'");
  EXPECT_EQ(parseInSteps("*1\r\n$-5\r\n", 100).error, "Protocol error: invalid bulk length");
  EXPECT_EQ(parseInSteps("*1\r\n$x\r\n", 100).error, "Protocol error: invalid bulk length");
  ParserLimits small;
  small.max_bulk_len = 10;
  EXPECT_EQ(parseInSteps("*1\r\n$11\r\n", 100, small).error, "Protocol error: invalid bulk length");
  EXPECT_EQ(parseInSteps(std::string(70000, 'a'), 100000).error,
            "Protocol error: too big inline request");
  EXPECT_EQ(parseInSteps("*" + std::string(70000, '1'), 100000).error,
            "Protocol error: too big mbulk count string");
  EXPECT_EQ(parseInSteps("*1\r\n$" + std::string(70000, '1'), 100000).error,
            "Protocol error: too big bulk count string");
}

// Lengths take a fast path when they are plain digits; anything else goes
// the general way and must be decided exactly as before.
TEST(RequestParser, LengthEdgeCases) {
  ParserLimits big;
  big.max_bulk_len = INT64_MAX;
  EXPECT_EQ(parseInSteps("*01\r\n$1\r\na\r\n", 100).error,
            "Protocol error: invalid multibulk length");
  EXPECT_EQ(parseInSteps("*1\r\n$01\r\na\r\n", 100).error, "Protocol error: invalid bulk length");
  EXPECT_EQ(parseInSteps("*1\r\n$+1\r\na\r\n", 100).error, "Protocol error: invalid bulk length");
  EXPECT_EQ(parseInSteps("*1\r\n$1 \r\na\r\n", 100).error, "Protocol error: invalid bulk length");
  EXPECT_EQ(parseInSteps("*1\r\n$\r\na\r\n", 100).error, "Protocol error: invalid bulk length");
  EXPECT_EQ(parseInSteps("*-1\r\n", 100).result, RequestParser::kDone);
  EXPECT_EQ(parseInSteps("*0\r\n", 100).result, RequestParser::kDone);
  // 18 digits (fast path) and 19 (general path): both parsed, both too big
  // for the default limit, fine for an unlimited one.
  EXPECT_EQ(parseInSteps("*1\r\n$100000000000000000\r\n", 100).error,
            "Protocol error: invalid bulk length");
  EXPECT_EQ(parseInSteps("*1\r\n$1000000000000000000\r\n", 100).error,
            "Protocol error: invalid bulk length");
  EXPECT_EQ(parseInSteps("*1\r\n$100000000000000000\r\n", 100, big).result,
            RequestParser::kNeedMore);
  EXPECT_EQ(parseInSteps("*1\r\n$1000000000000000000\r\n", 100, big).result,
            RequestParser::kNeedMore);
  EXPECT_EQ(parseInSteps("*1\r\n$10000000000000000000\r\n", 100, big).error,
            "Protocol error: invalid bulk length");
  // A length whose '\n' has not arrived yet waits for it.
  EXPECT_EQ(parseInSteps("*1\r\n$3\r", 100).result, RequestParser::kNeedMore);
  EXPECT_EQ(parseInSteps("*1\r", 100).result, RequestParser::kNeedMore);
  Parsed r = parseInSteps("*2\r\n$0\r\n\r\n$12\r\nhello world!\r\n", 1000);
  ASSERT_EQ(r.result, RequestParser::kDone);
  EXPECT_EQ(r.args, (std::vector<std::string>{"", "hello world!"}));
}

TEST(RequestParser, UnauthenticatedLimits) {
  ParserLimits l;
  l.authenticated = false;
  EXPECT_EQ(parseInSteps("*11\r\n", 100, l).error,
            "Protocol error: unauthenticated multibulk length");
  EXPECT_EQ(parseInSteps("*1\r\n$16385\r\n", 100, l).error,
            "Protocol error: unauthenticated bulk length");
  EXPECT_EQ(parseInSteps("*2\r\n$4\r\nAUTH\r\n$3\r\npwd\r\n", 100, l).result, RequestParser::kDone);
}

TEST(RequestParser, HugeCountDoesNotAllocate) {
  // A peer announcing 1M args but sending none must cost nothing up front.
  RequestParser p;
  ParserLimits l;
  std::string req = "*1048576\r\n";
  EXPECT_EQ(p.feed(req.data(), req.size(), l), RequestParser::kNeedMore);
  EXPECT_LT(p.args().capacity(), 1024u);
}

TEST(RequestParser, BigBulkReportsSizeHint) {
  RequestParser p;
  ParserLimits l;
  std::string req = "*1\r\n$100000\r\nabc";
  EXPECT_EQ(p.feed(req.data(), req.size(), l), RequestParser::kNeedMore);
  EXPECT_EQ(p.bytesHint(), 13u + 100000u + 2u);
}

TEST(RequestParser, RandomGarbageNeverCrashes) {
  std::mt19937 rng(42);
  const char alphabet[] = "*$\r\n0123456789-abc \"'\\x";
  for (int iter = 0; iter < 20000; iter++) {
    std::string s;
    size_t n = rng() % 40;
    for (size_t i = 0; i < n; i++) s.push_back(alphabet[rng() % (sizeof(alphabet) - 1)]);
    RequestParser p;
    ParserLimits l;
    RequestParser::Result r = p.feed(s.data(), s.size(), l);
    if (r == RequestParser::kDone) {
      EXPECT_LE(p.consumed(), s.size());
      for (const ArgRef& a : p.args()) {
        if (!p.isInline()) {
          EXPECT_LE(a.off + a.len, s.size());
        }
      }
    }
  }
}

TEST(SplitArgs, ConfigLines) {
  std::vector<std::string> v;
  ASSERT_TRUE(splitArgs("save \"\"", &v));
  EXPECT_EQ(v, (std::vector<std::string>{"save", ""}));
  ASSERT_TRUE(splitArgs("  bind 127.0.0.1   -::1  ", &v));
  EXPECT_EQ(v, (std::vector<std::string>{"bind", "127.0.0.1", "-::1"}));
  EXPECT_FALSE(splitArgs("requirepass \"abc", &v));
}

}  // namespace
}  // namespace resp
