// SLOWLOG GET [count] / LEN / RESET / HELP over the log in server/slowlog.h.
#include <climits>

#include "common/strutil.h"
#include "server/core/client.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"
#include "server/request/slowlog.h"

namespace server {
namespace {

constexpr int64_t kDefaultGetCount = 10;

void slowlogGetCommand(Client* c) {
  if (c->argc() > 3) {
    std::string_view sub = c->arg(1);
    c->addErrorFormat(
        "unknown subcommand or wrong number of arguments for '%.*s'. Try SLOWLOG HELP.",
        static_cast<int>(sub.size()), sub.data());
    return;
  }
  int64_t count = kDefaultGetCount;
  if (c->argc() == 3) {
    if (!common::strutil::parseInt64(c->arg(2), &count) || count < -1) {
      c->addError("count should be greater than or equal to -1");
      return;
    }
    if (count == -1) count = INT64_MAX;
  }
  const auto& entries = g_slowlog.entries();
  size_t n = entries.size();
  if (static_cast<uint64_t>(count) < n) n = static_cast<size_t>(count);
  resp::Writer& w = c->reply();
  w.arrayLen(static_cast<int64_t>(n));
  for (size_t i = 0; i < n; i++) {
    const SlowlogEntry& e = entries[i];
    w.arrayLen(6);
    w.integer(static_cast<int64_t>(e.id));
    w.integer(e.unix_time);
    w.integer(e.duration_us);
    w.arrayLen(static_cast<int64_t>(e.argv.size()));
    for (const std::string& a : e.argv) w.bulk(a);
    w.bulk(e.peer);
    w.bulk(e.name);
  }
}

void slowlogLenCommand(Client* c) {
  c->addInteger(static_cast<int64_t>(g_slowlog.size()));
}

void slowlogResetCommand(Client* c) {
  g_slowlog.reset();
  c->addOk();
}

void slowlogHelpCommand(Client* c) {
  static const char* const kHelp[] = {
      "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET [<count>]",
      "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
      "    Entries are made of:",
      "    id, timestamp, time in microseconds, arguments array, client IP and port,",
      "    client name",
      "LEN",
      "    Return the length of the slowlog.",
      "RESET",
      "    Reset the slowlog.",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, kHelp);
}

constexpr SubcommandMaker sub{"server", "2.2.12"};

}  // namespace

void registerSlowlogCommand(CommandTable& t) {
  Command slowlog{"slowlog",
                  -2,
                  0,
                  slowlogHelpCommand,
                  0,
                  0,
                  0,
                  "server",
                  "A container for slow log commands",
                  "2.2.12",
                  "Depends on subcommand.",
                  "slow"};
  const uint32_t kAdminInfo = kAdmin | kLoading | kStale;
  slowlog.subcommands = {
      sub("slowlog|get", -2, kAdminInfo, slowlogGetCommand, "Get the slow log's entries",
          "O(N) where N is the number of entries returned", "admin slow dangerous"),
      sub("slowlog|help", 2, kLoading | kStale, slowlogHelpCommand,
          "Show helpful text about the different subcommands", "O(1)", "slow"),
      sub("slowlog|len", 2, kAdminInfo, slowlogLenCommand, "Get the slow log's length", "O(1)",
          "admin slow dangerous"),
      sub("slowlog|reset", 2, kAdminInfo, slowlogResetCommand,
          "Clear all entries from the slow log",
          "O(N) where N is the number of entries in the slowlog", "admin slow dangerous"),
  };
  t.add(std::move(slowlog));
}

}  // namespace server
