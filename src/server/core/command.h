// The command table: every command's name, arity, flags, key positions and
// handler, looked up case-insensitively by the dispatcher. Command families
// (commands/<family>.cpp) each add their entries through one function
// declared in commands/families.h.
//
// Module core/: the vocabulary every part of the server shares: the server
// state (state.h, from request/ up; lower modules use clients.h and
// g_config/g_commands), the client, the command table, key specs, argument
// syntax and reply helpers. May include conf/, db/ and the floors below the
// server (resp/, net/connection.h, event/, common/); included by all above.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/core/arg_syntax.h"
#include "server/core/key_spec.h"

namespace server::latency {
class Histogram;
}

namespace server {

class Client;
using CommandProc = void (*)(Client* c);
// Key positions for commands the first/last/step triple cannot describe
// (ZUNION's numkeys, SORT ... STORE dst): appends the argv indexes of the
// keys; false when the arguments do not parse (COMMAND GETKEYS then answers
// "Invalid arguments specified for command").
using KeysProc = bool (*)(const std::vector<std::string_view>& argv, std::vector<size_t>* out);

// The usual KeysProc shape: a count at argv[count_index], then that many
// keys. False when the count is not a positive integer or runs past argv.
// For commands whose key flags depend on the arguments (SET with or
// without GET, BITFIELD reading or writing): the key's flags for this
// argv, space separated, as COMMAND GETKEYSANDFLAGS reports them.
using KeyFlagsProc = const char* (*)(const std::vector<std::string_view>& argv);

bool keysAfterCount(const std::vector<std::string_view>& argv, size_t count_index,
                    std::vector<size_t>* out);

enum CommandFlag : uint32_t {
  kWrite = 1 << 0,
  kReadOnly = 1 << 1,
  kDenyOom = 1 << 2,
  kAdmin = 1 << 3,
  kPubSub = 1 << 4,
  kNoScript = 1 << 5,
  kBlocking = 1 << 6,
  kLoading = 1 << 7,
  kStale = 1 << 8,
  kSkipMonitor = 1 << 9,
  kFast = 1 << 10,
  kNoAuth = 1 << 11,  // allowed before AUTH
  kMayReplicate = 1 << 12,
  kSentinel = 1 << 13,
  kAllowBusy = 1 << 14,
  kNoMulti = 1 << 15,
  kSkipSlowlog = 1 << 16,
  kSortForScript = 1 << 17,
  kNoAsyncLoading = 1 << 18,
  kNoMandatoryKeys = 1 << 19,  // EVAL, FCALL: keys may be zero
  kAsking = 1 << 20,           // RESTORE-ASKING: served for ASKING clients (cluster mode)
};

struct Command {
  const char* name;  // lower case; "client|list" style for subcommands
  int arity;         // >0 exact, <0 at least -arity
  uint32_t flags;
  CommandProc proc;
  int first_key, last_key, key_step;  // COMMAND INFO key positions (0 = none)
  const char* group;                  // "string", "generic", "connection", "server", ...
  const char* summary;                // COMMAND DOCS
  const char* since;                  // version
  const char* complexity;
  const char* acl_categories;        // "@write @string @slow" style, without @ (space separated)
  std::vector<Command> subcommands;  // CLIENT LIST, CONFIG GET, ...
  // Run-time statistics (INFO commandstats).
  uint64_t calls = 0;
  uint64_t usec = 0;
  uint64_t rejected_calls = 0;
  uint64_t failed_calls = 0;
  // Set after registration (CommandTable::setKeysProc) where needed; when
  // set it wins over first/last/step for COMMAND GETKEYS.
  KeysProc keys_proc = nullptr;
  // Per-command latencies (latency-tracking), owned by server/latency;
  // null until the command first runs with tracking on.
  latency::Histogram* latency_histogram = nullptr;
  KeyFlagsProc key_flags_proc = nullptr;
  // COMMAND DOCS "arguments", COMMAND INFO key specs and tips (space
  // separated), from commands/syntax_table.cpp (filled in by
  // registerAllCommands).
  std::vector<ArgSpec> arguments;
  std::vector<KeySpec> key_specs;
  const char* tips = "";
  // Index into the ACL catalog (acl/catalog.h), assigned once every
  // command is registered; -1 before.
  int acl_id = -1;

  std::string fullName() const;  // "client|list"
};

// Makes the subcommand entries of one container command (CLIENT LIST,
// CONFIG GET, ...): no key positions, the container's group and, unless
// each entry names its own, one version. A family writes
// `constexpr SubcommandMaker sub{"server", "2.2.12"};` and then
// `sub("get", -3, flags, proc, summary, complexity, acl)`.
struct SubcommandMaker {
  const char* group;
  const char* since = nullptr;

  Command operator()(const char* name, int arity, uint32_t flags, CommandProc proc,
                     const char* summary, const char* since_version, const char* complexity,
                     const char* acl) const {
    return Command{name, arity, flags,   proc,          0,          0,
                   0,    group, summary, since_version, complexity, acl};
  }
  Command operator()(const char* name, int arity, uint32_t flags, CommandProc proc,
                     const char* summary, const char* complexity, const char* acl) const {
    return (*this)(name, arity, flags, proc, summary, since, complexity, acl);
  }
};

class CommandTable {
 public:
  CommandTable() = default;
  ~CommandTable();
  CommandTable(const CommandTable&) = delete;
  CommandTable& operator=(const CommandTable&) = delete;
  void add(Command cmd);
  // Case-insensitive lookup of a top-level command; nullptr if unknown.
  Command* find(std::string_view name);
  // Attaches a KeysProc to an already registered command (aborts if the
  // name is unknown: a registration bug).
  void setKeysProc(std::string_view name, KeysProc proc);
  void setKeyFlagsProc(std::string_view name, KeyFlagsProc proc);
  // Resolves "client list" to the subcommand when the command has them;
  // returns the container itself when it has none.
  Command* findSub(Command* parent, std::string_view sub);
  // Every registered command, renamed or disabled ones included (stats,
  // docs attachment).
  std::vector<Command*> all();
  // The commands a client can reach by some name (COMMAND, COMMAND COUNT,
  // COMMAND DOCS, COMMAND LIST): all() less those disabled by
  // rename-command "".
  std::vector<Command*> reachable();
  size_t count() const { return names_.size(); }
  // rename-command (config file only, as Redis 7.0): `from` is looked up
  // as `to` from now on, or not at all when `to` is empty. The command
  // keeps its own name in replies (COMMAND INFO, commandstats). False with
  // Redis's reason when `from` is not a reachable name or `to` is taken.
  bool rename(std::string_view from, std::string_view to, std::string* err);

 private:
  std::vector<Command*> cmds_;
  // Lookup names (a command's own, unless renamed) and what they reach.
  std::vector<std::pair<std::string, Command*>> names_;
  // Open addressing on lower-case names (-1 empty); sized at build time.
  // A slot keeps a name of up to 16 bytes lower-cased in two words, so a
  // lookup compares words instead of folding bytes (every request does
  // one); longer names compare against names_.
  struct Slot {
    int32_t idx = -1;  // into names_
    uint32_t len = 0;
    uint64_t w0 = 0, w1 = 0;
  };
  std::vector<Slot> index_;
  void rebuildIndex();
};

// Flag names as COMMAND INFO prints them.
std::vector<const char*> commandFlagNames(uint32_t flags);

// The running server's command table (core/state.h owns it and sets this
// while it exists).
extern CommandTable* g_commands;

}  // namespace server
