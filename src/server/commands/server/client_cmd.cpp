// CLIENT ID | SETNAME | GETNAME | INFO | LIST | KILL | REPLY | NO-EVICT | HELP.
//
// CLIENT LIST keeps Redis 7.0's fields in its order and adds one last field,
// transport=<connection type, and its variant: "tcp", "rdma/valkey">: parsers
// split on spaces and '=', so a trailing field is safe for them.
#include <string>

#include "common/strutil.h"
#include "server/acl/users.h"
#include "server/commands/server/introspection.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/pubsub/pubsub.h"
#include "server/pubsub/tracking.h"
#include "server/request/blocking.h"
#include "server/request/multi.h"

namespace server {

namespace {

bool validClientName(std::string_view name) {
  for (char ch : name) {
    if (ch < '!' || ch > '~') return false;
  }
  return true;
}

enum class ClientType { kNormal, kReplica, kMaster, kPubSub };

// Parses a TYPE argument; replies with Redis's error and returns false on
// an unknown name.
bool parseClientType(Client* c, std::string_view name, ClientType* out) {
  if (common::strutil::equalsIgnoreCase(name, "normal")) {
    *out = ClientType::kNormal;
  } else if (common::strutil::equalsIgnoreCase(name, "slave") ||
             common::strutil::equalsIgnoreCase(name, "replica")) {
    *out = ClientType::kReplica;
  } else if (common::strutil::equalsIgnoreCase(name, "master")) {
    *out = ClientType::kMaster;
  } else if (common::strutil::equalsIgnoreCase(name, "pubsub")) {
    *out = ClientType::kPubSub;
  } else {
    c->addErrorFormat("Unknown client type '%.*s'", static_cast<int>(name.size()), name.data());
    return false;
  }
  return true;
}

// As Redis's getClientType: replicas (not MONITORs here), the master link,
// subscribers, the rest.
ClientType typeOf(Client* c) {
  if (c->flags & kReplica) return ClientType::kReplica;
  if (c->flags & kMaster) return ClientType::kMaster;
  return isPubSubClient(c) ? ClientType::kPubSub : ClientType::kNormal;
}

void clientIdCommand(Client* c) {
  c->addInteger(static_cast<int64_t>(c->id()));
}

void clientSetnameCommand(Client* c) {
  std::string_view name = c->arg(2);
  if (!validClientName(name)) {
    c->addError("Client names cannot contain spaces, newlines or special characters.");
    return;
  }
  c->setName(std::string(name));
  c->addOk();
}

void clientGetnameCommand(Client* c) {
  if (c->name().empty())
    c->addNull();
  else
    c->addBulk(c->name());
}

void clientInfoCommand(Client* c) {
  std::string line;
  formatClientLine(describeClient(c), &line);
  c->reply().verbatim(line);
}

void clientListCommand(Client* c) {
  bool by_type = false;
  ClientType type = ClientType::kNormal;
  std::vector<uint64_t> ids;
  bool by_id = false;
  if (c->argc() == 4 && common::strutil::equalsIgnoreCase(c->arg(2), "TYPE")) {
    if (!parseClientType(c, c->arg(3), &type)) return;
    by_type = true;
  } else if (c->argc() >= 4 && common::strutil::equalsIgnoreCase(c->arg(2), "ID")) {
    by_id = true;
    for (size_t i = 3; i < c->argc(); i++) {
      int64_t id;
      if (!common::strutil::parseInt64(c->arg(i), &id)) {
        c->addError("Invalid client ID");
        return;
      }
      ids.push_back(static_cast<uint64_t>(id));
    }
  } else if (c->argc() != 2) {
    c->addSyntaxError();
    return;
  }
  std::string out;
  if (by_id) {
    for (uint64_t id : ids) {
      Client* other = g_server->findClientById(id);
      if (other != nullptr) formatClientLine(describeClient(other), &out);
    }
  } else {
    for (Client* other : g_server->clients) {
      if (by_type && typeOf(other) != type) continue;
      formatClientLine(describeClient(other), &out);
    }
  }
  c->reply().verbatim(out);
}

struct KillFilter {
  uint64_t id = 0;
  bool by_type = false;
  ClientType type = ClientType::kNormal;
  std::string_view addr, laddr, user;
  bool has_user = false;
  bool skipme = true;
};

bool killMatches(const KillFilter& f, Client* me, Client* other) {
  if (f.id != 0 && other->id() != f.id) return false;
  if (f.by_type && typeOf(other) != f.type) return false;
  if (f.has_user && other->user != f.user) return false;
  if (f.skipme && other == me) return false;
  if (!f.addr.empty() || !f.laddr.empty()) {
    ClientLine line = describeClient(other);
    if (!f.addr.empty() && line.addr != f.addr) return false;
    if (!f.laddr.empty() && line.laddr != f.laddr) return false;
  }
  return true;
}

// Closes `other`: the caller itself is closed once its reply is out.
void killClient(Client* me, Client* other) {
  if (other == me)
    me->flags |= kCloseAfterReply;
  else
    g_server->freeClientAsync(other);
}

void clientKillCommand(Client* c) {
  KillFilter f;
  bool old_form = c->argc() == 3;
  if (old_form) {
    // CLIENT KILL addr:port: may kill the caller too.
    f.addr = c->arg(2);
    f.skipme = false;
  } else if (c->argc() > 3 && c->argc() % 2 == 0) {
    for (size_t i = 2; i < c->argc(); i += 2) {
      std::string_view opt = c->arg(i), val = c->arg(i + 1);
      if (common::strutil::equalsIgnoreCase(opt, "ID")) {
        int64_t id;
        if (!common::strutil::parseInt64(val, &id) || id <= 0) {
          c->addError("client-id should be greater than 0");
          return;
        }
        f.id = static_cast<uint64_t>(id);
      } else if (common::strutil::equalsIgnoreCase(opt, "TYPE")) {
        if (!parseClientType(c, val, &f.type)) return;
        f.by_type = true;
      } else if (common::strutil::equalsIgnoreCase(opt, "ADDR")) {
        f.addr = val;
      } else if (common::strutil::equalsIgnoreCase(opt, "LADDR")) {
        f.laddr = val;
      } else if (common::strutil::equalsIgnoreCase(opt, "USER")) {
        if (!acl::findUser(val)) {
          c->addErrorFormat("No such user '%.*s'", static_cast<int>(val.size()), val.data());
          return;
        }
        f.user = val;
        f.has_user = true;
      } else if (common::strutil::equalsIgnoreCase(opt, "SKIPME")) {
        if (common::strutil::equalsIgnoreCase(val, "yes")) {
          f.skipme = true;
        } else if (common::strutil::equalsIgnoreCase(val, "no")) {
          f.skipme = false;
        } else {
          c->addSyntaxError();
          return;
        }
      } else {
        c->addSyntaxError();
        return;
      }
    }
  } else {
    c->addSyntaxError();
    return;
  }
  int64_t killed = 0;
  // Collect first: freeing is deferred, but keep the walk independent of it.
  std::vector<Client*> victims;
  for (Client* other : g_server->clients) {
    if (other->flags & kCloseAsap) continue;
    if (killMatches(f, c, other)) victims.push_back(other);
  }
  for (Client* v : victims) {
    killClient(c, v);
    killed++;
  }
  if (old_form) {
    if (killed == 0)
      c->addError("No such client");
    else
      c->addOk();
  } else {
    c->addInteger(killed);
  }
}

void clientNoEvictCommand(Client* c) {
  std::string_view v = c->arg(2);
  if (common::strutil::equalsIgnoreCase(v, "on")) {
    c->flags |= kNoEvict;
  } else if (common::strutil::equalsIgnoreCase(v, "off")) {
    c->flags &= ~kNoEvict;
  } else {
    c->addSyntaxError();
    return;
  }
  c->addOk();
}

void clientReplyCommand(Client* c) {
  std::string_view v = c->arg(2);
  if (common::strutil::equalsIgnoreCase(v, "on")) {
    // Runs muted when replies were off: unmute first so the OK goes out.
    c->flags &= ~(kReplyOff | kReplySkipNext);
    c->muteReplies(false);
    c->addOk();
  } else if (common::strutil::equalsIgnoreCase(v, "off")) {
    c->flags |= kReplyOff;
  } else if (common::strutil::equalsIgnoreCase(v, "skip")) {
    if (!(c->flags & kReplyOff)) c->flags |= kReplySkipNext;
  } else {
    c->addSyntaxError();
  }
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 if the client was blocked.
void clientUnblockCommand(Client* c) {
  if (c->argc() > 4) {
    c->addError("unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.");
    return;
  }
  int64_t id;
  if (!c->argInt64(2, &id)) return;
  bool with_error = false;
  if (c->argc() == 4) {
    if (common::strutil::equalsIgnoreCase(c->arg(3), "error")) {
      with_error = true;
    } else if (!common::strutil::equalsIgnoreCase(c->arg(3), "timeout")) {
      c->addError("CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
      return;
    }
  }
  Client* target = g_server->findClientById(static_cast<uint64_t>(id));
  bool done = target != nullptr && !(target->flags & kCloseAsap) &&
              blocking::unblockClient(target, with_error);
  c->addInteger(done ? 1 : 0);
}

void clientHelpCommand(Client* c) {
  // Redis's wording for the subcommands this server implements.
  static const char* const kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CACHING (YES|NO)",
      "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
      "GETREDIR",
      "    Return the client ID we are redirecting to when tracking is enabled.",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port>",
      "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are:",
      "    * ADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made from the specified address",
      "    * LADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made to specified local address",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Kill connections by type.",
      "    * USER <username>",
      "      Kill connections authenticated by <username>.",
      "    * SKIPME (YES|NO)",
      "      Skip killing current connection (default: yes).",
      "LIST [options ...]",
      "    Return information about client connections. Options:",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Return clients of specified type.",
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
      "REPLY (ON|OFF|SKIP)",
      "    Control the replies sent to the current connection.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]",
      "    Unblock the specified blocked client.",
      "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
      "         [OPTIN] [OPTOUT] [NOLOOP]",
      "    Control server assisted client side caching.",
      "TRACKINGINFO",
      "    Report tracking status for the current connection.",
      "NO-EVICT (ON|OFF)",
      "    Protect current client connection from eviction.",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kLines);
}

void clientCommand(Client* c) {
  // Reached only without a subcommand, which the arity check refuses.
  c->addWrongArity();
}

constexpr SubcommandMaker sub{"connection"};

}  // namespace

void registerClientCommand(CommandTable& t) {
  const uint32_t kInfo = kNoScript | kLoading | kStale;
  Command client{"client",
                 -2,
                 0,
                 clientCommand,
                 0,
                 0,
                 0,
                 "connection",
                 "A container for client connection commands",
                 "2.4.0",
                 "Depends on subcommand.",
                 "slow"};
  client.subcommands = {
      sub("client|id", 2, kInfo, clientIdCommand,
          "Returns the client ID for the current connection", "5.0.0", "O(1)", "slow connection"),
      sub("client|setname", 3, kInfo, clientSetnameCommand, "Set the current connection name",
          "2.6.9", "O(1)", "slow connection"),
      sub("client|getname", 2, kInfo, clientGetnameCommand, "Get the current connection name",
          "2.6.9", "O(1)", "slow connection"),
      sub("client|info", 2, kInfo, clientInfoCommand,
          "Returns information about the current client connection.", "6.2.0", "O(1)",
          "slow connection"),
      sub("client|list", -2, kAdmin | kInfo, clientListCommand,
          "Get the list of client connections", "2.4.0",
          "O(N) where N is the number of client connections", "admin slow dangerous connection"),
      sub("client|kill", -3, kAdmin | kInfo, clientKillCommand, "Kill the connection of a client",
          "2.4.0", "O(N) where N is the number of client connections",
          "admin slow dangerous connection"),
      sub("client|no-evict", 3, kAdmin | kInfo, clientNoEvictCommand,
          "Set client eviction mode for the current connection", "7.0.0", "O(1)",
          "admin slow dangerous connection"),
      sub("client|reply", 3, kInfo, clientReplyCommand,
          "Instruct the server whether to reply to commands", "3.2.0", "O(1)", "slow connection"),
      sub("client|unblock", -3, kAdmin | kInfo, clientUnblockCommand,
          "Unblock a client blocked in a blocking command from a different connection", "5.0.0",
          "O(log N) where N is the number of client connections",
          "admin slow dangerous connection"),
      sub("client|tracking", -3, kInfo, tracking::clientTrackingCommand,
          "Enable or disable server assisted client side caching support", "6.0.0",
          "O(1). Some options may introduce additional complexity.", "slow connection"),
      sub("client|caching", 3, kInfo, tracking::clientCachingCommand,
          "Instruct the server about tracking or not keys in the next request", "6.0.0", "O(1)",
          "slow connection"),
      sub("client|getredir", 2, kInfo, tracking::clientGetredirCommand,
          "Get tracking notifications redirection client ID if any", "6.0.0", "O(1)",
          "slow connection"),
      sub("client|trackinginfo", 2, kInfo, tracking::clientTrackinginfoCommand,
          "Return information about server assisted client side caching for the current "
          "connection",
          "6.2.0", "O(1)", "slow connection"),
      sub("client|help", 2, kLoading | kStale, clientHelpCommand,
          "Show helpful text about the different subcommands", "5.0.0", "O(1)", "slow connection"),
  };
  t.add(std::move(client));
}

}  // namespace server
