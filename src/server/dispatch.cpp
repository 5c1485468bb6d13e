#include "server/dispatch.h"
#include "server/persist/persist.h"

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "common/log.h"
#include "event/event_loop.h"
#include "server/acl/check.h"
#include "server/cluster/cluster.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/evict/evict.h"
#include "server/pubsub/pubsub.h"
#include "server/pubsub/tracking.h"
#include "server/repl/repl.h"
#include "server/request/call.h"
#include "server/request/multi.h"
#include "server/request/pause.h"
#include "server/script/script.h"

namespace server {

static void replyUnknownCommand(Client* c) {
  std::string args;
  for (size_t i = 1; i < c->argc() && args.size() < 128; i++) {
    std::string_view a = c->arg(i);
    args += "'";
    args.append(a.data(), a.size() > 128 ? 128 : a.size());
    args += "' ";
  }
  std::string_view name = c->arg(0);
  if (name.size() > 128) name = name.substr(0, 128);
  c->addErrorFormat("unknown command '%.*s', with args beginning with: %s",
                    static_cast<int>(name.size()), name.data(), args.c_str());
}

// Links: the client may be a replication link (kMaster or kReplica). The
// clients that are not get an instance without that test.
template <bool Links>
static bool dispatchUnmuted(Client* c);

// PING by its own name: rename-command changes only how it is called.
static bool isPing(const Command* cmd) {
  return cmd->name[0] == 'p' && strcmp(cmd->name, "ping") == 0;
}

// A write (or PING) from the master while this replica cannot persist
// (the -MISCONF state its own clients get): refusing it would make the data
// sets diverge, so the replica stops with a crash report, or with
// replica-ignore-disk-write-errors applies it and says so every 10 s (as
// Redis 7.0 does; a PING never stops it).
[[gnu::noinline]] static void masterCommandWithDiskError(const Command* cmd) {
  if (!g_server->config.replica_ignore_disk_write_errors && !isPing(cmd)) {
    LOG_WARNING(
        "Replica was unable to write command to disk (%s); stopping "
        "(replica-ignore-disk-write-errors no).",
        persist::writeError());
    abort();  // the crash report (crash/) follows from SIGABRT
  }
  static int64_t last_log_ms = 0;
  int64_t now = event::EventLoop::nowMs();
  if (now - last_log_ms > 10000) {
    last_log_ms = now;
    LOG_WARNING("Replica is applying a command even though it is unable to write to disk.");
  }
}

// The master's stream on a replica: applied as the master ran it, without
// the checks of authentication, ACL, read-only or memory (Redis's "obey
// client"); a persistence error is handled above. Keys whose TTL passed
// here but not yet on the master are still seen by these commands.
[[gnu::noinline]] static bool dispatchFromMaster(Client* c, Command* cmd) {
  int argc = static_cast<int>(c->argc());
  if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
    c->addWrongArity();
    multiFlagError(c);
    return true;
  }
  if ((pause::active() || (c->flags & kPostponed)) && pause::shouldPostpone(c, *cmd)) return true;
  if (((cmd->flags & kWrite) || isPing(cmd)) && persist::writeError() != nullptr) [[unlikely]]
    masterCommandWithDiskError(cmd);
  if (multiQueueCommand(c, cmd)) return true;
  db::Db::master_view = true;
  callCommand(c, cmd);
  db::Db::master_view = false;
  return true;
}

bool dispatchCommand(Client* c) {
  if (!(c->flags & (kReplyOff | kReplySkipNext | kMaster | kReplica))) [[likely]]
    return dispatchUnmuted<false>(c);
  if (!(c->flags & (kReplyOff | kReplySkipNext))) return dispatchUnmuted<true>(c);
  // CLIENT REPLY OFF|SKIP: run the command with its reply thrown away. SKIP
  // covers this one command; CLIENT REPLY ON unmutes itself to send its OK.
  bool skip = (c->flags & kReplySkipNext) != 0;
  c->flags &= ~kReplySkipNext;
  c->muteReplies(true);
  bool alive = dispatchUnmuted<true>(c);
  if (alive) c->muteReplies(false);
  // A request held by CLIENT PAUSE has not run yet: SKIP still applies.
  if (alive && skip && (c->flags & kPostponed)) c->flags |= kReplySkipNext;
  return alive;
}

// EXEC refused by a check below (-BUSY, -LOADING, -NOPERM, -MASTERDOWN,
// ...) discards the transaction and answers EXECABORT with the reason, as
// Redis does; kExecChecking routes that error (core/client.h) while it is
// being admitted.
struct ExecAdmission {
  Client* c;
  explicit ExecAdmission(Client* cl) : c(cl) { c->flags |= kExecChecking; }
  ~ExecAdmission() { c->flags &= ~kExecChecking; }
  ExecAdmission(const ExecAdmission&) = delete;
  ExecAdmission& operator=(const ExecAdmission&) = delete;
};

// The flags a replica's checks judge cmd by: a script command's come from
// its script; one without a shebang is never stale-safe (Redis refuses it
// on a stale replica when it is about to run it).
static uint32_t replicaCheckFlags(Client* c, const Command* cmd, uint32_t cmd_flags) {
  if (!(cmd->flags & kNoScript) || !(cmd_flags & kStale)) return cmd_flags;  // not a script
  bool flagless;
  uint32_t f = script::scriptCommandFlags(c->argv(), cmd_flags, &flagless);
  return flagless ? f & ~kStale : f;
}

template <bool Links>
static bool dispatchUnmuted(Client* c) {
  Server& s = *g_server;
  Command* cmd = s.commands.find(c->arg(0));
  if (cmd == nullptr) {
    replyUnknownCommand(c);
    multiFlagError(c);
    return true;
  }
  if (!cmd->subcommands.empty() && c->argc() >= 2) {
    Command* sub = s.commands.findSub(cmd, c->arg(1));
    if (sub == nullptr) {
      std::string_view sn = c->arg(1);
      std::string upper(cmd->name);
      for (auto& ch : upper) ch = static_cast<char>(toupper(static_cast<unsigned char>(ch)));
      c->addErrorFormat("unknown subcommand '%.*s'. Try %s HELP.",
                        static_cast<int>(sn.size() > 128 ? 128 : sn.size()), sn.data(),
                        upper.c_str());
      cmd->rejected_calls++;
      multiFlagError(c);
      return true;
    }
    cmd = sub;
  }
  c->cur_cmd = cmd;
  // The replication links, tested once: the master's stream is applied
  // without the checks below; a replica only sends REPLCONF (repl.h),
  // anything else closes it.
  if constexpr (Links) {
    if (c->flags & kMaster) return dispatchFromMaster(c, cmd);
    if ((c->flags & kReplica) && !repl::allowedFromReplica(c, cmd)) return true;
  }
  int argc = static_cast<int>(c->argc());
  if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
    c->addWrongArity();
    cmd->rejected_calls++;
    multiFlagError(c);
    return true;
  }
  // The flags the checks below go by; EXEC takes its queue's: a write when
  // one queued command writes, stale-safe when all are (the server's
  // state may have changed since they were queued).
  uint32_t cmd_flags = cmd->flags;
  std::optional<ExecAdmission> exec_admission;
  if (c->multi_state != nullptr && strcmp(cmd->name, "exec") == 0 && inMulti(c)) [[unlikely]] {
    exec_admission.emplace(c);
    cmd_flags |= multiQueuedFlags(c) & kWrite;
    if (!(multiQueuedCommonFlags(c) & kStale)) cmd_flags &= ~kStale;
  }
  if (!(c->flags & kAuthenticated) && !(cmd->flags & kNoAuth)) {
    c->addError("-NOAUTH Authentication required.");
    cmd->rejected_calls++;
    multiFlagError(c);
    return true;
  }
  // ACL (acl/check.h): the same check whatever the connection type.
  if (!acl::checkClient(c, *cmd, c->multi_state != nullptr && inMulti(c) ? "multi" : "toplevel")) {
    cmd->rejected_calls++;
    multiFlagError(c);
    return true;
  }
  // Cluster mode: is this node the one that serves the request's keys?
  // (-MOVED, -ASK, -CROSSSLOT, -CLUSTERDOWN otherwise; cluster.h). The
  // AOF's replay is obeyed as written.
  if (cluster::g_enabled && !(c->flags & kMustObey)) [[unlikely]] {
    if (!cluster::routeRequest(c, cmd)) {
      cmd->rejected_calls++;
      return true;
    }
  }
  // Monitors count as replicas in Redis: no keyspace access.
  if ((c->flags & kMonitor) && (cmd->flags & (kWrite | kReadOnly | kMayReplicate))) {
    c->addError("Replica can't interact with the keyspace");
    cmd->rejected_calls++;
    multiFlagError(c);
    return true;
  }
  // Client eviction and maxmemory (evict/evict.h), then RESP2 subscribed
  // state (pubsub.h), the replica's and loading's refusals, a busy script,
  // CLIENT PAUSE (pause.h), then MULTI queuing (multi.h).
  if (evict::g_limits_active && !script::running()) {
    bool freed;
    if (!evict::beforeCommand(c, cmd, &freed)) return true;
  }
  // Only a RESP2 client with subscriptions is limited (pubsub.h).
  if (c->pubsub_state != nullptr && !pubsubAllowsCommand(c, cmd)) {
    cmd->rejected_calls++;
    multiFlagError(c);
    return true;
  }
  // -READONLY / -MASTERDOWN on a replica (repl.h); a script command goes
  // by its script's flags.
  if (repl::g_is_replica && !repl::allowedOnReplica(c, replicaCheckFlags(c, cmd, cmd_flags)))
      [[unlikely]] {
    cmd->rejected_calls++;
    multiFlagError(c);
    return true;
  }
  if (persist::g_loading != persist::Loading::kNone) [[unlikely]] {
    if (persist::loading() ? !(cmd->flags & kLoading) : (cmd->flags & kNoAsyncLoading) != 0) {
      c->addError("-LOADING Redis is loading the dataset in memory");
      cmd->rejected_calls++;
      multiFlagError(c);
      return true;
    }
  }
  // A script past busy-reply-threshold lets only a few commands through
  // (and nothing may evict keys under it: it is atomic). After -LOADING,
  // as Redis orders them (an AOF's slow script at load).
  if (script::rejectWhileBusy(c, cmd)) {
    cmd->rejected_calls++;
    multiFlagError(c);
    return true;
  }
  if (pause::active() || (c->flags & kPostponed)) {
    if (pause::shouldPostpone(c, *cmd)) {
      c->last_cmd = cmd;  // CLIENT LIST shows the held command, as Redis
      return true;
    }
  }
  // -MISCONF while snapshots fail (stop-writes-on-bgsave-error); PING too,
  // as in Redis, so health checks notice.
  bool writes = (cmd_flags & kWrite) != 0;
  if (writes || isPing(cmd)) {
    if (const char* e = persist::writeError()) {
      c->addError(e);
      cmd->rejected_calls++;
      multiFlagError(c);
      return true;
    }
    if (s.config.min_replicas_to_write && writes && !repl::enoughGoodReplicas()) [[unlikely]] {
      c->addError("-NOREPLICAS Not enough good replicas to write.");
      cmd->rejected_calls++;
      multiFlagError(c);
      return true;
    }
  }
  exec_admission.reset();
  if (c->multi_state != nullptr) [[unlikely]] {
    // A command queued in MULTI still trims the tracking table first (Redis
    // does it for every command it processes).
    if (inMulti(c) && tracking::anyClient()) tracking::beforeCommand();
    if (multiQueueCommand(c, cmd)) return true;
  }
  callCommand(c, cmd);
  return true;
}

}  // namespace server
