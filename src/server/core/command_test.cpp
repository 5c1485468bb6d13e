// CommandTable lookups: case-insensitive names of every length (the short
// ones take the packed-word path, the long ones the byte compare), misses,
// and rename-command.
#include "server/core/command.h"

#include <gtest/gtest.h>

#include <string>

namespace server {
namespace {

Command make(const char* name) {
  Command c{};
  c.name = name;
  c.arity = 1;
  return c;
}

TEST(CommandTable, FindsEveryLengthIgnoringCase) {
  static const char* const kNames[] = {"a",
                                       "ab",
                                       "get",
                                       "ping",
                                       "multi",
                                       "lrange",
                                       "publish",
                                       "getrange",
                                       "zrevrange",
                                       "pexpiretime",
                                       "restoreasking",
                                       "zrangebylexx",
                                       "xautoclaimed",
                                       "zremrangebylex",
                                       "zremrangebyrank",
                                       "zremrangebyscore",
                                       "georadiusbymember",
                                       "georadiusbymember_ro"};
  CommandTable t;
  for (const char* n : kNames) t.add(make(n));
  for (const char* n : kNames) {
    std::string upper(n);
    for (char& ch : upper) ch = static_cast<char>(toupper(static_cast<unsigned char>(ch)));
    std::string mixed(n);
    mixed[0] = upper[0];
    for (const std::string& q : {std::string(n), upper, mixed}) {
      Command* c = t.find(q);
      ASSERT_NE(c, nullptr) << q;
      EXPECT_STREQ(c->name, n) << q;
    }
    std::string longer = std::string(n) + "x";
    std::string shorter = std::string(n).substr(0, std::string(n).size() - 1);
    EXPECT_TRUE(t.find(longer) == nullptr || std::string(t.find(longer)->name) == longer);
    EXPECT_TRUE(t.find(shorter) == nullptr || std::string(t.find(shorter)->name) == shorter);
  }
}

TEST(CommandTable, MissesAndBytesOutsideLetters) {
  CommandTable t;
  t.add(make("get"));
  t.add(make("set"));
  EXPECT_EQ(t.find(""), nullptr);
  EXPECT_EQ(t.find("ge"), nullptr);
  EXPECT_EQ(t.find("gets"), nullptr);
  EXPECT_EQ(t.find(std::string("get\0", 4)), nullptr);
  EXPECT_EQ(t.find("gEu"), nullptr);
  // '@' is 'A' less one: no case folding for it.
  EXPECT_EQ(t.find("@et"), nullptr);
  EXPECT_EQ(t.find("G\xc5T"), nullptr);
  EXPECT_NE(t.find("GeT"), nullptr);
}

TEST(CommandTable, RenameMovesTheLookupName) {
  CommandTable t;
  t.add(make("get"));
  t.add(make("flushall"));
  std::string err;
  ASSERT_TRUE(t.rename("get", "a-very-long-name-for-get", &err));
  EXPECT_EQ(t.find("get"), nullptr);
  ASSERT_NE(t.find("A-VERY-LONG-NAME-FOR-GET"), nullptr);
  EXPECT_STREQ(t.find("a-very-long-name-for-get")->name, "get");
  ASSERT_TRUE(t.rename("flushall", "", &err));
  EXPECT_EQ(t.find("flushall"), nullptr);
  EXPECT_EQ(t.count(), 1u);
}

}  // namespace
}  // namespace server
