#include "server/evict/allocator.h"

#include <malloc.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// From the sanitizer runtime (its header is not installed with GCC): bytes
// currently allocated by the program. ASan and TSan both replace malloc.
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#define EVICT_SANITIZER_ALLOCATOR 1
#endif

#include "common/dict.h"

namespace server::evict {

namespace {

size_t (*g_not_counted)() = nullptr;

#ifdef USE_JEMALLOC
// Per-thread counters, published by registerThread(). Slots are claimed
// once and never reused; a thread that exits folds its net figure into
// g_retired first so the sum stays right.
struct ThreadCounters {
  std::atomic<uint64_t*> allocated{nullptr};
  std::atomic<uint64_t*> deallocated{nullptr};
};
ThreadCounters g_threads[kMaxThreads];
std::atomic<int> g_thread_count{0};
std::atomic<int64_t> g_retired{0};
thread_local int t_slot = -1;

uint64_t load(uint64_t* p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
#endif

}  // namespace

void registerThread() {
#ifdef USE_JEMALLOC
  if (t_slot >= 0) return;
  uint64_t* a = nullptr;
  uint64_t* d = nullptr;
  size_t sz = sizeof(a);
  if (mallctl("thread.allocatedp", &a, &sz, nullptr, 0) != 0) return;
  sz = sizeof(d);
  if (mallctl("thread.deallocatedp", &d, &sz, nullptr, 0) != 0) return;
  int slot = g_thread_count.fetch_add(1);
  if (slot >= kMaxThreads) {
    fprintf(stderr, "evict::registerThread: more than %d threads\n", kMaxThreads);
    return;
  }
  g_threads[slot].deallocated.store(d);
  g_threads[slot].allocated.store(a);
  t_slot = slot;
#endif
}

void unregisterThread() {
#ifdef USE_JEMALLOC
  if (t_slot < 0) return;
  ThreadCounters& t = g_threads[t_slot];
  uint64_t* a = t.allocated.exchange(nullptr);
  uint64_t* d = t.deallocated.exchange(nullptr);
  if (a != nullptr && d != nullptr) {
    g_retired.fetch_add(static_cast<int64_t>(load(a)) - static_cast<int64_t>(load(d)));
  }
  t_slot = -1;
#endif
}

size_t usedMemory() {
  int64_t used = 0;
#if defined(EVICT_SANITIZER_ALLOCATOR)
  used = static_cast<int64_t>(__sanitizer_get_current_allocated_bytes());
#elif defined(USE_JEMALLOC)
  used = g_retired.load(std::memory_order_relaxed);
  int n = g_thread_count.load(std::memory_order_acquire);
  if (n > kMaxThreads) n = kMaxThreads;
  for (int i = 0; i < n; i++) {
    uint64_t* a = g_threads[i].allocated.load(std::memory_order_acquire);
    uint64_t* d = g_threads[i].deallocated.load(std::memory_order_acquire);
    if (a == nullptr || d == nullptr) continue;
    // Read the freed count first: a concurrent free then can only make the
    // figure larger, never negative.
    uint64_t freed = load(d);
    used += static_cast<int64_t>(load(a)) - static_cast<int64_t>(freed);
  }
#else
  struct mallinfo2 mi = mallinfo2();
  used = static_cast<int64_t>(mi.uordblks + mi.hblkhd);
#endif
  used += static_cast<int64_t>(common::dictMappedBytes());
  return used > 0 ? static_cast<size_t>(used) : 0;
}

size_t notCountedForEvict() {
  return g_not_counted != nullptr ? g_not_counted() : 0;
}

void setNotCountedProvider(size_t (*fn)()) {
  g_not_counted = fn;
}

void decayTick() {
#ifdef USE_JEMALLOC
  char cmd[64];
  snprintf(cmd, sizeof(cmd), "arena.%d.decay", MALLCTL_ARENAS_ALL);
  mallctl(cmd, nullptr, nullptr, nullptr, 0);
#endif
}

int mallctlInt(const std::string& name, const int64_t* value, int64_t* old, bool* wrote_only) {
  *wrote_only = false;
#ifdef USE_JEMALLOC
  for (size_t width = sizeof(int64_t); width > 0; width /= 2) {
    // Little-endian: the low bytes of an int64 are the narrower integer.
    int64_t read = 0, val = value != nullptr ? *value : 0;
    size_t sz = width;
    int rc = mallctl(name.c_str(), &read, &sz, value != nullptr ? &val : nullptr,
                     value != nullptr ? width : 0);
    if (rc == EPERM && value != nullptr) {
      rc = mallctl(name.c_str(), nullptr, nullptr, &val, width);
      if (rc == 0) {
        *wrote_only = true;
        return 0;
      }
    }
    if (rc == EINVAL) continue;  // another width
    if (rc != 0) return rc;
    *old = read;  // the low `width` bytes, zero-extended (as Redis shows it)
    return 0;
  }
  return EINVAL;
#else
  (void)name, (void)value, (void)old;
  return ENOENT;
#endif
}

int mallctlStr(const std::string& name, const std::string* value, std::string* old,
               bool* readable) {
  *readable = false;
#ifdef USE_JEMALLOC
  const char* cur = nullptr;
  size_t sz = sizeof(cur);
  int rc = mallctl(name.c_str(), &cur, &sz, nullptr, 0);
  if (rc == 0) {
    *readable = true;
    *old = cur != nullptr ? cur : "";
  } else if (!(rc == EPERM && value != nullptr)) {
    return rc;  // unknown, or write-only with nothing to write
  }
  if (value == nullptr) return 0;
  const char* v = value->c_str();
  bool none = *value == "VOID";
  return mallctl(name.c_str(), nullptr, nullptr, none ? nullptr : &v, none ? 0 : sizeof(v));
#else
  (void)name, (void)value, (void)old;
  return ENOENT;
#endif
}

void purge() {
#ifdef USE_JEMALLOC
  char cmd[64];
  snprintf(cmd, sizeof(cmd), "arena.%d.purge", MALLCTL_ARENAS_ALL);
  mallctl(cmd, nullptr, nullptr, nullptr, 0);
#else
  malloc_trim(0);
#endif
}

}  // namespace server::evict
