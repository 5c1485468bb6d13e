// Connection commands: PING ECHO QUIT RESET HELLO AUTH SELECT.
#include <string>

#include "common/strutil.h"
#include "server/acl/users.h"
#include "server/commands/families.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/core/version.h"
#include "server/pubsub/pubsub.h"
#include "server/pubsub/tracking.h"
#include "server/request/multi.h"

namespace server {
namespace {

const char kWrongPass[] = "-WRONGPASS invalid username-password pair or user is disabled.";

// Authenticates c as user/pass (acl/users.h); false (logged to ACL LOG)
// when the pair does not open an enabled user.
bool checkPassword(Client* c, std::string_view user, std::string_view pass) {
  acl::UserPtr u = acl::authenticate(c, user, pass);
  if (!u) return false;
  acl::authenticateClient(c, std::move(u));
  return true;
}

void pingCommand(Client* c) {
  if (c->argc() > 2) {
    c->addWrongArity();
    return;
  }
  if (c->proto() == 2 && isPubSubClient(c)) {
    // RESP2 subscribed state: the reply is shaped like a message.
    c->addArrayLen(2);
    c->addBulk("pong");
    c->addBulk(c->argc() == 2 ? c->arg(1) : std::string_view());
    return;
  }
  if (c->argc() == 1)
    c->addStatus("PONG");
  else
    c->addBulk(c->arg(1));
}

void echoCommand(Client* c) {
  c->addBulk(c->arg(1));
}

void quitCommand(Client* c) {
  c->addOk();
  c->flags |= kCloseAfterReply;
}

void selectCommand(Client* c) {
  int64_t id;
  if (!c->argInt64Msg(1, &id, "value is not an integer or out of range")) return;
  if (g_server->config.cluster_enabled && id != 0) {
    c->addError("SELECT is not allowed in cluster mode");
    return;
  }
  if (id < 0 || id >= static_cast<int64_t>(g_server->dbs.size())) {
    c->addError("DB index is out of range");
    return;
  }
  c->setDb(&g_server->dbAt(static_cast<int>(id)));
  c->addOk();
}

void authCommand(Client* c) {
  if (c->argc() > 3) {
    c->addSyntaxError();
    return;
  }
  if (c->argc() == 2 && acl::defaultUserIsOpen()) {
    c->addError(
        "AUTH <password> called without any password configured for the default user. Are you "
        "sure your configuration is correct?");
    return;
  }
  std::string_view user = c->argc() == 3 ? c->arg(1) : std::string_view("default");
  std::string_view pass = c->arg(c->argc() - 1);
  if (!checkPassword(c, user, pass)) {
    c->addError(kWrongPass);
    return;
  }
  c->addOk();
}

bool validClientName(std::string_view name) {
  for (char ch : name) {
    if (ch < '!' || ch > '~') return false;
  }
  return true;
}

void helloCommand(Client* c) {
  int proto = c->proto();
  size_t next = 1;
  if (c->argc() >= 2) {
    int64_t ver;
    if (!common::strutil::parseInt64(c->arg(1), &ver)) {
      c->addError("Protocol version is not an integer or out of range");
      return;
    }
    if (ver < 2 || ver > 3) {
      c->addError("-NOPROTO unsupported protocol version");
      return;
    }
    proto = static_cast<int>(ver);
    next = 2;
  }
  std::string_view setname;
  bool has_setname = false;
  for (size_t i = next; i < c->argc(); i++) {
    size_t more = c->argc() - i - 1;
    if (common::strutil::equalsIgnoreCase(c->arg(i), "AUTH") && more >= 2) {
      if (!checkPassword(c, c->arg(i + 1), c->arg(i + 2))) {
        c->addError(kWrongPass);
        return;
      }
      i += 2;
    } else if (common::strutil::equalsIgnoreCase(c->arg(i), "SETNAME") && more >= 1) {
      setname = c->arg(i + 1);
      has_setname = true;
      if (!validClientName(setname)) {
        c->addError("Client names cannot contain spaces, newlines or special characters.");
        return;
      }
      i += 1;
    } else {
      std::string_view opt = c->arg(i);
      c->addErrorFormat("Syntax error in HELLO option '%.*s'", static_cast<int>(opt.size()),
                        opt.data());
      return;
    }
  }
  if (!(c->flags & kAuthenticated)) {
    c->addError(
        "-NOAUTH HELLO must be called with the client already authenticated, otherwise "
        "the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the "
        "client and select the RESP protocol version at the same time");
    return;
  }
  if (has_setname) c->setName(std::string(setname));
  c->setProto(proto);
  resp::Writer& w = c->reply();
  w.mapLen(7);
  w.bulk("server");
  w.bulk(kServerName);
  w.bulk("version");
  w.bulk(kRedisVersion);
  w.bulk("proto");
  w.integer(proto);
  w.bulk("id");
  w.integer(static_cast<int64_t>(c->id()));
  w.bulk("mode");
  w.bulk("standalone");
  w.bulk("role");
  w.bulk("master");
  w.bulk("modules");
  w.arrayLen(0);
}

void resetCommand(Client* c) {
  resetMultiState(c);
  resetPubSubState(c);
  tracking::resetClient(c);
  c->flags &= ~kDenyBlocking;
  c->setDb(&g_server->dbAt(0));
  c->setProto(2);
  c->setName("");
  // Back to the default user, authenticated only if it needs no password.
  c->flags &= ~kAuthenticated;
  acl::attachDefaultUser(c);
  c->addStatus("RESET");
}

}  // namespace

void registerConnectionCommands(CommandTable& t) {
  t.add({"ping", -1, kFast | kSentinel, pingCommand, 0, 0, 0, "connection", "Ping the server",
         "1.0.0", "O(1)", "fast connection"});
  t.add({"echo", 2, kFast | kLoading | kStale, echoCommand, 0, 0, 0, "connection",
         "Echo the given string", "1.0.0", "O(1)", "fast connection"});
  t.add({"quit", -1, kNoAuth | kAllowBusy | kFast | kNoScript | kLoading | kStale, quitCommand, 0,
         0, 0, "connection", "Close the connection", "1.0.0", "O(1)", "fast connection"});
  t.add({"select", 2, kLoading | kStale | kFast, selectCommand, 0, 0, 0, "connection",
         "Change the selected database for the current connection", "1.0.0", "O(1)",
         "fast connection"});
  t.add({"auth", -2, kNoScript | kLoading | kStale | kFast | kNoAuth | kSentinel | kAllowBusy,
         authCommand, 0, 0, 0, "connection", "Authenticate to the server", "1.0.0",
         "O(N) where N is the number of passwords defined for the user", "fast connection"});
  t.add({"hello", -1, kNoScript | kLoading | kStale | kFast | kNoAuth | kSentinel | kAllowBusy,
         helloCommand, 0, 0, 0, "connection", "Handshake with Redis", "6.0.0", "O(1)",
         "fast connection"});
  t.add({"reset", 1, kNoScript | kLoading | kStale | kFast | kNoAuth | kAllowBusy, resetCommand, 0,
         0, 0, "connection", "Reset the connection", "6.2.0", "O(1)", "fast connection"});
}

}  // namespace server
