// Dict: a chained, intrusive hash table with incremental rehashing. It holds
// the keyspace, the expires index and the hash/set types.
//
// Intrusive: the table never allocates per entry. The caller's node type
// embeds the chain pointer; the only memory the table owns is its bucket
// arrays (power-of-two arrays of Node*, 8 bytes per bucket). The table never
// frees nodes either: erase()/unlink() hand the node back, clear() passes
// every node to a callback, and the destructor frees only bucket arrays.
//
// Traits (all static):
//   using Node = ...; using Key = ...;             // Key: what lookups take
//   Node*& next(Node* n);                          // the embedded chain link
//   uint64_t hash(const Key& k);                   // e.g. common::hashBytes
//   bool equal(const Node* n, const Key& k);
//   and either  Key key(const Node* n)             // rehash computes hash(key(n))
//   or          uint64_t nodeHash(const Node* n)   // e.g. a hash cached in the node
// nodeHash(n) must equal hash(k) for the key k that n matches.
// Optional: bool growAllowed(size_t more_bytes, double load) is asked before
// an insert grows the table (more_bytes: the new bucket array; load: entries
// per bucket now); false keeps the table at a higher load for now.
//
// Rehashing: growing (at load factor 1, on insert) and shrinking (tryShrink(),
// called from the cron, when fewer than 1/8 of the buckets would be used)
// allocate a second bucket array and move entries over gradually: every
// find/insert/erase/randomNode moves one bucket (visiting at most
// kEmptyVisitsPerStep empty ones), and the cron calls rehashMicroseconds().
// No single call costs time proportional to the table size, except the ones
// that are whole-table by nature (forEach, clear, checkInvariants).
//
// Memory: arrays of kMapThresholdBytes and more are mapped with mmap, not
// malloc, so that (a) their zero pages come lazily from the kernel and (b) the
// old array is unmapped chunk by chunk as rehashing moves past it, instead of
// in one free() whose cost grows with the array (about 10 ms for 128 MiB).
// They count in memoryUsage() but not in the allocator's statistics.
//
// Reentrancy: forEach() and scan() callbacks may erase or unlink the node
// they were given (and free it), but must not insert or touch other nodes.
// Rehashing is paused while a callback runs.
//
// Not thread-safe. Operations that rehash are non-const.
//
// Module common/ (namespace common): the pieces every program of the
// project shares: this hash table, hashing (hash.h), SHA-1, CRC-64,
// logging (log.h, syslog_sink.h), number and glob helpers (strutil.h).
// Includes only the C/C++ libraries; included by every folder above it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>

#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "common/hash.h"

namespace common {

// Bytes of bucket arrays currently mapped with mmap by every Dict of the
// process (see "Memory" above): the allocator does not see them, so the
// server adds them to used_memory (server/evict/allocator.h). Atomic because
// tables may be freed on the lazy-free thread.
inline std::atomic<int64_t> g_dict_mapped_bytes{0};
inline size_t dictMappedBytes() {
  int64_t v = g_dict_mapped_bytes.load(std::memory_order_relaxed);
  return v > 0 ? static_cast<size_t>(v) : 0;
}

// While a forked child (BGSAVE, AOF rewrite) runs, tables grow only past
// kForceResizeRatio entries per bucket and never shrink (as Redis does):
// moving every entry to a new array would touch, and so copy, every page
// the child still shares with the parent. Set by persist/child_info.cpp.
inline bool g_dict_avoid_resize = false;
inline constexpr size_t kForceResizeRatio = 5;

template <class T>
concept DictTraits = requires(typename T::Node* n, const typename T::Node* cn,
                              const typename T::Key& k) {
  { T::next(n) } -> std::same_as<typename T::Node*&>;
  { T::hash(k) } -> std::convertible_to<uint64_t>;
  { T::equal(cn, k) } -> std::convertible_to<bool>;
}
&&(
    requires(const typename T::Node* cn) {
      { T::nodeHash(cn) } -> std::convertible_to<uint64_t>;
    } ||
    requires(const typename T::Node* cn) {
      { T::hash(T::key(cn)) } -> std::convertible_to<uint64_t>;
    });

template <DictTraits Traits>
class Dict {
 public:
  using Node = typename Traits::Node;
  using Key = typename Traits::Key;

  static constexpr unsigned kMinLog2 = 2;             // smallest bucket array: 4
  static constexpr size_t kEmptyVisitsPerStep = 10;   // empty buckets one step may skip
  static constexpr size_t kShrinkRatio = 8;           // shrink below 1/8 full
  static constexpr size_t kSampleVisitsPerNode = 10;  // bucket budget of sampleNodes
  static constexpr size_t kRandomProbes = 64;         // random picks before a linear walk
  static constexpr uint32_t kRandomChainBound = 8;    // randomNode's initial chain bound
  static constexpr size_t kMapThresholdBytes = size_t{1} << 20;    // mmap arrays this big
  static constexpr size_t kReleaseChunkBytes = size_t{128} << 10;  // unmap granule
  static_assert(kReleaseChunkBytes % 4096 == 0 && kMapThresholdBytes % kReleaseChunkBytes == 0);

  // Result of findOrPrepareInsert(): either the node holding the key, or the
  // slot where insertAt() links a new one.
  struct InsertPos {
    Node* found = nullptr;
    Node** slot = nullptr;
    uint8_t table = 0;
  };

  Dict() = default;
  ~Dict() { freeTables(); }
  Dict(const Dict&) = delete;
  Dict& operator=(const Dict&) = delete;
  Dict(Dict&& other) noexcept { swap(other); }
  Dict& operator=(Dict&& other) noexcept {
    if (this != &other) {
      freeTables();
      swap(other);
    }
    return *this;
  }
  void swap(Dict& other) noexcept {
    std::swap(t_, other.t_);
    std::swap(rehash_idx_, other.rehash_idx_);
    std::swap(paused_, other.paused_);
    std::swap(clear_idx_, other.clear_idx_);
    std::swap(random_bound_, other.random_bound_);
  }

  size_t size() const { return t_[0].used + t_[1].used; }
  bool empty() const { return size() == 0; }
  size_t bucketCount() const { return t_[0].size() + t_[1].size(); }
  // Bytes of bucket arrays owned by the table (nodes belong to the caller).
  size_t memoryUsage() const {
    return (bucketCount() - t_[0].released - t_[1].released) * sizeof(Node*);
  }
  bool isRehashing() const { return rehash_idx_ != kNotRehashing; }
  // DEBUG HTSTATS: each table's size, entries and chain lengths, in Redis's
  // wording (its dictGetStats). Walks every bucket: for debugging only.
  void appendStats(std::string* out) const {
    appendTableStats(out, 0);
    if (isRehashing()) appendTableStats(out, 1);
  }

  static uint64_t hashKey(const Key& key) { return Traits::hash(key); }

  // The node whose key equals `key`, or nullptr. findWithHash() takes a hash
  // the caller already has (hashKey(key)), e.g. shared by keyspace and
  // expires lookups of the same key.
  Node* find(const Key& key) {
    if (empty()) return nullptr;
    return findWithHash(key, Traits::hash(key));
  }
  Node* findWithHash(const Key& key, uint64_t h) {
    if (empty()) return nullptr;
    step();
    return lookup(key, h);
  }

  // Hints the CPU to load the bucket(s) for hash h: a caller looking up a
  // batch of keys (MGET, pipelined commands) prefetches them all first so the
  // cache misses overlap. Never changes the table.
  void prefetch(uint64_t h) const {
    if (t_[0].buckets) __builtin_prefetch(&t_[0].buckets[h & t_[0].mask]);
    if (t_[1].buckets) __builtin_prefetch(&t_[1].buckets[h & t_[1].mask]);
  }

  // Links `node`; its key must not be present (checked only by the caller).
  void insert(Node* node) {
    prepareInsert();
    link(node, nodeHash(node));
  }

  // One hash for "update if present, else insert" (SET). If pos.found is
  // null, the caller may call insertAt(pos, node) with a node for that key;
  // no other operation on the table may come in between.
  InsertPos findOrPrepareInsert(const Key& key) {
    prepareInsert();
    uint64_t h = Traits::hash(key);
    InsertPos pos;
    pos.found = lookup(key, h);
    if (!pos.found) {
      pos.table = isRehashing() ? 1 : 0;
      Table& t = t_[pos.table];
      pos.slot = &t.buckets[h & t.mask];
    }
    return pos;
  }
  void insertAt(const InsertPos& pos, Node* node) {
    assert(!pos.found && pos.slot);
    Traits::next(node) = *pos.slot;
    *pos.slot = node;
    t_[pos.table].used++;
  }

  // Unlinks and returns the node with `key`, or nullptr. The caller frees it.
  Node* erase(const Key& key) {
    if (empty()) return nullptr;
    step();
    uint64_t h = Traits::hash(key);
    return unlinkIf(h, [&](const Node* n) { return Traits::equal(n, key); });
  }
  // Unlinks a node known to be in the table, located by its hash (nodeHash()
  // or the hash passed in); no key comparisons and no rehash step. Returns
  // false if the node is not in the table.
  bool unlink(Node* node) { return unlink(node, nodeHash(node)); }
  bool unlink(Node* node, uint64_t h) {
    if (empty()) return false;
    return unlinkIf(h, [node](const Node* n) { return n == node; }) != nullptr;
  }

  // Moves up to n buckets to the new array. Returns true while rehashing
  // remains to be done.
  bool rehashSteps(size_t n) {
    if (!isRehashing() || paused_) return isRehashing();
    size_t empty_budget = n > SIZE_MAX / kEmptyVisitsPerStep ? SIZE_MAX : n * kEmptyVisitsPerStep;
    Table& from = t_[0];
    // used > 0 guarantees a non-empty bucket at or after rehash_idx_.
    while (n > 0 && from.used > 0 && empty_budget > 0) {
      if (from.buckets[rehash_idx_] == nullptr) {
        empty_budget--;
      } else {
        moveBucket(rehash_idx_);
        n--;
      }
      rehash_idx_++;
    }
    if (from.used == 0) {
      finishRehash();
    } else {
      releaseBefore(from, rehash_idx_);
    }
    return isRehashing();
  }
  // Rehashes in batches of 100 buckets until done or `us` microseconds have
  // passed. Returns the number of batches run (cron statistics).
  size_t rehashMicroseconds(int64_t us) {
    using Clock = std::chrono::steady_clock;
    auto deadline = Clock::now() + std::chrono::microseconds(us);
    size_t batches = 0;
    while (isRehashing() && !paused_) {
      batches++;
      if (!rehashSteps(100) || Clock::now() >= deadline) break;
    }
    return batches;
  }

  // Starts shrinking if fewer than 1/kShrinkRatio of the buckets are used; an
  // empty table frees its array at once. Returns true if it did either.
  bool tryShrink() {
    if (isRehashing() || paused_ || t_[0].buckets == nullptr || g_dict_avoid_resize) return false;
    if (t_[0].used == 0) {
      freeTables();
      return true;
    }
    if (t_[0].size() <= (size_t{1} << kMinLog2) || t_[0].used * kShrinkRatio >= t_[0].size()) {
      return false;
    }
    return resize(t_[0].used);
  }
  // Pre-sizes for n entries (e.g. before loading a snapshot). False if
  // rehashing, already big enough, or out of memory.
  bool expand(size_t n) {
    if (isRehashing() || paused_ || n <= t_[0].size()) return false;
    return resize(n);
  }

  // A uniformly random node (nullptr when empty). A random non-empty bucket
  // then a random node of its chain would give each node 1/L of its bucket's
  // share, favouring nodes alone in their bucket. Instead the chain drawn is
  // kept with probability L / bound (else another bucket is drawn), which
  // cancels the 1/L: every node has the same chance, exactly, as long as no
  // chain is longer than the bound. The bound starts at kRandomChainBound
  // (longer chains are very unlikely at load factor <= 1 with a seeded hash)
  // and grows to the longest chain ever met here, so even then the bias is
  // corrected from the next pick on. Expected draws: bound / mean chain
  // length (about 5 at load factor 1).
  Node* randomNode() {
    if (empty()) return nullptr;
    step();
    for (;;) {
      Node* head = randomNonEmptyBucket();
      size_t len = 0;
      for (Node* n = head; n; n = Traits::next(n)) len++;
      if (len > random_bound_)
        random_bound_ = static_cast<uint32_t>(std::min<size_t>(len, UINT32_MAX));
      size_t pick = randomU64() % random_bound_;
      if (pick >= len) continue;
      while (pick--) head = Traits::next(head);
      return head;
    }
  }

  // Writes up to n distinct nodes to out[] from a run of consecutive buckets
  // starting at a random one; visits at most n * kSampleVisitsPerNode
  // buckets, so it may return fewer than n (0 only if the run was empty).
  size_t sampleNodes(Node** out, size_t n) {
    n = std::min(n, size());
    if (n == 0) return 0;
    if (isRehashing() && !paused_) rehashSteps(n);
    const bool rehashing = isRehashing();
    const size_t span = std::max(t_[0].size(), t_[1].size());  // power of two
    const size_t visits = std::min(span, n * kSampleVisitsPerNode);
    size_t got = 0, i = randomU64() & (span - 1);
    for (size_t v = 0; v < visits; v++, i = (i + 1) & (span - 1)) {
      for (int ti = 0; ti <= (rehashing ? 1 : 0); ti++) {
        const Table& t = t_[ti];
        if (i >= t.size() || (ti == 0 && rehashing && i < rehash_idx_)) continue;
        for (Node* node = t.buckets[i]; node; node = Traits::next(node)) {
          out[got++] = node;
          if (got == n) return got;
        }
      }
    }
    return got;
  }

  // Calls fn(Node*) on every node; fn may return bool (false stops early).
  // fn may erase/unlink the node it got, nothing else (see the file comment).
  template <class Fn>
  void forEach(Fn&& fn) {
    PauseGuard pause(this);
    for (int ti = 0; ti <= (isRehashing() ? 1 : 0); ti++) {
      Table& t = t_[ti];
      for (size_t i = (ti == 0 && isRehashing()) ? rehash_idx_ : 0; i < t.size(); i++) {
        if (!visitChain(t.buckets[i], fn)) return;
      }
    }
  }

  // SCAN: visits the buckets the cursor names, calls fn(Node*) on their
  // nodes, and returns the next cursor (0 when done; start with 0). Every
  // node present from the first call to the last is visited at least once,
  // whatever resizes happen between calls; some may be visited twice. The
  // cursor counts in reversed bit order so that the buckets a bucket splits
  // into (growth) or merges with (shrink) are visited together.
  template <class Fn>
  uint64_t scan(uint64_t cursor, Fn&& fn) {
    if (empty()) return 0;
    PauseGuard pause(this);
    auto visit = [&](const Table& t, uint64_t idx) {
      idx &= t.mask;
      if (&t == &t_[0] && isRehashing() && idx < rehash_idx_) return;  // moved (maybe unmapped)
      visitChain(t.buckets[idx], [&](Node* n) { fn(n); });
    };
    if (!isRehashing()) {
      visit(t_[0], cursor);
      return nextCursor(cursor, t_[0].mask);
    }
    const Table* small = &t_[0];
    const Table* large = &t_[1];
    if (small->mask > large->mask) std::swap(small, large);
    // One bucket of the small table, then every bucket of the large table
    // whose low bits equal it (the high bits advance first, in reverse).
    visit(*small, cursor);
    do {
      visit(*large, cursor);
      cursor = nextCursor(cursor, large->mask);
    } while (cursor & (small->mask ^ large->mask));
    return cursor;
  }

  // Unlinks every node and passes it to fn(Node*) (which usually frees it),
  // then frees the bucket arrays.
  template <class Fn>
  void clear(Fn&& fn) {
    while (!clearSteps(fn, SIZE_MAX)) {
    }
  }
  // Incremental clear (lazy FLUSHDB: move the Dict out, then call this from
  // the cron): does about `work` units (one per bucket visited or node
  // passed to fn) and returns true when the table is empty and released.
  // Once started, call only clearSteps/clear/size/the destructor until done.
  template <class Fn>
  bool clearSteps(Fn&& fn, size_t work) {
    const size_t total = bucketCount();
    if (isRehashing()) clear_idx_ = std::max(clear_idx_, rehash_idx_);  // the rest moved
    while (clear_idx_ < total && work > 0) {
      bool second = clear_idx_ >= t_[0].size();
      Table& t = t_[second ? 1 : 0];
      Node*& head = t.buckets[second ? clear_idx_ - t_[0].size() : clear_idx_];
      while (head && work > 0) {  // a long chain may take several calls
        Node* n = head;
        head = Traits::next(n);
        t.used--;
        fn(n);
        work--;
      }
      if (head) break;
      clear_idx_++;
      if (work > 0) work--;
    }
    if (clear_idx_ < total) {
      if (clear_idx_ < t_[0].size()) {
        releaseBefore(t_[0], clear_idx_);
      } else {
        releaseBefore(t_[1], clear_idx_ - t_[0].size());
      }
      return false;
    }
    freeTables();
    return true;
  }

  // Whole-table consistency check for tests and DEBUG: every node sits in the
  // bucket its hash names, moved buckets are empty, counts match.
  bool checkInvariants() const {
    for (int ti = 0; ti < 2; ti++) {
      const Table& t = t_[ti];
      if (t.buckets == nullptr) {
        if (t.used != 0) return false;
        continue;
      }
      size_t count = 0;
      for (size_t i = 0; i < t.size(); i++) {
        if (ti == 0 && isRehashing() && i < rehash_idx_) {
          if (i >= t.released && t.buckets[i] != nullptr) return false;  // moved: empty
          continue;
        }
        for (Node* n = t.buckets[i]; n; n = Traits::next(n)) {
          if ((nodeHash(n) & t.mask) != i) return false;
          count++;
        }
      }
      if (count != t.used) return false;
    }
    return isRehashing() == (t_[1].buckets != nullptr);
  }

 private:
  static constexpr size_t kNotRehashing = SIZE_MAX;

  struct Table {
    Node** buckets = nullptr;
    size_t mask = 0;      // size - 1 while buckets is set
    size_t used = 0;      // nodes linked
    size_t released = 0;  // leading buckets already unmapped (mapped arrays only)
    bool mapped = false;  // from mmap rather than calloc
    size_t size() const { return buckets ? mask + 1 : 0; }
  };

  struct PauseGuard {
    explicit PauseGuard(Dict* d) : d_(d) { d_->paused_++; }
    ~PauseGuard() { d_->paused_--; }
    Dict* d_;
  };

  static uint64_t nodeHash(const Node* n) {
    if constexpr (requires { Traits::nodeHash(n); }) {
      return Traits::nodeHash(n);
    } else {
      return Traits::hash(Traits::key(n));
    }
  }

  static uint64_t reverseBits(uint64_t v) {
    v = __builtin_bswap64(v);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((v & 0x0F0F0F0F0F0F0F0Full) << 4);
    v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
    v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
    return v;
  }
  // Increments the masked bits of v starting from the most significant one.
  // The unmasked bits are set first so the carry runs through them and out.
  static uint64_t nextCursor(uint64_t v, uint64_t mask) {
    v |= ~mask;
    return reverseBits(reverseBits(v) + 1);
  }

  void step() {
    if (isRehashing() && !paused_) rehashSteps(1);
  }

  Node* lookup(const Key& key, uint64_t h) const {
    size_t i = h & t_[0].mask;
    if (!isRehashing() || i >= rehash_idx_) {  // below rehash_idx_ the bucket has moved
      for (Node* n = t_[0].buckets[i]; n; n = Traits::next(n)) {
        if (Traits::equal(n, key)) return n;
      }
      if (!isRehashing()) return nullptr;
    }
    for (Node* n = t_[1].buckets[h & t_[1].mask]; n; n = Traits::next(n)) {
      if (Traits::equal(n, key)) return n;
    }
    return nullptr;
  }

  template <class Match>
  Node* unlinkIf(uint64_t h, Match match) {
    for (int ti = 0; ti <= (isRehashing() ? 1 : 0); ti++) {
      Table& t = t_[ti];
      size_t i = h & t.mask;
      if (ti == 0 && isRehashing() && i < rehash_idx_) continue;
      for (Node** pp = &t.buckets[i]; *pp; pp = &Traits::next(*pp)) {
        if (match(*pp)) {
          Node* n = *pp;
          *pp = Traits::next(n);
          Traits::next(n) = nullptr;
          t.used--;
          return n;
        }
      }
    }
    return nullptr;
  }

  // Runs fn on a chain, reading each node's link before fn may unlink it.
  // Returns false if fn returned false.
  template <class Fn>
  static bool visitChain(Node* n, Fn&& fn) {
    while (n) {
      Node* next = Traits::next(n);
      if constexpr (std::is_same_v<std::invoke_result_t<Fn&, Node*>, bool>) {
        if (!fn(n)) return false;
      } else {
        fn(n);
      }
      n = next;
    }
    return true;
  }

  void prepareInsert() {
    assert(paused_ == 0 && clear_idx_ == 0);
    step();
    if (t_[0].buckets == nullptr) {
      if (!allocTable(t_[0], size_t{1} << kMinLog2)) {
        std::fprintf(stderr, "Dict: out of memory allocating the first bucket array\n");
        std::abort();
      }
    } else if (!isRehashing() && t_[0].used >= t_[0].size() &&
               (!g_dict_avoid_resize || t_[0].used / t_[0].size() > kForceResizeRatio) &&
               growAllowed()) {
      resize(t_[0].size() * 2);  // on failure keep going at a higher load
    }
  }

  bool growAllowed() const {
    if constexpr (requires { Traits::growAllowed(size_t{}, 0.0); }) {
      return Traits::growAllowed(
          t_[0].size() * 2 * sizeof(Node*),
          static_cast<double>(t_[0].used) / static_cast<double>(t_[0].size()));
    } else {
      return true;
    }
  }

  void link(Node* node, uint64_t h) {
    Table& t = t_[isRehashing() ? 1 : 0];
    Node*& head = t.buckets[h & t.mask];
    Traits::next(node) = head;
    head = node;
    t.used++;
  }

  static bool allocTable(Table& t, size_t size) {
    const size_t bytes = size * sizeof(Node*);
    void* mem;
    if (bytes >= kMapThresholdBytes) {
      // Fresh anonymous pages read as zero and are faulted in one by one as
      // rehashing fills them: growing never pauses to clear memory.
      mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mem == MAP_FAILED) return false;
      g_dict_mapped_bytes.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
#if defined(__SANITIZE_ADDRESS__)
      // LeakSanitizer scans the heap, not mapped pages: without this root,
      // every node of a big table reads as leaked at exit.
      __lsan_register_root_region(mem, bytes);
#endif
    } else {
      mem = std::calloc(size, sizeof(Node*));
      if (mem == nullptr) return false;
    }
    t = Table{};
    t.buckets = static_cast<Node**>(mem);
    t.mask = size - 1;
    t.mapped = bytes >= kMapThresholdBytes;
    return true;
  }
  static void freeArray(Table& t) {
    if (t.mapped) {
#if defined(__SANITIZE_ADDRESS__)
      __lsan_unregister_root_region(t.buckets, t.size() * sizeof(Node*));
#endif
      size_t left = (t.size() - t.released) * sizeof(Node*);
      munmap(t.buckets + t.released, left);
      g_dict_mapped_bytes.fetch_sub(static_cast<int64_t>(left), std::memory_order_relaxed);
    } else {
      std::free(t.buckets);
    }
    t = Table{};
  }
  void appendTableStats(std::string* out, int ti) const {
    const Table& t = t_[ti];
    const char* what = ti == 0 ? "main hash table" : "rehashing target";
    char line[256];
    if (t.used == 0) {
      snprintf(line, sizeof(line),
               "Hash table %d stats (%s):\nNo stats available for empty dictionaries\n", ti, what);
      *out += line;
      return;
    }
    constexpr size_t kLengths = 50;  // chain lengths counted apart; longer ones in the last
    size_t by_len[kLengths] = {};
    size_t slots = 0, longest = 0, total = 0;
    // Buckets the rehash has moved (and maybe unmapped) are empty.
    size_t from = ti == 0 && isRehashing() ? rehash_idx_ : 0;
    by_len[0] = from;
    for (size_t i = from; i < t.size(); i++) {
      size_t len = 0;
      for (Node* n = t.buckets[i]; n != nullptr; n = Traits::next(n)) len++;
      by_len[len < kLengths ? len : kLengths - 1]++;
      if (len == 0) continue;
      slots++;
      longest = std::max(longest, len);
      total += len;
    }
    snprintf(line, sizeof(line),
             "Hash table %d stats (%s):\n table size: %zu\n number of elements: %zu\n"
             " different slots: %zu\n max chain length: %zu\n",
             ti, what, t.size(), t.used, slots, longest);
    *out += line;
    snprintf(line, sizeof(line),
             " avg chain length (counted): %.02f\n avg chain length (computed): %.02f\n"
             " Chain length distribution:\n",
             static_cast<double>(total) / static_cast<double>(slots),
             static_cast<double>(t.used) / static_cast<double>(slots));
    *out += line;
    for (size_t i = 0; i < kLengths - 1; i++) {
      if (by_len[i] == 0) continue;
      snprintf(line, sizeof(line), "   %zu: %zu (%.02f%%)\n", i, by_len[i],
               static_cast<double>(by_len[i]) / static_cast<double>(t.size()) * 100);
      *out += line;
    }
  }

  // Unmaps whole chunks of a mapped array that lie before bucket `idx`; the
  // code never reads buckets below rehash_idx_ (or clear_idx_) again.
  static void releaseBefore(Table& t, size_t idx) {
    constexpr size_t kChunk = kReleaseChunkBytes / sizeof(Node*);
    if (!t.mapped) return;
    size_t upto = idx / kChunk * kChunk;
    if (upto <= t.released) return;
    munmap(t.buckets + t.released, (upto - t.released) * sizeof(Node*));
    g_dict_mapped_bytes.fetch_sub(static_cast<int64_t>((upto - t.released) * sizeof(Node*)),
                                  std::memory_order_relaxed);
    t.released = upto;
  }

  // Starts moving to an array of the smallest power of two >= n (at least
  // the minimum size). With no entries, swaps the array at once.
  bool resize(size_t n) {
    size_t size = size_t{1} << kMinLog2;
    while (size < n) {
      if (size > (SIZE_MAX / sizeof(Node*)) / 2) return false;
      size *= 2;
    }
    if (size == t_[0].size()) return false;
    Table fresh;
    if (!allocTable(fresh, size)) return false;
    if (t_[0].used == 0) {
      freeArray(t_[0]);
      t_[0] = fresh;
      return true;
    }
    t_[1] = fresh;
    rehash_idx_ = 0;
    return true;
  }

  void moveBucket(size_t i) {
    Table& from = t_[0];
    Table& to = t_[1];
    Node* n = from.buckets[i];
    from.buckets[i] = nullptr;
    if (to.mask < from.mask) {
      // Shrinking: all nodes of bucket i land in bucket i & to.mask, so the
      // chain is spliced whole without hashing a single key.
      size_t count = 1;
      Node* tail = n;
      while (Traits::next(tail)) {
        tail = Traits::next(tail);
        count++;
      }
      Node*& dest = to.buckets[i & to.mask];
      Traits::next(tail) = dest;
      dest = n;
      from.used -= count;
      to.used += count;
      return;
    }
    while (n) {
      Node* next = Traits::next(n);
      Node*& dest = to.buckets[nodeHash(n) & to.mask];
      Traits::next(n) = dest;
      dest = n;
      from.used--;
      to.used++;
      n = next;
    }
  }

  void finishRehash() {
    freeArray(t_[0]);
    t_[0] = t_[1];
    t_[1] = Table{};
    rehash_idx_ = kNotRehashing;
  }

  // Buckets of both arrays as one index space, without the moved ones:
  // [rehash_idx_, size0) in the old array, then the new array.
  size_t flatSize() const {
    return isRehashing() ? t_[0].size() - rehash_idx_ + t_[1].size() : t_[0].size();
  }
  Node* bucketAtFlatIndex(uint64_t r) const {
    if (!isRehashing()) return t_[0].buckets[r & t_[0].mask];
    size_t i = r % flatSize();
    size_t old_left = t_[0].size() - rehash_idx_;
    return i < old_left ? t_[0].buckets[rehash_idx_ + i] : t_[1].buckets[i - old_left];
  }

  void freeTables() {
    if (t_[0].buckets) freeArray(t_[0]);
    if (t_[1].buckets) freeArray(t_[1]);
    rehash_idx_ = kNotRehashing;
    clear_idx_ = 0;
  }

  // A bucket drawn uniformly among the non-empty ones (random probes); a
  // table so sparse that kRandomProbes all miss is walked from a random
  // bucket instead, which favours buckets after long empty runs (tables are
  // shrunk long before that is likely).
  Node* randomNonEmptyBucket() const {
    Node* head = nullptr;
    for (size_t probe = 0; head == nullptr && probe < kRandomProbes; probe++) {
      head = bucketAtFlatIndex(randomU64());
    }
    if (head == nullptr) {
      size_t total = flatSize(), i = randomU64() % total;
      while ((head = bucketAtFlatIndex(i)) == nullptr) i = (i + 1) % total;
    }
    return head;
  }

  Table t_[2];
  size_t rehash_idx_ = kNotRehashing;          // next bucket of t_[0] to move
  uint32_t paused_ = 0;                        // > 0 while a forEach/scan callback runs
  uint32_t random_bound_ = kRandomChainBound;  // see randomNode()
  size_t clear_idx_ = 0;                       // progress of clearSteps()
};

}  // namespace common
