// Server commands: TIME ROLE, and the
// registration of every server/introspection command (INFO, CLIENT, CONFIG,
// COMMAND and DEBUG live in their own files, see introspection.h).
#include <sys/time.h>

#include <string>

#include "common/log.h"
#include "common/strutil.h"
#include "server/commands/families.h"
#include "server/commands/server/introspection.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/latency/latency_cmd.h"
#include "server/persist/persist.h"
#include "server/repl/repl.h"

namespace server {
namespace {

void timeCommand(Client* c) {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  c->addArrayLen(2);
  c->reply().bulkInt(static_cast<int64_t>(tv.tv_sec));
  c->reply().bulkInt(static_cast<int64_t>(tv.tv_usec));
}

void roleCommand(Client* c) {
  repl::roleReply(c);  // master, its offset and the online replicas
}

}  // namespace

void registerServerCommands(CommandTable& t) {
  t.add({"time", 1, kLoading | kStale | kFast, timeCommand, 0, 0, 0, "server",
         "Return the current server time", "2.6.0", "O(1)", "fast"});
  t.add({"role", 1, kNoScript | kLoading | kStale | kFast | kSentinel, roleCommand, 0, 0, 0,
         "server", "Return the role of the instance in the context of replication", "2.8.12",
         "O(1)", "admin fast dangerous"});
  registerInfoCommand(t);
  registerClientCommand(t);
  registerConfigCommand(t);
  registerCommandCommand(t);
  registerDebugCommand(t);
  registerMemoryCommand(t);
  registerSlowlogCommand(t);
  registerLolwutCommand(t);
  registerModuleCommand(t);
  latency::registerLatencyCommand(t);
  registerMonitorAndPauseCommands(t);
  persist::registerPersistCommands(t);  // SAVE BGSAVE LASTSAVE DUMP RESTORE
  repl::registerReplCommands(t);        // SYNC PSYNC REPLCONF
}

}  // namespace server
