#include "cli/modes/modes.h"

#include <unistd.h>

#include <cstdio>

namespace cli::modes {

std::optional<int> runSelected(Session* s) {
  const Options& o = s->options();
  // Modes that measure the machine itself need no server.
  if (o.intrinsic_latency_s > 0) return intrinsicLatencyMode(o.intrinsic_latency_s);
  bool any = o.latency || o.lru_test_keys > 0 || o.pipe || o.bigkeys || o.memkeys || o.hotkeys ||
             o.stat || o.scan || o.replica || o.rdb;
  if (!any) return std::nullopt;
  if (!s->connect()) return 1;
  if (o.latency) return latencyMode(s);
  if (o.replica) return replicaMode(s);
  if (o.rdb) return rdbMode(s);
  if (o.lru_test_keys > 0) return lruTestMode(s);
  if (o.pipe) return pipeMode(s);
  if (o.bigkeys) return bigKeysMode(s);
  if (o.memkeys) return memKeysMode(s);
  if (o.hotkeys) return hotKeysMode(s);
  if (o.stat) return statMode(s);
  return scanMode(s);
}

void sleepInterval(const Options& opt) {
  if (opt.interval_us > 0) usleep(static_cast<useconds_t>(opt.interval_us));
}

bool callOrReport(Session* s, const std::vector<std::string>& argv, resp::Reply* reply) {
  if (s->client().connected() && s->client().call(argv, reply)) return true;
  fprintf(stderr, "Error: %s\n", s->lastReason().c_str());
  return false;
}

std::string bytesToHuman(long double n) {
  static const char* const kUnits[] = {"K", "M", "G", "T", "P", "E"};
  char buf[64];
  if (n < 1024) {
    snprintf(buf, sizeof(buf), "%lldB", static_cast<long long>(n));
    return buf;
  }
  int unit = 0;
  n /= 1024;
  while (n >= 1024 && unit < 5) {
    n /= 1024;
    unit++;
  }
  snprintf(buf, sizeof(buf), "%.2Lf%s", n, kUnits[unit]);
  return buf;
}

}  // namespace cli::modes
