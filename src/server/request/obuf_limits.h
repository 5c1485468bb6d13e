// client-output-buffer-limit enforcement: a client whose pending output
// (bytes queued and not yet written) reaches its class's hard limit, or
// stays at or above the soft limit for longer than the soft seconds, is
// scheduled to close asynchronously (freed in before-sleep, never in the
// middle of a write), with a warning in the log as Redis writes it.
//
// The class is "pubsub" for a client with subscriptions, else "normal"
// (there are no replicas). Called after every command for the client that
// ran it, after every request of a client that has not authenticated (its
// NOAUTH errors are replies too) and after every message queued on a
// subscriber. A client that has to authenticate and has not is closed once
// more than 16 KiB of replies are pending, whatever its class's limits, as
// Redis 7.0.15 does since the CVE-2025-21605 fix.
#pragma once

#include <cstdint>

#include "server/conf/config.h"

namespace server {

class Client;

// The cap on pending replies of a client that must authenticate and has not.
inline constexpr int64_t kUnauthenticatedOutputLimit = 16 * 1024;

// Returns true when the client was scheduled to close now.
bool enforceOutputBufferLimits(Client* c);
// The hard limit of the client's class now (0: none).
int64_t outputHardLimit(const Client* c);

// Whether enforceOutputBufferLimits can do anything for a client with
// `used` pending bytes whose soft-limit clock reads soft_since_ms: only
// when a limit of a class it may be in (normal, pubsub) or the
// unauthenticated cap is reached, or the clock must be reset. The check
// every command makes before calling it.
inline bool outputLimitsMayApply(int64_t used, int64_t soft_since_ms, const Config& cfg) {
  // limit <= used for a limit that is on: 0 (off) less one wraps to the
  // largest value, which no byte count reaches. Without branches.
  auto reached = [used](int64_t limit) {
    return static_cast<uint64_t>(limit - 1) < static_cast<uint64_t>(used);
  };
  const Config::OutputBufferLimit& n = cfg.obuf_limits[Config::kClassNormal];
  const Config::OutputBufferLimit& p = cfg.obuf_limits[Config::kClassPubSub];
  return (soft_since_ms != 0) | (used > kUnauthenticatedOutputLimit) | reached(n.hard) |
         reached(n.soft) | reached(p.hard) | reached(p.soft);
}

// The rule itself, for output counted elsewhere (a replica's stream held
// while its RDB is on its way): `used` pending bytes against `lim`, hard
// limit passed also when force_hard; *soft_since_ms holds when the soft
// limit was first passed (0: not over it). When over, logs the warning,
// schedules the client to close and returns true.
bool closeIfOverLimit(Client* c, const Config::OutputBufferLimit& lim, int64_t used,
                      bool force_hard, int64_t* soft_since_ms);

}  // namespace server
