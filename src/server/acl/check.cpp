#include "server/acl/check.h"

#include <algorithm>

#include "common/strutil.h"
#include "server/acl/acl_log.h"
#include "server/acl/catalog.h"
#include "server/acl/user.h"
#include "server/core/client.h"
#include "server/core/clients.h"

namespace server::acl {
namespace {

struct KeyRef {
  size_t pos;
  uint8_t perms;
};

// The permissions a command's KeyFlagsProc gives its keys for this argv,
// -1 when it has none. The procs return string literals: the last one
// parsed is remembered.
int ownPerms(const server::Command& cmd, const std::vector<std::string_view>& argv) {
  if (cmd.key_flags_proc == nullptr) return -1;
  static thread_local const char* last_flags = nullptr;
  static thread_local uint8_t last_perms = 0;
  const char* flags = cmd.key_flags_proc(argv);
  if (flags != last_flags) {
    last_perms = permsOfFlags(flags);
    last_flags = flags;
  }
  return last_perms;
}

// The keys of this call with the permission each needs, through the key
// specs (and the command's own KeysProc / KeyFlagsProc where it has one),
// as COMMAND GETKEYSANDFLAGS finds them.
void keysWithPerms(const server::Command& cmd, const std::vector<std::string_view>& argv,
                   std::vector<KeyRef>* out) {
  const CommandInfo& info = commandInfo(cmd.acl_id);
  static thread_local std::vector<size_t> found;
  int own = ownPerms(cmd, argv);
  if (cmd.keys_proc != nullptr) {
    found.clear();
    if (!cmd.keys_proc(argv, &found)) return;
    std::vector<size_t> keys = found;
    uint8_t fallback = info.spec_perms.empty() ? 0 : info.spec_perms[0];
    for (size_t i = 0; i < cmd.key_specs.size(); i++) {
      if (cmd.key_specs[i].begin == server::KeySpec::Begin::kUnknown) fallback = info.spec_perms[i];
    }
    for (size_t pos : keys) {
      int perms = -1;
      for (size_t i = 0; i < cmd.key_specs.size() && perms < 0; i++) {
        found.clear();
        server::keysOfSpec(cmd.key_specs[i], argv, &found);
        if (std::find(found.begin(), found.end(), pos) != found.end()) perms = info.spec_perms[i];
      }
      if (own >= 0) perms = own;
      out->push_back({pos, static_cast<uint8_t>(perms >= 0 ? perms : fallback)});
    }
    return;
  }
  for (size_t i = 0; i < cmd.key_specs.size(); i++) {
    if (!info.spec_is_key[i]) continue;
    found.clear();
    server::keysOfSpec(cmd.key_specs[i], argv, &found);
    uint8_t perms = own >= 0 ? static_cast<uint8_t>(own) : info.spec_perms[i];
    for (size_t pos : found) out->push_back({pos, perms});
  }
}

// Inlined into checkCommand: one call less per command.
__attribute__((always_inline)) inline CheckResult checkSelector(
    const Selector& s, const server::Command& cmd, const std::vector<std::string_view>& argv) {
  int id = cmd.acl_id;
  if (!s.allowsCommand(id)) {
    const CommandInfo& info = commandInfo(id);
    bool by_first_arg = info.parent == nullptr && cmd.subcommands.empty() && argv.size() > 1 &&
                        s.hasFirstArgs() && s.allowsFirstArg(id, argv[1]);
    // Commands allowed before AUTH (AUTH, HELLO, QUIT, RESET) are never
    // denied by the rules, as in Redis.
    if (!by_first_arg && !(cmd.flags & server::kNoAuth)) return {Denial::kCommand, 0};
  }
  const CommandInfo& info = commandInfo(id);
  if (!s.allKeys() && info.all_fixed) {
    const int argc = static_cast<int>(argv.size());
    const int own = cmd.key_flags_proc == nullptr ? -1 : ownPerms(cmd, argv);
    for (const FixedKeys& f : info.fixed) {
      if (f.first <= 0 || f.first >= argc) continue;
      int last = f.lastkey >= 0 ? f.first + f.lastkey : argc + f.lastkey;
      uint8_t perms = own >= 0 ? static_cast<uint8_t>(own) : f.perms;
      for (int i = f.first; i <= last && i < argc; i += f.step) {
        if (!s.allowsKey(argv[static_cast<size_t>(i)], perms))
          return {Denial::kKey, static_cast<size_t>(i)};
      }
    }
  } else if (!s.allKeys() && !cmd.key_specs.empty()) {
    static thread_local std::vector<KeyRef> keys;
    keys.clear();
    keysWithPerms(cmd, argv, &keys);
    for (const KeyRef& k : keys) {
      if (k.pos < argv.size() && !s.allowsKey(argv[k.pos], k.perms)) return {Denial::kKey, k.pos};
    }
  }
  if (info.channels != ChannelArgs::kNone && !s.allChannels()) {
    size_t last =
        info.channels == ChannelArgs::kFirst ? std::min<size_t>(argv.size(), 2) : argv.size();
    bool literal = info.channels == ChannelArgs::kPatterns;
    for (size_t i = 1; i < last; i++) {
      if (!s.allowsChannel(argv[i], literal)) return {Denial::kChannel, i};
    }
  }
  return {};
}

// checkCommand's body, inlined into the dispatch path as well.
__attribute__((always_inline)) inline CheckResult checkUser(
    const User& user, const server::Command& cmd, const std::vector<std::string_view>& argv) {
  if (user.unrestricted() || cmd.acl_id < 0) return {};
  const std::vector<Selector>& sels = user.selectors();
  if (sels.size() == 1) return checkSelector(sels[0], cmd, argv);
  CheckResult worst;
  for (const Selector& s : sels) {
    CheckResult r = checkSelector(s, cmd, argv);
    if (r.denial == Denial::kNone) return r;
    // Redis's pick: the gravest denial, and among equals the one that got
    // furthest (the last argument no selector allowed).
    if (static_cast<int>(r.denial) > static_cast<int>(worst.denial) ||
        (r.denial == worst.denial && r.arg > worst.arg))
      worst = r;
  }
  return worst;
}

std::string displayName(const server::Command& cmd) {
  return commandInfo(cmd.acl_id).full_name;
}

}  // namespace

CheckResult checkCommand(const User& user, const server::Command& cmd,
                         const std::vector<std::string_view>& argv) {
  return checkUser(user, cmd, argv);
}

bool hasFullKeyAccess(server::Client* c) {
  const User* u = c->acl_user.get();
  if (u == nullptr || u->unrestricted() || c->cur_cmd == nullptr) return true;
  const server::Command& cmd = *c->cur_cmd;
  for (const Selector& s : u->selectors()) {
    bool cmd_ok = s.allowsCommand(cmd.acl_id) ||
                  (c->argc() > 1 && s.hasFirstArgs() && s.allowsFirstArg(cmd.acl_id, c->arg(1)));
    if (!cmd_ok) continue;
    if (s.allKeys()) return true;
    for (const KeyPattern& k : s.keys()) {
      if (k.pattern == "*" && (k.perms & kPermRead)) return true;
    }
  }
  return false;
}

std::string denialMessage(Denial d, const server::Command& cmd) {
  switch (d) {
    case Denial::kCommand:
      return "-NOPERM this user has no permissions to run the '" + displayName(cmd) + "' command";
    case Denial::kKey:
      return "-NOPERM this user has no permissions to access one of the keys used as arguments";
    case Denial::kChannel:
      return "-NOPERM this user has no permissions to access one of the channels used as "
             "arguments";
    case Denial::kNone:
      break;
  }
  return "";
}

std::string dryRunMessage(const CheckResult& r, const server::Command& cmd,
                          const std::vector<std::string_view>& argv) {
  switch (r.denial) {
    case Denial::kCommand:
      return "This user has no permissions to run the '" + displayName(cmd) + "' command";
    case Denial::kKey:
      return "This user has no permissions to access the '" + std::string(argv[r.arg]) + "' key";
    case Denial::kChannel:
      return "This user has no permissions to access the '" + std::string(argv[r.arg]) +
             "' channel";
    case Denial::kNone:
      break;
  }
  return "OK";
}

void logDenial(server::Client* c, const User& user, const CheckResult& r,
               const server::Command& cmd, const std::vector<std::string_view>& argv,
               std::string_view context) {
  switch (r.denial) {
    case Denial::kCommand:
      aclLogAdd(c, LogReason::kCommand, context, displayName(cmd), user.name());
      break;
    case Denial::kKey:
      aclLogAdd(c, LogReason::kKey, context, argv[r.arg], user.name());
      break;
    case Denial::kChannel:
      aclLogAdd(c, LogReason::kChannel, context, argv[r.arg], user.name());
      break;
    case Denial::kNone:
      break;
  }
}

namespace {

// Checks c's user; on denial logs it and returns the denial.
CheckResult checkAndLog(server::Client* c, const server::Command& cmd, std::string_view context) {
  const User* u = c->acl_user.get();
  if (u == nullptr || u->unrestricted()) return {};
  CheckResult r = checkUser(*u, cmd, c->argv());
  if (r.denial == Denial::kNone) return r;
  // The log's client-info shows this command as the one running.
  server::Client* outer = server::currentClient();
  server::setCurrentClient(c);
  logDenial(c, *u, r, cmd, c->argv(), context);
  server::setCurrentClient(outer);
  return r;
}

}  // namespace

namespace {

// The whole check again, the -NOPERM reply and the log entry: only for
// denials, kept out of the fast path's code.
__attribute__((noinline, cold)) bool denyClient(server::Client* c, const server::Command& cmd,
                                                std::string_view context) {
  CheckResult r = checkAndLog(c, cmd, context);
  if (r.denial == Denial::kNone) return true;
  c->addError(denialMessage(r.denial, cmd));
  return false;
}

}  // namespace

bool checkClientSlow(server::Client* c, const server::Command& cmd, std::string_view context) {
  const User& u = *c->acl_user;
  const int id = cmd.acl_id;
  if (id < 0) return true;
  const std::vector<std::string_view>& argv = c->argv();
  const std::vector<Selector>& sels = u.selectors();
  // One selector allowing the command, and a command whose one key sits at
  // a fixed place: a bit test and one pattern match.
  if (sels.size() == 1 && sels[0].allowsCommand(id)) {
    const CommandInfo& info = commandInfo(id);
    const size_t pos = static_cast<size_t>(info.single_key);
    if (pos != 0) {
      if (pos >= argv.size()) return true;
      const uint8_t perms = cmd.key_flags_proc == nullptr
                                ? info.single_key_perms
                                : static_cast<uint8_t>(ownPerms(cmd, argv));
      if (sels[0].allowsKey(argv[pos], perms)) return true;
      return denyClient(c, cmd, context);
    }
  }
  if (checkCommand(u, cmd, argv).denial == Denial::kNone) return true;
  return denyClient(c, cmd, context);
}

bool checkClientAtExec(server::Client* c, const server::Command& cmd) {
  CheckResult r = checkAndLog(c, cmd, "multi");
  if (r.denial == Denial::kNone) return true;
  const char* reason =
      r.denial == Denial::kCommand ? "no permission to execute the command or subcommand"
      : r.denial == Denial::kKey   ? "no permission to touch the specified keys"
                                 : "no permission to access one of the channels used as arguments";
  c->addErrorFormat(
      "-NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC "
      "call. This command is no longer allowed for the following reason: %s",
      reason);
  return false;
}

}  // namespace server::acl
