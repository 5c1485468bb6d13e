// A command's arguments as COMMAND DOCS describes them (Redis 7's argument
// tree: names, types, tokens, optional/multiple flags, nested oneof and
// block groups), parsed from the syntax line a reader knows from the docs.
//
// The syntax line, one per command (commands/syntax_table.cpp):
//   word          a placeholder when it has a lower-case letter ("member",
//                 "unix-time-seconds"), else a token ("NX", "WITHSCORES").
//                 A placeholder may end in ":type", one of integer, double,
//                 key, pattern, unix-time, string (the default; a
//                 placeholder named "key" is a key). A final "#N" names
//                 the key spec the argument belongs to (SORT's BY
//                 pattern); key arguments default to their order.
//   [ a | b ]     optional group; "<a | b>" is a required one. More than
//                 one alternative makes a oneof.
//   X [X ...]     X repeats ("multiple"); when X starts with a token the
//                 token repeats too ("multiple_token").
//   TOKEN x       an argument introduced by a token; a group's alternative
//                 "TOKEN x y..." of three or more words is a block.
//   label=[...]   names a group (COMMAND DOCS's "name"); unnamed groups get
//                 a name derived from their parts.
//   [[a] | [b]]   alternatives that are each optional (MIGRATE's AUTH).
//   ""            the pure token that is an empty argument (MIGRATE's key
//                 place with KEYS), named "empty_string".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace server {

enum class ArgType {
  kString,
  kInteger,
  kDouble,
  kKey,
  kPattern,
  kUnixTime,
  kPureToken,
  kOneOf,
  kBlock
};

struct ArgSpec {
  std::string name;
  ArgType type = ArgType::kString;
  std::string token;  // empty when none
  bool optional = false;
  bool multiple = false;
  bool multiple_token = false;
  int key_spec_index = -1;    // explicit "#N"; -1 when not given
  std::vector<ArgSpec> args;  // oneof alternatives / block members
};

// Parses one syntax line. On a malformed line returns false and sets *err
// to the reason (the table is checked at start-up and in unit tests).
bool parseArgSyntax(std::string_view syntax, std::vector<ArgSpec>* out, std::string* err);

// "integer", "pure-token", "oneof", ... as COMMAND DOCS prints the type.
const char* argTypeName(ArgType t);

}  // namespace server
