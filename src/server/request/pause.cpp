#include "server/request/pause.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/db/db.h"
#include "server/request/client_io.h"
#include "server/request/multi.h"
#include "server/script/script.h"

namespace server::pause {

Mode detail::g_mode = Mode::kOff;

namespace {
using detail::g_mode;
int64_t g_end_ms = 0;
event::TimerId g_timer = 0;
// Held clients in the order they were paused: they resume in that order.
std::vector<Client*> g_held;

// Every change of mode goes through here: the keyspace stops expiring keys
// for as long as any pause lasts.
void setMode(Mode m) {
  g_mode = m;
  db::Db::expiry_paused = m != Mode::kOff;
}

void resumeHeld() {
  std::vector<Client*> held;
  held.swap(g_held);
  for (size_t i = 0; i < held.size(); i++) {
    Client* c = held[i];
    c->flags &= ~kPostponed;
    if (c->flags & kCloseAsap) continue;
    // The gate holds it again if a new pause began meanwhile.
    resumeInput(c);
  }
}

// Long pauses wake up hourly: the timer's period is an int of ms.
constexpr int64_t kMaxWaitMs = 3600 * 1000;

// The pause's timer: fires at the end time (the end may have moved).
int onTimer(event::EventLoop*, event::TimerId) {
  int64_t left = g_end_ms - event::EventLoop::nowMs();
  if (g_mode != Mode::kOff && left > 0) return static_cast<int>(std::min(left, kMaxWaitMs));
  g_timer = 0;
  setMode(Mode::kOff);
  resumeHeld();
  return event::kNoMore;
}

void armTimer(int64_t delay_ms) {
  if (g_timer != 0) g_server->loop.deleteTimer(g_timer);
  g_timer = g_server->loop.addTimer(std::clamp<int64_t>(delay_ms, 0, kMaxWaitMs), onTimer);
}
}  // namespace

void start(Mode mode, int64_t end_ms) {
  if (g_mode == Mode::kOff) {
    setMode(mode);
    g_end_ms = end_ms;
  } else {
    setMode(std::max(g_mode, mode));
    g_end_ms = std::max(g_end_ms, end_ms);
  }
  armTimer(g_end_ms - event::EventLoop::nowMs());
}

void stop() {
  setMode(Mode::kOff);
  g_end_ms = 0;
  // Held clients run from a timer, not inside the UNPAUSE call.
  armTimer(0);
}

bool shouldPostpone(Client* c, const Command& cmd) {
  if (c->flags & kMonitor) return false;
  // EXEC may write when a queued command may (Redis 7.0 looks at the
  // queue's flags); scripts by their flags.
  int script_writes = script::scriptMayWrite(c->argv());
  bool may_write = script_writes >= 0 ? script_writes == 1
                                      : (cmd.flags & (kWrite | kMayReplicate)) ||
                                            (strcmp(cmd.name, "exec") == 0 && multiExecMayWrite(c));
  bool hold =
      (c->flags & kPostponed) || g_mode == Mode::kAll || (g_mode == Mode::kWrite && may_write);
  if (!hold) return false;
  if (!(c->flags & kPostponed)) {
    c->flags |= kPostponed;
    g_held.push_back(c);
  }
  return true;
}

size_t heldCount() {
  return g_held.size();
}

void forget(Client* c) {
  g_held.erase(std::remove(g_held.begin(), g_held.end(), c), g_held.end());
}

}  // namespace server::pause
