// Transactions: MULTI / EXEC / DISCARD and optimistic locking with WATCH /
// UNWATCH, with Redis 7.0's rules.
//
// A client in MULTI has its commands queued (copies of the arguments) and
// answered "+QUEUED"; an error while queuing (unknown command, wrong arity,
// a command refused in a transaction) makes EXEC fail with EXECABORT. EXEC
// runs the queue with kDenyBlocking set and returns every reply in one
// array; a run-time error stays in place in that array.
//
// WATCH records keys per client. EXEC answers a null array (RESP2 *-1,
// RESP3 _) when any watched key changed since: written by any client
// (touchWatchedKey through keyModified), deleted by expiry, flushed or
// swapped away (touchWatchedKeysInDb), or logically expired by EXEC time.
// A key that was already expired (not yet deleted) when WATCH ran does not
// break the transaction by being deleted later (Redis 7.0).
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include <cstddef>
#include <string_view>

#include "server/core/command.h"
#include "server/db/db.h"

namespace server {

class Client;

// Per-client transaction state, created on first MULTI or WATCH and freed
// by freeMultiState (connection close) or when it empties.
struct MultiState;

void registerMultiCommands(CommandTable& t);  // MULTI EXEC DISCARD WATCH UNWATCH

// ---- dispatch hooks
// True when c is in MULTI (CLIENT LIST flag 'x').
bool inMulti(const Client* c);
// True while EXEC runs a transaction's commands (Redis's server.in_exec):
// BGSAVE, BGREWRITEAOF and CONFIG SET appendonly yes then schedule their
// fork for the cron instead of forking mid-transaction.
bool inExec();
// True when a watched key was touched (CLIENT LIST flag 'd').
bool multiDirtyCas(const Client* c);
// Queued commands (CLIENT LIST multi=, -1 outside MULTI) and their bytes.
long multiQueuedCount(const Client* c);
size_t multiQueuedBytes(const Client* c);
// The transaction's part of the client's memory (CLIENT LIST tot-mem,
// maxmemory-clients), as Redis counts it: the queued commands' bytes plus
// the client's list of watched keys (its entries; the names' own heap bytes
// are left out, as Redis leaves them out). multi-mem shows only the first.
size_t multiMemory(const Client* c);
// The union of the queued commands' flags (EXEC of a queue holding a
// denyoom command is refused when out of memory). A script command's flags
// are its script's (script::scriptCommandFlags), in both.
uint32_t multiQueuedFlags(const Client* c);
// The flags every queued command has (EXEC of a queue holding a command
// not allowed on a stale replica is refused there).
uint32_t multiQueuedCommonFlags(const Client* c);
// EXEC of c's queue may write: a queued command is a write or may
// replicate, or is a script that may write (script::scriptMayWrite).
bool multiExecMayWrite(const Client* c);
// Each queued command with its arguments, in order (cluster mode finds the
// slot of a whole transaction at EXEC).
void multiForEachQueued(
    const Client* c,
    const std::function<void(const Command*, const std::vector<std::string_view>&)>& fn);
// EXEC refused before it ran (out of memory): discards the transaction and
// answers "-EXECABORT Transaction discarded because of: <error>", as Redis.
void multiExecAbort(Client* c, std::string_view error);
// An error while queuing (unknown command, arity, refused): EXEC will abort.
// No-op outside MULTI.
void multiFlagError(Client* c);
// Called by dispatch for a command that passed the common checks: inside
// MULTI it queues the command (or refuses a kNoMulti one) and replies, and
// returns true; outside MULTI, or for EXEC/DISCARD/MULTI/WATCH/QUIT/RESET,
// it returns false and the command runs now.
bool multiQueueCommand(Client* c, Command* cmd);

// ---- lifecycle
// RESET and connection close: discards the queue and unwatches every key.
void resetMultiState(Client* c);

// ---- keyspace hooks (keyspace.cpp keyModifiedInDb / dbWillChange, the
// expiry hook in server.cpp)
// A key was written (not by expiry).
void touchWatchedKey(db::Db* d, std::string_view key);
// A key is being deleted because it expired.
void touchWatchedKeyExpired(db::Db* d, std::string_view key);
// The whole db `emptied` is about to be flushed (replaced_with null) or
// swapped with replaced_with: touches the watched keys of emptied's index
// that exist in either db.
void touchWatchedKeysInDb(db::Db* emptied, db::Db* replaced_with);

}  // namespace server
