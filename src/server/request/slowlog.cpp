#include "server/request/slowlog.h"

#include <ctime>

#include "server/core/client.h"
#include "server/request/cmdlog.h"
#include "server/core/command.h"
#include "server/request/client_info.h"
#include "server/core/state.h"

namespace server {

Slowlog g_slowlog;

std::vector<std::string> slowlogArgs(const std::vector<std::string_view>& argv,
                                     const std::vector<bool>& redacted) {
  size_t n = argv.size() < kSlowlogMaxArgs ? argv.size() : kSlowlogMaxArgs;
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; i++) {
    if (n != argv.size() && i == n - 1) {
      out.push_back("... (" + std::to_string(argv.size() - n + 1) + " more arguments)");
    } else if (i < redacted.size() && redacted[i]) {
      out.emplace_back(kRedacted);
    } else if (argv[i].size() > kSlowlogMaxArgLen) {
      std::string a(argv[i].substr(0, kSlowlogMaxArgLen));
      a += "... (" + std::to_string(argv[i].size() - kSlowlogMaxArgLen) + " more bytes)";
      out.push_back(std::move(a));
    } else {
      out.emplace_back(argv[i]);
    }
  }
  return out;
}

void Slowlog::push(SlowlogEntry e, size_t max_len) {
  e.id = next_id_++;
  entries_.push_front(std::move(e));
  while (entries_.size() > max_len) entries_.pop_back();
}

void Slowlog::maybeLog(Client* c, const Command& cmd, int64_t duration_us) {
  const Config& cfg = g_server->config;
  if (cfg.slowlog_log_slower_than < 0 || duration_us < cfg.slowlog_log_slower_than) return;
  if ((cmd.flags & kSkipSlowlog) || !commandIsLogged(cmd)) return;
  SlowlogEntry e;
  e.unix_time = static_cast<int64_t>(time(nullptr));
  e.duration_us = duration_us;
  e.argv = slowlogArgs(c->argv(), redactedArgs(cmd, c->argv()));
  // A script's commands come from a client without a connection, which
  // Redis shows as "?:0".
  e.peer = c->conn() != nullptr ? describeClient(c).addr : (c->flags & kScriptClient) ? "?:0" : "";
  e.name = c->name();
  push(std::move(e), static_cast<size_t>(cfg.slowlog_max_len));
}

}  // namespace server
