// CLUSTER subcommands about slots and keys, and the slot map replies
// (SLOTS, SHARDS), with Redis 7.0.15's replies and errors.

#include <cstring>
#include <vector>

#include "common/log.h"
#include "common/strutil.h"
#include "server/cluster/cluster.h"
#include "server/cluster/cmds.h"
#include "server/cluster/state.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/db/db.h"
#include "server/db/slots.h"
#include "server/repl/repl.h"

namespace server::cluster {

void broadcastPong(bool local_replicas_only);

namespace cmd {
namespace {

// A slot argument, or -1 with the error replied.
int slotOrReply(Client* c, size_t i) {
  int64_t v;
  if (!common::strutil::parseInt64(c->arg(i), &v) || v < 0 || v >= kSlots) {
    c->addError("Invalid or out of range slot");
    return -1;
  }
  return static_cast<int>(v);
}

bool checkAssignments(Client* c, std::vector<uint8_t>* marks, bool del, int start, int end) {
  const State& s = st();
  for (int j = start; j <= end; j++) {
    if (del && s.slots[j] == nullptr) {
      c->addErrorFormat("Slot %d is already unassigned", j);
      return false;
    }
    if (!del && s.slots[j] != nullptr) {
      c->addErrorFormat("Slot %d is already busy", j);
      return false;
    }
    if ((*marks)[j]++ == 1) {
      c->addErrorFormat("Slot %d specified multiple times", j);
      return false;
    }
  }
  return true;
}

void applySlots(const std::vector<uint8_t>& marks, bool del) {
  State& s = st();
  for (int j = 0; j < kSlots; j++) {
    if (!marks[j]) continue;
    s.importing_from[j] = nullptr;
    if (del)
      delSlot(j);
    else
      addSlot(myself(), j);
  }
  todo(kTodoUpdateState | kTodoSaveConfig);
}

void slotsGeneric(Client* c, bool del) {
  std::vector<uint8_t> marks(kSlots, 0);
  for (size_t j = 2; j < c->argc(); j++)
    if (slotOrReply(c, j) < 0) return;
  for (size_t j = 2; j < c->argc(); j++) {
    int slot = slotOrReply(c, j);
    if (!checkAssignments(c, &marks, del, slot, slot)) return;
  }
  applySlots(marks, del);
  c->addOk();
}

void rangeGeneric(Client* c, bool del) {
  if (c->argc() % 2 == 1) return c->addWrongArity();
  std::vector<uint8_t> marks(kSlots, 0);
  for (size_t j = 2; j < c->argc(); j += 2) {
    int start = slotOrReply(c, j);
    if (start < 0) return;
    int end = slotOrReply(c, j + 1);
    if (end < 0) return;
    if (start > end) {
      c->addErrorFormat("start slot number %d is greater than end slot number %d", start, end);
      return;
    }
    if (!checkAssignments(c, &marks, del, start, end)) return;
  }
  applySlots(marks, del);
  c->addOk();
}

Node* masterArgOrReply(Client* c, const char* unknown_fmt) {
  std::string_view name = c->arg(4);
  Node* n = lookupNode(name);
  if (n == nullptr) {
    c->addErrorFormat(unknown_fmt, static_cast<int>(name.size()), name.data());
    return nullptr;
  }
  if (n->isReplica()) {
    c->addError("Target node is not a master");
    return nullptr;
  }
  return n;
}

// One node of CLUSTER SLOTS: endpoint, port, id, and the metadata map.
void slotNode(Client* c, const Node* n) {
  resp::Writer& w = c->reply();
  const std::string& type = g_server->config.cluster_preferred_endpoint_type;
  w.arrayLen(4);
  if (type == "ip")
    w.bulk(n->ip);
  else if (type == "hostname")
    w.bulk(n->hostname.empty() ? std::string("?") : n->hostname);
  else
    w.null();
  w.integer(clientPort(c, n));
  w.bulk(n->name);
  int len = (type != "ip" ? 1 : 0) + (type != "hostname" && !n->hostname.empty() ? 1 : 0);
  w.mapLen(len);
  if (type != "ip") {
    w.bulk("ip");
    w.bulk(n->ip);
  }
  if (type != "hostname" && !n->hostname.empty()) {
    w.bulk("hostname");
    w.bulk(n->hostname);
  }
}

bool replicaAvailable(const Node* n) {
  if (n->failed()) return false;
  int64_t off = (n->flags & kMyself) ? repl::replicationOffset() : n->repl_offset;
  return off != 0;
}

void shardNode(Client* c, const Node* n) {
  resp::Writer& w = c->reply();
  bool tls = configValue(g_server->config, "tls-cluster") == "yes";
  int plain = tls ? n->pport : n->port;
  int tls_port = tls ? n->port : 0;
  int64_t offset = (n->flags & kMyself) ? repl::replicationOffset() : n->repl_offset;
  int fields = 6 + (plain ? 1 : 0) + (tls_port ? 1 : 0) + (n->rdma_port ? 1 : 0) +
               (n->hostname.empty() ? 0 : 1);
  w.mapLen(fields);
  w.bulk("id");
  w.bulk(n->name);
  if (plain) {
    w.bulk("port");
    w.integer(plain);
  }
  if (tls_port) {
    w.bulk("tls-port");
    w.integer(tls_port);
  }
  if (n->rdma_port) {  // this project's nodes; Redis shows no such field
    w.bulk("rdma-port");
    w.integer(n->rdma_port);
  }
  w.bulk("ip");
  w.bulk(n->ip);
  w.bulk("endpoint");
  w.bulk(preferredEndpoint(n));
  if (!n->hostname.empty()) {
    w.bulk("hostname");
    w.bulk(n->hostname);
  }
  w.bulk("role");
  w.bulk(n->isReplica() ? "replica" : "master");
  w.bulk("replication-offset");
  w.integer(offset);
  w.bulk("health");
  w.bulk(n->failed() ? "fail" : (n->isReplica() && offset == 0) ? "loading" : "online");
}

}  // namespace

void addslots(Client* c) {
  slotsGeneric(c, false);
}
void delslots(Client* c) {
  slotsGeneric(c, true);
}
void addslotsrange(Client* c) {
  rangeGeneric(c, false);
}
void delslotsrange(Client* c) {
  rangeGeneric(c, true);
}

void flushslots(Client* c) {
  if (g_server->dbs[0]->size() != 0)
    return c->addError("DB must be empty to perform CLUSTER FLUSHSLOTS.");
  delNodeSlots(myself());
  todo(kTodoUpdateState | kTodoSaveConfig);
  c->addOk();
}

void setslot(Client* c) {
  State& s = st();
  Node* me = myself();
  if (me->isReplica()) return c->addError("Please use SETSLOT only with masters.");
  int slot = slotOrReply(c, 2);
  if (slot < 0) return;
  std::string_view action = c->arg(3);
  size_t argc = c->argc();
  db::Db& d = *g_server->dbs[0];
  if (common::strutil::equalsIgnoreCase(action, "migrating") && argc == 5) {
    if (s.slots[slot] != me) return c->addErrorFormat("I'm not the owner of hash slot %u", slot);
    Node* n = masterArgOrReply(c, "I don't know about node %.*s");
    if (n == nullptr) return;
    s.migrating_to[slot] = n;
  } else if (common::strutil::equalsIgnoreCase(action, "importing") && argc == 5) {
    if (s.slots[slot] == me)
      return c->addErrorFormat("I'm already the owner of hash slot %u", slot);
    Node* n = masterArgOrReply(c, "I don't know about node %.*s");
    if (n == nullptr) return;
    s.importing_from[slot] = n;
  } else if (common::strutil::equalsIgnoreCase(action, "stable") && argc == 4) {
    s.importing_from[slot] = nullptr;
    s.migrating_to[slot] = nullptr;
  } else if (common::strutil::equalsIgnoreCase(action, "node") && argc == 5) {
    Node* n = masterArgOrReply(c, "Unknown node %.*s");
    if (n == nullptr) return;
    if (s.slots[slot] == me && n != me && d.countKeysInSlot(slot) != 0) {
      return c->addErrorFormat(
          "Can't assign hashslot %d to a different node while I still hold keys for this hash "
          "slot.",
          slot);
    }
    // The last key moved away: the slot is no longer migrating.
    if (d.countKeysInSlot(slot) == 0 && s.migrating_to[slot] != nullptr)
      s.migrating_to[slot] = nullptr;
    bool was_mine = s.slots[slot] == me;
    delSlot(slot);
    addSlot(n, slot);
    if (was_mine && n != me && me->numslots == 0 &&
        g_server->config.cluster_allow_replica_migration) {
      LOG_WARNING("Configuration change detected. Reconfiguring myself as a replica of %s",
                  n->name.c_str());
      setMyMaster(n);
      todo(kTodoSaveConfig | kTodoUpdateState | kTodoFsyncConfig);
    }
    // Closing an import: a new epoch (no consensus needed), so the cluster
    // takes this node's claim over the old owner's.
    if (n == me && s.importing_from[slot] != nullptr) {
      if (bumpEpochWithoutConsensus())
        LOG_WARNING("configEpoch updated after importing slot %d", slot);
      s.importing_from[slot] = nullptr;
      broadcastPong(false);
    }
  } else {
    return c->addError("Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
  }
  todo(kTodoSaveConfig | kTodoUpdateState);
  c->addOk();
}

void keyslot(Client* c) {
  c->addInteger(db::keyHashSlot(c->arg(2)));
}

void countkeysinslot(Client* c) {
  int64_t slot;
  if (!c->argInt64(2, &slot)) return;
  if (slot < 0 || slot >= kSlots) return c->addError("Invalid slot");
  c->addInteger(static_cast<int64_t>(g_server->dbs[0]->countKeysInSlot(static_cast<int>(slot))));
}

void getkeysinslot(Client* c) {
  int64_t slot, max;
  if (!c->argInt64(2, &slot) || !c->argInt64(3, &max)) return;
  if (slot < 0 || slot >= kSlots || max < 0) return c->addError("Invalid slot or number of keys");
  std::vector<std::string> keys;
  g_server->dbs[0]->keysInSlot(static_cast<int>(slot), static_cast<size_t>(max),
                               [&](std::string_view k) { keys.emplace_back(k); });
  c->addArrayLen(static_cast<int64_t>(keys.size()));
  for (const std::string& k : keys) c->addBulk(k);
}

void slots(Client* c) {
  updateMyselfAnnounced();
  const State& s = st();
  struct Range {
    int start, end;
    const Node* n;
  };
  std::vector<Range> ranges;
  for (int j = 0; j < kSlots; j++) {
    const Node* n = s.slots[j];
    if (n == nullptr) continue;
    int start = j;
    while (j + 1 < kSlots && s.slots[j + 1] == n) j++;
    ranges.push_back({start, j, n});
  }
  c->addArrayLen(static_cast<int64_t>(ranges.size()));
  for (const Range& r : ranges) {
    int64_t elements = 3;
    for (const Node* rep : r.n->replicas)
      if (replicaAvailable(rep)) elements++;
    c->addArrayLen(elements);
    c->addInteger(r.start);
    c->addInteger(r.end);
    slotNode(c, r.n);
    for (const Node* rep : r.n->replicas)
      if (replicaAvailable(rep)) slotNode(c, rep);
  }
}

void shards(Client* c) {
  updateMyselfAnnounced();
  std::vector<const Node*> masters;
  for (auto& [name, n] : st().nodes)
    if (n->isMaster()) masters.push_back(n.get());
  c->addArrayLen(static_cast<int64_t>(masters.size()));
  for (const Node* m : masters) {
    resp::Writer& w = c->reply();
    w.mapLen(2);
    w.bulk("slots");
    std::vector<int> pairs;
    for (int j = 0; j < kSlots; j++) {
      if (!m->hasSlot(j)) continue;
      int start = j;
      while (j + 1 < kSlots && m->hasSlot(j + 1)) j++;
      pairs.push_back(start);
      pairs.push_back(j);
    }
    w.arrayLen(static_cast<int64_t>(pairs.size()));
    for (int p : pairs) w.integer(p);
    w.bulk("nodes");
    w.arrayLen(static_cast<int64_t>(1 + m->replicas.size()));
    shardNode(c, m);
    for (const Node* r : m->replicas) shardNode(c, r);
  }
}

}  // namespace cmd
}  // namespace server::cluster
