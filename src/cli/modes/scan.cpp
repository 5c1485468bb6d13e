// --scan: every key (or those matching --pattern), one per line, through
// SCAN so the server is never blocked. Also the SCAN walk shared by the key
// statistics modes (key_stats.cpp).
#include <cstdio>
#include <cstdlib>

#include "cli/modes/modes.h"
#include "cli/modes/scan_walk.h"

namespace cli::modes {

bool scanWalk(Session* s, const std::function<bool(const std::vector<std::string>&)>& batch,
              bool sleep_each) {
  const Options& o = s->options();
  std::string cursor = "0";
  uint64_t calls = 0;
  do {
    std::vector<std::string> argv = {"SCAN", cursor};
    if (!o.pattern.empty()) {
      argv.push_back("MATCH");
      argv.push_back(o.pattern);
    }
    resp::Reply r;
    if (!callOrReport(s, argv, &r)) return false;
    if (r.isError()) {
      fprintf(stderr, "Error: %s\n", r.str.c_str());
      return false;
    }
    if (r.elements.size() != 2 || !r.elements[1].isAggregate()) {
      fprintf(stderr, "Error: unexpected SCAN reply\n");
      return false;
    }
    cursor = r.elements[0].str;
    std::vector<std::string> keys;
    keys.reserve(r.elements[1].elements.size());
    for (auto& k : r.elements[1].elements) keys.push_back(std::move(k.str));
    if (!batch(keys)) return false;
    calls++;
    if (sleep_each || calls % 100 == 0) sleepInterval(o);
  } while (cursor != "0");
  return true;
}

std::optional<std::vector<resp::Reply>> pipelined(
    Session* s, const std::vector<std::vector<std::string>>& cmds) {
  client::Client& c = s->client();
  std::vector<resp::Reply> replies(cmds.size());
  size_t got = 0;
  bool failed = false;
  for (size_t i = 0; i < cmds.size(); i++) {
    c.command(cmds[i], [&replies, &got, &failed, i](resp::Reply* r) {
      got++;
      if (r == nullptr) {
        failed = true;
      } else {
        replies[i] = std::move(*r);
      }
    });
  }
  c.waitUntil([&] { return got == cmds.size(); }, 0);
  if (failed || got != cmds.size()) {
    fprintf(stderr, "Error: %s\n", s->lastReason().c_str());
    return std::nullopt;
  }
  return replies;
}

int scanMode(Session* s) {
  bool ok = scanWalk(
      s,
      [](const std::vector<std::string>& keys) {
        for (const auto& k : keys) {
          fwrite(k.data(), 1, k.size(), stdout);
          fputc('\n', stdout);
        }
        return true;
      },
      true);
  fflush(stdout);
  return ok ? 0 : 1;
}

}  // namespace cli::modes
