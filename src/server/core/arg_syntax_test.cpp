// The syntax-line reader behind COMMAND DOCS "arguments", and the command
// table's lines themselves: every registered command has one and it parses,
// and every command with keys has key specs.
#include "server/core/arg_syntax.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/commands/families.h"
#include "server/commands/syntax_table.h"
#include "server/dispatch.h"
#include "server/server.h"
#include "server/shutdown.h"

namespace server {
namespace {

std::vector<ArgSpec> parse(const char* line) {
  std::vector<ArgSpec> out;
  std::string err;
  EXPECT_TRUE(parseArgSyntax(line, &out, &err)) << line << ": " << err;
  return out;
}

std::string parseError(const char* line) {
  std::vector<ArgSpec> out;
  std::string err;
  EXPECT_FALSE(parseArgSyntax(line, &out, &err)) << line;
  return err;
}

// A compact picture of a tree: name:type, token before, [] optional,
// ... multiple (...T when the token repeats), <a|b> oneof, {a b} block.
std::string show(const ArgSpec& a);
std::string show(const std::vector<ArgSpec>& args, const char* sep) {
  std::string s;
  for (const ArgSpec& a : args) {
    if (!s.empty()) s += sep;
    s += show(a);
  }
  return s;
}
std::string show(const ArgSpec& a) {
  std::string s;
  if (!a.token.empty()) s = a.token + " ";
  if (a.type == ArgType::kOneOf)
    s += "<" + show(a.args, "|") + ">";
  else if (a.type == ArgType::kBlock)
    s += "{" + show(a.args, " ") + "}";
  else if (a.type != ArgType::kPureToken)
    s += a.name + ":" + argTypeName(a.type);
  else
    s = a.token;
  if (a.multiple) s += a.multiple_token ? " ...T" : " ...";
  if (a.optional) s = "[" + s + "]";
  return s;
}

TEST(ArgSyntax, SetLine) {
  auto args = parse(
      "key value [NX | XX] [GET] [EX seconds:integer | PX milliseconds:integer | EXAT "
      "unix-time-seconds:unix-time | KEEPTTL]");
  ASSERT_EQ(args.size(), 5u);
  EXPECT_EQ(show(args, " "),
            "key:key value:string [<NX|XX>] [GET] [<EX seconds:integer|PX "
            "milliseconds:integer|EXAT unix-time-seconds:unix-time|KEEPTTL>]");
  EXPECT_EQ(args[0].name, "key");
  EXPECT_EQ(args[3].name, "get");
  EXPECT_EQ(args[3].type, ArgType::kPureToken);
  EXPECT_EQ(args[4].args[0].name, "seconds");
  EXPECT_EQ(args[4].args[0].token, "EX");
  EXPECT_EQ(args[2].name, "nx-xx");  // unlabelled oneof: its parts' names
}

TEST(ArgSyntax, OptionalAlternativesAndTheEmptyToken) {
  auto args = parse("<key | \"\"> [[AUTH password] | [AUTH2 username password]]");
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(show(args, " "),
            "<key:key|> [<[AUTH password:string]|[AUTH2 {username:string password:string}]>]");
  EXPECT_EQ(args[0].args[1].type, ArgType::kPureToken);
  EXPECT_EQ(args[0].args[1].name, "empty_string");
  EXPECT_EQ(args[0].args[1].token, "");
  EXPECT_TRUE(args[1].args[0].optional);
  EXPECT_TRUE(args[1].args[1].optional);
}

TEST(ArgSyntax, Repeats) {
  EXPECT_EQ(show(parse("key [key ...]"), " "), "key:key ...");
  EXPECT_EQ(show(parse("key [element [element ...]]"), " "), "key:key [element:string ...]");
  EXPECT_EQ(show(parse("[channel ...]"), " "), "[channel:string ...]");
  EXPECT_EQ(show(parse("key field value [field value ...]"), " "),
            "key:key {field:string value:string} ...");
  // The token repeats with its argument.
  EXPECT_EQ(show(parse("key [GET p:pattern [GET p:pattern ...]]"), " "),
            "key:key [GET p:pattern ...T]");
  // A token before a repeat introduces it once.
  EXPECT_EQ(show(parse("[ID id:integer [id:integer ...]]"), " "), "[ID id:integer ...]");
  // "X ..." repeats a whole group.
  EXPECT_EQ(show(parse("<a | <[ID id:integer] | [USER u]> ...>"), " "),
            "<a:string|<[ID id:integer]|[USER u:string]> ...>");
  auto labelled = parse("score:double member data=[score:double member ...]");
  ASSERT_EQ(labelled.size(), 1u);
  EXPECT_EQ(labelled[0].name, "data");
  EXPECT_EQ(labelled[0].type, ArgType::kBlock);
}

TEST(ArgSyntax, TokensBlocksAndGroups) {
  // A token with two or more words after it in a group is a block.
  EXPECT_EQ(show(parse("key [LIMIT offset:integer count:integer]"), " "),
            "key:key [LIMIT {offset:integer count:integer}]");
  auto limit = parse("[LIMIT offset:integer count:integer]");
  EXPECT_EQ(limit[0].name, "limit");
  // A token before a group names it and introduces it.
  auto type = parse("[TYPE <NORMAL | PUBSUB>]");
  EXPECT_EQ(show(type, " "), "[TYPE <NORMAL|PUBSUB>]");
  EXPECT_EQ(type[0].name, "type");
  // Nested optional blocks.
  EXPECT_EQ(show(parse("key bit:integer [start:integer [end:integer [BYTE | BIT]]]"), " "),
            "key:key bit:integer [{start:integer [{end:integer [<BYTE|BIT>]}]}]");
  // "ip:port" carries no type suffix: all of it is the name.
  auto addr = parse("[ADDR ip:port]");
  EXPECT_EQ(addr[0].name, "ip:port");
  EXPECT_EQ(addr[0].type, ArgType::kString);
  EXPECT_TRUE(parse("").empty());
  // "#N" ties an argument to a key spec; it is not part of the name.
  auto sort = parse("key [BY pattern:pattern#1]");
  EXPECT_EQ(sort[1].name, "pattern");
  EXPECT_EQ(sort[1].type, ArgType::kPattern);
  EXPECT_EQ(sort[1].key_spec_index, 1);
  EXPECT_EQ(sort[0].key_spec_index, -1);
}

TEST(ArgSyntax, MalformedLines) {
  EXPECT_EQ(parseError("key [NX"), "missing ']'");
  EXPECT_EQ(parseError("key <NX]"), "unexpected ']'");
  EXPECT_EQ(parseError("key ]"), "unexpected ']'");
  EXPECT_EQ(parseError("NX | XX"), "'|' outside a group");
  EXPECT_EQ(parseError("... key"), "'...' with nothing before it");
  EXPECT_EQ(parseError("key [NX | ]"), "empty alternative");
  EXPECT_EQ(parseError("key x[NX]"), "a group must follow a space or a label=");
}

TEST(SyntaxTable, EveryCommandHasAParsedLine) {
  EXPECT_TRUE(commandTablesSorted());
  Instance server;
  for (int i = 0; i < 16; i++) server.dbs.push_back(std::make_unique<db::Db>(i));
  registerAllCommands(registerShutdownCommand);  // parses every line; a bad one aborts
  size_t checked = 0;
  auto check = [&](const Command& cmd) {
    EXPECT_NE(commandSyntax(cmd.name), nullptr) << cmd.name << " has no syntax line";
    // A command with keys says where they are.
    if (cmd.first_key > 0 || cmd.keys_proc != nullptr) {
      EXPECT_FALSE(cmd.key_specs.empty()) << cmd.name << " has no key specs";
    }
    checked++;
  };
  for (Command* cmd : server.commands.all()) {
    check(*cmd);
    for (const Command& sub : cmd->subcommands) check(sub);
  }
  EXPECT_GT(checked, 200u);
  Command* set = server.commands.find("set");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->arguments.size(), 5u);
  EXPECT_STREQ(server.commands.find("randomkey")->tips,
               "request_policy:all_shards nondeterministic_output");
  EXPECT_STREQ(set->tips, "");
}

}  // namespace
}  // namespace server
