// The feed of write effects to the registered sinks: effects of commands
// nested in one outer command (EXEC, scripts) are collected and fed as one
// transaction once the outer command ends.
#include "server/propagate/propagate.h"

#include <algorithm>
#include <string>
#include <vector>

namespace server::propagate {

namespace {

struct Effect {
  int db;
  std::vector<std::string> argv;
};

std::vector<Sink*> g_sinks;
int g_depth = 0;
std::vector<Effect> g_nested;  // effects of commands below the outermost one

void feedAll(int db, std::span<const std::string_view> argv) {
  for (Sink* s : g_sinks) s->feed(db, argv);
}

void feedOwned(const Effect& e) {
  std::vector<std::string_view> v(e.argv.begin(), e.argv.end());
  feedAll(e.db, v);
}

}  // namespace

void addSink(Sink* sink) {
  if (std::find(g_sinks.begin(), g_sinks.end(), sink) == g_sinks.end()) g_sinks.push_back(sink);
}

void removeSink(Sink* sink) {
  g_sinks.erase(std::remove(g_sinks.begin(), g_sinks.end(), sink), g_sinks.end());
}

bool wanted() {
  return !g_sinks.empty();
}

void beginCall() {
  g_depth++;
}

void endCall(int db, std::span<const std::string_view> argv, bool changed) {
  g_depth--;
  if (g_sinks.empty()) {
    g_nested.clear();
    return;
  }
  if (g_depth > 0) {
    // Inside EXEC or a script: collected; the outer command feeds them.
    if (changed && !argv.empty()) g_nested.push_back({db, {argv.begin(), argv.end()}});
    return;
  }
  if (g_nested.empty()) {
    if (changed && !argv.empty()) feedAll(db, argv);
    return;
  }
  std::vector<Effect> effects;
  effects.swap(g_nested);
  if (effects.size() == 1) {
    feedOwned(effects[0]);
    return;
  }
  static constexpr std::string_view kMulti[] = {"MULTI"};
  static constexpr std::string_view kExec[] = {"EXEC"};
  feedAll(effects[0].db, kMulti);
  for (const Effect& e : effects) feedOwned(e);
  feedAll(effects.back().db, kExec);
}

}  // namespace server::propagate
