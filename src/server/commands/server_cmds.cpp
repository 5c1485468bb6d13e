// Server commands: TIME LASTSAVE SAVE BGSAVE ROLE SHUTDOWN, and the
// registration of every server/introspection command (INFO, CLIENT, CONFIG,
// COMMAND and DEBUG live in their own files, see introspection.h).
#include <sys/time.h>

#include <string>

#include "common/log.h"
#include "common/strutil.h"
#include "server/client.h"
#include "server/commands/families.h"
#include "server/commands/introspection.h"
#include "server/server.h"

namespace server {
namespace {

// This server keeps no snapshot or append-only file (data lives in memory
// only), so SAVE/BGSAVE say so instead of pretending to have saved.
const char kNoPersistence[] =
    "persistence is not supported: this server keeps its data in memory only and writes no "
    "RDB or AOF file";

void shutdownCommand(Client* c) {
  // [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. There is no snapshot to write and
  // no replica to wait for, so every accepted form exits at once.
  bool nosave = false, save = false, now = false, force = false, abort = false;
  for (size_t i = 1; i < c->argc(); i++) {
    std::string_view a = c->arg(i);
    if (strutil::equalsIgnoreCase(a, "NOSAVE")) {
      nosave = true;
    } else if (strutil::equalsIgnoreCase(a, "SAVE")) {
      save = true;
    } else if (strutil::equalsIgnoreCase(a, "NOW")) {
      now = true;
    } else if (strutil::equalsIgnoreCase(a, "FORCE")) {
      force = true;
    } else if (strutil::equalsIgnoreCase(a, "ABORT")) {
      abort = true;
    } else {
      c->addSyntaxError();
      return;
    }
  }
  if ((abort && (nosave || save || now || force)) || (nosave && save)) {
    c->addSyntaxError();
    return;
  }
  if (abort) {
    c->addError("No shutdown in progress.");
    return;
  }
  if (save) LOG_WARNING("SHUTDOWN SAVE: this server has no persistence, nothing is saved");
  g_server->shutdown_asap = true;
  // No reply: the client sees the connection close, as with Redis.
  c->flags |= kCloseAsap;
}

void timeCommand(Client* c) {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  c->addArrayLen(2);
  c->reply().bulkInt(static_cast<int64_t>(tv.tv_sec));
  c->reply().bulkInt(static_cast<int64_t>(tv.tv_usec));
}

void lastsaveCommand(Client* c) {
  // Nothing is ever saved: the "last save" is the start, as Redis reports
  // before its first save.
  c->addInteger(g_server->stats.start_time_ms / 1000);
}

void saveCommand(Client* c) {
  c->addError(kNoPersistence);
}

void bgsaveCommand(Client* c) {
  if (c->argc() > 2 || (c->argc() == 2 && !strutil::equalsIgnoreCase(c->arg(1), "SCHEDULE"))) {
    c->addSyntaxError();
    return;
  }
  c->addError(kNoPersistence);
}

void roleCommand(Client* c) {
  c->addArrayLen(3);
  c->addBulk("master");
  c->addInteger(0);
  c->addArrayLen(0);
}

}  // namespace

void registerServerCommands(CommandTable& t) {
  t.add({"shutdown", -1, kAdmin | kNoScript | kLoading | kStale | kNoMulti | kSentinel | kAllowBusy,
         shutdownCommand, 0, 0, 0, "server",
         "Synchronously save the dataset to disk and then shut down the server", "1.0.0",
         "O(N) when saving, where N is the total number of keys in all databases when saving "
         "data, otherwise O(1)",
         "admin slow dangerous"});
  t.add({"time", 1, kLoading | kStale | kFast, timeCommand, 0, 0, 0, "server",
         "Return the current server time", "2.6.0", "O(1)", "fast"});
  t.add({"lastsave", 1, kLoading | kStale | kFast, lastsaveCommand, 0, 0, 0, "server",
         "Get the UNIX time stamp of the last successful save to disk", "1.0.0", "O(1)",
         "admin fast dangerous"});
  t.add({"save", 1, kAdmin | kNoScript | kNoMulti | kNoAsyncLoading, saveCommand, 0, 0, 0, "server",
         "Synchronously save the dataset to disk", "1.0.0",
         "O(N) where N is the total number of keys in all databases", "admin slow dangerous"});
  t.add({"bgsave", -1, kAdmin | kNoScript | kNoAsyncLoading, bgsaveCommand, 0, 0, 0, "server",
         "Asynchronously save the dataset to disk", "1.0.0", "O(1)", "admin slow dangerous"});
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
  registerMonitorAndPauseCommands(t);
}

}  // namespace server
