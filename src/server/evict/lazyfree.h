// Lazy freeing: big values and whole keyspaces are freed on a background
// thread so that UNLINK, FLUSHALL ASYNC, FLUSHDB ASYNC and the
// lazyfree-lazy-* options do not stall the event loop.
//
// What goes to the thread: a value whose free effort (elements to visit:
// members of a hashtable/skiplist/quicklist collection) is above
// kThreshold, as Redis decides; strings and small encodings are one or two
// free() calls and are freed at once. Everything handed over is owned by
// the thread alone from then on: values share nothing with the keyspace
// (no refcounts, no shared objects), and the allocator is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "server/db/db.h"

namespace server::evict::lazyfree {

constexpr size_t kThreshold = 64;

// Installs db::Db's lazy hook (server start-up). The thread itself starts
// on the first job: until something is freed lazily the process stays
// single-threaded, which keeps glibc's system calls on their fast path.
void install();
// Starts the thread now (idempotent; tests).
void start();
// Stops and joins the thread after it drained its queue (exit, tests).
void stop();
// Re-reads lazyfree-lazy-expire / -server-del (db::Db's flags).
void applyConfig();

// Elements a free of v visits (1 for strings and small encodings).
size_t freeEffort(const db::Value& v);
// Hands v to the thread when its effort is above kThreshold (v is left
// empty and true returned); otherwise leaves it and returns false.
bool freeValueAsync(db::Value& v);
// Frees a detached keyspace in the background (FLUSHDB/FLUSHALL ASYNC).
void freeDbAsync(std::unique_ptr<db::Db::Detached> keys);

// INFO memory: objects queued but not yet freed, and freed so far.
size_t pendingObjects();
uint64_t freedObjects();
void resetStats();
// Waits up to `us` microseconds for the queue to drain (eviction with
// nothing left to evict waits briefly for memory the thread is freeing).
void waitIdle(int64_t us);

}  // namespace server::evict::lazyfree
