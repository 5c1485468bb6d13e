// Key lookups as commands use them, with the side effects every command
// shares: keyspace hit/miss statistics, lazy expiry (through db::Db) and
// the modified-key signal that WATCH and client-side tracking hang on.
#pragma once

#include <string_view>

#include "server/db/db.h"
#include "server/pubsub/notify.h"

namespace server {

class Client;

// Read lookup in the client's db: counts a keyspace hit or miss.
db::Entry* lookupRead(Client* c, std::string_view key);
// Lookup for a command that will modify the key: no hit/miss accounting.
db::Entry* lookupWrite(Client* c, std::string_view key);
// Typed lookups for collection commands: nullptr when the key is absent.
// When the key holds a value of another kind they reply WRONGTYPE, set
// *wrongtype to true and return nullptr (so callers test *wrongtype first).
db::Entry* lookupReadKind(Client* c, std::string_view key, db::Kind k, bool* wrongtype);
db::Entry* lookupWriteKind(Client* c, std::string_view key, db::Kind k, bool* wrongtype);
// A STORE command (SINTERSTORE, ZUNIONSTORE, SORT ... STORE, BITOP) whose
// result is empty deletes its destination: as Redis 7.0, even a key whose
// TTL has passed is deleted as a live one (a "del" event, no "expired").
// Signals the change and publishes "del"; false when there was no key.
bool deleteStoreTarget(Client* c, std::string_view key);
// Every command that changes a key calls this once per key it changed.
void keyModified(Client* c, std::string_view key);
// Same, for a db other than the client's (MOVE, COPY, SWAPDB, FLUSH*).
void keyModifiedInDb(db::Db* d, std::string_view key);
// Eviction (maxmemory) removed key from d: breaks WATCH on it, sends the
// CLIENT TRACKING invalidation (as a change by no client, so NOLOOP does not
// hide it) and publishes the "evicted" keyspace event (class e). Call it
// once per evicted key, after the deletion, with a key that outlives the
// entry (not a view into it). Propagated as DEL, or UNLINK when the value
// was freed lazily (lazyfree-lazy-eviction).
void keyEvicted(db::Db* d, std::string_view key, bool lazy_free = false);
// A whole db changed (FLUSHDB, FLUSHALL, SWAPDB).
void dbModified(db::Db* d);
// A whole db is about to change: call it right before flushing d
// (replaced_with null) or before swapping d with replaced_with (SWAPDB calls
// it once for each side). WATCH needs the contents from before the change.
void dbWillChange(db::Db* d, db::Db* replaced_with);

}  // namespace server
