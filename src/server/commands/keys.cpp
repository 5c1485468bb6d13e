// Generic key commands: DEL UNLINK EXISTS DBSIZE FLUSHDB FLUSHALL, ...
#include <string>

#include "common/strutil.h"
#include "server/client.h"
#include "server/commands/families.h"
#include "server/keyspace.h"
#include "server/server.h"

namespace server {
namespace {

void delCommand(Client* c) {
  int64_t n = 0;
  for (size_t i = 1; i < c->argc(); i++) {
    if (c->db()->remove(c->arg(i))) {
      keyModified(c, c->arg(i));
      n++;
    }
  }
  c->addInteger(n);
}

void existsCommand(Client* c) {
  int64_t n = 0;
  for (size_t i = 1; i < c->argc(); i++) {
    if (lookupRead(c, c->arg(i)) != nullptr) n++;
  }
  c->addInteger(n);
}

void dbsizeCommand(Client* c) {
  c->addInteger(static_cast<int64_t>(c->db()->size()));
}

// FLUSHDB/FLUSHALL [ASYNC|SYNC]: both free synchronously (the keyspace is
// freed incrementally fast enough); ASYNC is accepted for compatibility.
bool parseFlushMode(Client* c) {
  if (c->argc() == 1) return true;
  if (c->argc() == 2 && (strutil::equalsIgnoreCase(c->arg(1), "ASYNC") ||
                         strutil::equalsIgnoreCase(c->arg(1), "SYNC")))
    return true;
  c->addSyntaxError();
  return false;
}

void flushdbCommand(Client* c) {
  if (!parseFlushMode(c)) return;
  c->db()->clear();
  dbModified(c->db());
  c->addOk();
}

void flushallCommand(Client* c) {
  if (!parseFlushMode(c)) return;
  for (auto& d : g_server->dbs) {
    d->clear();
    dbModified(d.get());
  }
  c->addOk();
}

}  // namespace

void registerKeyCommands(CommandTable& t) {
  t.add({"del", -2, kWrite, delCommand, 1, -1, 1, "generic", "Delete a key", "1.0.0",
         "O(N) where N is the number of keys that will be removed.", "keyspace write slow"});
  t.add({"unlink", -2, kWrite | kFast, delCommand, 1, -1, 1, "generic",
         "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non "
         "blocking.",
         "4.0.0", "O(1) for each key removed regardless of its size.", "keyspace write fast"});
  t.add({"exists", -2, kReadOnly | kFast, existsCommand, 1, -1, 1, "generic",
         "Determine if a key exists", "1.0.0", "O(N) where N is the number of keys to check.",
         "keyspace read fast"});
  t.add({"dbsize", 1, kReadOnly | kFast, dbsizeCommand, 0, 0, 0, "server",
         "Return the number of keys in the selected database", "1.0.0", "O(1)",
         "keyspace read fast"});
  t.add({"flushdb", -1, kWrite, flushdbCommand, 0, 0, 0, "server",
         "Remove all keys from the current database", "1.0.0",
         "O(N) where N is the number of keys in the selected database",
         "keyspace write slow dangerous"});
  t.add({"flushall", -1, kWrite, flushallCommand, 0, 0, 0, "server",
         "Remove all keys from all databases", "1.0.0",
         "O(N) where N is the total number of keys in all databases",
         "keyspace write slow dangerous"});
}

}  // namespace server
