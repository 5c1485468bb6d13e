// Key specs (Redis 7's COMMAND INFO "key_specs"): where a command's keys
// are in its arguments and what it does to them, one spec per group of
// keys. Parsed from a compact line per command (commands/syntax_table.cpp):
//
//   spec [| spec ...]        spec = "FLAGS; BEGIN; FIND"
//   FLAGS  space-separated flag names: RW RO OW RM access update insert
//          delete not_key incomplete variable_flags
//   BEGIN  "index N" (argv position, the command name being 0) |
//          "keyword KW FROM" (the key follows KW, searched from position
//          FROM; a negative FROM searches backwards from the end) | "unknown"
//   FIND   "range LAST STEP LIMIT" (LAST relative to the first key, -1 the
//          last argument, -2 the one before ...) |
//          "keynum NUMIDX FIRST STEP" (a count at NUMIDX after the begin,
//          the keys from FIRST) | "unknown"
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace server {

struct KeySpec {
  std::vector<std::string> flags;
  enum class Begin { kIndex, kKeyword, kUnknown } begin = Begin::kUnknown;
  int index = 0;        // kIndex
  std::string keyword;  // kKeyword
  int startfrom = 0;    // kKeyword
  enum class Find { kRange, kKeynum, kUnknown } find = Find::kUnknown;
  int lastkey = 0;    // kRange
  int limit = 0;      // kRange
  int keynumidx = 0;  // kKeynum
  int firstkey = 0;   // kKeynum
  int keystep = 1;    // kRange and kKeynum
};

// Parses a key-spec line ("" = no specs). False with *err set when
// malformed.
bool parseKeySpecs(std::string_view line, std::vector<KeySpec>* out, std::string* err);

// Appends the argv positions the spec locates (argv[0] is the command
// name). Nothing for unknown searches or arguments that do not fit.
void keysOfSpec(const KeySpec& spec, const std::vector<std::string_view>& argv,
                std::vector<size_t>* out);

}  // namespace server
