// DEBUG: only SLEEP and HELP. Like Redis 7.0 the command is refused unless
// enable-debug-command is "yes" (or "local" for loopback/unix clients).
#include <time.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "common/strutil.h"
#include "server/client.h"
#include "server/commands/introspection.h"
#include "server/server.h"

namespace server {

namespace {

const char kDebugNotAllowed[] =
    "DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can "
    "run it from a local connection, otherwise you need to set this option in the configuration "
    "file, and then restart the server.";

// Blocks the whole server, which is the point: tests use it to stall the
// event loop for a known time.
void sleepSeconds(double seconds) {
  if (!(seconds > 0)) return;
  struct timespec ts;
  ts.tv_sec = static_cast<time_t>(seconds);
  ts.tv_nsec = static_cast<long>((seconds - static_cast<double>(ts.tv_sec)) * 1e9);
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
}

void debugHelp(Client* c) {
  static const char* const kLines[] = {
      "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "SLEEP <seconds>",
      "    Stop the server for <seconds>. Decimals allowed.",
      "HELP",
      "    Prints this help.",
  };
  c->addArrayLen(static_cast<int64_t>(sizeof(kLines) / sizeof(kLines[0])));
  for (const char* l : kLines) c->addStatus(l);
}

void debugCommand(Client* c) {
  if (!debugCommandAllowed(c)) {
    c->addError(kDebugNotAllowed);
    return;
  }
  std::string_view sub = c->arg(1);
  if (c->argc() == 2 && strutil::equalsIgnoreCase(sub, "HELP")) {
    debugHelp(c);
    return;
  }
  if (c->argc() == 3 && strutil::equalsIgnoreCase(sub, "SLEEP")) {
    // Redis reads the number leniently (strtod): "abc" sleeps 0 seconds.
    std::string arg(c->arg(2));
    sleepSeconds(strtod(arg.c_str(), nullptr));
    c->addOk();
    return;
  }
  c->addErrorFormat("unknown subcommand or wrong number of arguments for '%.*s'. Try DEBUG HELP.",
                    static_cast<int>(sub.size() > 128 ? 128 : sub.size()), sub.data());
}

}  // namespace

void registerDebugCommand(CommandTable& t) {
  t.add({"debug", -2, kAdmin | kNoScript | kLoading | kStale, debugCommand, 0, 0, 0, "server",
         "A container for debugging commands", "1.0.0", "Depends on subcommand.",
         "admin slow dangerous"});
}

}  // namespace server
