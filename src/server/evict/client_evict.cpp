#include "server/evict/client_evict.h"

#include <algorithm>
#include <vector>

#include "common/log.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/evict/evict.h"
#include "server/pubsub/pubsub.h"
#include "server/pubsub/tracking.h"
#include "server/request/multi.h"

namespace server::evict {

namespace {

uint64_t g_limit = 0;

// Clients whose memory counts: normal and pub/sub ones (Redis leaves out
// replicas, and monitors, which are replicas there).
bool counted(const server::Client* c) {
  return c->conn() != nullptr && !(c->flags & (server::kMonitor | server::kReplica |
                                               server::kCloseAsap | server::kProtectedRefuse));
}

}  // namespace

void applyClientConfig() {
  const server::Config& cfg = server::g_server->config;
  int64_t v = cfg.maxmemory_clients;
  if (v >= 0) {
    g_limit = static_cast<uint64_t>(v);
  } else {
    // A percentage of maxmemory; nothing when maxmemory is 0.
    g_limit = static_cast<uint64_t>(cfg.maxmemory) * static_cast<uint64_t>(-v) / 100;
  }
}

uint64_t clientLimitBytes() {
  return g_limit;
}

size_t clientMemory(const server::Client* c) {
  size_t argv = 0;
  if (c == server::g_server->current_client) {
    for (std::string_view a : c->argv()) argv += a.size();
  }
  return sizeof(server::Client) + c->queryBufferCapacity() + c->outputMemory() + argv +
         server::multiMemory(c) + server::pubsubStateMemory(c) +
         server::tracking::clientStateMemory(c);
}

bool evictClients(server::Client* current) {
  if (g_limit == 0) return false;
  server::Server& s = *server::g_server;
  struct Use {
    size_t mem;
    server::Client* c;
  };
  std::vector<Use> uses;
  uint64_t total = 0;
  for (server::Client* c : s.clients) {
    if (!counted(c)) continue;
    size_t m = clientMemory(c);
    total += m;
    // CLIENT NO-EVICT: counted in the total, never chosen.
    if (!(c->flags & server::kNoEvict)) uses.push_back({m, c});
  }
  if (total <= g_limit) return false;
  std::sort(uses.begin(), uses.end(), [](const Use& a, const Use& b) { return a.mem > b.mem; });
  bool current_evicted = false;
  for (const Use& u : uses) {
    if (total <= g_limit) break;
    LOG_VERBOSE("Evicting client: id=%llu tot-mem=%zu (maxmemory-clients %llu)",
                static_cast<unsigned long long>(u.c->id()), u.mem,
                static_cast<unsigned long long>(g_limit));
    stats.evicted_clients++;
    total -= u.mem;
    if (u.c == current) current_evicted = true;
    s.freeClientAsync(u.c);
    // Its queued replies go at once, not when it is freed before the loop
    // sleeps: key eviction, which may run before that, must not count them
    // (Redis frees an evicted client at once).
    if (u.c != current && u.c != s.current_client) u.c->dropPendingReplies();
  }
  return current_evicted;
}

}  // namespace server::evict
