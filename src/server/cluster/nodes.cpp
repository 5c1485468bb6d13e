// The node table and the slot map (state.h), their CLUSTER NODES lines, and
// nodes.conf, which is those lines plus a "vars" line, as Redis 7.0.15
// writes and reads it.
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "common/log.h"
#include "common/strutil.h"
#include "net/connection.h"
#include "server/cluster/state.h"
#include "server/conf/config.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/db/slots.h"
#include "server/pubsub/pubsub.h"
#include "server/repl/repl.h"

namespace server::cluster {

State& st() {
  static State s;
  return s;
}

std::vector<Link*> State::allLinks() const {
  std::vector<Link*> links(inbound_links);
  for (auto& [name, n] : nodes)
    if (n->link != nullptr) links.push_back(n->link);
  return links;
}

State::~State() {
  for (Link* l : allLinks()) delete l;
}

int64_t mstime() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return static_cast<int64_t>(tv.tv_sec) * 1000 + tv.tv_usec / 1000;
}

std::string randomName() {
  static std::mt19937_64 rng(std::random_device{}());
  static const char kHex[] = "0123456789abcdef";
  std::string s(kNameLen, '0');
  for (char& ch : s) ch = kHex[rng() & 15];
  return s;
}

Node* createNode(const std::string& name, uint16_t flags) {
  auto n = std::make_unique<Node>();
  n->name = name.empty() ? randomName() : name;
  n->flags = flags;
  n->ctime = mstime();
  Node* raw = n.get();
  st().nodes[raw->name] = std::move(n);
  return raw;
}

Node* lookupNode(std::string_view name) {
  auto it = st().nodes.find(std::string(name));
  return it == st().nodes.end() ? nullptr : it->second.get();
}

void deleteNode(Node* del) {
  State& s = st();
  for (int j = 0; j < kSlots; j++) {
    if (s.importing_from[j] == del) s.importing_from[j] = nullptr;
    if (s.migrating_to[j] == del) s.migrating_to[j] = nullptr;
    if (s.slots[j] == del) delSlot(j);
  }
  for (auto& [name, n] : s.nodes) {
    if (n.get() == del) continue;
    delFailureReport(n.get(), del);
  }
  if (del->master != nullptr) removeReplica(del->master, del);
  for (Node* r : del->replicas) r->master = nullptr;
  if (del->link != nullptr) freeLink(del->link);
  if (del->inbound != nullptr) freeLink(del->inbound);
  if (s.mf_replica == del) s.mf_replica = nullptr;
  s.nodes.erase(del->name);
}

void renameNode(Node* n, const std::string& name) {
  State& s = st();
  auto it = s.nodes.find(n->name);
  std::unique_ptr<Node> own = std::move(it->second);
  s.nodes.erase(it);
  LOG_DEBUG("Renaming node %s into %s", own->name.c_str(), name.c_str());
  own->name = name;
  s.nodes[name] = std::move(own);
}

bool addSlot(Node* n, int slot) {
  State& s = st();
  if (s.slots[slot] != nullptr) return false;
  if (!n->hasSlot(slot)) {
    wire::setSlotBit(n->slots.data(), slot);
    n->numslots++;
    // A master that gets its first slot in a cluster whose masters have
    // replicas becomes a target of replica migration (Redis's rule).
    if (n->numslots == 1) {
      for (auto& [name, m] : s.nodes) {
        if (m->isMaster() && !m->replicas.empty()) {
          n->flags |= kMigrateTo;
          break;
        }
      }
    }
  }
  s.slots[slot] = n;
  wire::clearSlotBit(s.owner_not_claiming.data(), slot);
  return true;
}

bool delSlot(int slot) {
  State& s = st();
  Node* n = s.slots[slot];
  if (n == nullptr) return false;
  // The slot leaves this node's shard: its shard channels' subscribers are
  // unsubscribed (they must subscribe again where the slot went).
  if ((n == myself() || myself()->master == n) && pubsubShardChannelsTotal() > 0)
    pubsubShardDropChannels([slot](std::string_view ch) { return db::keyHashSlot(ch) == slot; });
  if (s.migrating_to[slot] != nullptr) s.migrating_to[slot] = nullptr;
  if (n->hasSlot(slot)) {
    wire::clearSlotBit(n->slots.data(), slot);
    n->numslots--;
  }
  s.slots[slot] = nullptr;
  wire::clearSlotBit(s.owner_not_claiming.data(), slot);
  return true;
}

int delNodeSlots(Node* n) {
  int deleted = 0;
  for (int j = 0; j < kSlots; j++) {
    if (n->hasSlot(j)) {
      delSlot(j);
      deleted++;
    }
  }
  return deleted;
}

void addReplica(Node* master, Node* r) {
  if (std::find(master->replicas.begin(), master->replicas.end(), r) != master->replicas.end())
    return;
  master->replicas.push_back(r);
  master->flags |= kMigrateTo;
}

void removeReplica(Node* master, Node* r) {
  auto& v = master->replicas;
  v.erase(std::remove(v.begin(), v.end(), r), v.end());
  if (v.empty()) master->flags &= ~kMigrateTo;
}

int countNonFailingReplicas(const Node* n) {
  int ok = 0;
  for (const Node* r : n->replicas)
    if (!r->failed()) ok++;
  return ok;
}

void setNodeAsMaster(Node* n) {
  if (n->isMaster()) return;
  if (n->master != nullptr) {
    removeReplica(n->master, n);
    if (n != myself()) n->flags |= kMigrateTo;
  }
  n->flags &= ~kReplica;
  n->flags |= kMaster;
  n->master = nullptr;
  todo(kTodoSaveConfig | kTodoUpdateState);
}

uint64_t maxEpoch() {
  uint64_t max = st().current_epoch;
  for (auto& [name, n] : st().nodes) max = std::max(max, n->config_epoch);
  return max;
}

bool bumpEpochWithoutConsensus() {
  uint64_t max = maxEpoch();
  Node* me = myself();
  if (me->config_epoch == 0 || me->config_epoch != max) {
    st().current_epoch++;
    me->config_epoch = st().current_epoch;
    todo(kTodoSaveConfig | kTodoFsyncConfig);
    LOG_WARNING("New configEpoch set to %llu", static_cast<unsigned long long>(me->config_epoch));
    return true;
  }
  return false;
}

void handleEpochCollision(Node* sender) {
  Node* me = myself();
  if (sender->config_epoch != me->config_epoch || !sender->isMaster() || !me->isMaster()) return;
  // The node with the smaller name moves on; the greatest never does.
  if (sender->name <= me->name) return;
  st().current_epoch++;
  me->config_epoch = st().current_epoch;
  saveConfigOrDie(true);
  LOG_VERBOSE("WARNING: configEpoch collision with node %s. configEpoch set to %llu",
              sender->name.c_str(), static_cast<unsigned long long>(me->config_epoch));
}

bool blacklisted(const std::string& name) {
  auto& b = st().blacklist;
  int64_t now = mstime() / 1000;
  for (auto it = b.begin(); it != b.end();) it = it->second < now ? b.erase(it) : std::next(it);
  return b.count(name) != 0;
}

void blacklistAdd(Node* n) {
  blacklisted("");  // drops the expired entries
  st().blacklist[n->name] = mstime() / 1000 + 60;
}

bool slotUnclaimed(int slot) {
  return wire::slotBit(st().owner_not_claiming.data(), slot);
}

void closeAllSlots() {
  State& s = st();
  s.migrating_to.fill(nullptr);
  s.importing_from.fill(nullptr);
}

void setMyMaster(Node* n) {
  Node* me = myself();
  if (me->isMaster()) {
    me->flags &= ~(kMaster | kMigrateTo);
    me->flags |= kReplica;
    closeAllSlots();
  } else if (me->master != nullptr) {
    removeReplica(me->master, me);
  }
  me->master = n;
  addReplica(n, me);
  followMaster(n);
  resetManualFailover();
}

void followMaster(const Node* n) {
  // With repl-transport rdma the replica link runs over RDMA: to the
  // master's RDMA port once it announced one.
  bool rdma = configValue(g_server->config, "repl-transport") == "rdma";
  repl::clusterFollow(n->ip, rdma && n->rdma_port != 0 ? n->rdma_port : n->port);
}

const std::string& preferredEndpoint(const Node* n) {
  static const std::string kNoHostname = "?", kUnknownEndpoint;
  const std::string& type = g_server->config.cluster_preferred_endpoint_type;
  if (type == "ip") return n->ip;
  if (type == "hostname") return n->hostname.empty() ? kNoHostname : n->hostname;
  return kUnknownEndpoint;  // "-MOVED <slot> :<port>": the client knows the host
}

std::string flagsString(uint16_t flags) {
  static const std::pair<uint16_t, const char*> kNames[] = {
      {kMyself, "myself"}, {kMaster, "master"},
      {kReplica, "slave"}, {kPfail, "fail?"},
      {kFail, "fail"},     {kHandshake, "handshake"},
      {kNoAddr, "noaddr"}, {kNoFailover, "nofailover"}};
  std::string out;
  for (auto& [f, name] : kNames) {
    if (!(flags & f)) continue;
    if (!out.empty()) out += ',';
    out += name;
  }
  return out.empty() ? "noflags" : out;
}

int clientPort(const Client* c, const Node* n) {
  if (c == nullptr || c->conn() == nullptr) return n->port;
  std::string_view kind = c->conn()->type().clientPortSetting();
  if (kind == "rdma-port" && n->rdma_port != 0) return n->rdma_port;
  bool tls_cluster = configValue(g_server->config, "tls-cluster") == "yes";
  if (tls_cluster && kind != "tls-port" && n->pport != 0) return n->pport;
  return n->port;
}

std::string nodeLine(const Node* n, const Client* c) {
  int port = clientPort(c, n);
  std::string o =
      n->name + " " + n->ip + ":" + std::to_string(port) + "@" + std::to_string(n->cport);
  if (!n->hostname.empty()) o += "," + n->hostname;
  o += " " + flagsString(n->flags) + " " + (n->master != nullptr ? n->master->name : "-");
  uint64_t epoch =
      n->isReplica() && n->master != nullptr ? n->master->config_epoch : n->config_epoch;
  o += " " + std::to_string(n->ping_sent) + " " + std::to_string(n->pong_received) + " " +
       std::to_string(epoch) + " " +
       ((n->link != nullptr || (n->flags & kMyself)) ? "connected" : "disconnected");
  for (int j = 0; j < kSlots; j++) {
    if (!n->hasSlot(j)) continue;
    int start = j;
    while (j + 1 < kSlots && n->hasSlot(j + 1)) j++;
    o += " " + std::to_string(start);
    if (j != start) o += "-" + std::to_string(j);
  }
  if (n->flags & kMyself) {
    const State& s = st();
    for (int j = 0; j < kSlots; j++) {
      if (s.migrating_to[j] != nullptr)
        o += " [" + std::to_string(j) + "->-" + s.migrating_to[j]->name + "]";
      else if (s.importing_from[j] != nullptr)
        o += " [" + std::to_string(j) + "-<-" + s.importing_from[j]->name + "]";
    }
  }
  return o;
}

std::string nodesDescription(uint16_t filter, const Client* c) {
  updateMyselfAnnounced();
  std::string o;
  for (auto& [name, n] : st().nodes) {
    if (n->flags & filter) continue;
    o += nodeLine(n.get(), c);
    o += '\n';
  }
  return o;
}

}  // namespace server::cluster
