// Client-side caching support (CLIENT TRACKING), as Redis 7.0 does it.
//
// Default mode: after a read-only command of a tracking client, the keys
// it named are remembered (for scripts, see scriptRead) in the tracking table (key name -> client
// ids, across dbs, as in Redis). When any of those keys is modified (commands, expiry, eviction)
// every client that read it gets one invalidation message and the key is forgotten until read
// again. OPTIN remembers keys only for the command after CLIENT CACHING YES; OPTOUT remembers keys
// except for the command after CLIENT CACHING NO.
//
// BCAST mode: nothing is remembered; the client registers prefixes ("" =
// every key) and gets, before the server sleeps, one message per prefix
// with the keys under it modified since. NOLOOP leaves out keys the client
// modified itself.
//
// Delivery: RESP3 clients get `>2 invalidate [keys]` pushes; with
// REDIRECT <id> the messages go to that client instead: as a push when it
// speaks RESP3, or as a Pub/Sub `message` on __redis__:invalidate when it
// is a RESP2 client in the subscribed state (else they are dropped). When
// the redirect target is gone, the tracking client is marked broken (flag
// R) and, in RESP3, told once with `>2 tracking-redir-broken <id>`.
// FLUSHDB and FLUSHALL send every tracking client a null invalidation
// (`invalidate` with a null in place of the keys). Invalidations for the
// client running the current command are held until its reply is out.
//
// tracking-table-max-keys bounds the table: above it, random keys are
// invalidated (as if modified) before commands run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/core/command.h"

namespace server {

class Client;

namespace tracking {

// Per-client state, null on the Client until tracking is first enabled.
struct State;

// ---- hooks (keyspace.cpp, dispatch.cpp, server.cpp, keys.cpp)
// A key was modified (any db) by `by` (null: expiry, eviction or the
// server itself). Invalidates the clients that read it and records it for
// the BCAST prefixes it falls under.
void invalidateKey(std::string_view key, Client* by);
// FLUSHDB (all_dbs false) / FLUSHALL: null invalidation to every tracking
// client; FLUSHALL also forgets every remembered key.
void invalidateOnFlush(bool all_dbs);
// True when any client has tracking on (cheap; guards the hooks below).
bool anyClient();
// Before the outermost command runs: enforces tracking-table-max-keys.
void beforeCommand();
// After a command ran (nested ones inside EXEC included): remembers the
// keys of a read-only command for a tracking client.
void afterCommand(Client* c, const Command* cmd);
// A script run by `caller` (EVAL*, FCALL*, its current command) ran a
// read-only command: as Redis 7.0, the caller remembers the keys the
// script was given (KEYS), not the keys the read named; a script that
// never reads leaves nothing remembered.
void scriptRead(Client* caller);
// After the outermost command and its reply: sends the invalidations held
// for the client that ran it, and ends a CLIENT CACHING yes|no that
// applied to it (not while in MULTI, not after a CLIENT command).
void afterOutermostCommand(Client* c, const Command* cmd);
// Before sleeping: sends the BCAST messages collected since last time.
void broadcastPending();
// Connection close or RESET: tracking off for c.
void resetClient(Client* c);

// ---- introspection
// CLIENT LIST: "t", "tR", "tB" ... (tracking, broken redirect, bcast).
std::string clientListFlags(const Client* c);
// CLIENT LIST redir=: the redirect id while tracking (0 for none), else -1.
int64_t clientListRedir(const Client* c);
// INFO: tracking_clients, tracking_total_keys, tracking_total_items,
// tracking_total_prefixes.
size_t clientCount();
size_t totalKeys();
size_t totalItems();
size_t totalPrefixes();
// Bytes of the client's own tracking state (its BCAST prefix set's nodes;
// the names' heap bytes are left out): part of its memory (CLIENT LIST
// tot-mem, maxmemory-clients), as Redis counts its prefix tree's nodes.
size_t clientStateMemory(const Client* c);

// CLIENT TRACKING / CACHING / GETREDIR / TRACKINGINFO subcommand procs.
void clientTrackingCommand(Client* c);
void clientCachingCommand(Client* c);
void clientGetredirCommand(Client* c);
void clientTrackinginfoCommand(Client* c);

}  // namespace tracking
}  // namespace server
