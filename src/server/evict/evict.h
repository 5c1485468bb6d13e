// maxmemory: key eviction as Redis 7.0 does it.
//
// Module evict/ (namespace server::evict; lazy freeing in
// server::evict::lazyfree): owns memory accounting (allocator.h), key
// eviction (this file), client eviction (client_evict.h) and the lazy-free
// thread (lazyfree.h). May include db/, core/, request/, persist/ and
// repl/ (siblings on its floor) and below. Included by dispatch, commands/
// (INFO, MEMORY, FLUSHALL ASYNC), persist/, script/ and the top.
//
// Before a command runs (dispatch), when maxmemory is set, performEvictions()
// frees keys until used_memory minus mem_not_counted_for_evict is under the
// limit, choosing them by maxmemory-policy:
//   allkeys-lru / volatile-lru    the least recently used (24-bit seconds
//                                 clock in each entry, db::Entry::lru)
//   allkeys-lfu / volatile-lfu    the least frequently used (LFU counter in
//                                 the same field, db/lfu.h)
//   volatile-ttl                  the nearest expiry
//   allkeys-random / volatile-random
//   noeviction                    nothing: writes are refused
// volatile-* consider only keys with a TTL. LRU, LFU and TTL are
// approximated as Redis does: each round samples maxmemory-samples keys per
// db into a pool of the best kPoolSize candidates seen so far, and evicts
// the best one still present. A round is bounded in time by
// maxmemory-eviction-tenacity; when the limit is hit, a timer goes on
// evicting between commands and commands are not refused meanwhile.
//
// A command flagged denyoom (or any command but EXEC/DISCARD/QUIT/RESET
// queued in MULTI, or EXEC of a queue holding a denyoom command) is refused
// with kOomError when nothing more can be evicted (Redis's processCommand).
#pragma once

#include <cstdint>
#include <string_view>

#include "server/db/db.h"

namespace server {
class Client;
struct Command;
}  // namespace server

namespace server::evict {

// Redis 7.0.15's reply, byte for byte.
inline constexpr std::string_view kOomError =
    "-OOM command not allowed when used memory > 'maxmemory'.";

enum class Policy : uint8_t {
  kNoEviction,
  kAllKeysLru,
  kAllKeysLfu,
  kAllKeysRandom,
  kVolatileLru,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
};

// Outcome of performEvictions().
enum class Result {
  kOk,       // under the limit (or nothing to do)
  kRunning,  // over it, but a timer keeps evicting: do not refuse
  kFail,     // over it and nothing can be evicted: refuse denyoom commands
};

struct Stats {
  uint64_t evicted_keys = 0;
  uint64_t evicted_clients = 0;
  // Milliseconds spent over maxmemory (INFO total/current_eviction_exceeded_time).
  uint64_t exceeded_time_ms = 0;
  int64_t exceeded_since_ms = 0;  // 0 when under the limit
};
extern Stats stats;
// CONFIG RESETSTAT: evicted_keys, evicted_clients, the exceeded time and
// lazyfreed_objects.
void resetStats();

// True when the dispatcher must call beforeCommand(): maxmemory or
// maxmemory-clients is set. Kept in one flag so that a server without
// limits pays one well-predicted branch per command.
extern bool g_limits_active;

// Reads maxmemory, maxmemory-policy, samples, tenacity, lfu-*, lazyfree-*,
// maxmemory-clients and jemalloc-bg-thread from the server's config; called
// at start-up and after CONFIG SET of any of them. `name` is the option
// that changed ("" at start-up): a lower maxmemory starts evicting at once,
// as Redis does.
void applyConfig(std::string_view name);

// From the server cron: jemalloc-bg-thread's decay (allocator.h).
void cron();

// The dispatcher's hook, for a command about to run (after the auth and
// arity checks, before queuing in MULTI). Returns false when the command
// was refused (the error is sent, the transaction flagged) or the client
// was closed by client eviction (*client_freed set): the command must not
// run.
bool beforeCommand(server::Client* c, server::Command* cmd, bool* client_freed);

// Frees keys until under maxmemory (see above).
Result performEvictions();

// Scripts (EVAL/FCALL): the OOM state when the script started; a script's
// denyoom commands are refused when it is true (Redis's script_oom). Set by
// beforeCommand for every command when maxmemory is set.
bool scriptOom();

// Deletes one key chosen for eviction: counts it (evicted_keys), touches
// WATCH, frees the value (in the background under lazyfree-lazy-eviction).
// Keyspace notifications ("evicted") and client tracking attach here.
// Returns the memory the removal gave back (not counting what those
// notifications then queue).
size_t evictKey(db::Db* d, std::string_view key);

// True when used memory (as counted for eviction) is over maxmemory;
// *level, when given, is used / maxmemory.
bool overMaxmemory(double* level = nullptr);

Policy policy();
const char* policyName(Policy p);

// OBJECT REFCOUNT / DEBUG OBJECT of a value: Redis shares one object for
// each integer 0..9999 (reported with the shared refcount, INT_MAX), except
// with maxmemory set under an LRU or LFU policy, where every key keeps its
// own object (for its access time). Values here never share; this is the
// figure Redis would show under the current settings.
int reportedRefcount(const db::Value& v);

}  // namespace server::evict
