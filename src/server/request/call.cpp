#include "server/request/call.h"

#include "event/event_loop.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/latency/monitor.h"
#include "server/propagate/propagate.h"
#include "server/pubsub/tracking.h"
#include "server/request/monitor.h"
#include "server/request/obuf_limits.h"
#include "server/request/slowlog.h"

namespace server {

// The command as a propagation call bracket: its writes (the dirty counter
// grew) are fed to the sinks. Out of line: the hot path without sinks does
// not carry it.
[[gnu::noinline]] static void callPropagated(Client* c, Command* cmd) {
  int64_t dirty_before = g_server->dirty;
  propagate::beginCall();
  cmd->proc(c);
  propagate::endCall(c->dbIndex(), c->argv(), g_server->dirty > dirty_before);
}

namespace {
// Error replies counted up to the last call boundary (the start or the end
// of any call, nested ones included): a command failed when errors were
// counted after it, or the last call nested in it, began or ended. So a
// script that caught a failing redis.pcall has not failed itself (Redis
// 7.0's rule).
uint64_t g_error_mark = 0;
}  // namespace

void markErrorsCounted() {
  g_error_mark = g_server->stats.total_error_replies;
}

void callCommand(Client* c, Command* cmd) {
  Server& s = *g_server;
  g_error_mark = s.stats.total_error_replies;
  int64_t start = event::EventLoop::nowUs();
  Client* outer = s.current_client;  // EXEC calls in here for its queue
  bool track = tracking::anyClient();
  if (track && outer == nullptr) tracking::beforeCommand();
  s.current_client = c;
  c->cur_cmd = cmd;
  // Write effects for the AOF and replicas (propagate.h); with no sink the
  // command runs with nothing around it.
  if (propagate::wanted()) [[unlikely]]
    callPropagated(c, cmd);
  else
    cmd->proc(c);
  s.current_client = outer;
  if (track) {
    tracking::afterCommand(c, cmd);
    if (outer == nullptr) tracking::afterOutermostCommand(c, cmd);
  }
  int64_t took = event::EventLoop::nowUs() - start;
  cmd->calls++;
  cmd->usec += static_cast<uint64_t>(took);
  if (s.stats.total_error_replies != g_error_mark) cmd->failed_calls++;
  g_error_mark = s.stats.total_error_replies;
  s.stats.total_commands_processed++;
  c->last_cmd = cmd;
  c->last_interaction_ms = db::Clock::nowMs;
  // The hooks below are checked here first: a request that trips none of
  // them makes no call for them.
  const Config& cfg = s.config;
  // A command that blocked is logged when it is served or times out.
  if (cfg.slowlog_log_slower_than >= 0 && took >= cfg.slowlog_log_slower_than &&
      !(c->flags & kBlocked))
    g_slowlog.maybeLog(c, *cmd, took);
  latency::afterCommand(cmd, took);
  monitor::feed(c, *cmd);
  if (outputLimitsMayApply(static_cast<int64_t>(c->outputBytes()), c->obuf_soft_since_ms, cfg))
    enforceOutputBufferLimits(c);
}

}  // namespace server
