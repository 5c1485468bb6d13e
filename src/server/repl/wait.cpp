// WAIT numreplicas timeout, and min-replicas-to-write / min-replicas-max-lag
// (-NOREPLICAS), as Redis 7.0: a replica counts once it acknowledged
// (REPLCONF ACK) the master's offset at the time of the WAIT.
//
// A waiting client is blocked (kBlocked: its input waits); REPLCONF GETACK
// goes to every replica at once so they answer without waiting for their
// next one-second ACK. Clients are answered from a zero-delay timer, never
// from inside the replica's REPLCONF ACK, and then resume their input.

#include <algorithm>
#include <vector>

#include "common/strutil.h"
#include "event/event_loop.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/repl/master/replicas.h"
#include "server/repl/repl.h"
#include "server/request/client_io.h"
#include "server/request/multi.h"

namespace server::repl {

namespace {

struct Waiter {
  Client* client;
  int64_t offset;
  int64_t numreplicas;
  int64_t deadline_ms;  // 0: forever
};

struct WaitState {
  std::vector<Waiter> waiters;
  event::TimerId timer = 0;
  bool hook = false;
};

WaitState& ws() {
  static WaitState s;
  return s;
}

int64_t acksFor(int64_t offset) {
  int64_t n = 0;
  for (ReplicaState* r : replicas())
    if (r->state == SyncState::kOnline && !r->rdb_only && r->ack_offset >= offset) n++;
  return n;
}

void onClientClose(Client* c) {
  std::erase_if(ws().waiters, [c](const Waiter& w) { return w.client == c; });
}

// Answers the waiters that are satisfied (or timed out, or all with
// `all`), then lets them read their next requests.
void serveWaiters(bool all) {
  WaitState& s = ws();
  int64_t now = db::Clock::nowMs;
  std::vector<Client*> done;
  std::erase_if(s.waiters, [&](const Waiter& w) {
    int64_t acks = acksFor(w.offset);
    bool timed_out = w.deadline_ms != 0 && now >= w.deadline_ms;
    if (!all && acks < w.numreplicas && !timed_out) return false;
    w.client->flags &= ~kBlocked;
    w.client->addInteger(acks);
    done.push_back(w.client);
    return true;
  });
  for (Client* c : done) {
    if (c->flags & kCloseAsap) continue;
    if (!(c->flags & kPendingWrite)) g_server->queueWrite(c);
    resumeInput(c);
  }
}

void scheduleServe() {
  WaitState& s = ws();
  if (s.timer != 0 || s.waiters.empty()) return;
  s.timer = g_server->loop.addTimer(0, [](event::EventLoop*, event::TimerId) {
    ws().timer = 0;
    serveWaiters(false);
    return event::kNoMore;
  });
}

void waitCommand(Client* c) {
  if (g_is_replica) {
    c->addError(
        "WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a "
        "replica is configured to be writable (which is not the default) writes to replicas are "
        "just local and are not propagated.");
    return;
  }
  int64_t numreplicas, timeout;
  if (!c->argInt64(1, &numreplicas)) return;
  if (!c->argInt64Msg(2, &timeout, "timeout is not an integer or out of range")) return;
  if (timeout < 0) {
    c->addError("timeout is negative");
    return;
  }
  // This client's own last write (PINGs and GETACKs after it do not count).
  int64_t offset = c->repl_woff;
  int64_t acks = acksFor(offset);
  if (acks >= numreplicas || (c->flags & kDenyBlocking)) {
    c->addInteger(acks);
    return;
  }
  WaitState& s = ws();
  if (!s.hook) {
    s.hook = true;
    Client::addCloseHook(onClientClose);
  }
  s.waiters.push_back({c, offset, numreplicas, timeout > 0 ? db::Clock::nowMs + timeout : 0});
  c->flags |= kBlocked;
  requestAcks();
}

}  // namespace

void requestAcks() {
  if (replicas().empty()) return;
  feedRaw("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n");
}

void onReplicaAck() {
  if (!ws().waiters.empty()) scheduleServe();
}

void waitCron() {
  if (!ws().waiters.empty()) serveWaiters(false);
}

bool enoughGoodReplicas() {
  const Config& cfg = g_server->config;
  if (g_is_replica || cfg.min_replicas_to_write == 0 || cfg.min_replicas_max_lag == 0) return true;
  return goodReplicas() >= cfg.min_replicas_to_write;
}

int64_t goodReplicas() {
  int64_t now = nowSec();
  int64_t good = 0;
  for (ReplicaState* r : replicas())
    if (r->state == SyncState::kOnline && !r->rdb_only &&
        now - r->ack_time_s <= g_server->config.min_replicas_max_lag)
      good++;
  return good;
}

void registerWaitCommand(CommandTable& t) {
  t.add({"wait", 3, kNoScript, waitCommand, 0, 0, 0, "generic",
         "Wait for the synchronous replication of all the write commands sent in the context of "
         "the current connection",
         "3.0.0", "O(1)", "slow connection"});
}

}  // namespace server::repl
