// The cluster bus's links: the listener on the bus port, outbound links to
// every known node, framing of messages (wire.h), the send buffers, and the
// messages this node builds (PING/PONG/MEET with gossip, FAIL, UPDATE,
// PUBLISH). What a received message does is messages.cpp.
//
// Links go through the connection table with the cluster link's type
// (net::typeForLink: TCP, or TLS with tls-cluster yes); nothing here names
// a transport. With cluster-bus-transport naming another type (rdma), the
// bus also listens on that type at the same port number and reaches a peer
// over it when the peer announces a bus port of it (wire::RdmaAnnounce);
// peers that announce none (Redis nodes), and peers whose link over it
// failed (for kAltRetryMs), are reached over the cluster link's type.
#include <algorithm>
#include <cstring>
#include <random>

#include "common/log.h"
#include "event/event_loop.h"
#include "net/connection.h"
#include "net/registry.h"
#include "server/cluster/cluster.h"
#include "server/cluster/state.h"
#include "server/conf/config.h"
#include "server/core/state.h"
#include "server/repl/repl.h"

namespace server::cluster {

// messages.cpp: false when the link was freed while processing.
bool processMessage(Link* l, const uint8_t* msg, size_t len);

namespace {

// The link whose message is being processed; freeLink() of it is noted so
// that the read loop stops touching it.
Link* g_reading = nullptr;
bool g_reading_freed = false;

std::mt19937& rng() {
  static std::mt19937 r(std::random_device{}());
  return r;
}

net::ConnectionType* busType() {
  const Config& cfg = g_server->config;
  return net::typeForLink([&cfg](const std::string& n) { return configValue(cfg, n); },
                          net::ServerLink::kCluster);
}

// The type cluster-bus-transport names when it is not the bus's own type;
// nullptr when it names none (tcp) or no such type is built in. Applied
// by openAltListener() (State::alt_type), at start and when it changes.
net::ConnectionType* configuredAltType() {
  std::string name = configValue(g_server->config, "cluster-bus-transport");
  if (name.empty() || name == "tcp" || name == busType()->name()) return nullptr;
  return net::findType(name.c_str());
}

net::ConnectionType* altBusType() {
  return st().alt_type;
}

// The client port the bus port derives from, as Redis: tls-port with
// tls-cluster yes, else port.
int busBasePort(const Config& cfg) {
  if (configValue(cfg, "tls-cluster") == "yes") return atoi(configValue(cfg, "tls-port").c_str());
  return static_cast<int>(cfg.port);
}

// How long a peer is reached over the bus's own type after a link over the
// alternate one failed.
constexpr int64_t kAltRetryMs = 30000;

Link* newLink(net::Connection* conn, Node* node, bool inbound, bool alt) {
  auto* l = new Link;
  l->conn = conn;
  l->node = node;
  l->inbound = inbound;
  l->alt = alt;
  l->ctime = mstime();
  conn->setPrivateData(l);
  return l;
}

void armWrite(Link* l);

void onWritable(net::Connection* c) {
  auto* l = static_cast<Link*>(c->privateData());
  ssize_t n = c->write(l->sndbuf.data(), l->sndbuf.size());
  if (n <= 0) {
    if (n < 0 && c->state() == net::ConnState::kConnected) return;
    LOG_DEBUG("I/O error writing to node link: %s", n < 0 ? c->lastError().c_str() : "short write");
    freeLink(l);
    return;
  }
  l->sndbuf.erase(0, static_cast<size_t>(n));
  if (l->sndbuf.empty()) c->setWriteHandler(nullptr);
}

void onReadable(net::Connection* c) {
  auto* l = static_cast<Link*>(c->privateData());
  char buf[16 * 1024];
  for (;;) {
    size_t want;
    if (l->expect == 0) {
      want = 8 - l->rcvbuf.size();
    } else {
      want = std::min<size_t>(sizeof(buf), l->expect - l->rcvbuf.size());
    }
    ssize_t n = c->read(buf, want);
    if (n < 0 && c->state() == net::ConnState::kConnected) return;  // would block
    if (n <= 0) {
      LOG_DEBUG("I/O error reading from node link: %s",
                n == 0 ? "connection closed" : c->lastError().c_str());
      freeLink(l);
      return;
    }
    l->rcvbuf.append(buf, static_cast<size_t>(n));
    if (l->expect == 0 && l->rcvbuf.size() == 8) {
      uint32_t totlen;
      if (!wire::plausibleStart(reinterpret_cast<const uint8_t*>(l->rcvbuf.data()), &totlen)) {
        LOG_WARNING("Bad message length or signature received on the cluster bus from %s",
                    c->peerAddress().c_str());
        freeLink(l);
        return;
      }
      l->expect = totlen;
      l->rcvbuf.reserve(totlen);
    }
    if (l->expect != 0 && l->rcvbuf.size() == l->expect) {
      std::string msg;
      msg.swap(l->rcvbuf);
      l->expect = 0;
      g_reading = l;
      g_reading_freed = false;
      l->delivered = true;
      bool alive = processMessage(l, reinterpret_cast<const uint8_t*>(msg.data()), msg.size());
      g_reading = nullptr;
      if (!alive || g_reading_freed) return;
    }
  }
}

void onAccepted(net::Connection* conn) {
  if (conn->state() != net::ConnState::kConnected) {
    LOG_VERBOSE("Error accepting cluster node connection: %s", conn->lastError().c_str());
    conn->close();
    return;
  }
  Link* l = newLink(conn, nullptr, true, &conn->type() == altBusType());
  st().inbound_links.push_back(l);
  conn->setReadHandler(onReadable);
  LOG_VERBOSE("Accepting cluster node connection from %s", conn->peerAddress().c_str());
}

void onAccept(net::Connection* conn, void*) {
  if (conn->accept(onAccepted) == -1) {
    LOG_VERBOSE("Error accepting cluster node connection: %s", conn->lastError().c_str());
    conn->close();
  }
}

void onConnected(net::Connection* conn) {
  auto* l = static_cast<Link*>(conn->privateData());
  Node* node = l->node;
  if (conn->state() != net::ConnState::kConnected) {
    LOG_VERBOSE("Connection with Node %s at %s:%d failed: %s", node->name.c_str(), node->ip.c_str(),
                l->alt ? node->rdma_cport : node->cport, conn->lastError().c_str());
    freeLink(l);
    return;
  }
  if (conn->hasReadHandler()) return;  // already done (connected at once)
  conn->setReadHandler(onReadable);
  // A PING at once: without it failure detection would wait for the cron.
  int64_t old_ping_sent = node->ping_sent;
  sendPing(l, (node->flags & kMeet) ? wire::kMeet : wire::kPing);
  if (old_ping_sent != 0) node->ping_sent = old_ping_sent;
  node->flags &= ~kMeet;
  armWrite(l);  // messages queued while connecting
}

// Starts writing the send buffer; never before the connection is up (the
// transport owns the writable event while it connects).
void armWrite(Link* l) {
  if (!l->sndbuf.empty() && l->conn->state() == net::ConnState::kConnected &&
      !l->conn->hasWriteHandler())
    l->conn->setWriteHandler(onWritable, true);
}

void sendMessage(Link* l, const std::string& msg) {
  if (l == nullptr) return;
  l->sndbuf += msg;
  armWrite(l);
  wire::Header h;
  memcpy(&h, msg.data(), sizeof(h));
  uint16_t type = ntohs(h.type);
  if (type < wire::kTypeCount) st().sent[type]++;
  LOG_DEBUG("--- Sending %s on %s link of %s", wire::typeName(type),
            l->inbound ? "inbound" : "outbound",
            l->node != nullptr ? l->node->name.c_str() : "(none)");
}

void announcedPorts(int* port, int* pport, int* cport) {
  const Config& cfg = g_server->config;
  bool tls = configValue(cfg, "tls-cluster") == "yes";
  *port = busBasePort(cfg);
  *pport = tls ? static_cast<int>(cfg.port) : 0;
  *cport = cfg.cluster_port ? static_cast<int>(cfg.cluster_port) : *port + 10000;
  if (tls && cfg.cluster_announce_tls_port) {
    *port = static_cast<int>(cfg.cluster_announce_tls_port);
    *pport = static_cast<int>(cfg.cluster_announce_port);
  } else if (cfg.cluster_announce_port) {
    *port = static_cast<int>(cfg.cluster_announce_port);
  }
  if (cfg.cluster_announce_bus_port) *cport = static_cast<int>(cfg.cluster_announce_bus_port);
}

void putName(char* field, const std::string& name) {
  memcpy(field, name.data(), std::min(name.size(), kNameLen));
}

void setGossip(wire::Gossip* g, const Node* n) {
  memset(g, 0, sizeof(*g));
  putName(g->nodename, n->name);
  g->ping_sent = htonl(static_cast<uint32_t>(n->ping_sent / 1000));
  g->pong_received = htonl(static_cast<uint32_t>(n->pong_received / 1000));
  memcpy(g->ip, n->ip.data(), std::min(n->ip.size(), wire::kIpLen - 1));
  g->port = htons(static_cast<uint16_t>(n->port));
  g->cport = htons(static_cast<uint16_t>(n->cport));
  g->flags = htons(n->flags);
  g->pport = htons(static_cast<uint16_t>(n->pport));
}

void setTotlen(std::string* msg) {
  uint32_t t = htonl(static_cast<uint32_t>(msg->size()));
  memcpy(msg->data() + offsetof(wire::Header, totlen), &t, 4);
}

}  // namespace

// ---- listener and links

void openAltListener() {
  State& s = st();
  const Config& cfg = g_server->config;
  s.alt_setting = configValue(cfg, "cluster-bus-transport");
  s.alt_cport = 0;
  s.alt_type = configuredAltType();
  net::ConnectionType* alt = s.alt_type;
  if (alt == nullptr) return;
  // Optional (no device, port taken: the bus stays on its own type). The
  // type's listener settings, at the bus port in place of its client port.
  std::string err;
  std::string port_setting = alt->clientPortSetting();
  auto get = [&](const std::string& n) {
    return n == port_setting ? std::to_string(s.bus_port) : configValue(cfg, n);
  };
  net::ListenSpec spec;
  bool wanted = false;
  net::Listener* al = nullptr;
  if (alt->listenSpecFrom(get, &spec, &wanted, &err) && wanted)
    al = alt->listen(&g_server->loop, spec, onAccept, nullptr, &err);
  if (al == nullptr) {
    LOG_WARNING("Cluster bus over %s not available (%s): peers reach this node over %s",
                alt->name(), err.c_str(), busType()->name());
    return;
  }
  LOG_NOTICE("Cluster bus listening on %s", al->describe().c_str());
  s.listeners.emplace_back(al);
  int port, pport;
  announcedPorts(&port, &pport, &s.alt_cport);
}

bool openBus(std::string* err) {
  const Config& cfg = g_server->config;
  // As Redis: the bus's port is cluster-port, else the port clients of
  // the bus's type use plus 10000.
  int base = busBasePort(cfg);
  int listen_port = cfg.cluster_port ? static_cast<int>(cfg.cluster_port) : base + 10000;
  if (listen_port > 65535 || (cfg.cluster_port == 0 && base == 0)) {
    *err =
        "Redis port number too high. Cluster communication port is 10,000 port numbers "
        "higher than your Redis port. Your Redis port number must be 55535 or less.";
    return false;
  }
  net::ConnectionType* type = busType();
  if (type == nullptr) {
    *err = "No connection type carries the cluster bus in this build";
    return false;
  }
  net::ListenSpec spec;
  spec.addrs = cfg.bind;
  spec.port = listen_port;
  net::Listener* l = type->listen(&g_server->loop, spec, onAccept, nullptr, err);
  if (l == nullptr) return false;
  LOG_NOTICE("Cluster bus listening on %s", l->describe().c_str());
  st().listeners.emplace_back(l);
  st().bus_port = listen_port;
  openAltListener();
  return true;
}

void applyBusTransport() {
  State& s = st();
  if (configValue(g_server->config, "cluster-bus-transport") == s.alt_setting) return;
  // The previous type's listener closes (the first one is the bus's own),
  // and so do the links over it: they come back over the new setting.
  if (s.listeners.size() > 1) s.listeners.resize(1);
  std::vector<Link*> alt_links;
  for (Link* l : s.allLinks())
    if (l->alt) alt_links.push_back(l);
  for (Link* l : alt_links) {
    l->delivered = true;  // not a failure of the peer's transport
    freeLink(l);
  }
  openAltListener();
  LOG_NOTICE("cluster-bus-transport is now %s (%zu links over the previous one closed)",
             s.alt_setting.c_str(), alt_links.size());
}

void freeLink(Link* l) {
  if (l == nullptr) return;
  if (l == g_reading) g_reading_freed = true;
  if (l->alt && !l->inbound && l->node != nullptr && !l->delivered) {
    // Nothing came back over it: reach the peer over the bus's own type
    // for a while.
    l->node->alt_retry_ms = mstime() + kAltRetryMs;
    LOG_NOTICE("Cluster bus link over %s to node %s failed; using %s for %lld s",
               l->conn->type().name(), l->node->name.c_str(), busType()->name(),
               static_cast<long long>(kAltRetryMs / 1000));
  }
  if (l->node != nullptr) {
    if (l->node->link == l) l->node->link = nullptr;
    if (l->node->inbound == l) l->node->inbound = nullptr;
  }
  auto& in = st().inbound_links;
  in.erase(std::remove(in.begin(), in.end(), l), in.end());
  l->conn->setPrivateData(nullptr);
  l->conn->close();
  delete l;
}

void tieInbound(Node* n, Link* l) {
  if (n->inbound == l) return;
  if (n->inbound != nullptr) {
    // A node reconnected: its old inbound link is stale.
    LOG_DEBUG("Replacing the inbound link of node %s", n->name.c_str());
    freeLink(n->inbound);
  }
  n->inbound = l;
  l->node = n;
}

// The alternate bus type reaches n: it announced a bus port of it, and no
// link over it failed lately.
bool altReaches(const Node* n, int64_t now) {
  return n->rdma_cport != 0 && now >= n->alt_retry_ms && altBusType() != nullptr;
}

void connectNode(Node* n, int64_t now) {
  if (n->link != nullptr) return;
  bool alt = altReaches(n, now);
  net::ConnectionType* type = alt ? altBusType() : busType();
  if (type == nullptr) return;
  net::ConnectAddr addr;
  addr.host = n->ip;
  addr.port = alt ? n->rdma_cport : n->cport;
  addr.source_addr = g_server->config.bind_source_addr;
  std::string err;
  net::Connection* conn = type->connect(&g_server->loop, addr, onConnected, &err);
  if (conn == nullptr) {
    // Failure detection needs a ping time even when no link could start.
    if (n->ping_sent == 0) n->ping_sent = now;
    LOG_DEBUG("Unable to connect to Cluster Node [%s]:%d -> %s", n->ip.c_str(), n->cport,
              err.c_str());
    return;
  }
  Link* l = newLink(conn, n, false, alt);
  n->link = l;
  if (conn->state() == net::ConnState::kConnected) onConnected(conn);
}

void moveLinkIfNeeded(Node* n, int64_t now) {
  Link* l = n->link;
  if (l == nullptr || l->alt || !l->delivered || !altReaches(n, now)) return;
  LOG_VERBOSE("Node %s announces a cluster bus over %s: reconnecting over it", n->name.c_str(),
              altBusType()->name());
  freeLink(l);
  connectNode(n, now);
}

bool startHandshake(const std::string& ip_in, int port, int cport) {
  if (port <= 0 || port > 65535 || cport <= 0 || cport > 65535) {
    errno = EINVAL;
    return false;
  }
  unsigned char buf[sizeof(struct in6_addr)];
  char norm[wire::kIpLen] = {};
  if (inet_pton(AF_INET, ip_in.c_str(), buf) == 1) {
    inet_ntop(AF_INET, buf, norm, sizeof(norm));
  } else if (inet_pton(AF_INET6, ip_in.c_str(), buf) == 1) {
    inet_ntop(AF_INET6, buf, norm, sizeof(norm));
  } else {
    errno = EINVAL;
    return false;
  }
  for (auto& [name, n] : st().nodes) {
    if (n->inHandshake() && strcasecmp(n->ip.c_str(), norm) == 0 && n->port == port &&
        n->cport == cport) {
      errno = EAGAIN;
      return false;
    }
  }
  Node* n = createNode("", kHandshake | kMeet);
  n->ip = norm;
  n->port = port;
  n->cport = cport;
  return true;
}

void updateMyselfAnnounced() {
  Node* me = myself();
  const Config& cfg = g_server->config;
  announcedPorts(&me->port, &me->pport, &me->cport);
  int rdma_port = atoi(configValue(cfg, "cluster-announce-rdma-port").c_str());
  me->rdma_port = rdma_port != 0 ? rdma_port : atoi(configValue(cfg, "rdma-port").c_str());
  me->rdma_cport = st().alt_cport != 0 ? me->cport : 0;
  if (!cfg.cluster_announce_ip.empty()) me->ip = cfg.cluster_announce_ip;
  me->hostname = cfg.cluster_announce_hostname;
  // cluster-replica-no-failover travels as the node's nofailover flag, so
  // that the other replicas' ranks leave this one out.
  if (cfg.cluster_replica_no_failover)
    me->flags |= kNoFailover;
  else
    me->flags &= ~kNoFailover;
}

// ---- building and sending messages

std::string buildHeader(uint16_t type) {
  updateMyselfAnnounced();
  const State& s = st();
  const Node* me = myself();
  const Node* master = (me->isReplica() && me->master != nullptr) ? me->master : me;
  std::string msg(wire::kHeaderLen, '\0');
  wire::Header h;
  memset(&h, 0, sizeof(h));
  memcpy(h.sig, "RCmb", 4);
  h.ver = htons(wire::kProtoVersion);
  h.type = htons(type);
  putName(h.sender, me->name);
  const std::string& aip = g_server->config.cluster_announce_ip;
  memcpy(h.myip, aip.data(), std::min(aip.size(), wire::kIpLen - 1));
  int port, pport, cport;
  announcedPorts(&port, &pport, &cport);
  memcpy(h.myslots, master->slots.data(), sizeof(h.myslots));
  if (me->master != nullptr) putName(h.replicaof, me->master->name);
  h.port = htons(static_cast<uint16_t>(port));
  h.pport = htons(static_cast<uint16_t>(pport));
  h.cport = htons(static_cast<uint16_t>(cport));
  wire::putRdmaAnnounce(&h, me->rdma_port, me->rdma_cport);
  h.flags = htons(me->flags);
  h.state = s.ok ? 0 : 1;
  h.current_epoch = wire::hton64(s.current_epoch);
  h.config_epoch = wire::hton64(master->config_epoch);
  h.offset = wire::hton64(static_cast<uint64_t>(repl::replicationOffset()));
  if (me->isMaster() && s.mf_end) h.mflags[0] |= wire::kFlag0Paused;
  memcpy(msg.data(), &h, sizeof(h));
  setTotlen(&msg);
  return msg;
}

void sendPing(Link* l, uint16_t type) {
  State& s = st();
  s.pings_sent++;
  int freshnodes = static_cast<int>(s.nodes.size()) - 2;
  int wanted = std::max<int>(3, static_cast<int>(s.nodes.size() / 10));
  wanted = std::min(wanted, freshnodes);
  if (!l->inbound && type == wire::kPing) l->node->ping_sent = mstime();
  std::string msg = buildHeader(type);
  std::vector<Node*> all;
  all.reserve(s.nodes.size());
  for (auto& [name, n] : s.nodes) all.push_back(n.get());
  int count = 0;
  int iterations = wanted * 3;
  while (freshnodes > 0 && count < wanted && iterations-- > 0) {
    Node* n = all[rng()() % all.size()];
    if (n == myself() || (n->flags & kPfail)) continue;
    if ((n->flags & (kHandshake | kNoAddr)) || (n->link == nullptr && n->numslots == 0)) {
      freshnodes--;
      continue;
    }
    if (n->last_in_ping_gossip == s.pings_sent) continue;
    wire::Gossip g;
    setGossip(&g, n);
    msg.append(reinterpret_cast<const char*>(&g), sizeof(g));
    n->last_in_ping_gossip = s.pings_sent;
    freshnodes--;
    count++;
  }
  // Every node in PFAIL rides along: failure reports spread faster.
  for (Node* n : all) {
    if ((n->flags & (kHandshake | kNoAddr)) || !(n->flags & kPfail)) continue;
    wire::Gossip g;
    setGossip(&g, n);
    msg.append(reinterpret_cast<const char*>(&g), sizeof(g));
    count++;
  }
  uint16_t extensions = 0;
  if (!myself()->hostname.empty()) {
    wire::appendHostnameExt(&msg, myself()->hostname);
    extensions++;
    msg[offsetof(wire::Header, mflags)] |= static_cast<char>(wire::kFlag0ExtData);
  }
  uint16_t c = htons(static_cast<uint16_t>(count)), e = htons(extensions);
  memcpy(msg.data() + offsetof(wire::Header, count), &c, 2);
  memcpy(msg.data() + offsetof(wire::Header, extensions), &e, 2);
  setTotlen(&msg);
  sendMessage(l, msg);
}

void broadcastMessage(const std::string& msg) {
  for (auto& [name, n] : st().nodes) {
    if (n->flags & (kMyself | kHandshake)) continue;
    sendMessage(n->link, msg);
  }
}

void broadcastPong(bool local_replicas_only) {
  Node* me = myself();
  for (auto& [name, n] : st().nodes) {
    if (n->link == nullptr || n.get() == me || n->inHandshake()) continue;
    if (local_replicas_only) {
      bool local =
          n->isReplica() && n->master != nullptr && (n->master == me || n->master == me->master);
      if (!local) continue;
    }
    sendPing(n->link, wire::kPong);
  }
}

void sendFail(const std::string& name) {
  std::string msg = buildHeader(wire::kFail);
  msg.append(wire::kFailBody, '\0');
  memcpy(msg.data() + wire::kHeaderLen, name.data(), std::min(name.size(), kNameLen));
  setTotlen(&msg);
  broadcastMessage(msg);
}

void sendUpdate(Link* l, const Node* about) {
  if (l == nullptr) return;
  std::string msg = buildHeader(wire::kUpdate);
  wire::Update u;
  memset(&u, 0, sizeof(u));
  u.config_epoch = wire::hton64(about->config_epoch);
  putName(u.nodename, about->name);
  memcpy(u.slots, about->slots.data(), sizeof(u.slots));
  msg.append(reinterpret_cast<const char*>(&u), sizeof(u));
  setTotlen(&msg);
  sendMessage(l, msg);
}

void sendToNode(Node* n, uint16_t type, uint8_t mflags0) {
  if (n == nullptr || n->link == nullptr) return;
  std::string msg = buildHeader(type);
  msg[offsetof(wire::Header, mflags)] |= static_cast<char>(mflags0);
  sendMessage(n->link, msg);
}

void broadcastType(uint16_t type, uint8_t mflags0) {
  std::string msg = buildHeader(type);
  msg[offsetof(wire::Header, mflags)] |= static_cast<char>(mflags0);
  broadcastMessage(msg);
}

void propagatePublish(std::string_view channel, std::string_view message, bool sharded) {
  if (!g_enabled) return;
  std::string msg = buildHeader(sharded ? wire::kPublishShard : wire::kPublish);
  uint32_t cl = htonl(static_cast<uint32_t>(channel.size()));
  uint32_t ml = htonl(static_cast<uint32_t>(message.size()));
  msg.append(reinterpret_cast<const char*>(&cl), 4);
  msg.append(reinterpret_cast<const char*>(&ml), 4);
  msg.append(channel);
  msg.append(message);
  setTotlen(&msg);
  if (!sharded) {
    broadcastMessage(msg);
    return;
  }
  // A shard channel goes to the nodes of this node's shard only.
  Node* me = myself();
  Node* master = me->isReplica() && me->master != nullptr ? me->master : me;
  if (master != me) sendMessage(master->link, msg);
  for (Node* r : master->replicas)
    if (r != me) sendMessage(r->link, msg);
}

}  // namespace server::cluster
