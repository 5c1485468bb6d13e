// Blocking commands (BLPOP, BLMOVE, BLMPOP, ... and BZPOPMIN & co.): a
// client waits on keys until one of them is written or its timeout passes.
//
// How a command blocks: when it finds nothing to serve, it calls
// blockForKeys() and, if that returns true, returns without replying. The
// client is then parked: its further input stays in its query buffer, and
// its argv is copied. When any of the keys is written by any client
// (keyModified / keyModifiedInDb / dbModified in server/request/keyspace.h), the
// command runs again from that copy, before the event loop next sleeps:
//   - if it replies (served, or an error such as WRONGTYPE on a destination),
//     the client is unblocked and its buffered input runs;
//   - if it calls blockForKeys() again, nothing changes: the client keeps its
//     place in the queue of each key (first come, first served).
// So during a re-run (isRetryingBlocked) a command must not reply before it
// knows it can serve; it should treat a key of the wrong type as empty
// (the client stays blocked, as Redis does).
//
// blockForKeys() returns false when the client must not block: inside
// MULTI/EXEC (kDenyBlocking), and on the run made when the timeout expires
// or CLIENT UNBLOCK ... TIMEOUT. The command then replies its own timeout
// reply (null array for BLPOP, null bulk for BLMOVE ...).
//
// Clients blocked on several keys are woken by whichever is written first.
// Keys are per db: a client blocks on the keys of the db it had selected.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "server/db/db.h"

namespace server {

class Client;

namespace blocking {

// See above. timeout_ms is absolute (ms since the epoch), 0 = forever.
bool blockForKeys(Client* c, const std::vector<std::string_view>& keys, int64_t timeout_ms);
// Parses a timeout in seconds (float) at argv[argi] into an absolute ms
// time (0 = forever); replies Redis's error and returns false when invalid.
bool parseBlockTimeout(Client* c, size_t argi, int64_t* timeout_ms);
// The whole of BLPOP / BRPOP / BZPOPMIN / BZPOPMAX (keys argv[1..argc-2],
// timeout last): serves the first key that holds a value of `kind` with
// serve(entry, key), which pops and replies; a key of another kind answers
// WRONGTYPE (and counts as empty on a re-run); when no key can be served
// the client blocks on all of them, or gets a null array when it may not.
void popFirstOrBlock(Client* c, db::Kind kind,
                     const std::function<void(db::Entry*, std::string_view)>& serve);
// Replaces argument i of the request saved when c blocked (call right
// after blockForKeys() returned true): XREAD's "$" is fixed to the ID it
// meant at that time.
void setBlockedArg(Client* c, size_t i, std::string value);
// True while the command runs again for a blocked client.
bool isRetryingBlocked(const Client* c);
// During such a run: the key whose write woke the client (the first one
// written when several were); empty when the run is for another reason.
// XREAD serves that key alone, as Redis does.
std::string_view retryKey(const Client* c);
bool isBlocked(const Client* c);
size_t blockedClientCount();

// CLIENT UNBLOCK: false when the client is not blocked. With error the
// client gets "-UNBLOCKED client unblocked via CLIENT UNBLOCK", else its
// command answers as on timeout.
bool unblockClient(Client* c, bool with_error);

// Unblocks c with `error` as its reply (cluster mode: its slot moved).
bool unblockWithError(Client* c, std::string_view error);
// The first key c waits on (empty if not blocked), and whether its command
// writes (cluster mode checks that this node still serves it).
std::string_view firstBlockedKey(const Client* c, bool* writes);

// ---- hooks for the server
// A key was written (keyspace.cpp).
void signalKey(db::Db* d, std::string_view key);
// Every key of a db may have changed (FLUSHALL, SWAPDB).
void signalDb(db::Db* d);
// Serves the clients whose keys were signalled and resumes the input of
// unblocked clients; called from before-sleep.
void handleReady();
// The client is being freed (removes it from every queue).
void onClientFree(Client* c);

}  // namespace blocking
}  // namespace server
