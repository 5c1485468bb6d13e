#include "server/shutdown.h"

#include <signal.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/strutil.h"
#include "event/event_loop.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/crash/signals.h"
#include "server/persist/persist.h"
#include "server/repl/repl.h"
#include "server/request/client_io.h"
#include "server/request/pause.h"

namespace server {

namespace {

struct Flags {
  bool save = false;
  bool nosave = false;
  bool now = false;
  bool force = false;
};

struct Pending {
  Flags flags;
  std::vector<Client*> callers;  // SHUTDOWN callers, blocked
  bool hook = false;
};

Pending& pending() {
  static Pending p;
  return p;
}

// Waiting for lagging replicas (the deadline INFO shows is set).
bool waiting() {
  return g_server->shutdown_deadline_ms != 0;
}

void countCallers() {
  g_server->shutdown_callers = pending().callers.size();
}

void onClientClose(Client* c) {
  auto& v = pending().callers;
  v.erase(std::remove(v.begin(), v.end(), c), v.end());
  countCallers();
}

// The callers get the error and read again, from a timer: never from inside
// another client's command.
void failCallers() {
  if (pending().callers.empty()) return;
  g_server->loop.addTimer(0, [](event::EventLoop*, event::TimerId) {
    std::vector<Client*> callers;
    callers.swap(pending().callers);
    countCallers();
    for (Client* c : callers) {
      c->flags &= ~kBlocked;
      c->addError("Errors trying to SHUTDOWN. Check logs.");
      if (!(c->flags & kPendingWrite)) g_server->queueWrite(c);
      resumeInput(c);
    }
    return event::kNoMore;
  });
}

// Gives up a shutdown: the server goes on, writes are released.
void cancel() {
  Pending& p = pending();
  p.flags = Flags();
  g_server->shutdown_deadline_ms = 0;
  crash::clearShutdownRequest();
  pause::holdWrites(pause::Hold::kShutdown, false);
  failCallers();
}

// The save, then the exit; false (logged, callers answered) when the save
// fails without FORCE.
bool finish() {
  Pending& p = pending();
  repl::logReplicasAtShutdown();
  if (!persist::shutdownSave(p.flags.save, p.flags.nosave, p.flags.force)) {
    LOG_WARNING("Errors trying to shut down the server. Check the logs for more information.");
    cancel();
    return false;
  }
  g_server->shutdown_asap = true;
  g_server->loop.setDontWait(true);
  // The callers see their connection close, as with Redis.
  for (Client* c : p.callers) c->flags |= kCloseAsap;
  return true;
}

// Shuts down now, or starts waiting for lagging replicas. True when the
// server is on its way out; false while it waits or when it failed.
bool begin(Flags f) {
  Pending& p = pending();
  // A half-loaded data set is never saved.
  if (persist::loading()) {
    f.save = false;
    f.nosave = true;
  }
  p.flags = f;
  LOG_WARNING("User requested shutdown...");
  const Config& cfg = g_server->config;
  if (!f.now && cfg.shutdown_timeout != 0 && !repl::replicasInSync()) {
    g_server->shutdown_deadline_ms = event::EventLoop::nowMs() + cfg.shutdown_timeout * 1000;
    if (!pause::active()) repl::requestAcks();
    pause::holdWrites(pause::Hold::kShutdown, true);
    LOG_NOTICE("Waiting for replicas before shutting down.");
    return false;
  }
  return finish();
}

Flags signalFlags(const std::string& v) {
  Flags f;
  std::istringstream in(v);
  for (std::string w; in >> w;) {
    if (w == "save") f.save = true;
    if (w == "nosave") f.nosave = true;
    if (w == "now") f.now = true;
    if (w == "force") f.force = true;
  }
  return f;
}

bool abortShutdown() {
  if (waiting()) {
    cancel();
  } else if (crash::shutdownRequested()) {
    crash::clearShutdownRequest();  // a signal's, not acted on yet
  } else {
    return false;
  }
  LOG_NOTICE("Shutdown manually aborted.");
  return true;
}

void shutdownCommand(Client* c) {
  Flags f;
  bool abort = false;
  for (size_t i = 1; i < c->argc(); i++) {
    std::string_view a = c->arg(i);
    if (common::strutil::equalsIgnoreCase(a, "NOSAVE")) {
      f.nosave = true;
    } else if (common::strutil::equalsIgnoreCase(a, "SAVE")) {
      f.save = true;
    } else if (common::strutil::equalsIgnoreCase(a, "NOW")) {
      f.now = true;
    } else if (common::strutil::equalsIgnoreCase(a, "FORCE")) {
      f.force = true;
    } else if (common::strutil::equalsIgnoreCase(a, "ABORT")) {
      abort = true;
    } else {
      c->addSyntaxError();
      return;
    }
  }
  if ((abort && (f.nosave || f.save || f.now || f.force)) || (f.nosave && f.save)) {
    c->addSyntaxError();
    return;
  }
  if (abort) {
    if (abortShutdown())
      c->addOk();
    else
      c->addError("No shutdown in progress.");
    return;
  }
  if (!f.now && (c->flags & kDenyBlocking)) {
    c->addError("SHUTDOWN without NOW or ABORT isn't allowed for DENY BLOCKING client");
    return;
  }
  Pending& p = pending();
  if (!p.hook) {
    p.hook = true;
    Client::addCloseHook(onClientClose);
  }
  p.callers.push_back(c);
  c->flags |= kBlocked;
  countCallers();
  if (waiting()) return;  // joins the wait under way
  if (begin(f) || waiting()) return;
  // Failed at once: this caller is answered here (the timer answers none).
  p.callers.erase(std::remove(p.callers.begin(), p.callers.end(), c), p.callers.end());
  countCallers();
  c->flags &= ~kBlocked;
  c->addError("Errors trying to SHUTDOWN. Check logs.");
}

}  // namespace

void registerShutdownCommand(CommandTable& t) {
  t.add({"shutdown", -1, kAdmin | kNoScript | kLoading | kStale | kNoMulti | kSentinel | kAllowBusy,
         shutdownCommand, 0, 0, 0, "server",
         "Synchronously save the dataset to disk and then shut down the server", "1.0.0",
         "O(N) when saving, where N is the total number of keys in all databases when saving "
         "data, otherwise O(1)",
         "admin slow dangerous"});
}

void shutdownCron() {
  Server& s = *g_server;
  if (s.shutdown_asap) return;
  if (waiting()) {
    if (event::EventLoop::nowMs() >= s.shutdown_deadline_ms || repl::replicasInSync()) finish();
    return;
  }
  if (!crash::shutdownRequested()) return;
  // Logged by the signal handler itself, as Redis does.
  int sig = crash::shutdownSignal();
  const Config& cfg = s.config;
  // A failure is logged and cancel()ed in finish(): a later signal asks again.
  begin(signalFlags(sig == SIGINT ? cfg.shutdown_on_sigint : cfg.shutdown_on_sigterm));
}

}  // namespace server
