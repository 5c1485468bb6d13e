// COMMAND [INFO | DOCS | COUNT | LIST | GETKEYS | GETKEYSANDFLAGS | HELP]:
// the command table as Redis 7.0 describes it. INFO's key specs and tips
// and DOCS's arguments come from commands/syntax_table.cpp; DOCS also gives
// summary, since, group, complexity and subcommands.
#include <algorithm>
#include <string>

#include "common/strutil.h"
#include "server/core/client.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"

namespace server {

namespace {

// Calls fn for each word of a space-separated list (categories, tips).
template <typename Fn>
void forEachCategory(const char* cats, Fn fn) {
  std::string_view s(cats ? cats : "");
  while (!s.empty()) {
    size_t sp = s.find(' ');
    std::string_view word = s.substr(0, sp);
    if (!word.empty()) fn(word);
    if (sp == std::string_view::npos) break;
    s.remove_prefix(sp + 1);
  }
}

bool hasCategory(const Command& cmd, std::string_view cat) {
  bool found = false;
  forEachCategory(cmd.acl_categories, [&](std::string_view w) {
    if (common::strutil::equalsIgnoreCase(w, cat)) found = true;
  });
  return found;
}

// Redis's "movablekeys": the keys' places depend on the arguments (a
// KeysProc, or a spec other than a fixed index and range).
bool hasMovableKeys(const Command& cmd) {
  if (cmd.keys_proc != nullptr) return true;
  for (const KeySpec& k : cmd.key_specs)
    if (k.begin != KeySpec::Begin::kIndex || k.find != KeySpec::Find::kRange) return true;
  return false;
}

// A space-separated list (categories, tips) as a set of statuses, each
// word after `prefix`.
void addWordSet(resp::Writer& w, const char* words, std::string_view prefix) {
  int64_t n = 0;
  forEachCategory(words, [&](std::string_view) { n++; });
  w.setLen(n);
  forEachCategory(words, [&](std::string_view word) {
    std::string s(prefix);
    s.append(word);
    w.status(s);
  });
}

void addFlagSet(resp::Writer& w, const std::vector<std::string>& flags) {
  w.setLen(static_cast<int64_t>(flags.size()));
  for (const std::string& f : flags) w.status(f);
}

void addKeySpecs(resp::Writer& w, const Command& cmd) {
  w.arrayLen(static_cast<int64_t>(cmd.key_specs.size()));
  for (const KeySpec& k : cmd.key_specs) {
    w.mapLen(3);
    w.bulk("flags");
    addFlagSet(w, k.flags);
    w.bulk("begin_search");
    w.mapLen(2);
    w.bulk("type");
    switch (k.begin) {
      case KeySpec::Begin::kIndex:
        w.bulk("index");
        w.bulk("spec");
        w.mapLen(1);
        w.bulk("index");
        w.integer(k.index);
        break;
      case KeySpec::Begin::kKeyword:
        w.bulk("keyword");
        w.bulk("spec");
        w.mapLen(2);
        w.bulk("keyword");
        w.bulk(k.keyword);
        w.bulk("startfrom");
        w.integer(k.startfrom);
        break;
      case KeySpec::Begin::kUnknown:
        w.bulk("unknown");
        w.bulk("spec");
        w.mapLen(0);
        break;
    }
    w.bulk("find_keys");
    w.mapLen(2);
    w.bulk("type");
    switch (k.find) {
      case KeySpec::Find::kRange:
        w.bulk("range");
        w.bulk("spec");
        w.mapLen(3);
        w.bulk("lastkey");
        w.integer(k.lastkey);
        w.bulk("keystep");
        w.integer(k.keystep);
        w.bulk("limit");
        w.integer(k.limit);
        break;
      case KeySpec::Find::kKeynum:
        w.bulk("keynum");
        w.bulk("spec");
        w.mapLen(3);
        w.bulk("keynumidx");
        w.integer(k.keynumidx);
        w.bulk("firstkey");
        w.integer(k.firstkey);
        w.bulk("keystep");
        w.integer(k.keystep);
        break;
      case KeySpec::Find::kUnknown:
        w.bulk("unknown");
        w.bulk("spec");
        w.mapLen(0);
        break;
    }
  }
}

void addCommandInfo(resp::Writer& w, const Command& cmd) {
  w.arrayLen(10);
  w.bulk(cmd.name);
  w.integer(cmd.arity);
  std::vector<const char*> flags = commandFlagNames(cmd.flags);
  if (hasMovableKeys(cmd)) flags.push_back("movablekeys");
  w.setLen(static_cast<int64_t>(flags.size()));
  for (const char* f : flags) w.status(f);
  w.integer(cmd.first_key);
  w.integer(cmd.last_key);
  w.integer(cmd.key_step);
  addWordSet(w, cmd.acl_categories, "@");
  addWordSet(w, cmd.tips, "");
  addKeySpecs(w, cmd);
  w.setLen(static_cast<int64_t>(cmd.subcommands.size()));
  for (const Command& sub : cmd.subcommands) addCommandInfo(w, sub);
}

// Key arguments point at the key spec that finds them: the one the syntax
// line names ("#N"), else the n-th key argument at the n-th spec (the last
// one for any after it), which is how the specs are ordered.
void addArgumentDocs(resp::Writer& w, const ArgSpec& a, const Command& cmd, size_t* key_ordinal) {
  int64_t spec_index = -1;
  if (!cmd.key_specs.empty()) {
    if (a.key_spec_index >= 0) {
      spec_index = a.key_spec_index;
    } else if (a.type == ArgType::kKey) {
      spec_index = static_cast<int64_t>(std::min(*key_ordinal, cmd.key_specs.size() - 1));
      (*key_ordinal)++;
    }
  }
  int64_t nflags = int64_t{a.optional} + int64_t{a.multiple} + int64_t{a.multiple_token};
  // A pure token always has one, even empty (MIGRATE's "" for no key).
  bool has_token = !a.token.empty() || a.type == ArgType::kPureToken;
  w.mapLen(2 + int64_t{spec_index >= 0} + int64_t{has_token} + int64_t{nflags > 0} +
           int64_t{!a.args.empty()});
  w.bulk("name");
  w.bulk(a.name);
  w.bulk("type");
  w.bulk(argTypeName(a.type));
  if (spec_index >= 0) {
    w.bulk("key_spec_index");
    w.integer(spec_index);
  }
  if (has_token) {
    w.bulk("token");
    w.bulk(a.token);
  }
  if (nflags > 0) {
    w.bulk("flags");
    w.setLen(nflags);
    if (a.optional) w.status("optional");
    if (a.multiple) w.status("multiple");
    if (a.multiple_token) w.status("multiple_token");
  }
  if (!a.args.empty()) {
    w.bulk("arguments");
    w.arrayLen(static_cast<int64_t>(a.args.size()));
    for (const ArgSpec& sub : a.args) addArgumentDocs(w, sub, cmd, key_ordinal);
  }
}

void addCommandDocs(resp::Writer& w, const Command& cmd) {
  bool subs = !cmd.subcommands.empty();
  bool args = !cmd.arguments.empty();
  // Redis leaves complexity out where it has none (SYNC, PSYNC).
  bool complexity = cmd.complexity != nullptr;
  w.mapLen(3 + int64_t{complexity} + int64_t{subs} + int64_t{args});
  w.bulk("summary");
  w.bulk(cmd.summary ? cmd.summary : "");
  w.bulk("since");
  w.bulk(cmd.since ? cmd.since : "");
  w.bulk("group");
  w.bulk(cmd.group ? cmd.group : "");
  if (complexity) {
    w.bulk("complexity");
    w.bulk(cmd.complexity);
  }
  if (args) {
    w.bulk("arguments");
    w.arrayLen(static_cast<int64_t>(cmd.arguments.size()));
    size_t key_ordinal = 0;
    for (const ArgSpec& a : cmd.arguments) addArgumentDocs(w, a, cmd, &key_ordinal);
  }
  if (subs) {
    w.bulk("subcommands");
    w.mapLen(static_cast<int64_t>(cmd.subcommands.size()));
    for (const Command& sub : cmd.subcommands) {
      w.bulk(sub.name);
      addCommandDocs(w, sub);
    }
  }
}

// "get" or "config|get" to its entry; nullptr if unknown.
Command* lookupByFullName(std::string_view name) {
  CommandTable& t = g_server->commands;
  size_t bar = name.find('|');
  if (bar == std::string_view::npos) return t.find(name);
  Command* parent = t.find(name.substr(0, bar));
  if (parent == nullptr || parent->subcommands.empty()) return nullptr;
  return t.findSub(parent, name.substr(bar + 1));
}

void commandCommand(Client* c) {
  std::vector<Command*> all = g_server->commands.reachable();
  c->addArrayLen(static_cast<int64_t>(all.size()));
  for (Command* cmd : all) addCommandInfo(c->reply(), *cmd);
}

void commandInfoCommand(Client* c) {
  if (c->argc() == 2) {
    commandCommand(c);
    return;
  }
  c->addArrayLen(static_cast<int64_t>(c->argc() - 2));
  for (size_t i = 2; i < c->argc(); i++) {
    Command* cmd = lookupByFullName(c->arg(i));
    if (cmd == nullptr)
      c->addNull();
    else
      addCommandInfo(c->reply(), *cmd);
  }
}

void commandDocsCommand(Client* c) {
  resp::Writer& w = c->reply();
  if (c->argc() == 2) {
    std::vector<Command*> all = g_server->commands.reachable();
    w.mapLen(static_cast<int64_t>(all.size()));
    for (Command* cmd : all) {
      w.bulk(cmd->name);
      addCommandDocs(w, *cmd);
    }
    return;
  }
  // Unknown names are left out of the map.
  void* slot = w.beginDeferred();
  int64_t n = 0;
  for (size_t i = 2; i < c->argc(); i++) {
    Command* cmd = lookupByFullName(c->arg(i));
    if (cmd == nullptr) continue;
    w.bulk(cmd->name);
    addCommandDocs(w, *cmd);
    n++;
  }
  w.endDeferredMap(slot, n);
}

void commandCountCommand(Client* c) {
  c->addInteger(static_cast<int64_t>(g_server->commands.count()));
}

void commandListCommand(Client* c) {
  enum { kAll, kModule, kAclCat, kPattern } filter = kAll;
  std::string_view arg;
  if (c->argc() == 5 && common::strutil::equalsIgnoreCase(c->arg(2), "FILTERBY")) {
    std::string_view by = c->arg(3);
    arg = c->arg(4);
    if (common::strutil::equalsIgnoreCase(by, "MODULE"))
      filter = kModule;
    else if (common::strutil::equalsIgnoreCase(by, "ACLCAT"))
      filter = kAclCat;
    else if (common::strutil::equalsIgnoreCase(by, "PATTERN"))
      filter = kPattern;
    else {
      c->addSyntaxError();
      return;
    }
  } else if (c->argc() != 2) {
    c->addSyntaxError();
    return;
  }
  auto keep = [&](const Command& cmd) {
    switch (filter) {
      case kAll:
        return true;
      case kModule:
        return false;  // no modules
      case kAclCat:
        return hasCategory(cmd, arg);
      case kPattern:
        return common::strutil::globMatch(arg, cmd.name, true);
    }
    return false;
  };
  resp::Writer& w = c->reply();
  void* slot = w.beginDeferred();
  int64_t n = 0;
  for (Command* cmd : g_server->commands.reachable()) {
    if (keep(*cmd)) {
      w.bulk(cmd->name);
      n++;
    }
    for (const Command& sub : cmd->subcommands) {
      if (keep(sub)) {
        w.bulk(sub.name);
        n++;
      }
    }
  }
  w.endDeferredArray(slot, n);
}

// Resolves argv[2...] to a command and its key positions; replies with
// Redis's error and returns false when it cannot.
bool getKeys(Client* c, const Command** out, std::vector<size_t>* keys) {
  Command* cmd = g_server->commands.find(c->arg(2));
  size_t argc = c->argc() - 2;
  if (cmd != nullptr && !cmd->subcommands.empty() && argc >= 2)
    cmd = g_server->commands.findSub(cmd, c->arg(3));
  if (cmd == nullptr) {
    c->addError("Invalid command specified");
    return false;
  }
  int n = static_cast<int>(argc);
  if ((cmd->arity > 0 && cmd->arity != n) || n < -cmd->arity) {
    c->addError("Invalid number of arguments specified for command");
    return false;
  }
  // The command's own argv, its name at 0 (the frame of KeysProcs and key
  // specs).
  std::vector<std::string_view> argv(c->argv().begin() + 2, c->argv().end());
  if (cmd->keys_proc != nullptr) {
    // no_mandatory_keys (EVAL, FCALL): no keys is a valid answer.
    if (!cmd->keys_proc(argv, keys) || (keys->empty() && !(cmd->flags & kNoMandatoryKeys))) {
      c->addError("Invalid arguments specified for command");
      return false;
    }
    for (size_t& k : *keys) k += 2;
    *out = cmd;
    return true;
  }
  // The key specs find the keys, leaving out names that are not keys
  // (SPUBLISH's shard channel), as Redis 7.0 does.
  bool any_spec = false;
  for (const KeySpec& k : cmd->key_specs) {
    if (std::find(k.flags.begin(), k.flags.end(), "not_key") != k.flags.end()) continue;
    any_spec = true;
    size_t before = keys->size();
    keysOfSpec(k, argv, keys);
    for (size_t i = before; i < keys->size(); i++) (*keys)[i] += 2;
  }
  if (!any_spec) {
    c->addError("The command has no key arguments");
    return false;
  }
  if (keys->empty()) {
    c->addError("Invalid arguments specified for command");
    return false;
  }
  *out = cmd;
  return true;
}

void commandGetkeysCommand(Client* c) {
  const Command* cmd;
  std::vector<size_t> keys;
  if (!getKeys(c, &cmd, &keys)) return;
  c->addArrayLen(static_cast<int64_t>(keys.size()));
  for (size_t k : keys) c->addBulk(c->arg(k));
}

void commandGetkeysandflagsCommand(Client* c) {
  const Command* cmd;
  std::vector<size_t> keys;
  if (!getKeys(c, &cmd, &keys)) return;
  // The command's own argv, its name at 0 (the key specs' frame).
  std::vector<std::string_view> argv(c->argv().begin() + 2, c->argv().end());
  // Each key's flags: the command's own answer when they vary with the
  // arguments, else those of the first spec that locates it; keys only a
  // KeysProc finds (SORT ... STORE) belong to the last spec whose search is
  // unknown. Every spec is searched once, not once per key.
  std::vector<std::string> own;
  if (cmd->key_flags_proc != nullptr) {
    forEachCategory(cmd->key_flags_proc(argv), [&](std::string_view f) { own.emplace_back(f); });
  }
  std::vector<const KeySpec*> owner(argv.size(), nullptr);
  const KeySpec* fallback = cmd->key_specs.empty() ? nullptr : &cmd->key_specs[0];
  for (const KeySpec& k : cmd->key_specs) {
    std::vector<size_t> found;
    keysOfSpec(k, argv, &found);
    for (size_t pos : found)
      if (owner[pos] == nullptr) owner[pos] = &k;
    if (k.begin == KeySpec::Begin::kUnknown) fallback = &k;
  }
  static const std::vector<std::string> kNoFlags;
  resp::Writer& w = c->reply();
  w.arrayLen(static_cast<int64_t>(keys.size()));
  for (size_t k : keys) {
    w.arrayLen(2);
    w.bulk(c->arg(k));
    const KeySpec* spec = owner[k - 2] != nullptr ? owner[k - 2] : fallback;
    addFlagSet(w, cmd->key_flags_proc != nullptr ? own : spec != nullptr ? spec->flags : kNoFlags);
  }
}

void commandHelpCommand(Client* c) {
  static const char* const kLines[] = {
      "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "(no subcommand)",
      "    Return details about all Redis commands.",
      "COUNT",
      "    Return the total number of commands in this Redis server.",
      "LIST",
      "    Return a list of all commands in this Redis server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "GETKEYS <full-command>",
      "    Return the keys from a full Redis command.",
      "GETKEYSANDFLAGS <full-command>",
      "    Return the keys and the access flags from a full Redis command.",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kLines);
}

// Every COMMAND subcommand has the same flags and ACL categories.
Command sub(const char* name, int arity, CommandProc proc, const char* summary, const char* since,
            const char* complexity) {
  return SubcommandMaker{"server"}(name, arity, kLoading | kStale, proc, summary, since, complexity,
                                   "slow connection");
}

}  // namespace

void registerCommandCommand(CommandTable& t) {
  const char* kPerCommand = "O(N) where N is the number of commands to look up";
  Command command{"command",
                  -1,
                  kLoading | kStale,
                  commandCommand,
                  0,
                  0,
                  0,
                  "server",
                  "Get array of Redis command details",
                  "2.8.13",
                  "O(N) where N is the total number of Redis commands",
                  "slow connection"};
  command.subcommands = {
      sub("command|count", 2, commandCountCommand, "Get total number of Redis commands", "2.8.13",
          "O(1)"),
      sub("command|docs", -2, commandDocsCommand,
          "Get array of specific Redis command documentation", "7.0.0", kPerCommand),
      sub("command|getkeys", -4, commandGetkeysCommand, "Extract keys given a full Redis command",
          "2.8.13", "O(N) where N is the number of arguments to the command"),
      sub("command|getkeysandflags", -4, commandGetkeysandflagsCommand,
          "Extract keys and access flags given a full Redis command", "7.0.0",
          "O(N) where N is the number of arguments to the command"),
      sub("command|help", 2, commandHelpCommand,
          "Show helpful text about the different subcommands", "5.0.0", "O(1)"),
      sub("command|info", -2, commandInfoCommand,
          "Get array of specific Redis command details, or all when no argument is given", "2.8.13",
          kPerCommand),
      sub("command|list", -2, commandListCommand, "Get an array of Redis command names", "7.0.0",
          "O(N) where N is the total number of Redis commands"),
  };
  t.add(std::move(command));
}

}  // namespace server
