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
// CLIENT PAUSE's mode and end; the holds on writes of FAILOVER and of a
// SHUTDOWN waiting for replicas apart (no end time; CLIENT UNPAUSE does
// not lift them). g_mode is the strictest.
Mode g_client_mode = Mode::kOff;
unsigned g_holds = 0;  // Hold bits
int64_t g_end_ms = 0;
event::TimerId g_timer = 0;
// Held clients in the order they were paused: they resume in that order.
std::vector<Client*> g_held;

// Every change of mode goes through here: the keyspace stops expiring keys
// for as long as any pause lasts.
void updateMode() {
  g_mode = std::max(g_client_mode, g_holds != 0 ? Mode::kWrite : Mode::kOff);
  db::Db::expiry_paused = g_mode != Mode::kOff;
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
  if (g_client_mode != Mode::kOff && left > 0) return static_cast<int>(std::min(left, kMaxWaitMs));
  g_timer = 0;
  g_client_mode = Mode::kOff;
  updateMode();
  // Held clients run again; those the failover's hold still covers are
  // held again by the gate.
  resumeHeld();
  return event::kNoMore;
}

void armTimer(int64_t delay_ms) {
  if (g_timer != 0) g_server->loop.deleteTimer(g_timer);
  g_timer = g_server->loop.addTimer(std::clamp<int64_t>(delay_ms, 0, kMaxWaitMs), onTimer);
}
}  // namespace

void start(Mode mode, int64_t end_ms) {
  if (g_client_mode == Mode::kOff) {
    g_client_mode = mode;
    g_end_ms = end_ms;
  } else {
    g_client_mode = std::max(g_client_mode, mode);
    g_end_ms = std::max(g_end_ms, end_ms);
  }
  updateMode();
  armTimer(g_end_ms - event::EventLoop::nowMs());
}

void stop() {
  g_client_mode = Mode::kOff;
  g_end_ms = 0;
  updateMode();
  // Held clients run from a timer, not inside the UNPAUSE call.
  armTimer(0);
}

void holdWrites(Hold who, bool hold) {
  unsigned bit = static_cast<unsigned>(who);
  unsigned before = g_holds;
  g_holds = hold ? (g_holds | bit) : (g_holds & ~bit);
  if (g_holds == before) return;
  updateMode();
  if (hold) return;
  // As stop(): the held clients run from a timer. A CLIENT PAUSE still on
  // keeps its own timer: the resumed clients it covers are held again.
  g_server->loop.addTimer(0, [](event::EventLoop*, event::TimerId) {
    resumeHeld();
    return event::kNoMore;
  });
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
