#include "server/evict/evict.h"

#include <climits>
#include <cmath>
#include <string>

#include "common/hash.h"
#include "common/log.h"
#include "event/event_loop.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/db/lfu.h"
#include "server/evict/allocator.h"
#include "server/evict/client_evict.h"
#include "server/evict/lazyfree.h"
#include "server/persist/persist.h"
#include "server/repl/repl.h"
#include "server/request/keyspace.h"
#include "server/request/multi.h"
#include "server/request/pause.h"

namespace server::evict {

Stats stats;
bool g_limits_active = false;

namespace {

// The configuration as eviction reads it, refreshed by applyConfig().
struct Settings {
  uint64_t maxmemory = 0;
  Policy policy = Policy::kNoEviction;
  size_t samples = 5;
  int64_t tenacity = 10;
  bool lazy_eviction = false;
  bool decay = true;  // jemalloc-bg-thread
};
Settings g_cfg;

bool g_script_oom = false;
event::TimerId g_timer = 0;  // non-zero while the eviction timer runs
size_t g_next_random_db = 0;

// Candidates for eviction, kept sorted by ascending score (idle time, or
// its analogue for LFU/TTL): the best candidate is the last. Keys are
// copies: a candidate may be deleted by the time it is picked.
constexpr size_t kPoolSize = 16;
struct Candidate {
  uint64_t score = 0;
  int db = -1;  // -1: empty slot
  std::string key;
};
Candidate g_pool[kPoolSize];

bool isVolatile(Policy p) {
  return p == Policy::kVolatileLru || p == Policy::kVolatileLfu || p == Policy::kVolatileRandom ||
         p == Policy::kVolatileTtl;
}
bool isRandom(Policy p) {
  return p == Policy::kAllKeysRandom || p == Policy::kVolatileRandom;
}

Policy parsePolicy(const std::string& s) {
  static const struct {
    const char* name;
    Policy p;
  } kNames[] = {
      {"noeviction", Policy::kNoEviction},          {"allkeys-lru", Policy::kAllKeysLru},
      {"allkeys-lfu", Policy::kAllKeysLfu},         {"allkeys-random", Policy::kAllKeysRandom},
      {"volatile-lru", Policy::kVolatileLru},       {"volatile-lfu", Policy::kVolatileLfu},
      {"volatile-random", Policy::kVolatileRandom}, {"volatile-ttl", Policy::kVolatileTtl}};
  for (const auto& n : kNames) {
    if (s == n.name) return n.p;
  }
  return Policy::kNoEviction;
}

// Seconds since the entry's last access, from the 24-bit LRU clock (which
// wraps every 194 days).
uint64_t idleMs(const db::Entry* e) {
  uint32_t now = db::Clock::lruSeconds;
  uint32_t then = e->lru;
  uint64_t secs = now >= then ? now - then : (0xffffffu - then) + now;
  return secs * 1000;
}

// Higher is a better candidate.
uint64_t scoreOf(db::Db* d, const db::Entry* e, Policy p) {
  switch (p) {
    case Policy::kAllKeysLru:
    case Policy::kVolatileLru:
      return idleMs(e);
    case Policy::kAllKeysLfu:
    case Policy::kVolatileLfu:
      return 255 - db::lfu::decayedCounter(e->lru, db::Clock::nowMs, db::lfu::params.decay_time);
    case Policy::kVolatileTtl:
      return UINT64_MAX - static_cast<uint64_t>(d->expireOf(e));
    default:
      return 0;
  }
}

void poolInsert(int dbid, const db::Entry* e, uint64_t score) {
  // First slot whose score is not lower than ours (or an empty one).
  size_t k = 0;
  while (k < kPoolSize && g_pool[k].db != -1 && g_pool[k].score < score) k++;
  if (k == 0 && g_pool[kPoolSize - 1].db != -1) return;  // worse than every candidate
  if (k < kPoolSize && g_pool[k].db == -1) {
    // Empty slot: take it.
  } else if (g_pool[kPoolSize - 1].db == -1) {
    // Room at the end: shift the better ones right. The last (empty) slot's
    // string moves to k so its capacity is reused.
    std::string spare = std::move(g_pool[kPoolSize - 1].key);
    for (size_t i = kPoolSize - 1; i > k; i--) g_pool[i] = std::move(g_pool[i - 1]);
    g_pool[k].key = std::move(spare);
  } else {
    // Full: drop the worst (first) and shift the ones below k left.
    k--;
    std::string spare = std::move(g_pool[0].key);
    for (size_t i = 0; i < k; i++) g_pool[i] = std::move(g_pool[i + 1]);
    g_pool[k].key = std::move(spare);
  }
  g_pool[k].score = score;
  g_pool[k].db = dbid;
  g_pool[k].key.assign(e->key, e->keylen);
}

void poolPopulate(db::Db* d, Policy p) {
  constexpr size_t kMaxBatch = 64;
  db::Entry* batch[kMaxBatch];
  size_t want = g_cfg.samples;
  while (want > 0) {
    size_t n = d->sampleForEviction(isVolatile(p), batch, want < kMaxBatch ? want : kMaxBatch);
    if (n == 0) break;
    for (size_t i = 0; i < n; i++) poolInsert(d->id(), batch[i], scoreOf(d, batch[i], p));
    want -= std::min(want, kMaxBatch);
  }
}

// The key to evict next, through the pool (LRU/LFU/TTL) or at random.
// Returns false when no db holds an evictable key.
bool pickVictim(int* dbid, std::string* key) {
  server::Server& s = *server::g_server;
  Policy p = g_cfg.policy;
  bool vol = isVolatile(p);
  if (isRandom(p)) {
    // Round robin over the dbs so that each call starts with the next one.
    for (size_t i = 0; i < s.dbs.size(); i++) {
      size_t idx = (g_next_random_db++) % s.dbs.size();
      db::Db& d = *s.dbs[idx];
      db::Entry* e = d.randomForEviction(vol);
      if (e != nullptr) {
        *dbid = static_cast<int>(idx);
        key->assign(e->key, e->keylen);
        return true;
      }
    }
    return false;
  }
  for (;;) {
    size_t candidates = 0;
    for (auto& dp : s.dbs) {
      size_t n = vol ? dp->expiresSize() : dp->size();
      if (n == 0) continue;
      poolPopulate(dp.get(), p);
      candidates += n;
    }
    if (candidates == 0) return false;
    // Best first; a candidate deleted since it was sampled is dropped.
    for (size_t k = kPoolSize; k-- > 0;) {
      Candidate& c = g_pool[k];
      if (c.db == -1) continue;
      int id = c.db;
      c.db = -1;
      db::Entry* e = s.dbAt(id).peek(c.key);
      if (e == nullptr || (vol && !e->hasExpire())) continue;
      *dbid = id;
      key->swap(c.key);
      return true;
    }
  }
}

// Microseconds one performEvictions() call may run (tenacity 0..100).
int64_t timeLimitUs() {
  int64_t t = g_cfg.tenacity;
  if (t <= 10) return 50 * t;
  if (t < 100) return static_cast<int64_t>(500.0 * std::pow(1.15, static_cast<double>(t - 10)));
  return INT64_MAX;
}

void startTimer() {
  if (g_timer != 0) return;
  g_timer = server::g_server->loop.addTimer(0, [](event::EventLoop*, event::TimerId) {
    // Keep going while a round ends at its time limit.
    if (performEvictions() == Result::kRunning) return 0;
    g_timer = 0;
    return event::kNoMore;
  });
}

// Paused clients (CLIENT PAUSE) keep the dataset still, and a loading RDB
// file is not evicted from: no eviction then, as in Redis 7.0.
bool safeToEvict() {
  return !server::pause::active() && !persist::loading();
}

void trackExceededTime(bool over) {
  int64_t now = db::Clock::nowMs;
  if (over) {
    if (stats.exceeded_since_ms == 0) stats.exceeded_since_ms = now;
  } else if (stats.exceeded_since_ms != 0) {
    stats.exceeded_time_ms += static_cast<uint64_t>(now - stats.exceeded_since_ms);
    stats.exceeded_since_ms = 0;
  }
}

}  // namespace

void resetStats() {
  int64_t since = stats.exceeded_since_ms;
  stats = Stats();
  if (since != 0) stats.exceeded_since_ms = db::Clock::nowMs;
  lazyfree::resetStats();
}

Policy policy() {
  return g_cfg.policy;
}

int reportedRefcount(const db::Value& v) {
  constexpr int64_t kSharedIntegers = 10000;
  if (!v.isInt() || v.intValue() < 0 || v.intValue() >= kSharedIntegers) return 1;
  Policy p = g_cfg.policy;
  bool own_objects =
      g_cfg.maxmemory != 0 && (p == Policy::kAllKeysLru || p == Policy::kAllKeysLfu ||
                               p == Policy::kVolatileLru || p == Policy::kVolatileLfu);
  return own_objects ? 1 : INT_MAX;
}

const char* policyName(Policy p) {
  switch (p) {
    case Policy::kNoEviction:
      return "noeviction";
    case Policy::kAllKeysLru:
      return "allkeys-lru";
    case Policy::kAllKeysLfu:
      return "allkeys-lfu";
    case Policy::kAllKeysRandom:
      return "allkeys-random";
    case Policy::kVolatileLru:
      return "volatile-lru";
    case Policy::kVolatileLfu:
      return "volatile-lfu";
    case Policy::kVolatileRandom:
      return "volatile-random";
    case Policy::kVolatileTtl:
      return "volatile-ttl";
  }
  return "noeviction";
}

namespace {

// Used memory as maxmemory counts it (notCountedForEvict() left out).
size_t countedUsed() {
  size_t used = usedMemory();
  size_t not_counted = notCountedForEvict();
  return used > not_counted ? used - not_counted : 0;
}

// Bytes over maxmemory (what eviction must free), 0 when under.
size_t overBy() {
  size_t used = countedUsed();
  return used > g_cfg.maxmemory ? used - g_cfg.maxmemory : 0;
}

}  // namespace

bool overMaxmemory(double* level) {
  if (g_cfg.maxmemory == 0) {
    if (level != nullptr) *level = 0;
    return false;
  }
  size_t used = countedUsed();
  if (level != nullptr) *level = static_cast<double>(used) / static_cast<double>(g_cfg.maxmemory);
  return used > g_cfg.maxmemory;
}

void applyConfig(std::string_view name) {
  const server::Config& cfg = server::g_server->config;
  uint64_t old_max = g_cfg.maxmemory;
  g_cfg.maxmemory = static_cast<uint64_t>(cfg.maxmemory);
  g_cfg.policy = parsePolicy(cfg.maxmemory_policy);
  g_cfg.samples = static_cast<size_t>(cfg.maxmemory_samples);
  g_cfg.tenacity = cfg.maxmemory_eviction_tenacity;
  g_cfg.lazy_eviction = cfg.lazyfree_lazy_eviction;
  g_cfg.decay = cfg.jemalloc_bg_thread;
  lazyfree::applyConfig();
  applyClientConfig();
  g_limits_active = g_cfg.maxmemory != 0 || clientLimitBytes() != 0;
  // Under maxmemory the keyspace's tables grow only when the new array fits
  // (or their load is high): growing into eviction would evict keys to make
  // room for the table that holds them.
  db::g_table_growth_fits = nullptr;
  if (g_cfg.maxmemory != 0)
    db::g_table_growth_fits = [](size_t more) { return countedUsed() + more <= g_cfg.maxmemory; };
  if (g_cfg.maxmemory == 0) g_script_oom = false;
  if (name == "maxmemory-policy") {
    // Candidates were scored under the old policy.
    for (Candidate& c : g_pool) c.db = -1;
  }
  if (name.empty() && g_cfg.maxmemory != 0 && g_cfg.maxmemory < 1024 * 1024) {
    LOG_WARNING(
        "WARNING: You specified a maxmemory value that is less than 1MB (current value is %llu "
        "bytes). Are you sure this is what you really want?",
        static_cast<unsigned long long>(g_cfg.maxmemory));
  }
  if (name == "maxmemory" && g_cfg.maxmemory != 0) {
    size_t used = countedUsed();
    if (g_cfg.maxmemory < used && g_cfg.maxmemory != old_max) {
      LOG_WARNING(
          "WARNING: the new maxmemory value set via CONFIG SET (%llu) is smaller than the current "
          "memory usage (%zu). This will result in key eviction and/or the inability to accept "
          "new write commands depending on the maxmemory-policy.",
          static_cast<unsigned long long>(g_cfg.maxmemory), used);
    }
    startTimer();
  }
}

void cron() {
  if (g_cfg.decay) decayTick();
}

// Evicts the key; returns the memory its removal gave back (as the
// allocator's figure moved).
size_t evictKey(db::Db* d, std::string_view key) {
  stats.evicted_keys++;
  size_t before = usedMemory();
  d->removeForEviction(key, g_cfg.lazy_eviction);
  size_t after = usedMemory();
  // After the delete and its measure, as Redis: WATCH sees the key
  // modified, tracking clients get an invalidation and subscribers the
  // "evicted" event. Those messages take memory too, but counting them
  // would evict more keys to make room for more messages about them.
  server::keyEvicted(d, key, g_cfg.lazy_eviction);
  return before > after ? before - after : 0;
}

Result performEvictions() {
  if (!safeToEvict()) return Result::kOk;
  // replica-ignore-maxmemory: a replica's data set is its master's.
  if (server::repl::g_is_replica && server::g_server->config.replica_ignore_maxmemory)
    return Result::kOk;
  if (!overMaxmemory()) {
    trackExceededTime(false);
    return Result::kOk;
  }
  trackExceededTime(true);
  if (g_cfg.policy == Policy::kNoEviction) return Result::kFail;
  int64_t start = event::EventLoop::nowUs();
  int64_t limit = timeLimitUs();
  // The goal is set once: what the deletions give back counts towards it,
  // not what their invalidation messages take meanwhile (Redis's rule; a
  // later command evicts again if those messages are still queued then).
  size_t to_free = overBy();
  size_t freed = 0;
  std::string key;
  size_t freed_keys = 0;
  Result result = Result::kOk;
  for (;;) {
    int dbid;
    if (!pickVictim(&dbid, &key)) {
      result = Result::kFail;
      break;
    }
    freed += evictKey(&server::g_server->dbAt(dbid), key);
    freed_keys++;
    if (freed >= to_free) break;
    // Values given to the lazy-free thread come back later: check the
    // figure itself now and then.
    if (freed_keys % 16 == 0 && g_cfg.lazy_eviction && !overMaxmemory()) break;
    if (freed_keys % 16 == 0 && event::EventLoop::nowUs() - start > limit) {
      startTimer();
      result = Result::kRunning;
      break;
    }
  }
  if (result == Result::kFail && lazyfree::pendingObjects() > 0) {
    // Out of keys, but the lazy-free thread still holds memory it is about
    // to give back: wait for it briefly, as Redis does.
    lazyfree::waitIdle(limit > 0 ? limit : 50);
    if (!overMaxmemory()) result = Result::kOk;
  }
  if (result == Result::kOk) trackExceededTime(false);
  return result;
}

bool scriptOom() {
  return g_script_oom;
}

bool beforeCommand(server::Client* c, server::Command* cmd, bool* client_freed) {
  *client_freed = false;
  if (clientLimitBytes() != 0 && evictClients(c)) {
    *client_freed = true;
    return false;
  }
  if (g_cfg.maxmemory == 0) {
    g_script_oom = false;
    return true;
  }
  bool out_of_memory = performEvictions() == Result::kFail;
  // Scripts decide on the state at their start (hook for EVAL/FCALL).
  g_script_oom = out_of_memory;
  if (!out_of_memory) return true;
  bool reject = (cmd->flags & server::kDenyOom) != 0;
  std::string_view name = cmd->name;
  if (name == "exec" && (server::multiQueuedFlags(c) & server::kDenyOom)) reject = true;
  // Queuing in MULTI can take unbounded memory: only the commands that end
  // a transaction (or the connection) pass.
  if (server::inMulti(c) && name != "exec" && name != "discard" && name != "quit" &&
      name != "reset") {
    reject = true;
  }
  if (!reject) return true;
  cmd->rejected_calls++;
  server::multiFlagError(c);
  if (name == "exec") {
    server::multiExecAbort(c, kOomError);
  } else {
    c->addError(kOomError);
  }
  return false;
}

}  // namespace server::evict
