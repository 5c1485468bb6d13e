// Server commands: SHUTDOWN, ...
#include <string>

#include "common/log.h"
#include "common/strutil.h"
#include "server/client.h"
#include "server/commands/families.h"
#include "server/server.h"

namespace server {
namespace {

void shutdownCommand(Client* c) {
  // NOSAVE / SAVE / NOW / FORCE / ABORT: there is no snapshot to write, so
  // every mode exits at once (ABORT has nothing to abort).
  for (size_t i = 1; i < c->argc(); i++) {
    std::string_view a = c->arg(i);
    if (strutil::equalsIgnoreCase(a, "ABORT")) {
      c->addError("No shutdown in progress.");
      return;
    }
    if (!strutil::equalsIgnoreCase(a, "NOSAVE") && !strutil::equalsIgnoreCase(a, "SAVE") &&
        !strutil::equalsIgnoreCase(a, "NOW") && !strutil::equalsIgnoreCase(a, "FORCE")) {
      c->addSyntaxError();
      return;
    }
  }
  g_server->shutdown_asap = true;
  // No reply: the client sees the connection close, as with Redis.
  c->flags |= kCloseAsap;
}

}  // namespace

void registerServerCommands(CommandTable& t) {
  t.add({"shutdown", -1, kAdmin | kNoScript | kLoading | kStale | kNoMulti | kSentinel | kAllowBusy,
         shutdownCommand, 0, 0, 0, "server",
         "Synchronously save the dataset to disk and then "
         "shut down the server",
         "1.0.0",
         "O(N) when saving, where N is the total number of keys "
         "in all databases when saving data, otherwise O(1)",
         "admin slow dangerous"});
}

}  // namespace server
