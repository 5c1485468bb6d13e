// CLUSTER subcommands about nodes, roles and the cluster's state, and
// ASKING / READONLY / READWRITE, with Redis 7.0.15's replies and errors.

#include <array>
#include <cerrno>
#include <cstring>
#include <map>

#include "common/log.h"
#include "common/strutil.h"
#include "net/connection.h"
#include "server/cluster/cluster.h"
#include "server/cluster/cmds.h"
#include "server/cluster/state.h"
#include "server/core/client.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"
#include "server/db/db.h"
#include "server/repl/repl.h"
#include "server/request/blocking.h"
#include "server/request/keyspace.h"

namespace server::cluster {

void sendToNode(Node* n, uint16_t type, uint8_t mflags0);
void takeOverMaster();

namespace cmd {
namespace {

Node* nodeArgOrReply(Client* c, size_t i) {
  std::string_view name = c->arg(i);
  Node* n = lookupNode(name);
  if (n == nullptr)
    c->addErrorFormat("Unknown node %.*s", static_cast<int>(name.size()), name.data());
  return n;
}

}  // namespace

void subcommandSyntaxError(Client* c) {
  std::string_view sub = c->arg(1);
  c->addErrorFormat("unknown subcommand or wrong number of arguments for '%.*s'. Try CLUSTER HELP.",
                    static_cast<int>(std::min<size_t>(sub.size(), 128)), sub.data());
}

void help(Client* c) {
  static const char* const kLines[] = {
      "ADDSLOTS <slot> [<slot> ...]",
      "    Assign slots to current node.",
      "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
      "    Assign slots which are between <start-slot> and <end-slot> to current node.",
      "BUMPEPOCH",
      "    Advance the cluster config epoch.",
      "COUNT-FAILURE-REPORTS <node-id>",
      "    Return number of failure reports for <node-id>.",
      "COUNTKEYSINSLOT <slot>",
      "    Return the number of keys in <slot>.",
      "DELSLOTS <slot> [<slot> ...]",
      "    Delete slots information from current node.",
      "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
      "    Delete slots information which are between <start-slot> and <end-slot> from current "
      "node.",
      "FAILOVER [FORCE|TAKEOVER]",
      "    Promote current replica node to being a master.",
      "FORGET <node-id>",
      "    Remove a node from the cluster.",
      "GETKEYSINSLOT <slot> <count>",
      "    Return key names stored by current node in a slot.",
      "FLUSHSLOTS",
      "    Delete current node own slots information.",
      "INFO",
      "    Return information about the cluster.",
      "KEYSLOT <key>",
      "    Return the hash slot for <key>.",
      "MEET <ip> <port> [<bus-port>]",
      "    Connect nodes into a working cluster.",
      "MYID",
      "    Return the node id.",
      "NODES",
      "    Return cluster configuration seen by node. Output format:",
      "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
      "REPLICATE <node-id>",
      "    Configure current node as replica to <node-id>.",
      "RESET [HARD|SOFT]",
      "    Reset current node (default: soft).",
      "SET-CONFIG-EPOCH <epoch>",
      "    Set config epoch of current node.",
      "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
      "    Set slot state.",
      "REPLICAS <node-id>",
      "    Return <node-id> replicas.",
      "SAVECONFIG",
      "    Force saving cluster configuration on disk.",
      "SLOTS",
      "    Return information about slots range mappings. Each range is made of:",
      "    start, end, master and replicas IP addresses, ports and ids",
      "SHARDS",
      "    Return information about slot range mappings and the nodes associated with them.",
      "LINKS",
      "    Return information about all network links between this node and its peers.",
      "    Output format is an array where each array element is a map containing attributes of "
      "a link",
  };
  replyHelp(c, kLines);
}

void meet(Client* c) {
  if (c->argc() != 4 && c->argc() != 5) return subcommandSyntaxError(c);
  int64_t port, cport;
  std::string host(c->arg(2)), ps(c->arg(3));
  if (!common::strutil::parseInt64(ps, &port)) {
    c->addErrorFormat("Invalid TCP base port specified: %s", ps.c_str());
    return;
  }
  if (c->argc() == 5) {
    std::string cs(c->arg(4));
    if (!common::strutil::parseInt64(cs, &cport)) {
      c->addErrorFormat("Invalid TCP bus port specified: %s", cs.c_str());
      return;
    }
  } else {
    cport = port + 10000;
  }
  if (!startHandshake(host, static_cast<int>(port), static_cast<int>(cport)) && errno == EINVAL) {
    c->addErrorFormat("Invalid node address specified: %s:%s", host.c_str(), ps.c_str());
    return;
  }
  c->addOk();
}

void nodes(Client* c) {
  c->reply().verbatim(nodesDescription(0, c));
}

void myid(Client* c) {
  c->addBulk(myself()->name);
}

void info(Client* c) {
  const State& s = st();
  int assigned = 0, ok = 0, pfail = 0, fail = 0;
  for (const Node* n : s.slots) {
    if (n == nullptr) continue;
    assigned++;
    if (n->failed())
      fail++;
    else if (n->timedOut())
      pfail++;
    else
      ok++;
  }
  const Node* me = myself();
  uint64_t myepoch =
      me->isReplica() && me->master != nullptr ? me->master->config_epoch : me->config_epoch;
  std::string o;
  appendFormat(&o,
               "cluster_state:%s\r\ncluster_slots_assigned:%d\r\ncluster_slots_ok:%d\r\n"
               "cluster_slots_pfail:%d\r\ncluster_slots_fail:%d\r\ncluster_known_nodes:%zu\r\n"
               "cluster_size:%d\r\ncluster_current_epoch:%llu\r\ncluster_my_epoch:%llu\r\n",
               s.ok ? "ok" : "fail", assigned, ok, pfail, fail, s.nodes.size(), s.size,
               static_cast<unsigned long long>(s.current_epoch),
               static_cast<unsigned long long>(myepoch));
  uint64_t total = 0;
  for (int i = 0; i < wire::kTypeCount; i++) {
    if (s.sent[i] == 0) continue;
    total += s.sent[i];
    appendFormat(&o, "cluster_stats_messages_%s_sent:%llu\r\n", wire::typeName(i),
                 static_cast<unsigned long long>(s.sent[i]));
  }
  appendFormat(&o, "cluster_stats_messages_sent:%llu\r\n", static_cast<unsigned long long>(total));
  total = 0;
  for (int i = 0; i < wire::kTypeCount; i++) {
    if (s.received[i] == 0) continue;
    total += s.received[i];
    appendFormat(&o, "cluster_stats_messages_%s_received:%llu\r\n", wire::typeName(i),
                 static_cast<unsigned long long>(s.received[i]));
  }
  appendFormat(&o, "cluster_stats_messages_received:%llu\r\n",
               static_cast<unsigned long long>(total));
  appendFormat(&o, "total_cluster_links_buffer_limit_exceeded:%llu\r\n",
               static_cast<unsigned long long>(s.links_buffer_limit_exceeded));
  // This project's: the node's links by connection type (Redis shows no
  // such lines), e.g. "cluster_links_rdma:4".
  std::map<std::string, int> by_type;
  for (auto& [name, n] : s.nodes) {
    for (const Link* l : {n->link, n->inbound}) {
      if (l != nullptr) by_type[l->conn->type().name()]++;
    }
  }
  for (auto& [type, count] : by_type)
    appendFormat(&o, "cluster_links_%s:%d\r\n", type.c_str(), count);
  c->reply().verbatim(o);
}

void saveconfig(Client* c) {
  if (saveConfig(true))
    c->addOk();
  else
    c->addErrorFormat("error saving the cluster node config: %s", strerror(errno));
}

void forget(Client* c) {
  Node* n = nodeArgOrReply(c, 2);
  if (n == nullptr) return;
  if (n == myself()) return c->addError("I tried hard but I can't forget myself...");
  if (myself()->isReplica() && myself()->master == n) return c->addError("Can't forget my master!");
  blacklistAdd(n);
  deleteNode(n);
  todo(kTodoUpdateState | kTodoSaveConfig);
  c->addOk();
}

void replicate(Client* c) {
  Node* n = nodeArgOrReply(c, 2);
  if (n == nullptr) return;
  Node* me = myself();
  if (n == me) return c->addError("Can't replicate myself");
  if (n->isReplica()) return c->addError("I can only replicate a master, not a replica.");
  if (me->isMaster() && (me->numslots != 0 || g_server->dbs[0]->size() != 0))
    return c->addError("To set a master the node must be empty and without assigned slots.");
  setMyMaster(n);
  todo(kTodoUpdateState | kTodoSaveConfig);
  c->addOk();
}

void replicas(Client* c) {
  Node* n = nodeArgOrReply(c, 2);
  if (n == nullptr) return;
  if (n->isReplica()) return c->addError("The specified node is not a master");
  c->addArrayLen(static_cast<int64_t>(n->replicas.size()));
  for (const Node* r : n->replicas) c->addBulk(nodeLine(r, c));
}

void countFailureReports(Client* c) {
  Node* n = nodeArgOrReply(c, 2);
  if (n != nullptr) c->addInteger(failureReportCount(n));
}

void failover(Client* c) {
  if (c->argc() > 3) return subcommandSyntaxError(c);
  bool force = false, takeover = false;
  if (c->argc() == 3) {
    if (common::strutil::equalsIgnoreCase(c->arg(2), "force")) {
      force = true;
    } else if (common::strutil::equalsIgnoreCase(c->arg(2), "takeover")) {
      takeover = force = true;
    } else {
      return c->addSyntaxError();
    }
  }
  Node* me = myself();
  if (me->isMaster()) return c->addError("You should send CLUSTER FAILOVER to a replica");
  if (me->master == nullptr) return c->addError("I'm a replica but my master is unknown to me");
  if (!force && (me->master->failed() || me->master->link == nullptr))
    return c->addError("Master is down or failed, please use CLUSTER FAILOVER FORCE");
  resetManualFailover();
  State& s = st();
  s.mf_end = mstime() + kManualFailoverTimeoutMs;
  if (takeover) {
    // No election: this replica takes a new epoch by itself.
    LOG_WARNING("Taking over the master (user request).");
    bumpEpochWithoutConsensus();
    takeOverMaster();
  } else if (force) {
    LOG_WARNING("Forced failover user request accepted.");
    s.mf_can_start = true;
  } else {
    LOG_WARNING("Manual failover user request accepted.");
    sendToNode(me->master, wire::kMfStart, 0);
  }
  c->addOk();
}

void setConfigEpoch(Client* c) {
  int64_t epoch;
  if (!c->argInt64(2, &epoch)) return;
  Node* me = myself();
  if (epoch < 0) {
    c->addErrorFormat("Invalid config epoch specified: %lld", static_cast<long long>(epoch));
  } else if (st().nodes.size() > 1) {
    c->addError(
        "The user can assign a config epoch only when the node does not know any other node.");
  } else if (me->config_epoch != 0) {
    c->addError("Node config epoch is already non-zero");
  } else {
    me->config_epoch = static_cast<uint64_t>(epoch);
    LOG_WARNING("configEpoch set to %llu via CLUSTER SET-CONFIG-EPOCH",
                static_cast<unsigned long long>(me->config_epoch));
    if (st().current_epoch < me->config_epoch) st().current_epoch = me->config_epoch;
    todo(kTodoUpdateState | kTodoSaveConfig);
    c->addOk();
  }
}

void bumpepoch(Client* c) {
  bool bumped = bumpEpochWithoutConsensus();
  c->addStatus(std::string(bumped ? "BUMPED " : "STILL ") + std::to_string(myself()->config_epoch));
}

void reset(Client* c) {
  if (c->argc() > 3) return subcommandSyntaxError(c);
  bool hard = false;
  if (c->argc() == 3) {
    if (common::strutil::equalsIgnoreCase(c->arg(2), "hard"))
      hard = true;
    else if (!common::strutil::equalsIgnoreCase(c->arg(2), "soft"))
      return c->addSyntaxError();
  }
  Node* me = myself();
  if (me->isMaster() && c->db()->size() != 0)
    return c->addError("CLUSTER RESET can't be called with master nodes containing keys");
  resetNode(hard);
  c->addOk();
}

void links(Client* c) {
  std::vector<const Link*> all;
  for (auto& [name, n] : st().nodes) {
    if (n->link != nullptr) all.push_back(n->link);
    if (n->inbound != nullptr) all.push_back(n->inbound);
  }
  c->addArrayLen(static_cast<int64_t>(all.size()));
  for (const Link* l : all) {
    resp::Writer& w = c->reply();
    w.mapLen(6);
    w.bulk("direction");
    w.bulk(l->inbound ? "from" : "to");
    w.bulk("node");
    w.bulk(l->node->name);
    w.bulk("create-time");
    w.integer(l->ctime);
    std::string events;
    if (l->conn->hasReadHandler()) events += 'r';
    if (l->conn->hasWriteHandler()) events += 'w';
    w.bulk("events");
    w.bulk(events);
    w.bulk("send-buffer-allocated");
    w.integer(static_cast<int64_t>(l->sndbuf.capacity()));
    w.bulk("send-buffer-used");
    w.integer(static_cast<int64_t>(l->sndbuf.size()));
  }
}

void asking(Client* c) {
  c->flags |= kClientAsking;
  c->addOk();
}

void readonly(Client* c) {
  c->flags |= kReadOnlyClient;
  c->addOk();
}

void readwrite(Client* c) {
  c->flags &= ~kReadOnlyClient;
  c->addOk();
}

}  // namespace cmd

void resetNode(bool hard) {
  Node* me = myself();
  if (me->isReplica()) {
    setNodeAsMaster(me);
    repl::clusterStopFollowing();
    // Emptied as a replica's data is on a new sync: not a write of its own,
    // so nothing reaches the AOF (Redis does not propagate CLUSTER RESET).
    for (auto& d : g_server->dbs) {
      dbWillChange(d.get(), nullptr);
      d->clear();
      blocking::signalDb(d.get());
    }
  }
  closeAllSlots();
  resetManualFailover();
  for (int j = 0; j < kSlots; j++) delSlot(j);
  std::vector<Node*> others;
  for (auto& [name, n] : st().nodes)
    if (n.get() != me) others.push_back(n.get());
  for (Node* n : others) deleteNode(n);
  if (hard) {
    State& s = st();
    s.current_epoch = 0;
    s.last_vote_epoch = 0;
    me->config_epoch = 0;
    LOG_WARNING("configEpoch set to 0 via CLUSTER RESET HARD");
    renameNode(me, randomName());
    LOG_NOTICE("Node hard reset, now I'm %s", me->name.c_str());
  }
  todo(kTodoSaveConfig | kTodoUpdateState | kTodoFsyncConfig);
}

}  // namespace server::cluster
