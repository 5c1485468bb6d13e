// Cluster mode's life cycle (cluster.h): start-up from nodes.conf, the
// 100 ms cron (links, pings, failure detection, failover), the work
// before-sleep does once per loop turn, and the check of the loaded data
// against the slots this node serves.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include <cstring>
#include <random>

#include "common/log.h"
#include "common/strutil.h"
#include "event/event_loop.h"
#include "server/cluster/cluster.h"
#include "server/cluster/state.h"
#include "server/core/state.h"
#include "server/db/db.h"
#include "server/pubsub/pubsub.h"
#include "server/request/blocking.h"
#include "server/script/script.h"

namespace server::cluster {

bool g_enabled = false;
int64_t g_drop_packet_type = -1;

bool openBus(std::string* err);
// cluster-bus-transport changed (CONFIG SET): the bus's listener of the
// type it named closes, links over that type close, and the new one's
// listener opens (bus.cpp).
void applyBusTransport();
void updateMyselfAnnounced();

namespace {

int g_iteration = 0;

// Two nodes must never share one nodes.conf: the file stays locked.
bool lockConfig(const std::string& file, std::string* err) {
  int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd == -1) {
    *err = "Can't open " + file + " in order to acquire a lock: " + strerror(errno);
    return false;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
    if (errno == EWOULDBLOCK) {
      *err = "Sorry, the cluster configuration file " + file +
             " is already used by a different Redis Cluster node. Please make sure that "
             "different nodes use different cluster configuration files.";
    } else {
      *err = "Impossible to lock " + file + ": " + strerror(errno);
    }
    close(fd);
    return false;
  }
  st().lock_fd = fd;  // kept open (and locked) for the life of the process
  return true;
}

void cronTick() {
  State& s = st();
  int64_t now = mstime();
  g_iteration++;
  applyBusTransport();
  updateMyselfAnnounced();
  int64_t handshake_timeout = std::max<int64_t>(g_server->config.cluster_node_timeout, 1000);
  s.pfail_nodes = 0;
  std::vector<Node*> all;
  for (auto& [name, n] : s.nodes) all.push_back(n.get());
  int64_t limit = g_server->config.cluster_link_sendbuf_limit;
  size_t links_mem = 0;
  for (Node* n : all) {
    for (Link* l : {n->link, n->inbound}) {
      if (l == nullptr) continue;
      if (limit > 0 && l->sndbuf.size() > static_cast<size_t>(limit)) {
        LOG_WARNING(
            "Freeing cluster link(%s node %s, used memory: %zu) due to exceeding send buffer "
            "memory limit.",
            l->inbound ? "from" : "to", n->name.c_str(), l->sndbuf.capacity());
        freeLink(l);
        s.links_buffer_limit_exceeded++;
        continue;
      }
      links_mem += l->sndbuf.capacity() + l->rcvbuf.capacity() + sizeof(Link);
    }
  }
  s.links_memory = links_mem;
  for (Node* n : all) {
    if (n->flags & (kMyself | kNoAddr)) continue;
    if (n->flags & kPfail) s.pfail_nodes++;
    if (n->inHandshake() && now - n->ctime > handshake_timeout) {
      deleteNode(n);
      continue;
    }
    moveLinkIfNeeded(n, now);
    if (n->link == nullptr) connectNode(n, now);
  }
  // About once a second, ping the node (of five random ones) whose PONG
  // is the oldest.
  if (g_iteration % 10 == 0 && !all.empty()) {
    static std::mt19937 rng(std::random_device{}());
    Node* oldest = nullptr;
    for (int j = 0; j < 5; j++) {
      Node* n = all[rng() % all.size()];
      if (lookupNode(n->name) != n) continue;  // deleted above
      if (n->link == nullptr || n->ping_sent != 0) continue;
      if (n->flags & (kMyself | kHandshake)) continue;
      if (oldest == nullptr || oldest->pong_received > n->pong_received) oldest = n;
    }
    if (oldest != nullptr) sendPing(oldest->link, wire::kPing);
  }
  failureCron(now);
  if (blocking::blockedClientCount() != 0) redirectBlockedClients();
}

}  // namespace

bool init(std::string* err) {
  const Config& cfg = g_server->config;
  g_enabled = cfg.cluster_enabled;
  if (!g_enabled) return true;
  State& s = st();
  s.config_file = cfg.cluster_config_file;
  if (!lockConfig(s.config_file, err)) return false;
  if (!loadConfig(s.config_file, err)) return false;
  if (s.myself == nullptr) {
    s.myself = createNode("", kMyself | kMaster);
    LOG_NOTICE("No cluster configuration found, I'm %s", s.myself->name.c_str());
    saveConfigOrDie(true);
  }
  s.myself->flags |= kMyself;
  // A replica keeps the expired keys of its data set when loading it, as
  // Redis's: its master's DELs remove them (persist's loader reads this).
  if (s.myself->isReplica()) db::Db::expiry_replica = true;
  updateMyselfAnnounced();
  if (!openBus(err)) return false;
  g_server->dbs[0]->enableSlotIndex();
  setClusterPublishHook(propagatePublish);
  script::setClusterCallCheck(scriptCallCheck);
  g_server->loop.addTimer(100, [](event::EventLoop*, event::TimerId) {
    if (!script::running()) cron();
    return 100;
  });
  todo(kTodoUpdateState);
  return true;
}

bool verifyWithData(std::string* err) {
  if (!g_enabled) return true;
  for (size_t j = 1; j < g_server->dbs.size(); j++) {
    if (g_server->dbs[j]->size() != 0) {
      *err = "You can't have keys in a DB different than DB 0 when in Cluster mode. Exiting.";
      return false;
    }
  }
  State& s = st();
  Node* me = myself();
  // A replica takes whatever its master sends.
  if (me->isReplica()) return true;
  db::Db& d = *g_server->dbs[0];
  bool updated = false;
  for (int j = 0; j < kSlots; j++) {
    if (d.countKeysInSlot(j) == 0) continue;
    if (s.slots[j] == me || s.importing_from[j] != nullptr) continue;
    updated = true;
    if (s.slots[j] == nullptr) {
      LOG_WARNING("I have keys for unassigned slot %d. Taking responsibility for it.", j);
      addSlot(me, j);
    } else {
      LOG_WARNING(
          "I have keys for slot %d, but the slot is assigned to another node. Setting it "
          "to importing state.",
          j);
      s.importing_from[j] = s.slots[j];
    }
  }
  if (updated) saveConfigOrDie(true);
  return true;
}

void cron() {
  if (g_enabled) cronTick();
}

void beforeSleep() {
  if (!g_enabled) return;
  State& s = st();
  int flags = s.todo;
  s.todo = 0;
  if (flags & kTodoHandleManualFailover) {
    if (myself()->isReplica()) {
      handleManualFailover();
      handleReplicaFailover();
    }
  } else if (flags & kTodoHandleFailover) {
    handleReplicaFailover();
  }
  if (flags & kTodoUpdateState) updateState();
  if (flags & kTodoSaveConfig) saveConfigOrDie(flags & kTodoFsyncConfig);
}

size_t linksMemory() {
  return g_enabled ? st().links_memory : 0;
}

void appendInfo(std::string* o) {
  *o += g_enabled ? "cluster_enabled:1\r\n" : "cluster_enabled:0\r\n";
}

std::string debugKillLink(std::string_view direction, std::string_view node) {
  if (!g_enabled) return "Debug option only available for cluster mode enabled setup!";
  Node* n = lookupNode(node);
  if (n == nullptr) return "Unknown node " + std::string(node);
  auto is = [&](const char* w) { return common::strutil::equalsIgnoreCase(direction, w); };
  if (is("from")) {
    freeLink(n->inbound);
  } else if (is("to")) {
    freeLink(n->link);
  } else if (is("all")) {
    freeLink(n->link);
    freeLink(n->inbound);
  } else {
    return "Unknown direction " + std::string(direction);
  }
  return "";
}

void shutdown() {
  if (!g_enabled) return;
  saveConfig(true);
  State& s = st();
  s.listeners.clear();
  // The links close now, while the event loop their connections use is
  // alive (not counted as failures of the peers' transports).
  for (Link* l : s.allLinks()) {
    l->delivered = true;
    freeLink(l);
  }
}

}  // namespace server::cluster
