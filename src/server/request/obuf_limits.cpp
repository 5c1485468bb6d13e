#include "server/request/obuf_limits.h"

#include <string>

#include "common/log.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/pubsub/pubsub.h"
#include "server/request/client_info.h"

namespace server {

// kUnauthenticatedOutputLimit (obuf_limits.h): a client that must
// authenticate and has not may have this many bytes of replies pending,
// whatever client-output-buffer-limit says (the CVE-2025-21605 fix). Redis
// counts only what overflows its 16 KiB static reply buffer against a 1 KiB
// allowance, and the first overflow allocates a whole 16 KiB chunk: in
// effect a client is closed as soon as its pending replies pass 16 KiB,
// which is the rule here.

bool closeIfOverLimit(Client* c, const Config::OutputBufferLimit& lim, int64_t used,
                      bool force_hard, int64_t* soft_since_ms) {
  bool hard = force_hard || (lim.hard > 0 && used >= lim.hard);
  bool soft = lim.soft > 0 && used >= lim.soft;
  if (soft) {
    // The soft limit counts only once it has held for soft_seconds: the
    // first time over starts the clock.
    if (*soft_since_ms == 0) {
      *soft_since_ms = db::Clock::nowMs;
      soft = false;
    } else if (db::Clock::nowMs - *soft_since_ms <= lim.soft_seconds * 1000) {
      soft = false;
    }
  } else {
    *soft_since_ms = 0;
  }
  if (!hard && !soft) return false;
  std::string line;
  formatClientLine(describeClient(c), &line);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  LOG_WARNING("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.",
              line.c_str());
  g_server->freeClientAsync(c);
  return true;
}

bool enforceOutputBufferLimits(Client* c) {
  if (c->flags & kCloseAsap) return false;
  const Config& cfg = g_server->config;
  int cls = isPubSubClient(c) ? Config::kClassPubSub : Config::kClassNormal;
  int64_t used = static_cast<int64_t>(c->outputBytes());
  // kAuthenticated is clear only while requirepass is set and not given.
  bool unauth_over = !(c->flags & kAuthenticated) && used > kUnauthenticatedOutputLimit;
  return closeIfOverLimit(c, cfg.obuf_limits[cls], used, unauth_over, &c->obuf_soft_since_ms);
}

int64_t outputHardLimit(const Client* c) {
  int cls = isPubSubClient(c) ? Config::kClassPubSub : Config::kClassNormal;
  return g_server->config.obuf_limits[cls].hard;
}

}  // namespace server
