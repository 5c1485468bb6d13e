// LATENCY LATEST | HISTORY | RESET | GRAPH | DOCTOR | HISTOGRAM | HELP, with
// Redis 7.0's reply shapes and error texts.
#include <string>

#include "common/strutil.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/reply_helpers.h"
#include "server/latency/histogram.h"
#include "server/latency/latency_cmd.h"
#include "server/latency/monitor.h"
#include "server/core/state.h"

namespace server::latency {

namespace {

void latestCommand(Client* c) {
  const auto& ev = events();
  c->addArrayLen(static_cast<int64_t>(ev.size()));
  for (const auto& [name, series] : ev) {
    const Sample& last = series.samples[(series.idx + kHistoryLen - 1) % kHistoryLen];
    c->addArrayLen(4);
    c->addBulk(name);
    c->addInteger(last.time);
    c->addInteger(last.latency);
    c->addInteger(series.max);
  }
}

void historyCommand(Client* c) {
  auto it = events().find(std::string(c->arg(2)));
  if (it == events().end()) {
    c->addArrayLen(0);
    return;
  }
  std::vector<Sample> hist = it->second.history();
  c->addArrayLen(static_cast<int64_t>(hist.size()));
  for (const Sample& s : hist) {
    c->addArrayLen(2);
    c->addInteger(s.time);
    c->addInteger(s.latency);
  }
}

void resetCommand(Client* c) {
  if (c->argc() == 2) {
    c->addInteger(static_cast<int64_t>(resetAll()));
    return;
  }
  int64_t n = 0;
  for (size_t i = 2; i < c->argc(); i++) n += resetEvent(std::string(c->arg(i))) ? 1 : 0;
  c->addInteger(n);
}

void graphCommand(Client* c) {
  std::string event(c->arg(2));
  std::string g = graph(event);
  if (g.empty()) {
    c->addErrorFormat("No samples available for event '%s'", event.c_str());
    return;
  }
  c->reply().verbatim(g, "txt");
}

void doctorCommand(Client* c) {
  c->reply().verbatim(doctor(), "txt");
}

// One command's entry: calls and the cumulative counts at power-of-two
// microsecond boundaries (1024 ns, 2048 ns, ...), only where they grow.
void addHistogram(Client* c, Command* cmd) {
  const Histogram& h = *cmd->latency_histogram;
  std::vector<std::pair<int64_t, uint64_t>> points;
  uint64_t prev = 0;
  for (uint64_t edge = 1024; prev < h.total() && edge <= Histogram::kMaxValue * 2; edge *= 2) {
    uint64_t n = h.countAtOrBelow(edge - 1);
    if (n != prev) points.emplace_back(static_cast<int64_t>(edge / 1000), n);
    prev = n;
  }
  c->addBulk(cmd->fullName());
  resp::Writer& w = c->reply();
  w.mapLen(2);
  w.bulk("calls");
  w.integer(static_cast<int64_t>(h.total()));
  w.bulk("histogram_usec");
  w.mapLen(static_cast<int64_t>(points.size()));
  for (const auto& [usec, n] : points) {
    w.integer(usec);
    w.integer(static_cast<int64_t>(n));
  }
}

void histogramCommand(Client* c) {
  std::vector<Command*> picked;
  auto consider = [&](Command* cmd) {
    if (cmd != nullptr && cmd->latency_histogram != nullptr &&
        cmd->latency_histogram->total() > 0 &&
        std::find(picked.begin(), picked.end(), cmd) == picked.end()) {
      picked.push_back(cmd);
    }
  };
  CommandTable& t = g_server->commands;
  if (c->argc() == 2) {
    for (Command* cmd : t.reachable()) {
      consider(cmd);
      for (Command& sub : cmd->subcommands) consider(&sub);
    }
  } else {
    for (size_t i = 2; i < c->argc(); i++) {
      // "config|get" names a subcommand; "config" the container and, as in
      // Redis, every subcommand of it.
      std::string_view name = c->arg(i);
      size_t bar = name.find('|');
      Command* cmd = t.find(name.substr(0, bar));
      if (cmd == nullptr) continue;
      if (bar != std::string_view::npos) {
        if (!cmd->subcommands.empty()) consider(t.findSub(cmd, name.substr(bar + 1)));
        continue;
      }
      consider(cmd);
      for (Command& sub : cmd->subcommands) consider(&sub);
    }
  }
  c->reply().mapLen(static_cast<int64_t>(picked.size()));
  for (Command* cmd : picked) addHistogram(c, cmd);
}

void helpCommand(Client* c) {
  static const char* lines[] = {
      "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return a human readable latency analysis report.",
      "GRAPH <event>",
      "    Return an ASCII latency graph for the <event> class.",
      "HISTORY <event>",
      "    Return time-latency samples for the <event> class.",
      "LATEST",
      "    Return the latest latency samples for all events.",
      "RESET [<event> ...]",
      "    Reset latency data of one or more <event> classes.",
      "    (default: reset all data for all event classes)",
      "HISTOGRAM [COMMAND ...]",
      "    Return a cumulative distribution of latencies in the format of a histogram for the "
      "specified command names.",
      "    If no commands are specified then all histograms are replied.",
      "HELP",
      "    Prints this help.",
  };
  replyHelp(c, lines);
}

Command sub(const char* name, int arity, uint32_t flags, CommandProc proc, const char* summary,
            const char* since, const char* complexity, const char* acl) {
  return Command{name, arity, flags, proc, 0, 0, 0, "server", summary, since, complexity, acl};
}

}  // namespace

void registerLatencyCommand(CommandTable& t) {
  Command latency{"latency",
                  -2,
                  0,
                  helpCommand,
                  0,
                  0,
                  0,
                  "server",
                  "A container for latency diagnostics commands",
                  "2.8.13",
                  "Depends on subcommand.",
                  "slow"};
  const uint32_t kAdminInfo = kAdmin | kNoScript | kLoading | kStale;
  const char* kAcl = "admin slow dangerous";
  latency.subcommands = {
      sub("latency|doctor", 2, kAdminInfo, doctorCommand,
          "Return a human readable latency analysis report.", "2.8.13", "O(1)", kAcl),
      sub("latency|graph", 3, kAdminInfo, graphCommand, "Return a latency graph for the event.",
          "2.8.13", "O(1)", kAcl),
      sub("latency|help", 2, kLoading | kStale, helpCommand,
          "Show helpful text about the different subcommands.", "2.8.13", "O(1)", "slow"),
      sub("latency|histogram", -2, kAdminInfo, histogramCommand,
          "Return the cumulative distribution of latencies of a subset of commands or all.",
          "7.0.0",
          "O(N) where N is the number of commands with latency information being retrieved.", kAcl),
      sub("latency|history", 3, kAdminInfo, historyCommand,
          "Return timestamp-latency samples for the event.", "2.8.13", "O(1)", kAcl),
      sub("latency|latest", 2, kAdminInfo, latestCommand,
          "Return the latest latency samples for all events.", "2.8.13", "O(1)", kAcl),
      sub("latency|reset", -2, kAdminInfo, resetCommand,
          "Reset latency data for one or more events.", "2.8.13", "O(1)", kAcl),
  };
  t.add(std::move(latency));
}

}  // namespace server::latency
