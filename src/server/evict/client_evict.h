// maxmemory-clients (Redis 7.0 client eviction): when the memory used by
// all normal and pub/sub clients together exceeds the limit, the clients
// using the most are closed, largest first, until the total is under it.
// An evicted client's unsent replies are dropped at once (Redis frees it at
// once), so key eviction never runs for memory already given up.
// Clients that ran CLIENT NO-EVICT ON count in the total but are never
// closed; monitors and connections without a transport do not count.
//
// A client's memory is its struct, query buffer, output buffer, current
// arguments, queued MULTI commands, watched keys, Pub/Sub subscriptions and
// tracking prefixes (CLIENT LIST tot-mem). The limit is a
// byte count, or a percentage of maxmemory ("10%"; Config stores it as a
// negative number).
#pragma once

#include <cstddef>
#include <cstdint>

namespace server {
class Client;
}

namespace server::evict {

// Re-reads maxmemory-clients (evict::applyConfig calls it).
void applyClientConfig();
// The limit in bytes, 0 when off.
uint64_t clientLimitBytes();

size_t clientMemory(const server::Client* c);

// Closes clients while the total is over the limit. Returns true when
// `current` (may be null) was one of them: its command must not run.
bool evictClients(server::Client* current);

}  // namespace server::evict
