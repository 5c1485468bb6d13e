// MONITOR, CLIENT PAUSE and CLIENT UNPAUSE: the commands over
// server/request/monitor.h and server/pause.h. The CLIENT subcommands join the
// CLIENT container registered by client_cmd.cpp.
#include "common/strutil.h"
#include "event/event_loop.h"
#include "server/commands/server/introspection.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/request/monitor.h"
#include "server/request/pause.h"

namespace server {
namespace {

void monitorCommand(Client* c) {
  // A client that expects one reply per command (inside EXEC) cannot
  // become a stream.
  if (c->flags & kDenyBlocking) {
    c->addError("MONITOR isn't allowed for DENY BLOCKING client");
    return;
  }
  if (c->flags & kMonitor) return;  // already one: no second OK, as Redis
  monitor::add(c);
  c->addOk();
}

void clientPauseCommand(Client* c) {
  if (c->argc() > 4) {
    std::string_view sub = c->arg(1);
    c->addErrorFormat(
        "unknown subcommand or wrong number of arguments for '%.*s'. Try CLIENT HELP.",
        static_cast<int>(sub.size()), sub.data());
    return;
  }
  pause::Mode mode = pause::Mode::kAll;
  if (c->argc() == 4) {
    if (common::strutil::equalsIgnoreCase(c->arg(3), "WRITE")) {
      mode = pause::Mode::kWrite;
    } else if (!common::strutil::equalsIgnoreCase(c->arg(3), "ALL")) {
      c->addError("CLIENT PAUSE mode must be WRITE or ALL");
      return;
    }
  }
  int64_t ms;
  if (!c->argInt64Msg(2, &ms, "timeout is not an integer or out of range")) return;
  if (ms < 0) {
    c->addError("timeout is negative");
    return;
  }
  // Redis 7.0 takes any non-negative timeout: huge ones mean "until
  // UNPAUSE".
  int64_t now = event::EventLoop::nowMs();
  pause::start(mode, ms > INT64_MAX - now ? INT64_MAX : now + ms);
  c->addOk();
}

void clientUnpauseCommand(Client* c) {
  pause::stop();
  c->addOk();
}

}  // namespace

void registerMonitorAndPauseCommands(CommandTable& t) {
  t.add({"monitor", 1, kAdmin | kNoScript | kLoading | kStale, monitorCommand, 0, 0, 0, "server",
         "Listen for all requests received by the server in real time", "1.0.0", "O(1)",
         "admin slow dangerous"});
  Command* client = t.find("client");
  const uint32_t kFlags = kAdmin | kNoScript | kLoading | kStale;
  client->subcommands.push_back(Command{"client|pause", -3, kFlags, clientPauseCommand, 0, 0, 0,
                                        "connection",
                                        "Stop processing commands from clients for some time",
                                        "2.9.50", "O(1)", "admin slow dangerous connection"});
  client->subcommands.push_back(
      Command{"client|unpause", 2, kFlags, clientUnpauseCommand, 0, 0, 0, "connection",
              "Resume processing of clients that were paused", "6.2.0",
              "O(N) Where N is the number of paused clients", "admin slow dangerous connection"});
}

}  // namespace server
