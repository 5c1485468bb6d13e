// The cluster's state as this node sees it, private to src/server/cluster/:
// the node table (this node, "myself", among them), who serves each of the
// 16384 slots, the slots being moved, the epochs and the failover state.
//
// Files: nodes.cpp (the table, slots, CLUSTER NODES lines, nodes.conf),
// bus.cpp (links and messages), failure.cpp (failure detection, elections,
// votes, manual failover, replica migration, the cluster's ok/fail state),
// cluster_cmds.cpp and cluster_replies.cpp (the CLUSTER command), redirect.cpp
// (which node serves a request).
//
// Times are milliseconds of event::EventLoop::nowMs(). The state is
// touched only on the main thread.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/cluster/wire.h"

namespace net {
class Connection;
class ConnectionType;
class Listener;
}  // namespace net
namespace server {
class Client;
struct Command;
}  // namespace server

namespace server::cluster {

using wire::kNameLen;
using wire::kSlots;

enum NodeFlag : uint16_t {
  kMaster = 1,
  kReplica = 2,
  kPfail = 4,
  kFail = 8,
  kMyself = 16,
  kHandshake = 32,
  kNoAddr = 64,
  kMeet = 128,
  kMigrateTo = 256,
  kNoFailover = 512,
};

struct Node;

constexpr int64_t kManualFailoverTimeoutMs = 5000;

// A bus connection. Outbound links are the node's `link` (we ping through
// them); inbound ones are accepted and learn their node from the first
// message.
struct Link {
  net::Connection* conn = nullptr;
  Node* node = nullptr;
  bool inbound = false;
  bool alt = false;        // over cluster-bus-transport's type (see bus.cpp)
  bool delivered = false;  // a whole message came in over it
  int64_t ctime = 0;
  std::string sndbuf;
  std::string rcvbuf;
  uint32_t expect = 0;  // totlen of the message being read, 0: header not yet in
};

struct FailReport {
  Node* by;
  int64_t time;
};

struct Node {
  std::string name;  // 40 hex characters
  uint16_t flags = 0;
  int64_t ctime = 0;
  uint64_t config_epoch = 0;
  std::array<uint8_t, kSlots / 8> slots{};
  int numslots = 0;
  std::vector<Node*> replicas;
  Node* master = nullptr;
  int64_t ping_sent = 0;
  int64_t pong_received = 0;
  int64_t data_received = 0;
  int64_t fail_time = 0;
  int64_t voted_time = 0;
  int64_t repl_offset_time = 0;
  int64_t orphaned_time = 0;
  int64_t repl_offset = 0;
  std::string ip;
  int port = 0;
  int pport = 0;
  int cport = 0;
  // Announced in wire::RdmaAnnounce (0: none): the port clients reach the
  // node on over RDMA, and its bus port over cluster-bus-transport's type.
  int rdma_port = 0;
  int rdma_cport = 0;
  int64_t alt_retry_ms = 0;  // the bus's own type reaches it until then
  std::string hostname;
  Link* link = nullptr;     // outbound
  Link* inbound = nullptr;  // accepted from it
  std::vector<FailReport> fail_reports;
  uint64_t last_in_ping_gossip = 0;

  bool isMaster() const { return flags & kMaster; }
  bool isReplica() const { return flags & kReplica; }
  bool inHandshake() const { return flags & kHandshake; }
  bool hasAddr() const { return !(flags & kNoAddr); }
  bool timedOut() const { return flags & kPfail; }
  bool failed() const { return flags & kFail; }
  bool cantFailover() const { return flags & kNoFailover; }
  bool hasSlot(int s) const { return wire::slotBit(slots.data(), s); }
};

// What before-sleep must do (set by events, done once per loop turn).
enum Todo : int {
  kTodoHandleFailover = 1 << 0,
  kTodoUpdateState = 1 << 1,
  kTodoSaveConfig = 1 << 2,
  kTodoFsyncConfig = 1 << 3,
  kTodoHandleManualFailover = 1 << 4,
};

struct State {
  Node* myself = nullptr;
  uint64_t current_epoch = 0;
  uint64_t last_vote_epoch = 0;
  bool ok = false;  // cluster_state ok / fail
  int size = 0;     // masters serving at least one slot
  std::map<std::string, std::unique_ptr<Node>> nodes;
  std::map<std::string, int64_t> blacklist;  // FORGET: name -> when it may return (s)
  std::array<Node*, kSlots> slots{};
  std::array<Node*, kSlots> migrating_to{};
  std::array<Node*, kSlots> importing_from{};
  std::array<uint8_t, kSlots / 8> owner_not_claiming{};
  // Election (failure.cpp).
  int64_t failover_auth_time = 0;
  int failover_auth_count = 0;
  bool failover_auth_sent = false;
  int failover_auth_rank = 0;
  uint64_t failover_auth_epoch = 0;
  int cant_failover_reason = 0;
  // Manual failover.
  int64_t mf_end = 0;
  Node* mf_replica = nullptr;  // on the master: who asked
  int64_t mf_master_offset = -1;
  bool mf_can_start = false;
  int todo = 0;
  int pfail_nodes = 0;
  uint64_t pings_sent = 0;
  uint64_t sent[wire::kTypeCount] = {};
  uint64_t received[wire::kTypeCount] = {};
  uint64_t links_buffer_limit_exceeded = 0;
  size_t links_memory = 0;  // buffers of every link, as of the last cron
  std::vector<std::unique_ptr<net::Listener>> listeners;
  int bus_port = 0;                         // the bus listens here (its own type)
  std::string alt_setting;                  // cluster-bus-transport as applied
  net::ConnectionType* alt_type = nullptr;  // cluster-bus-transport's, if not the bus's own
  int alt_cport = 0;                        // a bus listener over it is open
  std::vector<Link*> inbound_links;         // not yet tied to a node, or tied
  std::string config_file;
  int lock_fd = -1;

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  // Every bus link: the inbound ones (tied to a node or not), then each
  // node's outbound one. A snapshot: freeing them while walking it is safe.
  std::vector<Link*> allLinks() const;
  // At exit (st() is a static): links made after shutdown() closed the
  // others go with the nodes (their connections are the transports').
  ~State();
};

State& st();
// Wall-clock milliseconds (Redis's mstime): the times the bus carries and
// CLUSTER NODES shows are of this clock.
int64_t mstime();
inline Node* myself() {
  return st().myself;
}
inline void todo(int flags) {
  st().todo |= flags;
}

// ---- nodes.cpp
std::string randomName();
Node* createNode(const std::string& name, uint16_t flags);  // added to the table
Node* lookupNode(std::string_view name);                    // nullptr if unknown
void deleteNode(Node* n);  // frees its links, slots, reports; not myself
void renameNode(Node* n, const std::string& name);
bool addSlot(Node* n, int slot);  // false if taken
bool delSlot(int slot);           // false if free
int delNodeSlots(Node* n);
void setNodeAsMaster(Node* n);
void addReplica(Node* master, Node* r);
void removeReplica(Node* master, Node* r);
int countNonFailingReplicas(const Node* n);
uint64_t maxEpoch();
bool bumpEpochWithoutConsensus();  // true if a new epoch was taken
void handleEpochCollision(Node* sender);
bool blacklisted(const std::string& name);
void blacklistAdd(Node* n);
// The slots loop: true when the slot has an owner that still claims it.
bool slotUnclaimed(int slot);
void closeAllSlots();
// CLUSTER NODES / nodes.conf lines; filter: flags of nodes to leave out.
std::string nodeLine(const Node* n, const Client* c);
std::string nodesDescription(uint16_t filter, const Client* c);
std::string flagsString(uint16_t flags);
bool loadConfig(const std::string& file, std::string* err);  // false: broken file
bool saveConfig(bool do_fsync);
void saveConfigOrDie(bool do_fsync);
// Makes this node a replica of n (CLUSTER REPLICATE, failover demotion).
void setMyMaster(Node* n);
// Points replication at n (repl::clusterFollow) at the port of the
// replication link's type.
void followMaster(const Node* n);
const std::string& preferredEndpoint(const Node* n);
// CLUSTER RESET: forget every other node and slot (hard: new name, epochs
// back to 0); a replica becomes an empty master.
void resetNode(bool hard);

// ---- bus.cpp
void sendPing(Link* l, uint16_t type);
void broadcastPong(bool local_replicas_only);
void sendFail(const std::string& name);
void sendUpdate(Link* l, const Node* about);
void broadcastMessage(const std::string& msg);
std::string buildHeader(uint16_t type);
void freeLink(Link* l);
bool startHandshake(const std::string& ip, int port, int cport);
void connectNode(Node* n, int64_t now);  // outbound link, if none
// n's outbound link runs over the bus's own type though n now announces a
// bus over cluster-bus-transport's: reconnect over that.
void moveLinkIfNeeded(Node* n, int64_t now);
// The port a reply to client c names for node n: a client over RDMA gets
// the node's RDMA port when it announces one; in a TLS cluster a client
// not on TLS gets the plaintext port (as Redis 7.0); else the announced
// port. c may be nullptr (nodes.conf: the announced port).
int clientPort(const Client* c, const Node* n);
// Myself's address, ports, hostname and nofailover flag from the
// configuration (CONFIG SET takes effect at once in what this node shows
// and sends).
void updateMyselfAnnounced();

// ---- redirect.cpp
// Clients blocked on keys of a slot this node no longer serves (or while
// the cluster is down) get -MOVED / -CLUSTERDOWN and are unblocked; from
// the cron.
void redirectBlockedClients();
// A command a script calls (script.h's cluster check).
const char* scriptCallCheck(const Client* caller, const Command* cmd,
                            const std::vector<std::string_view>& argv, bool allow_cross_slot,
                            int* script_slot);

// ---- failure.cpp
bool addFailureReport(Node* failing, Node* sender);  // true if new
bool delFailureReport(Node* n, Node* sender);
int failureReportCount(Node* n);
void markFailingIfNeeded(Node* n);
void clearFailureIfNeeded(Node* n);
void updateSlotsConfigWith(Node* sender, uint64_t epoch, const uint8_t* slots);
void handleAuthRequest(Node* sender, const wire::Header& h);
void handleReplicaFailover();
void handleManualFailover();
void resetManualFailover();
void updateState();
void failureCron(int64_t now);

}  // namespace server::cluster
