#include "server/db/db.h"

#include <sys/time.h>

#include <cstdlib>
#include <new>

#include "event/event_loop.h"
#include "server/db/lfu.h"

namespace server::db {

int64_t Clock::nowMs = 0;
uint32_t Clock::lruSeconds = 0;
void (*Db::onExpired)(Db* db, std::string_view key) = nullptr;
void (*Db::onAdded)(Db* db, std::string_view key) = nullptr;
bool Db::expiry_paused = false;
bool Db::expiry_replica = false;
bool Db::master_view = false;
bool (*Db::lazy_free_value)(Value& v) = nullptr;
bool Db::lazy_expire = false;
bool Db::lazy_server_del = false;

void Clock::update() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  nowMs = static_cast<int64_t>(tv.tv_sec) * 1000 + tv.tv_usec / 1000;
  lruSeconds = static_cast<uint32_t>(tv.tv_sec) & 0xffffff;
}

// The access field: seconds clock for LRU, or the LFU counter and minutes
// when an LFU policy is selected (see lfu.h).
static uint32_t accessedField(uint32_t old) {
  return lfu::params.enabled ? lfu::touchedField(old, Clock::nowMs) : Clock::lruSeconds;
}

Db::~Db() {
  clear();
}

// Bytes before the entry in its block: the slot links, if it has them.
static constexpr size_t prefixBytes(bool with_links) {
  return with_links ? sizeof(SlotLinks) : 0;
}

template <bool kWithLinks>
Entry* Db::newEntry(std::string_view key, Value v) {
  constexpr size_t prefix = prefixBytes(kWithLinks);
  char* mem = static_cast<char*>(malloc(prefix + sizeof(Entry) + key.size()));
  if (mem == nullptr) throw std::bad_alloc();
  Entry* e = reinterpret_cast<Entry*>(mem + prefix);
  e->next = nullptr;
  new (&e->val) Value(std::move(v));
  e->lru = lfu::params.enabled ? lfu::initialField(Clock::nowMs) : Clock::lruSeconds;
  e->flags = kWithLinks ? Entry::kHasSlotLinks : 0;
  e->keylen = static_cast<uint32_t>(key.size());
  memcpy(e->key, key.data(), key.size());
  return e;
}
template Entry* Db::newEntry<false>(std::string_view key, Value v);
template Entry* Db::newEntry<true>(std::string_view key, Value v);

Entry* Db::newIndexedEntry(std::string_view key, Value&& v) {
  Entry* e = newEntry<true>(key, std::move(v));
  slots_->link(e);
  return e;
}

void Db::freeValue(Value& v, bool lazy) {
  if (lazy && lazy_free_value != nullptr && lazy_free_value(v)) return;
  v.reset();
}

void Db::releaseEntry(Entry* e) {
  e->val.~Value();
  free(reinterpret_cast<char*>(e) - prefixBytes(e->hasSlotLinks()));
}

void Db::freeEntry(Entry* e, bool lazy) {
  if (e->hasExpire()) {
    ExpireNode* x = expires_.erase(e);
    delete x;
  }
  freeValue(e->val, lazy);
  releaseEntry(e);
}

void Db::deleteEntry(Entry* e, bool lazy) {
  keys_.unlink(e);
  if (slots_) slots_->unlink(e);
  freeEntry(e, lazy);
}

bool Db::isExpired(const Entry* e) {
  if (!e->hasExpire()) return false;
  ExpireNode* x = expires_.find(e);
  return x != nullptr && x->when_ms <= Clock::nowMs;
}

void Db::expireNow(Entry* e) {
  expired_keys_++;
  // The signal needs the key while it still exists.
  if (onExpired != nullptr) onExpired(this, e->keyView());
  deleteEntry(e, lazy_expire);
}

Entry* Db::find(std::string_view key, bool for_write) {
  Entry* e = keys_.find(key);
  if (e == nullptr) return nullptr;
  // Under master_view (the master's stream on a replica, an AOF replayed
  // at load) a key whose TTL passed is still there, as for Redis while
  // loading: the DEL, or the first access afterwards, removes it.
  if (e->hasExpire() && isExpired(e) && !master_view) {
    // On a replica only its own clients' writes delete it; reads hide it.
    if (expiry_replica && !for_write) return nullptr;
    if (!expiry_paused) expireNow(e);
    return nullptr;
  }
  e->lru = accessedField(e->lru);
  return e;
}

Entry* Db::peek(std::string_view key) {
  return keys_.find(key);
}

Entry* Db::add(std::string_view key, Value v) {
  if (expiry_paused || expiry_replica) {
    // find() hid an expired key without deleting it: it goes now.
    Entry* old = keys_.find(key);
    if (old != nullptr) expireNow(old);
  }
  Entry* e = newKeyEntry(key, std::move(v));
  keys_.insert(e);
  if (onAdded != nullptr) onAdded(this, key);
  return e;
}

Entry* Db::set(std::string_view key, Value v, bool keep_ttl) {
  auto pos = keys_.findOrPrepareInsert(key);
  if (pos.found != nullptr && pos.found->hasExpire() && !expiry_paused && !expiry_replica &&
      isExpired(pos.found)) {
    // An expired key is deleted (signalled as expired) and the value is a
    // new key, as if the caller had looked it up first.
    expireNow(pos.found);
    return add(key, std::move(v));
  }
  if (pos.found != nullptr) {
    Entry* e = pos.found;
    freeValue(e->val, lazy_server_del);
    e->val = std::move(v);
    e->lru = accessedField(e->lru);
    if (!keep_ttl && e->hasExpire()) removeExpire(e);
    return e;
  }
  // Linking in the slot index touches only the new entry and the index,
  // not keys_: allowed between findOrPrepareInsert and insertAt.
  Entry* e = newKeyEntry(key, std::move(v));
  keys_.insertAt(pos, e);
  if (onAdded != nullptr) onAdded(this, key);
  return e;
}

bool Db::remove(std::string_view key) {
  return remove(key, lazy_server_del);
}

bool Db::remove(std::string_view key, bool lazy) {
  Entry* e = find(key);
  if (e == nullptr) return false;
  deleteEntry(e, lazy);
  return true;
}

void Db::removeEntry(Entry* e) {
  deleteEntry(e, lazy_server_del);
}

bool Db::removeForEviction(std::string_view key, bool lazy) {
  Entry* e = keys_.find(key);
  if (e == nullptr) return false;
  deleteEntry(e, lazy);
  return true;
}

size_t Db::sampleForEviction(bool volatile_only, Entry** out, size_t n) {
  if (!volatile_only) return keys_.sampleNodes(out, n);
  constexpr size_t kMax = 64;
  ExpireNode* nodes[kMax];
  size_t got = expires_.sampleNodes(nodes, n < kMax ? n : kMax);
  for (size_t i = 0; i < got; i++) out[i] = nodes[i]->entry;
  return got;
}

Entry* Db::randomForEviction(bool volatile_only) {
  if (!volatile_only) return keys_.randomNode();
  ExpireNode* x = expires_.randomNode();
  return x != nullptr ? x->entry : nullptr;
}

Value Db::take(Entry* e, int64_t* expire_ms) {
  *expire_ms = expireOf(e);
  Value v = std::move(e->val);
  removeEntry(e);
  return v;
}

int64_t Db::expireOf(const Entry* e) {
  if (!e->hasExpire()) return -1;
  ExpireNode* x = expires_.find(e);
  return x ? x->when_ms : -1;
}

void Db::setExpire(Entry* e, int64_t when_ms, bool from_data) {
  if (e->hasExpire()) {
    ExpireNode* x = expires_.find(e);
    if (x != nullptr) {
      x->when_ms = when_ms;
      return;
    }
  }
  auto* x = new ExpireNode{nullptr, e, when_ms};
  expires_.insert(x);
  e->flags |= Entry::kHasExpire;
  // A writable replica's own TTL: its active cycle will expire the key.
  if (expiry_replica && !master_view && !from_data)
    replica_own_ttl_.insert(std::string(e->keyView()));
}

size_t Db::expireReplicaOwnKeys(size_t max_visits) {
  size_t deleted = 0;
  auto it = replica_own_ttl_.lower_bound(replica_own_cursor_);
  for (size_t n = 0; n < max_visits && !replica_own_ttl_.empty(); n++) {
    if (it == replica_own_ttl_.end()) it = replica_own_ttl_.begin();
    Entry* e = keys_.find(*it);
    if (e == nullptr || !e->hasExpire()) {
      it = replica_own_ttl_.erase(it);  // gone, or persisted: not ours to expire
    } else if (isExpired(e)) {
      expireNow(e);
      deleted++;
      it = replica_own_ttl_.erase(it);
    } else {
      ++it;
    }
  }
  replica_own_cursor_ = it == replica_own_ttl_.end() ? std::string() : *it;
  return deleted;
}

bool Db::removeExpire(Entry* e) {
  if (!e->hasExpire()) return false;
  e->flags &= ~Entry::kHasExpire;
  ExpireNode* x = expires_.erase(e);
  delete x;
  return x != nullptr;
}

Entry* Db::randomEntry() {
  // Bounded: if every key sampled is expired, deleting them as we go makes
  // progress; give up after many tries (a db of only expired keys).
  for (int tries = 0; tries < 100 && keys_.size() > 0; tries++) {
    Entry* e = keys_.randomNode();
    if (e == nullptr) return nullptr;
    if (e->hasExpire() && isExpired(e) && !master_view) {
      if (!expiry_paused && !expiry_replica) expireNow(e);
      continue;
    }
    return e;
  }
  return nullptr;
}

uint64_t Db::scan(uint64_t cursor, const std::function<void(Entry*)>& fn) {
  return keys_.scan(cursor, [&](Entry* e) { fn(e); });
}

void Db::forEach(const std::function<void(Entry*)>& fn) {
  keys_.forEach([&](Entry* e) { fn(e); });
}

size_t Db::clear() {
  size_t n = keys_.size();
  expires_.clear([](ExpireNode* x) { delete x; });
  keys_.clear([](Entry* e) { releaseEntry(e); });
  if (slots_) slots_->reset();
  return n;
}

Db::Detached::~Detached() {
  expires_.clear([](ExpireNode* x) { delete x; });
  keys_.clear([](Entry* e) { releaseEntry(e); });
}

std::unique_ptr<Db::Detached> Db::detachAll() {
  auto d = std::make_unique<Detached>();
  d->keys_.swap(keys_);
  d->expires_.swap(expires_);
  replica_own_ttl_.clear();
  replica_own_cursor_.clear();
  // The detached entries keep their (now stale) links: only freed.
  if (slots_) slots_->reset();
  return d;
}

void Db::swapWith(Db& other) {
  keys_.swap(other.keys_);
  expires_.swap(other.expires_);
  std::swap(expired_keys_, other.expired_keys_);
  replica_own_ttl_.swap(other.replica_own_ttl_);
  replica_own_cursor_.swap(other.replica_own_cursor_);
  slots_.swap(other.slots_);
  if (slotIndexEnabled() != other.slotIndexEnabled()) {
    // Only one side had an index: it came here with the keys it covers.
    // Each db keeps its own setting: the indexed side builds one, the
    // other drops it (its entries keep unused links, freed as usual).
    Db& wants = slotIndexEnabled() ? other : *this;
    Db& gives = slotIndexEnabled() ? *this : other;
    gives.slots_.reset();
    wants.enableSlotIndex();
  }
}

size_t Db::activeExpireCycle(int64_t time_limit_us, int effort, ExpireCycleCounts* counts) {
  // Sample keys with a TTL in small batches; keep going while a batch shows
  // that a good share of them were expired, so a db full of dead keys is
  // cleaned quickly but a healthy db costs one batch per call.
  constexpr size_t kBaseSample = 20;
  if (expiry_replica) {
    if (expiry_paused || replica_own_ttl_.empty()) return 0;
    return expireReplicaOwnKeys(kBaseSample * 4 * static_cast<size_t>(effort));
  }
  if (!replica_own_ttl_.empty()) {
    // A master again: its cycle covers every key with a TTL.
    replica_own_ttl_.clear();
    replica_own_cursor_.clear();
  }
  size_t sample = kBaseSample + kBaseSample / 4 * static_cast<size_t>(effort - 1);
  size_t deleted = 0;
  int64_t start = event::EventLoop::nowUs();
  ExpireNode* batch[64];
  if (sample > 64) sample = 64;
  while (!expiry_paused && expires_.size() > 0) {
    size_t n = expires_.sampleNodes(batch, sample);
    size_t expired = 0;
    // Collect first, then delete: deleting changes the table under us.
    Entry* victims[64];
    for (size_t i = 0; i < n; i++) {
      if (batch[i]->when_ms <= Clock::nowMs) victims[expired++] = batch[i]->entry;
    }
    for (size_t i = 0; i < expired; i++) expireNow(victims[i]);
    deleted += expired;
    if (counts != nullptr) {
      counts->sampled += n;
      counts->expired += expired;
    }
    if (n == 0 || expired * 10 < n) break;  // under 10% stale: good enough
    if (event::EventLoop::nowUs() - start > time_limit_us) {
      if (counts != nullptr) counts->time_cap = true;
      break;
    }
  }
  return deleted;
}

void Db::cronRehash(int64_t us) {
  // Not while a forked child runs: every bucket moved is a page copied.
  if (common::g_dict_avoid_resize) return;
  keys_.rehashMicroseconds(us);
  expires_.rehashMicroseconds(us);
  keys_.tryShrink();
  expires_.tryShrink();
}

}  // namespace server::db
