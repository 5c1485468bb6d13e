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

// Returns true when the client was scheduled to close now.
bool enforceOutputBufferLimits(Client* c);

// The rule itself, for output counted elsewhere (a replica's stream held
// while its RDB is on its way): `used` pending bytes against `lim`, hard
// limit passed also when force_hard; *soft_since_ms holds when the soft
// limit was first passed (0: not over it). When over, logs the warning,
// schedules the client to close and returns true.
bool closeIfOverLimit(Client* c, const Config::OutputBufferLimit& lim, int64_t used,
                      bool force_hard, int64_t* soft_since_ms);

}  // namespace server
