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
#include <string>

namespace server::evict {

// Called once per thread (the server's main thread at start-up, the
// lazy-free thread, the I/O threads). At most kMaxThreads threads: io-threads
// goes up to 128.
constexpr int kMaxThreads = 136;
void registerThread();
void unregisterThread();

// used_memory: bytes in use by the process's data structures.
size_t usedMemory();

// mem_not_counted_for_evict: what maxmemory leaves out of used_memory (the
// server registers a provider at start: replicas' queued output and the
// AOF buffer, as Redis leaves them out); 0 without a provider.
size_t notCountedForEvict();
void setNotCountedProvider(size_t (*fn)());

// jemalloc-bg-thread: runs jemalloc's time-based decay on every arena, so
// that freed pages go back to the system over its decay period (10 s) even
// when no allocation comes to trigger it. This is the work jemalloc's own
// background threads do; the server's cron calls it instead (10 times a
// second) because any second thread in the process makes glibc's system
// call wrappers pay for thread cancellation on every read and write of the
// event loop (about 100 instructions per request, measured). No-op without
// jemalloc.
void decayTick();
// MEMORY PURGE, and after a synchronous FLUSHALL/FLUSHDB as Redis does:
// returns every arena's unused pages to the system now (libc: malloc_trim).
void purge();

// DEBUG MALLCTL / MALLCTL-STR: reads jemalloc's setting `name` (and writes
// `*value` when given). An integer setting is tried as 8, 4, 2 and 1 bytes
// wide, whichever jemalloc takes; a write-only one is only written. Return
// 0 with *old set (1 in *wrote_only for a write-only one), or an errno
// value (ENOENT without jemalloc).
int mallctlInt(const std::string& name, const int64_t* value, int64_t* old, bool* wrote_only);
// A string setting; `value` "VOID" writes nothing-typed (an action such as
// thread.tcache.flush). *old is set when it could be read (*readable).
int mallctlStr(const std::string& name, const std::string* value, std::string* old, bool* readable);

}  // namespace server::evict
