// --stat: one line per interval (default 1 s) of keys, memory, clients,
// blocked clients, commands processed (with the change since the last line),
// connections received and any child at work; the two header lines repeat
// every 20 lines. Column widths are redis-cli 7.0's.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/modes/modes.h"

namespace cli::modes {

namespace {

constexpr int64_t kDefaultIntervalUs = 1000000;
constexpr int kHeaderEvery = 20;

// The integer after "<field>:" at the start of an INFO line; LONG_MIN if the
// field is absent.
long infoLong(const std::string& info, const std::string& field) {
  std::string needle = field + ":";
  size_t pos = 0;
  while ((pos = info.find(needle, pos)) != std::string::npos) {
    if (pos == 0 || info[pos - 1] == '\n') {
      return strtol(info.c_str() + pos + needle.size(), nullptr, 10);
    }
    pos += needle.size();
  }
  return LONG_MIN;
}

long nonNegative(long v) {
  return v == LONG_MIN ? 0 : v;
}

}  // namespace

int statMode(Session* s) {
  const Options& o = s->options();
  int64_t interval = o.interval_us > 0 ? o.interval_us : kDefaultIntervalUs;
  long last_requests = 0;
  for (int line = 0;; line++) {
    resp::Reply r;
    if (!callOrReport(s, {"INFO"}, &r)) return 1;
    if (r.isError()) {
      printf("ERROR: %s\n", r.str.c_str());
      return 1;
    }
    const std::string& info = r.str;
    if (line % kHeaderEvery == 0) {
      printf(
          "------- data ------ --------------------- load -------------------- - child -\n"
          "keys       mem      clients blocked requests            connections          \n");
    }
    // Keyspace lines: "db0:keys=3,expires=0,avg_ttl=0".
    long keys = 0;
    for (size_t pos = 0; pos < info.size();) {
      size_t eol = info.find('\n', pos);
      if (eol == std::string::npos) eol = info.size();
      if (info.compare(pos, 2, "db") == 0) {
        size_t k = info.find(":keys=", pos);
        if (k != std::string::npos && k < eol) keys += strtol(info.c_str() + k + 6, nullptr, 10);
      }
      pos = eol + 1;
    }
    printf("%-11ld", keys);
    printf(
        "%-8s",
        bytesToHuman(static_cast<long double>(nonNegative(infoLong(info, "used_memory")))).c_str());
    printf(" %-8ld", nonNegative(infoLong(info, "connected_clients")));
    printf("%-8ld", nonNegative(infoLong(info, "blocked_clients")));
    long requests = nonNegative(infoLong(info, "total_commands_processed"));
    char buf[64];
    snprintf(buf, sizeof(buf), "%ld (+%ld)", requests,
             last_requests == 0 ? 0 : requests - last_requests);
    printf("%-19s", buf);
    last_requests = requests;
    printf(" %-12ld", nonNegative(infoLong(info, "total_connections_received")));
    int child = (infoLong(info, "rdb_bgsave_in_progress") == 1 ? 1 : 0) |
                (infoLong(info, "aof_rewrite_in_progress") == 1 ? 2 : 0) |
                (infoLong(info, "loading") == 1 ? 4 : 0);
    static const char* const kChild[] = {"", "SAVE", "AOF", "SAVE+AOF", "LOAD"};
    if (child <= 4) printf("%s", kChild[child]);
    printf("\n");
    fflush(stdout);
    usleep(static_cast<useconds_t>(interval));
  }
}

}  // namespace cli::modes
