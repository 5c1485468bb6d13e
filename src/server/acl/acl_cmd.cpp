// The ACL command: SETUSER GETUSER DELUSER LIST USERS WHOAMI CAT LOG
// GENPASS DRYRUN SAVE LOAD HELP, with Redis 7.0.15's replies and errors.
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "common/strutil.h"
#include "server/acl/acl.h"
#include "server/acl/acl_log.h"
#include "server/acl/catalog.h"
#include "server/acl/check.h"
#include "server/acl/users.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/reply_helpers.h"

namespace server::acl {
namespace {

using server::Client;
using server::Command;

void setuserCommand(Client* c) {
  std::vector<std::string_view> rules(c->argv().begin() + 3, c->argv().end());
  std::string err;
  if (!setUser(c->arg(2), rules, &err, c)) {
    c->addError(err);
    return;
  }
  c->addOk();
}

void addSelectorMap(resp::Writer& w, const Selector& s) {
  w.mapLen(3);
  w.bulk("commands");
  w.bulk(s.describeCommands());
  w.bulk("keys");
  w.bulk(s.describeKeys());
  w.bulk("channels");
  w.bulk(s.describeChannels());
}

void getuserCommand(Client* c) {
  UserPtr u = findUser(c->arg(2));
  if (!u) {
    c->reply().null();
    return;
  }
  resp::Writer& w = c->reply();
  const Selector& root = u->selectors()[0];
  w.mapLen(6);
  w.bulk("flags");
  int nflags = 1 + (u->nopass() ? 1 : 0) + (*u->sanitizeFlag() ? 1 : 0);
  w.arrayLen(nflags);
  w.bulk(u->enabled() ? "on" : "off");
  if (u->nopass()) w.bulk("nopass");
  if (*u->sanitizeFlag()) w.bulk(u->sanitizeFlag());
  w.bulk("passwords");
  w.arrayLen(static_cast<int64_t>(u->passwordHashes().size()));
  for (const std::string& p : u->passwordHashes()) w.bulk(p);
  w.bulk("commands");
  w.bulk(root.describeCommands());
  w.bulk("keys");
  w.bulk(root.describeKeys());
  w.bulk("channels");
  w.bulk(root.describeChannels());
  w.bulk("selectors");
  w.arrayLen(static_cast<int64_t>(u->selectors().size() - 1));
  for (size_t i = 1; i < u->selectors().size(); i++) addSelectorMap(w, u->selectors()[i]);
}

void deluserCommand(Client* c) {
  for (size_t i = 2; i < c->argc(); i++) {
    if (c->arg(i) == "default") {
      c->addError("The 'default' user cannot be removed");
      return;
    }
  }
  int64_t n = 0;
  for (size_t i = 2; i < c->argc(); i++) n += deleteUser(c->arg(i), c) ? 1 : 0;
  c->addInteger(n);
}

void listCommand(Client* c) {
  c->addArrayLen(static_cast<int64_t>(allUsers().size()));
  for (const auto& [name, u] : allUsers()) c->addBulk(u->describe());
}

void usersCommand(Client* c) {
  c->addArrayLen(static_cast<int64_t>(allUsers().size()));
  for (const auto& [name, u] : allUsers()) c->addBulk(name);
}

void whoamiCommand(Client* c) {
  c->addBulk(c->user);
}

void catCommand(Client* c) {
  if (c->argc() == 2) {
    c->addArrayLen(kCategoryCount);
    for (const char* name : kCategoryNames) c->addBulk(name);
    return;
  }
  if (c->argc() > 3) {
    // Redis's words, the subcommand as the client typed it.
    c->addErrorFormat("unknown subcommand or wrong number of arguments for '%.*s'. Try ACL HELP.",
                      static_cast<int>(c->arg(1).size()), c->arg(1).data());
    return;
  }
  int cat = categoryIndex(c->arg(2));
  if (cat < 0) {
    std::string_view n = c->arg(2);
    c->addErrorFormat("Unknown category '%.*s'", static_cast<int>(n.size()), n.data());
    return;
  }
  std::vector<const std::string*> names;
  for (size_t id = 0; id < commandCount(); id++) {
    const CommandInfo& info = commandInfo(static_cast<int>(id));
    if (info.categories & (1u << cat)) names.push_back(&info.full_name);
  }
  c->addArrayLen(static_cast<int64_t>(names.size()));
  for (const std::string* n : names) c->addBulk(*n);
}

void logCommand(Client* c) {
  if (c->argc() > 3) {
    c->addWrongArity();
    return;
  }
  long count = 10;
  if (c->argc() == 3) {
    if (common::strutil::equalsIgnoreCase(c->arg(2), "RESET")) {
      aclLogReset();
      c->addOk();
      return;
    }
    int64_t n;
    if (!c->argInt64(2, &n)) return;
    if (n < 0) n = 0;
    count = static_cast<long>(n);
  }
  aclLogReply(c, count);
}

void genpassCommand(Client* c) {
  if (c->argc() > 3) {
    c->addWrongArity();
    return;
  }
  int64_t bits = 256;
  if (c->argc() == 3) {
    if (!c->argInt64(2, &bits)) return;
    if (bits <= 0 || bits > 4096) {
      c->addError(
          "ACL GENPASS argument must be the number of bits for the output password, a positive "
          "number up to 4096");
      return;
    }
  }
  size_t chars = static_cast<size_t>((bits + 3) / 4);
  std::string raw((chars + 1) / 2, '\0');
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  size_t got = 0;
  while (fd >= 0 && got < raw.size()) {
    ssize_t n = read(fd, raw.data() + got, raw.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (fd >= 0) close(fd);
  if (got < raw.size()) {
    c->addError("Failed to read random bytes for the password");
    return;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : raw) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  out.resize(chars);
  c->addBulk(out);
}

void dryrunCommand(Client* c) {
  UserPtr u = findUser(c->arg(2));
  if (!u) {
    std::string_view n = c->arg(2);
    c->addErrorFormat("User '%.*s' not found", static_cast<int>(n.size()), n.data());
    return;
  }
  std::vector<std::string_view> argv(c->argv().begin() + 3, c->argv().end());
  Command* cmd = server::g_commands->find(argv[0]);
  if (cmd != nullptr && !cmd->subcommands.empty() && argv.size() >= 2) {
    cmd = server::g_commands->findSub(cmd, argv[1]);
  }
  if (cmd == nullptr) {
    std::string_view n = argv[0];
    c->addErrorFormat("Command '%.*s' not found", static_cast<int>(n.size()), n.data());
    return;
  }
  int argc = static_cast<int>(argv.size());
  if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
    c->addErrorFormat("wrong number of arguments for '%s' command", cmd->name);
    return;
  }
  CheckResult r = checkCommand(*u, *cmd, argv);
  if (r.denial == Denial::kNone)
    c->addOk();
  else
    c->addBulk(dryRunMessage(r, *cmd, argv));
}

void saveCommand(Client* c) {
  std::string err;
  if (!saveAclFile(&err)) {
    c->addError(err);
    return;
  }
  c->addOk();
}

void loadCommand(Client* c) {
  std::string err;
  if (!loadAclFile(c, &err)) {
    c->addError(err);
    return;
  }
  c->addOk();
}

void helpCommand(Client* c) {
  static const char* const kLines[] = {
      "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CAT [<category>]",
      "    List all commands that belong to <category>, or all command categories",
      "    when no category is specified.",
      "DELUSER <username> [<username> ...]",
      "    Delete a list of users.",
      "DRYRUN <username> <command> [<arg> ...]",
      "    Returns whether the user can execute the given command without executing the "
      "command.",
      "GETUSER <username>",
      "    Get the user's details.",
      "GENPASS [<bits>]",
      "    Generate a secure 256-bit user password. The optional `bits` argument can",
      "    be used to specify a different size.",
      "LIST",
      "    Show users details in config file format.",
      "LOAD",
      "    Reload users from the ACL file.",
      "LOG [<count> | RESET]",
      "    Show the ACL log entries.",
      "SAVE",
      "    Save the current config to the ACL file.",
      "SETUSER <username> <attribute> [<attribute> ...]",
      "    Create or modify a user with the specified attributes.",
      "USERS",
      "    List all the registered usernames.",
      "WHOAMI",
      "    Return the current connection username.",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kLines);
}

void aclCommand(Client* c) {
  c->addWrongArity();
}

constexpr server::SubcommandMaker sub{"server", "6.0.0"};

}  // namespace

void registerAclCommand(server::CommandTable& t) {
  using namespace server;
  const uint32_t kBase = kNoScript | kLoading | kStale;
  const char* kAdminCats = "admin slow dangerous";
  Command acl{"acl",
              -2,
              0,
              aclCommand,
              0,
              0,
              0,
              "server",
              "A container for Access List Control commands",
              "6.0.0",
              "Depends on subcommand.",
              "slow"};
  acl.subcommands = {
      sub("acl|cat", -2, kBase, catCommand,
          "List the ACL categories or the commands inside a category",
          "O(1) since the categories and commands are a fixed set.", "slow"),
      sub("acl|deluser", -3, kAdmin | kBase, deluserCommand,
          "Remove the specified ACL users and the associated rules",
          "O(1) amortized time considering the typical user.", kAdminCats),
      sub("acl|dryrun", -4, kAdmin | kBase, dryrunCommand,
          "Returns whether the user can execute the given command without executing the command.",
          "O(1).", kAdminCats),
      sub("acl|genpass", -2, kBase, genpassCommand,
          "Generate a pseudorandom secure password to use for ACL users", "O(1)", "slow"),
      sub("acl|getuser", 3, kAdmin | kBase, getuserCommand, "Get the rules for a specific ACL user",
          "O(N). Where N is the number of password, command and pattern rules that the user has.",
          kAdminCats),
      sub("acl|help", 2, kLoading | kStale, helpCommand,
          "Show helpful text about the different subcommands", "O(1)", "slow"),
      sub("acl|list", 2, kAdmin | kBase, listCommand,
          "List the current ACL rules in ACL config file format",
          "O(N). Where N is the number of configured users.", kAdminCats),
      sub("acl|load", 2, kAdmin | kBase, loadCommand,
          "Reload the ACLs from the configured ACL file",
          "O(N). Where N is the number of configured users.", kAdminCats),
      sub("acl|log", -2, kAdmin | kBase, logCommand,
          "List latest events denied because of ACLs in place",
          "O(N) with N being the number of entries shown.", kAdminCats),
      sub("acl|save", 2, kAdmin | kBase, saveCommand,
          "Save the current ACL rules in the configured ACL file",
          "O(N). Where N is the number of configured users.", kAdminCats),
      sub("acl|setuser", -3, kAdmin | kBase, setuserCommand,
          "Modify or create the rules for a specific ACL user",
          "O(N). Where N is the number of rules provided.", kAdminCats),
      sub("acl|users", 2, kAdmin | kBase, usersCommand,
          "List the username of all the configured ACL users",
          "O(N). Where N is the number of configured users.", kAdminCats),
      sub("acl|whoami", 2, kBase, whoamiCommand,
          "Return the name of the user associated to the current connection", "O(1)", "slow"),
  };
  for (Command& s : acl.subcommands) {
    if (std::string_view(s.name) == "acl|dryrun") s.since = "7.0.0";
  }
  t.add(std::move(acl));
}

}  // namespace server::acl
