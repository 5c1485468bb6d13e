// One logical database (SELECT n): the keyspace dict of entries plus the
// expires index, with lazy and active expiry.
//
// Contract for command code:
// - find() is the lookup for reads and writes: an entry whose TTL has passed
//   is deleted there and reported absent (lazy expiry).
// - Entries are owned by the Db. A pointer from find() stays valid until the
//   next call that adds or removes keys (add/remove/set/clear/expire cycle).
// - Every write to a key must end with a call to the server's key-modified
//   signal (see server/request/keyspace.h); the Db itself does not know about
//   clients.
// - In cluster mode the Db also indexes its keys by hash slot (slots.h):
//   every path that adds or removes an entry keeps that index exact.
//
// Module db/ (namespace server::db): owns the keyspace and every value
// type's in-memory encodings (value.h: the Value and its Kind; strings,
// listpack, quicklist, intset, hash, set, zset and skiplist, stream,
// HyperLogLog, LFU counters). May include common/ and event/ only: it knows
// nothing of clients, commands, config or persistence. Included by core/,
// request/, commands/, persist/, evict/, repl/, script/ and cluster/; db.h
// (this file), value.h and slots.h (hash slots) are its entry; the encodings'
// headers are read by the command families and the RDB code that convert them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "common/dict.h"
#include "server/db/slots.h"
#include "server/db/value.h"

namespace server::db {

struct Entry {
  Entry* next;  // dict chain
  Value val;
  uint32_t lru : 24;  // access time, seconds mod 2^24 (OBJECT IDLETIME)
  uint32_t flags : 8;
  uint32_t keylen;
  char key[];

  static constexpr uint8_t kHasExpire = 1;
  // The block starts sizeof(SlotLinks) bytes before the entry, with its
  // links in the slot index (slots.h). Set once, when it is allocated.
  static constexpr uint8_t kHasSlotLinks = 2;
  std::string_view keyView() const { return std::string_view(key, keylen); }
  bool hasExpire() const { return (flags & kHasExpire) != 0; }
  bool hasSlotLinks() const { return (flags & kHasSlotLinks) != 0; }
};
static_assert(sizeof(Entry) == 32, "entry header size changed");

struct ExpireNode {
  ExpireNode* next;
  Entry* entry;
  int64_t when_ms;
};

// Whether the keyspace's and expires' tables may grow by `more_bytes` now:
// set by server/evict (false when that would pass maxmemory), as Redis
// holds a table's growth back until its load reaches kGrowAnywayLoad.
// nullptr: always.
inline bool (*g_table_growth_fits)(size_t more_bytes) = nullptr;
inline constexpr double kGrowAnywayLoad = 1.618;
inline bool keyTableGrowAllowed(size_t more_bytes, double load) {
  return load > kGrowAnywayLoad || g_table_growth_fits == nullptr ||
         g_table_growth_fits(more_bytes);
}

struct KeyTraits {
  using Node = Entry;
  using Key = std::string_view;
  static Entry*& next(Entry* n) { return n->next; }
  static uint64_t hash(std::string_view k) { return common::hashBytes(k.data(), k.size()); }
  static bool equal(const Entry* n, std::string_view k) {
    return n->keylen == k.size() && memcmp(n->key, k.data(), k.size()) == 0;
  }
  static std::string_view key(const Entry* n) { return n->keyView(); }
  static bool growAllowed(size_t more, double load) { return keyTableGrowAllowed(more, load); }
};

struct ExpireTraits {
  using Node = ExpireNode;
  using Key = const Entry*;
  static ExpireNode*& next(ExpireNode* n) { return n->next; }
  static uint64_t hash(const Entry* e) { return common::hashU64(reinterpret_cast<uintptr_t>(e)); }
  static bool equal(const ExpireNode* n, const Entry* e) { return n->entry == e; }
  static const Entry* key(const ExpireNode* n) { return n->entry; }
  static bool growAllowed(size_t more, double load) { return keyTableGrowAllowed(more, load); }
};

// Clock shared by all Dbs: milliseconds used for expiry decisions and the
// LRU seconds clock. The server updates it once per event-loop iteration
// and before each command (Redis's cached time), so one command sees one
// time.
struct Clock {
  static int64_t nowMs;
  static uint32_t lruSeconds;
  static void update();
};

class Db {
 public:
  explicit Db(int id) : id_(id) {}
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  int id() const { return id_; }
  size_t size() const { return keys_.size(); }
  size_t expiresSize() const { return expires_.size(); }

  // Lookup with lazy expiry; updates the access time. nullptr if absent.
  // `for_write`: on a replica (expiry_replica) an expired key is deleted
  // by a write of its own clients, as Redis's write lookups force it; a
  // read only sees it as absent.
  Entry* find(std::string_view key, bool for_write = false);
  // Lookup without expiry or access-time effects (introspection).
  Entry* peek(std::string_view key);

  // Inserts a new key (must be absent: call find() first).
  Entry* add(std::string_view key, Value v);
  // Insert or overwrite, one hash. Overwriting drops the TTL unless
  // keep_ttl. Returns the entry.
  Entry* set(std::string_view key, Value v, bool keep_ttl);
  // Deletes a key; false if absent (expired keys count as absent). The
  // value is freed as lazy_server_del says, or as `lazy` says (DEL under
  // lazyfree-lazy-user-del, UNLINK).
  bool remove(std::string_view key);
  bool remove(std::string_view key, bool lazy);
  void removeEntry(Entry* e);
  // Moves the entry's value and TTL out (RENAME/MOVE), deleting the key.
  Value take(Entry* e, int64_t* expire_ms);

  // Absolute expiry in ms since the epoch; -1 when none.
  int64_t expireOf(const Entry* e);
  // from_data: the TTL comes with loaded data (an RDB, the master's), not
  // from a writable replica's own client, so a replica never expires it on
  // its own.
  void setExpire(Entry* e, int64_t when_ms, bool from_data = false);
  bool removeExpire(Entry* e);
  bool isExpired(const Entry* e);

  // A random live key (expired ones met on the way are deleted); nullptr if
  // the db is empty.
  Entry* randomEntry();
  // SCAN step over the keyspace; see common::Dict::scan. fn may not modify
  // the db.
  uint64_t scan(uint64_t cursor, const std::function<void(Entry*)>& fn);
  void forEach(const std::function<void(Entry*)>& fn);

  // Pre-sizes the keyspace for n keys (RDB loading knows the count from
  // the file's RESIZEDB opcode and saves the rehashing on the way).
  void reserve(size_t n) { keys_.expand(n); }

  // Frees every key. Returns the number removed.
  size_t clear();
  // Empties the db at once and hands the old keys back in an object whose
  // destructor frees them (FLUSHDB ASYNC: destroyed on the lazy-free
  // thread). Nothing in it may be touched but size() and the destructor.
  class Detached;
  std::unique_ptr<Detached> detachAll();

  // ---- cluster hash slots (slots.h)
  // Turns on the per-slot key index (cluster mode; once, at start-up). On a
  // non-empty db the keys are indexed now, each moved to a new block with
  // room for its links: O(keys), and every Entry pointer held is invalid
  // afterwards. Enable it on a db before loading keys into it (a diskless
  // load's temporary db too) and no entry ever moves. No-op when on.
  void enableSlotIndex();
  bool slotIndexEnabled() const { return slots_ != nullptr; }
  // The rest need the index (slotIndexEnabled()); slot is 0 .. 16383.
  // Keys in a slot, O(1). Expired keys not yet deleted count.
  size_t countKeysInSlot(int slot) const;
  // Calls fn with up to max key names of the slot and returns how many;
  // O(keys returned). Expired keys not yet deleted may be among them. fn
  // may not modify the db.
  size_t keysInSlot(int slot, size_t max, const std::function<void(std::string_view)>& fn) const;
  // Deletes every key of the slot as remove() does (lazy_server_del), but
  // without expiry checks: expired keys go too, onExpired is not called.
  // Returns the number deleted. Signals and propagation are the caller's.
  size_t removeKeysInSlot(int slot);

  // ---- eviction (server/evict/)
  // Up to n entries from a run of the keyspace (volatile_only: of the keys
  // with a TTL); fewer, or 0 when empty. No expiry or access-time effects.
  size_t sampleForEviction(bool volatile_only, Entry** out, size_t n);
  // A random key (volatile_only: with a TTL), nullptr when none; no expiry.
  Entry* randomForEviction(bool volatile_only);
  // Deletes an existing key without expiry checks, freeing the value in
  // the background when `lazy`. False if absent.
  bool removeForEviction(std::string_view key, bool lazy);

  // Lazy freeing (server/evict/lazyfree.h): when set, values worth freeing
  // in the background are handed to it (it takes the value and returns
  // true, or leaves it and returns false). lazy_expire and lazy_server_del
  // mirror lazyfree-lazy-expire and lazyfree-lazy-server-del.
  static bool (*lazy_free_value)(Value& v);
  static bool lazy_expire;
  static bool lazy_server_del;
  // Exchanges the contents of two dbs (SWAPDB, a diskless load's swap with
  // the loaded db). Whether each db keeps a slot index stays with the db:
  // the index moves with the keys, and is rebuilt (or dropped) on a side
  // whose setting differs from the one its new keys came from.
  void swapWith(Db& other);

  // What active expiry looked at, summed over calls (INFO stats:
  // expired_stale_perc, expired_time_cap_reached_count).
  struct ExpireCycleCounts {
    size_t sampled = 0;     // keys with a TTL examined
    size_t expired = 0;     // of those, found expired and deleted
    bool time_cap = false;  // a call stopped at its time limit
  };
  // Active expiry: samples keys with a TTL and deletes the expired ones until
  // time_limit_us has passed or few expired ones are found. Returns the
  // number deleted, and adds what it saw to *counts when given. Also
  // advances incremental rehashing.
  size_t activeExpireCycle(int64_t time_limit_us, int effort, ExpireCycleCounts* counts = nullptr);
  // Keys a writable replica's own clients gave a TTL, by name (INFO
  // slave_expires_tracked_keys counts the distinct names over every db).
  const std::set<std::string>& replicaOwnTtlKeys() const { return replica_own_ttl_; }
  void cronRehash(int64_t us);

  uint64_t expiredKeys() const { return expired_keys_; }
  size_t keysMemory() const { return keys_.memoryUsage() + expires_.memoryUsage(); }
  // The two tables apart (MEMORY STATS overhead.hashtable.*).
  size_t mainTableMemory() const { return keys_.memoryUsage(); }
  size_t expiresTableMemory() const { return expires_.memoryUsage(); }
  // DEBUG HTSTATS: the keyspace's and the expires' tables, as Redis words it.
  void appendTableStats(std::string* out) const {
    *out += "[Dictionary HT]\n";
    keys_.appendStats(out);
    *out += "[Expires HT]\n";
    expires_.appendStats(out);
  }

  // Called whenever a key is deleted because it expired (keyspace stats,
  // WATCH). Set by the server.
  static void (*onExpired)(Db* db, std::string_view key);
  // Called when add() or set() creates a key that did not exist (keyspace
  // notification "new"), right after it is inserted. Set by the server.
  static void (*onAdded)(Db* db, std::string_view key);

  // True while CLIENT PAUSE is in effect (set by server/request/pause.cpp): as in
  // Redis 7.0 the dataset then stays still, so expired keys read as absent
  // but are not deleted, and the active cycle deletes nothing. Writes are
  // held during a pause; add() still replaces an expired key kept this way.
  static bool expiry_paused;
  // A replica (server/repl/replica/): expired keys read as absent but are
  // not deleted by reads or the active cycle; the master's DEL removes
  // them. While master_view is set (a command of the master's stream runs,
  // or an AOF is replayed at load, on any server) they are still seen, as
  // the master may not have expired them yet. Keys
  // a writable replica's own clients gave a TTL are the exception, as in
  // Redis: they are remembered (setExpire without master_view) and the
  // active cycle deletes them once expired.
  static bool expiry_replica;
  static bool master_view;
  // A TTL given already past (EXPIRE with a past time, SET ... PXAT in the
  // past) deletes the key at once, except on a replica and while data is
  // replayed (master_view: the master's stream, an AOF at load), where the
  // key stays, logically expired, until a DEL (Redis's checkAlreadyExpired).
  static bool pastTtlDeletes() { return !expiry_replica && !master_view; }

 private:
  // A new entry; kWithLinks: in a block with room for its slot links
  // (kHasSlotLinks), not yet linked. Defined for both in db.cpp.
  template <bool kWithLinks>
  static Entry* newEntry(std::string_view key, Value v);
  // The entry add() and set() insert: linked in the slot index when there
  // is one, so that their paths test slots_ once.
  Entry* newKeyEntry(std::string_view key, Value&& v) {
    if (slots_ == nullptr) [[likely]]
      return newEntry<false>(key, std::move(v));
    return newIndexedEntry(key, std::move(v));
  }
  Entry* newIndexedEntry(std::string_view key, Value&& v);
  static void freeValue(Value& v, bool lazy);
  // Frees an entry that is in no table any more: its value and block only.
  static void releaseEntry(Entry* e);
  // Drops e's TTL record, frees its value (in the background when lazy) and
  // its block. e is already out of keys_ and the slot index.
  void freeEntry(Entry* e, bool lazy);
  // Takes e out of keys_ and the slot index, then freeEntry().
  void deleteEntry(Entry* e, bool lazy);
  // enableSlotIndex's move of an entry without slot links to a new block
  // that has them; keys_ and expires_ follow. Returns the new entry.
  Entry* moveToLinkedBlock(Entry* e);
  void expireNow(Entry* e);
  // The active cycle of a replica: visits up to max_visits remembered keys
  // (round-robin from the cursor), deletes the expired ones, forgets those
  // gone or without a TTL. Returns how many it deleted.
  size_t expireReplicaOwnKeys(size_t max_visits);

  int id_;
  common::Dict<KeyTraits> keys_;
  common::Dict<ExpireTraits> expires_;
  uint64_t expired_keys_ = 0;
  // Keys given a TTL by a writable replica's own clients (expiry_replica).
  std::set<std::string> replica_own_ttl_;
  std::string replica_own_cursor_;
  // The per-slot key index; nullptr unless enableSlotIndex() (cluster mode).
  std::unique_ptr<SlotIndex> slots_;
};

class Db::Detached {
 public:
  ~Detached();
  size_t size() const { return keys_.size(); }

 private:
  friend class Db;
  common::Dict<KeyTraits> keys_;
  common::Dict<ExpireTraits> expires_;
};

}  // namespace server::db
