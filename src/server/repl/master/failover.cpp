// FAILOVER [TO host port [FORCE]] [TIMEOUT ms] | FAILOVER ABORT, as Redis
// 7.0 runs it from the master:
//
//   waiting-for-sync      writes are held (pause::holdWrites)
//                         until the target (or, without TO, the first
//                         replica) has acknowledged the whole stream; past
//                         TIMEOUT the failover is aborted, or with FORCE
//                         goes on anyway.
//   failover-in-progress  this server becomes a replica of the target and
//                         sends it PSYNC <id> <offset> FAILOVER: a replica
//                         of our own history promotes itself before it
//                         answers. Its +CONTINUE or +FULLRESYNC ends the
//                         failover (writes then get -READONLY here); an
//                         error reply aborts it and this server is a master
//                         again (a new replication id, as REPLICAOF NO ONE).
//
// FAILOVER ABORT stops it in either state. While it lasts, REPLICAOF and
// SYNC are refused. An unreachable target in failover-in-progress is
// retried as any master is, until FAILOVER ABORT (Redis does the same).
#include <strings.h>

#include <string>

#include "common/log.h"
#include "common/strutil.h"
#include "event/event_loop.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/repl/master/replicas.h"
#include "server/repl/repl.h"
#include "server/repl/replica/replica.h"
#include "server/request/pause.h"

namespace server::repl {

namespace {

struct Failover {
  FailoverState state = FailoverState::kNone;
  std::string host;  // the target; empty until chosen (no TO)
  int port = 0;
  bool force = false;
  int64_t end_ms = 0;  // 0: no TIMEOUT
};

Failover& fo() {
  static Failover f;
  return f;
}

std::string targetName() {
  return fo().host.empty() ? std::string("any replica")
                           : fo().host + ":" + std::to_string(fo().port);
}

void clearFailover() {
  fo() = Failover();
  pause::holdWrites(pause::Hold::kFailover, false);
}

void abortFailover(const char* why) {
  if (fo().state == FailoverState::kNone) return;
  LOG_NOTICE("FAILOVER to %s aborted: %s", targetName().c_str(), why);
  if (fo().state == FailoverState::kInProgress) replica::unsetMaster();
  clearFailover();
}

// The target demotes this server: from here on its PSYNC carries FAILOVER.
void beginInProgress() {
  fo().state = FailoverState::kInProgress;
  replica::setMaster(fo().host, fo().port);
}

// A connected replica at host:port (its announced or peer address and its
// listening port, as INFO shows them).
ReplicaState* findReplica(const std::string& host, int64_t port) {
  for (ReplicaState* r : replicas()) {
    if (r->listening_port == port && strcasecmp(replicaIp(*r).c_str(), host.c_str()) == 0) return r;
  }
  return nullptr;
}

void failoverCommand(Client* c) {
  if (c->argc() == 2 && common::strutil::equalsIgnoreCase(c->arg(1), "abort")) {
    if (fo().state == FailoverState::kNone) {
      c->addError("No failover in progress.");
      return;
    }
    abortFailover("Failover manually aborted");
    c->addOk();
    return;
  }
  int64_t timeout_ms = 0, port = 0;
  bool force = false;
  std::string host;
  bool have_host = false;
  for (size_t j = 1; j < c->argc(); j++) {
    std::string_view a = c->arg(j);
    if (common::strutil::equalsIgnoreCase(a, "timeout") && j + 1 < c->argc() && timeout_ms == 0) {
      if (!c->argInt64(j + 1, &timeout_ms)) return;
      if (timeout_ms <= 0) {
        c->addError("FAILOVER timeout must be greater than 0");
        return;
      }
      j++;
    } else if (common::strutil::equalsIgnoreCase(a, "to") && j + 2 < c->argc() && !have_host) {
      if (!c->argInt64(j + 2, &port)) return;
      host = std::string(c->arg(j + 1));
      have_host = true;
      j += 2;
    } else if (common::strutil::equalsIgnoreCase(a, "force") && !force) {
      force = true;
    } else {
      c->addError("syntax error");
      return;
    }
  }
  if (fo().state != FailoverState::kNone) {
    c->addError("FAILOVER already in progress.");
    return;
  }
  if (g_is_replica) {
    c->addError("FAILOVER is not valid when server is a replica.");
    return;
  }
  if (replicas().empty()) {
    c->addError("FAILOVER requires connected replicas.");
    return;
  }
  if (force && (timeout_ms == 0 || !have_host)) {
    c->addError("FAILOVER with force option requires both a timeout and target HOST and IP.");
    return;
  }
  if (have_host) {
    ReplicaState* r = findReplica(host, port);
    if (r == nullptr) {
      c->addError("FAILOVER target HOST and PORT is not a replica.");
      return;
    }
    if (r->state != SyncState::kOnline) {
      c->addError("FAILOVER target replica is not online.");
      return;
    }
    fo().host = host;
    fo().port = static_cast<int>(port);
    LOG_NOTICE("FAILOVER requested to %s:%lld.", host.c_str(), static_cast<long long>(port));
  } else {
    LOG_NOTICE("FAILOVER requested to any replica.");
  }
  if (timeout_ms > 0) fo().end_ms = event::EventLoop::nowMs() + timeout_ms;
  fo().force = force;
  fo().state = FailoverState::kWaitForSync;
  pause::holdWrites(pause::Hold::kFailover, true);
  c->addOk();
}

}  // namespace

FailoverState failoverState() {
  return fo().state;
}

const char* failoverStateName() {
  switch (fo().state) {
    case FailoverState::kNone:
      return "no-failover";
    case FailoverState::kWaitForSync:
      return "waiting-for-sync";
    case FailoverState::kInProgress:
      return "failover-in-progress";
  }
  return "no-failover";
}

void updateFailover() {
  Failover& f = fo();
  if (f.state != FailoverState::kWaitForSync) return;
  if (f.end_ms != 0 && f.end_ms <= event::EventLoop::nowMs()) {
    if (f.force) {
      LOG_NOTICE("FAILOVER to %s time out exceeded, failing over.", targetName().c_str());
      beginInProgress();
    } else {
      abortFailover("Replica never caught up before timeout");
    }
    return;
  }
  ReplicaState* target = nullptr;
  if (!f.host.empty()) {
    target = findReplica(f.host, f.port);
  } else {
    for (ReplicaState* r : replicas()) {
      if (r->state != SyncState::kOnline || r->ack_offset != masterOffset()) continue;
      f.host = replicaIp(*r);
      f.port = static_cast<int>(r->listening_port);
      target = r;
      break;
    }
  }
  if (target == nullptr || target->ack_offset != masterOffset()) return;
  LOG_NOTICE("Failover target %s is synced, failing over.", targetName().c_str());
  beginInProgress();
}

void failoverPsyncAccepted() {
  if (fo().state != FailoverState::kInProgress) return;
  LOG_NOTICE("FAILOVER to %s done: this server is now its replica.", targetName().c_str());
  clearFailover();
}

void failoverPsyncRefused() {
  abortFailover("Failover target rejected psync request");
}

void registerFailoverCommand(CommandTable& t) {
  t.add({"failover", -1, kAdmin | kNoScript | kStale, failoverCommand, 0, 0, 0, "server",
         "Start a coordinated failover between this server and one of its replicas.", "6.2.0",
         "O(1)", "admin slow dangerous"});
}

}  // namespace server::repl
