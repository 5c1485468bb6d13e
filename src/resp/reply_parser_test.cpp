// Parser tests: every reply type, nesting, input split at every byte, and
// hostile input (bad bytes, huge lengths, deep nesting).
#include "resp/reply_parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace resp {
namespace {

using namespace std::string_literals;

// Feeds `wire` in pieces of `step` bytes, collecting every complete reply.
std::vector<Reply> parseAll(const std::string& wire, size_t step, ReplyParser::Result* last = nullptr) {
  ReplyParser p;
  std::vector<Reply> out;
  ReplyParser::Result r = ReplyParser::Result::kIncomplete;
  for (size_t i = 0; i < wire.size(); i += step) {
    p.feed(wire.data() + i, std::min(step, wire.size() - i));
    Reply rep;
    while ((r = p.next(&rep)) == ReplyParser::Result::kReply) out.push_back(std::move(rep));
    if (r == ReplyParser::Result::kError) break;
  }
  if (last) *last = r;
  return out;
}

Reply parseOne(const std::string& wire) {
  auto v = parseAll(wire, wire.size());
  EXPECT_EQ(v.size(), 1u) << wire;
  return v.empty() ? Reply() : std::move(v[0]);
}

std::string errorOf(const std::string& wire, ReplyLimits limits = {}) {
  ReplyParser p(limits);
  p.feed(wire.data(), wire.size());
  Reply r;
  EXPECT_EQ(p.next(&r), ReplyParser::Result::kError) << wire;
  return p.error();
}

TEST(ReplyParser, Scalars) {
  EXPECT_EQ(parseOne("+OK\r\n").type, ReplyType::kStatus);
  EXPECT_EQ(parseOne("+OK\r\n").str, "OK");
  Reply e = parseOne("-ERR bad thing\r\n");
  EXPECT_TRUE(e.isError());
  EXPECT_EQ(e.str, "ERR bad thing");
  EXPECT_EQ(parseOne(":-42\r\n").integer, -42);
  EXPECT_EQ(parseOne(":9223372036854775807\r\n").integer, INT64_MAX);
  EXPECT_EQ(parseOne(":-9223372036854775808\r\n").integer, INT64_MIN);
  Reply b = parseOne("$5\r\na\r\nb\0\r\n"s);
  EXPECT_EQ(b.type, ReplyType::kBulk);
  EXPECT_EQ(b.str, std::string("a\r\nb\0", 5));
  EXPECT_EQ(parseOne("$0\r\n\r\n").str, "");
  EXPECT_EQ(parseOne("$-1\r\n").type, ReplyType::kNil);
  Reply na = parseOne("*-1\r\n");
  EXPECT_EQ(na.type, ReplyType::kNil);
  EXPECT_TRUE(na.null_array);
}

TEST(ReplyParser, Resp3Scalars) {
  EXPECT_EQ(parseOne("_\r\n").type, ReplyType::kNil);
  Reply d = parseOne(",3.25\r\n");
  EXPECT_EQ(d.type, ReplyType::kDouble);
  EXPECT_DOUBLE_EQ(d.dval, 3.25);
  EXPECT_EQ(d.str, "3.25");
  EXPECT_TRUE(std::isinf(parseOne(",-inf\r\n").dval));
  EXPECT_TRUE(std::isnan(parseOne(",nan\r\n").dval));
  EXPECT_EQ(parseOne("#t\r\n").integer, 1);
  EXPECT_EQ(parseOne("#f\r\n").integer, 0);
  Reply big = parseOne("(-1234567999999999999999999999999\r\n");
  EXPECT_EQ(big.type, ReplyType::kBigNumber);
  EXPECT_EQ(big.str, "-1234567999999999999999999999999");
  Reply v = parseOne("=15\r\ntxt:Some string\r\n");
  EXPECT_EQ(v.type, ReplyType::kVerbatim);
  EXPECT_EQ(v.format, "txt");
  EXPECT_EQ(v.str, "Some string");
  Reply be = parseOne("!11\r\nERR a\r\nbcde\r\n");
  EXPECT_TRUE(be.isError());
  EXPECT_EQ(be.str, "ERR a\r\nbcde");
}

TEST(ReplyParser, Aggregates) {
  Reply a = parseOne("*3\r\n:1\r\n*2\r\n$1\r\nx\r\n*0\r\n-E\r\n");
  ASSERT_EQ(a.type, ReplyType::kArray);
  ASSERT_EQ(a.elements.size(), 3u);
  EXPECT_EQ(a.elements[0].integer, 1);
  ASSERT_EQ(a.elements[1].elements.size(), 2u);
  EXPECT_EQ(a.elements[1].elements[0].str, "x");
  EXPECT_EQ(a.elements[1].elements[1].type, ReplyType::kArray);
  EXPECT_TRUE(a.elements[1].elements[1].elements.empty());
  EXPECT_TRUE(a.elements[2].isError());

  Reply m = parseOne("%2\r\n+a\r\n:1\r\n+b\r\n~2\r\n#t\r\n_\r\n");
  ASSERT_EQ(m.type, ReplyType::kMap);
  ASSERT_EQ(m.elements.size(), 4u);
  EXPECT_EQ(m.elements[2].str, "b");
  EXPECT_EQ(m.elements[3].type, ReplyType::kSet);
  EXPECT_EQ(m.elements[3].elements.size(), 2u);

  Reply p = parseOne(">2\r\n+message\r\n$2\r\nhi\r\n");
  EXPECT_EQ(p.type, ReplyType::kPush);
  EXPECT_EQ(p.elements[1].str, "hi");
  EXPECT_EQ(parseOne("%0\r\n").type, ReplyType::kMap);
}

TEST(ReplyParser, AttributeAttachesToFollowingValue) {
  Reply r = parseOne("|1\r\n+key\r\n:7\r\n*2\r\n|1\r\n+k\r\n+v\r\n:1\r\n:2\r\n");
  ASSERT_EQ(r.type, ReplyType::kArray);
  ASSERT_TRUE(r.attribute);
  EXPECT_EQ(r.attribute->elements[1].integer, 7);
  ASSERT_EQ(r.elements.size(), 2u);
  ASSERT_TRUE(r.elements[0].attribute);
  EXPECT_EQ(r.elements[0].attribute->elements[0].str, "k");
  EXPECT_EQ(r.elements[0].integer, 1);
  EXPECT_FALSE(r.elements[1].attribute);
}

// Every reply type in one stream, fed at every split point and one byte at
// a time: the result must not depend on how the bytes arrive.
TEST(ReplyParser, SplitAtEveryByte) {
  const std::string wire =
      "+OK\r\n-ERR x\r\n:12\r\n$3\r\nabc\r\n$-1\r\n*-1\r\n*2\r\n*1\r\n:1\r\n$0\r\n\r\n"
      "%1\r\n+k\r\n~1\r\n,1.5\r\n#f\r\n_\r\n(123\r\n=8\r\ntxt:abcd\r\n!3\r\nERR\r\n"
      "|1\r\n+a\r\n+b\r\n:5\r\n>1\r\n+p\r\n";
  auto whole = parseAll(wire, wire.size());
  ASSERT_EQ(whole.size(), 15u);
  for (size_t split = 1; split < wire.size(); split++) {
    ReplyParser p;
    std::vector<Reply> got;
    Reply r;
    p.feed(wire.data(), split);
    while (p.next(&r) == ReplyParser::Result::kReply) got.push_back(std::move(r));
    p.feed(wire.data() + split, wire.size() - split);
    while (p.next(&r) == ReplyParser::Result::kReply) got.push_back(std::move(r));
    ASSERT_EQ(got.size(), whole.size()) << "split at " << split;
    for (size_t i = 0; i < got.size(); i++) {
      EXPECT_EQ(got[i].type, whole[i].type) << "split " << split << " reply " << i;
      EXPECT_EQ(got[i].str, whole[i].str) << "split " << split << " reply " << i;
      EXPECT_EQ(got[i].elements.size(), whole[i].elements.size());
    }
  }
  auto bytewise = parseAll(wire, 1);
  ASSERT_EQ(bytewise.size(), whole.size());
  EXPECT_EQ(bytewise[3].str, "abc");
  EXPECT_EQ(bytewise[11].str, "abcd");
  EXPECT_EQ(bytewise[11].format, "txt");
  EXPECT_EQ(bytewise[13].integer, 5);
  ASSERT_TRUE(bytewise[13].attribute);
  EXPECT_EQ(bytewise[14].type, ReplyType::kPush);
}

TEST(ReplyParser, SkimMatchesNext) {
  const std::string wire =
      "*2\r\n$3\r\nabc\r\n:1\r\n-ERR no\r\n!5\r\nERR x\r\n+OK\r\n%1\r\n:1\r\n:2\r\n";
  for (size_t step : {size_t{1}, size_t{3}, wire.size()}) {
    ReplyParser p;
    std::vector<ReplySummary> got;
    std::vector<std::string> errors;
    for (size_t i = 0; i < wire.size(); i += step) {
      p.feed(wire.data() + i, std::min(step, wire.size() - i));
      ReplySummary s;
      while (p.skim(&s) == ReplyParser::Result::kReply) {
        got.push_back(s);
        errors.emplace_back(s.error);
      }
    }
    ASSERT_EQ(got.size(), 5u) << step;
    EXPECT_EQ(got[0].type, ReplyType::kArray);
    EXPECT_EQ(got[1].type, ReplyType::kError);
    EXPECT_EQ(errors[1], "ERR no");
    EXPECT_EQ(errors[2], "ERR x");
    EXPECT_EQ(got[3].type, ReplyType::kStatus);
    EXPECT_TRUE(errors[3].empty());
    EXPECT_EQ(got[4].type, ReplyType::kMap);
  }
}

TEST(ReplyParser, HostileInputIsRejected) {
  EXPECT_NE(errorOf("?what\r\n").find("got \"?\" as reply type byte"), std::string::npos);
  EXPECT_NE(errorOf("\x01\r\n").find("\\x01"), std::string::npos);
  errorOf(":12a\r\n");
  errorOf(":99999999999999999999\r\n");
  errorOf(":\r\n");
  errorOf("$-2\r\n");
  errorOf("$abc\r\n");
  errorOf("$3\r\nabcd\r\n");  // payload longer than announced
  errorOf("*-5\r\n");
  errorOf("#x\r\n");
  errorOf(",1.5x\r\n");
  errorOf(",0x10\r\n");
  errorOf("(12a\r\n");
  errorOf("_x\r\n");
  errorOf("=3\r\nabc\r\n");   // verbatim without "fmt:"
  errorOf("=4\r\nabcd\r\n");  // fourth byte must be ':'
  errorOf("!-1\r\n");
  errorOf("\r\n");
  ReplyLimits small;
  small.max_bulk = 10;
  small.max_elements = 3;
  small.max_depth = 4;
  small.max_line = 32;
  EXPECT_NE(errorOf("$11\r\n", small).find("limit"), std::string::npos);
  errorOf("*4\r\n", small);
  errorOf("*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", small);
  errorOf("+" + std::string(40, 'a'), small);  // no CRLF within the line limit
  // Errors stick until reset().
  ReplyParser p;
  p.feed("?\r\n+OK\r\n", 8);
  Reply r;
  EXPECT_EQ(p.next(&r), ReplyParser::Result::kError);
  EXPECT_EQ(p.next(&r), ReplyParser::Result::kError);
  p.reset();
  p.feed("+OK\r\n", 5);
  EXPECT_EQ(p.next(&r), ReplyParser::Result::kReply);
}

TEST(ReplyParser, ClaimedLengthsCostNothingUntilBytesArrive) {
  ReplyParser p;
  std::string head = "*2147483647\r\n$536870912\r\n";
  p.feed(head.data(), head.size());
  p.feed("abc", 3);
  Reply r;
  EXPECT_EQ(p.next(&r), ReplyParser::Result::kIncomplete);
  EXPECT_LT(p.buffered(), 64u);
  std::string deep;
  for (int i = 0; i < 100000; i++) deep += "*1\r\n";
  ReplyParser q;
  q.feed(deep.data(), deep.size());
  EXPECT_EQ(q.next(&r), ReplyParser::Result::kError);
  EXPECT_NE(q.error().find("nesting"), std::string::npos);
}

TEST(ReplyParser, DeepButAllowedNesting) {
  std::string wire;
  for (int i = 0; i < 100; i++) wire += "*1\r\n";
  wire += ":7\r\n";
  Reply r = parseOne(wire);
  const Reply* cur = &r;
  for (int i = 0; i < 100; i++) {
    ASSERT_EQ(cur->elements.size(), 1u);
    cur = &cur->elements[0];
  }
  EXPECT_EQ(cur->integer, 7);
}

TEST(Encode, MultibulkIsBinarySafe) {
  EXPECT_EQ(encodeCommand({"SET", "k", std::string("a\0\r\nb", 5)}),
            "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\na\0\r\nb\r\n"s);
  EXPECT_EQ(encodeCommand({}), "*0\r\n");
  std::string pipe;
  appendCommand(&pipe, std::vector<std::string_view>{"PING"});
  appendCommand(&pipe, std::vector<std::string_view>{"ECHO", ""});
  EXPECT_EQ(pipe, "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$0\r\n\r\n");
}

}  // namespace
TEST(ParserRaw, TakeRawHandsOverWhatFollowsTheLastReply) {
  // A SYNC payload: after a complete reply, raw bytes are taken as they
  // are; then replies parse again from what is fed later.
  ReplyParser p;
  p.feed("+OK\r\n$EOF:x\r\nREDIS\x00\n", 20);
  Reply r;
  ASSERT_EQ(p.next(&r), ReplyParser::Result::kReply);
  EXPECT_EQ(r.str, "OK");
  std::string raw;
  EXPECT_EQ(p.takeRaw(&raw, 4), 4u);
  EXPECT_EQ(raw, "$EOF");
  EXPECT_EQ(p.takeRaw(&raw, 100), 11u);
  EXPECT_EQ(raw, "$EOF:x\r\nREDIS\x00\n"s);
  p.feed("*1\r\n$4\r\nping\r\n", 14);
  ASSERT_EQ(p.next(&r), ReplyParser::Result::kReply);
  ASSERT_EQ(r.elements.size(), 1u);
  EXPECT_EQ(r.elements[0].str, "ping");
}

TEST(ParserRaw, NothingIsTakenFromAHalfParsedReply) {
  ReplyParser p;
  p.feed("*2\r\n$1\r\na\r\n", 11);
  Reply r;
  EXPECT_EQ(p.next(&r), ReplyParser::Result::kIncomplete);
  std::string raw;
  EXPECT_EQ(p.takeRaw(&raw, 100), 0u);
  EXPECT_TRUE(raw.empty());
}

}  // namespace resp
