// Memory accounting and allocator control for maxmemory: used_memory as
// Redis defines it (bytes handed out by the allocator, by usable size), the
// part left out when deciding to evict (mem_not_counted_for_evict), and the
// jemalloc knobs Redis exposes (jemalloc-bg-thread, MEMORY PURGE).
//
// How used_memory is counted: with jemalloc, every thread keeps exact
// counters of the bytes it allocated and freed (thread.allocatedp /
// thread.deallocatedp); the sum over the threads that allocate or free
// server data, plus the hash tables' mmap'd bucket arrays (common::Dict),
// is the figure. Reading it is a few loads, so the dispatcher can check it
// before every command as Redis does with its counting allocator. Without
// jemalloc: mallinfo2 (or the sanitizer's allocator statistics).
//
// Contract: a thread that allocates or frees server data calls
// registerThread() when it starts and unregisterThread() before it exits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace evict {

// Called once per thread (the server's main thread at start-up, the
// lazy-free thread). At most kMaxThreads threads.
constexpr int kMaxThreads = 16;
void registerThread();
void unregisterThread();

// used_memory: bytes in use by the process's data structures.
size_t usedMemory();

// mem_not_counted_for_evict: replica output buffers and the AOF buffer in
// Redis. This server has neither, so it is 0 unless a module registers a
// provider (replication would).
size_t notCountedForEvict();
void setNotCountedProvider(size_t (*fn)());

// jemalloc-bg-thread: jemalloc's background threads return freed pages to
// the system (dirty/muzzy decay) without waiting for the next allocation.
// Returns false when the allocator cannot do it (libc build).
bool setBackgroundThread(bool on);
// MEMORY PURGE: returns every arena's unused dirty pages to the system now.
void purge();
// After a synchronous FLUSHDB/FLUSHALL that freed `freed` bytes: purge as
// Redis does. jemalloc skips an arena whose decay a background thread is
// running at that moment, so after a large free the background threads
// are paused around the purge to make it certain.
void purgeAfterFlush(size_t freed);

}  // namespace evict
