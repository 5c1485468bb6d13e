// Failure detection and failover, by Redis 7.0.15's rules:
// - a node that does not answer a PING within cluster-node-timeout is
//   PFAIL here; reports from a majority of masters (gossip) make it FAIL,
//   which is broadcast;
// - a replica of a FAIL master waits 500 ms + random(500) + 1 s per rank
//   (replicas with more of the stream go first), asks the masters for their
//   vote with a new epoch, and with a majority takes its master's slots;
// - a master votes once per epoch, for a replica of a FAIL master (or of
//   any master with FORCEACK), not twice for one master within two node
//   timeouts, and not when a slot it claims has a newer owner;
// - CLUSTER FAILOVER: the master holds writes, the replica catches up to
//   the master's offset, then runs the election at once (FORCE skips the
//   catch-up, TAKEOVER the election);
// - replica migration to orphaned masters; the cluster's ok/fail state.
#include <random>

#include "common/log.h"
#include "server/cluster/cluster.h"
#include "server/cluster/state.h"
#include "server/core/state.h"
#include "server/db/db.h"
#include "server/repl/repl.h"
#include "server/request/pause.h"

namespace server::cluster {

void sendToNode(Node* n, uint16_t type, uint8_t mflags0);
void broadcastType(uint16_t type, uint8_t mflags0);

namespace {

enum CantFailover { kNone, kDataAge, kWaitingDelay, kExpired, kWaitingVotes };

int64_t nowMs() {
  return mstime();
}

int64_t nodeTimeout() {
  return g_server->config.cluster_node_timeout;
}

void logCantFailover(int reason) {
  static int64_t last_log_s = 0;
  State& s = st();
  int64_t now_s = nowMs() / 1000;
  if (reason == s.cant_failover_reason && now_s - last_log_s < 300) return;
  s.cant_failover_reason = reason;
  Node* m = myself()->master;
  // Right after the master failed the reason is obvious: say nothing yet.
  if (m != nullptr && m->failed() && nowMs() - m->fail_time < nodeTimeout() + 5000) return;
  const char* msg = "Unknown reason code.";
  switch (reason) {
    case kDataAge:
      msg =
          "Disconnected from master for longer than allowed. Please check the "
          "'cluster-replica-validity-factor' configuration option.";
      break;
    case kWaitingDelay:
      msg = "Waiting the delay before I can start a new failover.";
      break;
    case kExpired:
      msg = "Failover attempt expired.";
      break;
    case kWaitingVotes:
      msg = "Waiting for votes, but majority still not reached.";
      break;
  }
  last_log_s = now_s;
  LOG_WARNING("Currently unable to failover: %s", msg);
}

int replicaRank() {
  Node* me = myself();
  Node* m = me->master;
  if (m == nullptr) return 0;
  int64_t mine = repl::replicationOffset();
  int rank = 0;
  for (Node* r : m->replicas)
    if (r != me && !r->cantFailover() && r->repl_offset > mine) rank++;
  return rank;
}

void replaceMyMaster() {
  Node* me = myself();
  Node* old = me->master;
  if (me->isMaster() || old == nullptr) return;
  setNodeAsMaster(me);
  repl::clusterStopFollowing();
  for (int j = 0; j < kSlots; j++) {
    if (old->hasSlot(j)) {
      delSlot(j);
      addSlot(me, j);
    }
  }
  updateState();
  saveConfigOrDie(true);
  broadcastPong(false);
  resetManualFailover();
}

void handleReplicaMigration(int max_replicas) {
  State& s = st();
  Node* me = myself();
  Node* mine = me->master;
  if (!s.ok || mine == nullptr) return;
  int ok = 0;
  for (Node* r : mine->replicas)
    if (!r->failed() && !r->timedOut()) ok++;
  if (ok <= g_server->config.cluster_migration_barrier) return;
  Node* target = nullptr;
  Node* candidate = me;
  for (auto& [name, n] : s.nodes) {
    int okr = 0;
    bool orphaned = !(n->isReplica() || n->failed()) && (n->flags & kMigrateTo);
    if (n->isMaster()) okr = countNonFailingReplicas(n.get());
    if (okr > 0) orphaned = false;
    if (orphaned) {
      if (target == nullptr && n->numslots > 0) target = n.get();
      if (n->orphaned_time == 0) n->orphaned_time = nowMs();
    } else {
      n->orphaned_time = 0;
    }
    // Of the replicas of the best-served masters, the smallest name moves.
    if (okr == max_replicas) {
      for (Node* r : n->replicas)
        if (r->name < candidate->name) candidate = r;
    }
  }
  if (target != nullptr && candidate == me && nowMs() - target->orphaned_time > 5000) {
    LOG_WARNING("Migrating to orphaned master %s", target->name.c_str());
    setMyMaster(target);
  }
}

}  // namespace

bool addFailureReport(Node* failing, Node* sender) {
  for (FailReport& r : failing->fail_reports) {
    if (r.by == sender) {
      r.time = nowMs();
      return false;
    }
  }
  failing->fail_reports.push_back({sender, nowMs()});
  return true;
}

bool delFailureReport(Node* n, Node* sender) {
  auto& v = n->fail_reports;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it->by == sender) {
      v.erase(it);
      return true;
    }
  }
  return false;
}

int failureReportCount(Node* n) {
  int64_t maxtime = nodeTimeout() * 2;  // reports older than this are dropped
  int64_t now = nowMs();
  auto& v = n->fail_reports;
  std::erase_if(v, [&](const FailReport& r) { return now - r.time > maxtime; });
  return static_cast<int>(v.size());
}

void markFailingIfNeeded(Node* n) {
  int needed = st().size / 2 + 1;
  if (!n->timedOut() || n->failed()) return;
  int failures = failureReportCount(n);
  if (myself()->isMaster()) failures++;
  if (failures < needed) return;
  LOG_NOTICE("Marking node %s as failing (quorum reached).", n->name.c_str());
  n->flags &= ~kPfail;
  n->flags |= kFail;
  n->fail_time = nowMs();
  sendFail(n->name);
  todo(kTodoUpdateState | kTodoSaveConfig);
}

void clearFailureIfNeeded(Node* n) {
  if (n->isReplica() || n->numslots == 0) {
    LOG_NOTICE("Clear FAIL state for node %s: %s is reachable again.", n->name.c_str(),
               n->isReplica() ? "replica" : "master without slots");
    n->flags &= ~kFail;
    todo(kTodoUpdateState | kTodoSaveConfig);
  }
  if (n->isMaster() && n->numslots > 0 && nowMs() - n->fail_time > nodeTimeout() * 2) {
    LOG_NOTICE(
        "Clear FAIL state for node %s: is reachable again and nobody is serving its slots after "
        "some time.",
        n->name.c_str());
    n->flags &= ~kFail;
    todo(kTodoUpdateState | kTodoSaveConfig);
  }
}

void updateSlotsConfigWith(Node* sender, uint64_t epoch, const uint8_t* slots) {
  State& s = st();
  Node* me = myself();
  if (sender == me) {
    LOG_WARNING("Discarding UPDATE message about myself.");
    return;
  }
  Node* cur = me->isMaster() ? me : me->master;
  Node* newmaster = nullptr;
  std::vector<int> dirty;
  int sender_slots = 0, migrated_ours = 0;
  for (int j = 0; j < kSlots; j++) {
    if (wire::slotBit(slots, j)) {
      sender_slots++;
      if (s.slots[j] == sender) {
        wire::clearSlotBit(s.owner_not_claiming.data(), j);
        continue;
      }
      // A slot being imported changes only by hand (redis-cli).
      if (s.importing_from[j] != nullptr) continue;
      if (s.slots[j] == nullptr || slotUnclaimed(j) || s.slots[j]->config_epoch < epoch) {
        if (s.slots[j] == me && g_server->dbs[0]->countKeysInSlot(j) > 0) dirty.push_back(j);
        if (s.slots[j] == cur) {
          newmaster = sender;
          migrated_ours++;
        }
        delSlot(j);
        addSlot(sender, j);
        todo(kTodoSaveConfig | kTodoUpdateState | kTodoFsyncConfig);
      }
    } else if (s.slots[j] == sender) {
      // Still bound to the sender until someone claims it: fewer errors for
      // clients, and no UPDATE spreads this uncertain ownership.
      wire::setSlotBit(s.owner_not_claiming.data(), j);
    }
  }
  if (newmaster != nullptr && cur != nullptr && cur->numslots == 0 &&
      (g_server->config.cluster_allow_replica_migration || sender_slots == migrated_ours)) {
    LOG_WARNING("Configuration change detected. Reconfiguring myself as a replica of %s",
                sender->name.c_str());
    setMyMaster(sender);
    todo(kTodoSaveConfig | kTodoUpdateState | kTodoFsyncConfig);
  } else if (me->master != nullptr && me->master->master != nullptr && me->master->master != me) {
    LOG_WARNING("I'm a sub-replica! Reconfiguring myself as a replica of grandmaster %s",
                me->master->master->name.c_str());
    setMyMaster(me->master->master);
    todo(kTodoSaveConfig | kTodoUpdateState | kTodoFsyncConfig);
  } else {
    // Slots we lost while keeping others: their keys go.
    for (int j : dirty) g_server->dbs[0]->removeKeysInSlot(j);
  }
}

void handleAuthRequest(Node* node, const wire::Header& h) {
  State& s = st();
  Node* me = myself();
  Node* master = node->master;
  uint64_t req_current = wire::ntoh64(h.current_epoch);
  uint64_t req_config = wire::ntoh64(h.config_epoch);
  bool force = h.mflags[0] & wire::kFlag0ForceAck;
  if (me->isReplica() || me->numslots == 0) return;
  if (req_current < s.current_epoch) {
    LOG_WARNING("Failover auth denied to %s: reqEpoch (%llu) < curEpoch(%llu)", node->name.c_str(),
                static_cast<unsigned long long>(req_current),
                static_cast<unsigned long long>(s.current_epoch));
    return;
  }
  if (s.last_vote_epoch == s.current_epoch) {
    LOG_WARNING("Failover auth denied to %s: already voted for epoch %llu", node->name.c_str(),
                static_cast<unsigned long long>(s.current_epoch));
    return;
  }
  if (node->isMaster() || master == nullptr || (!master->failed() && !force)) {
    if (node->isMaster())
      LOG_WARNING("Failover auth denied to %s: it is a master node", node->name.c_str());
    else if (master == nullptr)
      LOG_WARNING("Failover auth denied to %s: I don't know its master", node->name.c_str());
    else
      LOG_WARNING("Failover auth denied to %s: its master is up", node->name.c_str());
    return;
  }
  if (nowMs() - master->voted_time < nodeTimeout() * 2) {
    LOG_WARNING("Failover auth denied to %s: can't vote about this master before %lld milliseconds",
                node->name.c_str(),
                static_cast<long long>(nodeTimeout() * 2 - (nowMs() - master->voted_time)));
    return;
  }
  for (int j = 0; j < kSlots; j++) {
    if (!wire::slotBit(h.myslots, j)) continue;
    if (s.slots[j] == nullptr || slotUnclaimed(j) || s.slots[j]->config_epoch <= req_config)
      continue;
    LOG_WARNING("Failover auth denied to %s: slot %d epoch (%llu) > reqEpoch (%llu)",
                node->name.c_str(), j, static_cast<unsigned long long>(s.slots[j]->config_epoch),
                static_cast<unsigned long long>(req_config));
    return;
  }
  s.last_vote_epoch = s.current_epoch;
  master->voted_time = nowMs();
  todo(kTodoSaveConfig | kTodoFsyncConfig);
  sendToNode(node, wire::kAuthAck, 0);
  LOG_WARNING("Failover auth granted to %s for epoch %llu", node->name.c_str(),
              static_cast<unsigned long long>(s.current_epoch));
}

void handleReplicaFailover() {
  State& s = st();
  Node* me = myself();
  int64_t now = nowMs();
  int64_t auth_age = now - s.failover_auth_time;
  int needed = s.size / 2 + 1;
  bool manual = s.mf_end != 0 && s.mf_can_start;
  s.todo &= ~kTodoHandleFailover;
  int64_t auth_timeout = std::max<int64_t>(nodeTimeout() * 2, 2000);
  int64_t auth_retry = auth_timeout * 2;
  const Config& cfg = g_server->config;
  if (me->isMaster() || me->master == nullptr || (!me->master->failed() && !manual) ||
      (cfg.cluster_replica_no_failover && !manual) || me->master->numslots == 0) {
    s.cant_failover_reason = kNone;
    return;
  }
  int64_t data_age = repl::masterDataAgeMs();
  if (data_age < 0) data_age = 0;
  if (data_age > nodeTimeout()) data_age -= nodeTimeout();
  if (cfg.cluster_replica_validity_factor &&
      data_age > cfg.repl_ping_replica_period * 1000 +
                     nodeTimeout() * cfg.cluster_replica_validity_factor) {
    if (!manual) {
      logCantFailover(kDataAge);
      return;
    }
  }
  if (auth_age > auth_retry) {
    static std::mt19937 rng(std::random_device{}());
    s.failover_auth_time = now + 500 + static_cast<int64_t>(rng() % 500);
    s.failover_auth_count = 0;
    s.failover_auth_sent = false;
    s.failover_auth_rank = replicaRank();
    s.failover_auth_time += s.failover_auth_rank * 1000;
    if (s.mf_end) {
      s.failover_auth_time = now;
      s.failover_auth_rank = 0;
      todo(kTodoHandleFailover);
    }
    LOG_WARNING("Start of election delayed for %lld milliseconds (rank #%d, offset %lld).",
                static_cast<long long>(s.failover_auth_time - now), s.failover_auth_rank,
                static_cast<long long>(repl::replicationOffset()));
    broadcastPong(true);
    return;
  }
  if (!s.failover_auth_sent && s.mf_end == 0) {
    int rank = replicaRank();
    if (rank > s.failover_auth_rank) {
      int64_t added = (rank - s.failover_auth_rank) * 1000;
      s.failover_auth_time += added;
      s.failover_auth_rank = rank;
      LOG_WARNING("Replica rank updated to #%d, added %lld milliseconds of delay.", rank,
                  static_cast<long long>(added));
    }
  }
  if (now < s.failover_auth_time) {
    logCantFailover(kWaitingDelay);
    return;
  }
  if (auth_age > auth_timeout) {
    logCantFailover(kExpired);
    return;
  }
  if (!s.failover_auth_sent) {
    s.current_epoch++;
    s.failover_auth_epoch = s.current_epoch;
    LOG_WARNING("Starting a failover election for epoch %llu.",
                static_cast<unsigned long long>(s.current_epoch));
    broadcastType(wire::kAuthRequest, s.mf_end ? wire::kFlag0ForceAck : 0);
    s.failover_auth_sent = true;
    todo(kTodoSaveConfig | kTodoUpdateState | kTodoFsyncConfig);
    return;
  }
  if (s.failover_auth_count >= needed) {
    LOG_WARNING("Failover election won: I'm the new master.");
    if (me->config_epoch < s.failover_auth_epoch) {
      me->config_epoch = s.failover_auth_epoch;
      LOG_WARNING("configEpoch set to %llu after successful failover",
                  static_cast<unsigned long long>(me->config_epoch));
    }
    replaceMyMaster();
  } else {
    logCantFailover(kWaitingVotes);
  }
}

void takeOverMaster() {
  replaceMyMaster();
}

void resetManualFailover() {
  State& s = st();
  if (s.mf_replica != nullptr || s.mf_end) pause::holdWrites(pause::Hold::kClusterFailover, false);
  s.mf_end = 0;
  s.mf_can_start = false;
  s.mf_replica = nullptr;
  s.mf_master_offset = -1;
}

void handleManualFailover() {
  State& s = st();
  if (s.mf_end == 0 || s.mf_can_start || s.mf_master_offset == -1) return;
  if (s.mf_master_offset == repl::replicationOffset()) {
    s.mf_can_start = true;
    LOG_WARNING("All master replication stream processed, manual failover can start.");
    todo(kTodoHandleFailover);
    return;
  }
  todo(kTodoHandleManualFailover);
}

void updateState() {
  static int64_t among_minority_time = 0;
  static int64_t first_call_time = 0;
  State& s = st();
  Node* me = myself();
  const Config& cfg = g_server->config;
  s.todo &= ~kTodoUpdateState;
  int64_t now = nowMs();
  if (first_call_time == 0) first_call_time = now;
  // A master just restarted waits 2 s before accepting writes: the
  // cluster may have reconfigured it meanwhile.
  if (me->isMaster() && !s.ok && now - first_call_time < 2000) return;
  bool ok = true;
  if (cfg.cluster_require_full_coverage) {
    for (int j = 0; j < kSlots; j++) {
      if (s.slots[j] == nullptr || s.slots[j]->failed()) {
        ok = false;
        break;
      }
    }
  }
  int reachable = 0;
  s.size = 0;
  for (auto& [name, n] : s.nodes) {
    if (n->isMaster() && n->numslots) {
      s.size++;
      if (!(n->flags & (kFail | kPfail))) reachable++;
    }
  }
  if (reachable < s.size / 2 + 1) {
    ok = false;
    among_minority_time = now;
  }
  if (ok != s.ok) {
    int64_t rejoin = std::clamp<int64_t>(nodeTimeout(), 500, 5000);
    if (ok && me->isMaster() && now - among_minority_time < rejoin) return;
    LOG_WARNING("Cluster state changed: %s", ok ? "ok" : "fail");
    s.ok = ok;
  }
}

void failureCron(int64_t now) {
  State& s = st();
  Node* me = myself();
  int orphaned = 0, max_replicas = 0, mine = 0;
  bool update = false;
  int64_t timeout = nodeTimeout();
  for (auto& [name, np] : s.nodes) {
    Node* n = np.get();
    if (n->flags & (kMyself | kNoAddr | kHandshake)) continue;
    if (me->isReplica() && n->isMaster() && !n->failed()) {
      int okr = countNonFailingReplicas(n);
      if (okr == 0 && n->numslots > 0 && (n->flags & kMigrateTo)) orphaned++;
      max_replicas = std::max(max_replicas, okr);
      if (me->master == n) mine = okr;
    }
    int64_t ping_delay = now - n->ping_sent;
    int64_t data_delay = now - n->data_received;
    // A link that carries nothing for half the timeout is reconnected.
    if (n->link != nullptr && now - n->link->ctime > timeout && n->ping_sent &&
        ping_delay > timeout / 2 && data_delay > timeout / 2) {
      freeLink(n->link);
    }
    if (n->link != nullptr && n->ping_sent == 0 && now - n->pong_received > timeout / 2) {
      sendPing(n->link, wire::kPing);
      continue;
    }
    if (s.mf_end && me->isMaster() && s.mf_replica == n && n->link != nullptr) {
      sendPing(n->link, wire::kPing);
      continue;
    }
    if (n->ping_sent == 0) continue;
    int64_t delay = std::min(ping_delay, data_delay);
    if (delay > timeout && !(n->flags & (kPfail | kFail))) {
      LOG_DEBUG("*** NODE %s possibly failing", n->name.c_str());
      n->flags |= kPfail;
      update = true;
    }
  }
  if (me->isReplica() && me->master != nullptr && me->master->hasAddr()) followMaster(me->master);
  if (s.mf_end && s.mf_end < now) {
    LOG_WARNING("Manual failover timed out.");
    resetManualFailover();
  }
  if (me->isReplica()) {
    handleManualFailover();
    handleReplicaFailover();
    if (orphaned && max_replicas >= 2 && mine == max_replicas &&
        g_server->config.cluster_allow_replica_migration)
      handleReplicaMigration(max_replicas);
  }
  if (update || !s.ok) updateState();
}

}  // namespace server::cluster
