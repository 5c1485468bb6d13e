// The ACL view of the command table: a dense id per command and
// subcommand (the bit a selector's command bitmap keeps for it), its ACL
// categories as a bit mask, and its key specs reduced to the read/write
// permission each one needs. Built once, after every command is
// registered (acl::init), so that a permission check costs a bit test and
// a few pattern matches, never a string parse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/command.h"

namespace server::acl {

// Redis 7.0's categories, in the order ACL CAT lists them.
inline constexpr const char* kCategoryNames[] = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};
inline constexpr int kCategoryCount = sizeof(kCategoryNames) / sizeof(kCategoryNames[0]);

// Key permissions a key-spec needs (Redis 7.0: access -> read; insert,
// delete, update -> write; RO/RW/OW/RM alone need neither, only a
// matching pattern).
enum KeyPerm : uint8_t { kPermRead = 1, kPermWrite = 2 };

// Which arguments are channels (checked against & patterns).
enum class ChannelArgs : uint8_t {
  kNone,
  kFirst,     // PUBLISH, SPUBLISH: argv[1]
  kAll,       // SUBSCRIBE, SSUBSCRIBE: argv[1..]
  kPatterns,  // PSUBSCRIBE: argv[1..], each must equal an allowed pattern
};

// A key spec whose keys sit at fixed places ("index N" then "range"):
// found without the generic search, as most commands' keys are.
struct FixedKeys {
  int first, lastkey, step;
  uint8_t perms;
};

struct CommandInfo {
  server::Command* cmd = nullptr;
  server::Command* parent = nullptr;  // for subcommands
  uint32_t categories = 0;            // bit i = kCategoryNames[i]
  std::string full_name;              // "config|get"
  std::vector<uint8_t> spec_perms;    // per key spec (cmd->key_specs order)
  std::vector<bool> spec_is_key;      // false for not_key specs
  ChannelArgs channels = ChannelArgs::kNone;
  // Set when every key spec is fixed and no KeysProc applies: the check
  // then walks `fixed` only (with the KeyFlagsProc's permissions, if any).
  bool all_fixed = false;
  std::vector<FixedKeys> fixed;
  // The common shape (GET, SET, HSET ...): one key at a fixed argv index,
  // with the spec's permissions (or its KeyFlagsProc's), no channels. 0
  // when the command has another shape. Lets the check skip the generic
  // walk.
  int single_key = 0;
  uint8_t single_key_perms = 0;
};

namespace detail {
extern std::vector<CommandInfo> g_catalog;
}

// Assigns ids over g_server->commands (idempotent per table).
void buildCatalog();
inline size_t commandCount() {
  return detail::g_catalog.size();
}
inline const CommandInfo& commandInfo(int id) {
  return detail::g_catalog[static_cast<size_t>(id)];
}
// A category's index, or -1.
int categoryIndex(std::string_view name);
// Permission bits of a space-separated key-spec flag list ("RW access").
uint8_t permsOfFlags(std::string_view flags);

// "get" or "config|get" (case-insensitive) to its entry, nullptr if
// unknown. *first_arg receives what follows '|' when the command has no
// subcommands (a first-argument rule such as "select|0").
server::Command* lookupRuleCommand(std::string_view name, std::string* first_arg, bool* bad_sub);

}  // namespace server::acl
