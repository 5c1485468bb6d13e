// What a received bus message does (the rules of Redis 7.0.15's cluster
// bus): handshakes and address updates, role and slot changes, gossip and
// failure reports, FAIL, UPDATE, PUBLISH, votes and manual failover. A
// message reaches processMessage() only whole and with lengths that agree
// with its type (wire::validate); one that does not is logged and its link
// dropped.
#include <cstring>

#include "common/log.h"
#include "net/connection.h"
#include "server/cluster/cluster.h"
#include "server/cluster/state.h"
#include "server/core/state.h"
#include "server/pubsub/pubsub.h"
#include "server/repl/repl.h"
#include "server/request/pause.h"

namespace server::cluster {

void tieInbound(Node* n, Link* l);
void sendToNode(Node* n, uint16_t type, uint8_t mflags0);

namespace {

bool nullName(const char* p) {
  for (size_t i = 0; i < kNameLen; i++)
    if (p[i] != '\0') return false;
  return true;
}

std::string hostOf(const std::string& addr) {
  if (!addr.empty() && addr[0] == '[') return addr.substr(1, addr.find(']') - 1);
  size_t colon = addr.rfind(':');
  return colon == std::string::npos ? addr : addr.substr(0, colon);
}

// The sender's address: what it announces, else what the link shows.
std::string senderIp(const Link* l, const wire::Header& h) {
  if (h.myip[0] != '\0') return wire::fieldString(h.myip, wire::kIpLen);
  return hostOf(l->conn->peerAddress());
}

// A node's address changed (seen on a link other than our own to it):
// take the new one and reconnect. True when something changed.
bool updateAddressIfNeeded(Node* n, Link* l, const wire::Header& h) {
  if (l == n->link) return false;
  std::string ip = senderIp(l, h);
  if (ip.empty()) return false;
  int port = ntohs(h.port), pport = ntohs(h.pport), cport = ntohs(h.cport);
  if (n->port == port && n->cport == cport && n->pport == pport && n->ip == ip) return false;
  n->ip = ip;
  n->port = port;
  n->pport = pport;
  n->cport = cport;
  if (n->link != nullptr) freeLink(n->link);
  n->flags &= ~kNoAddr;
  LOG_WARNING("Address updated for node %s, now %s:%d", n->name.c_str(), n->ip.c_str(), n->port);
  if (myself()->isReplica() && myself()->master == n) followMaster(n);
  return true;
}

void processGossip(const wire::Header& h, const uint8_t* msg, Link* l) {
  Node* sender = l->node != nullptr ? l->node : lookupNode(wire::fieldString(h.sender, kNameLen));
  uint16_t count = ntohs(h.count);
  const uint8_t* p = msg + wire::kHeaderLen;
  int64_t now = mstime();
  for (uint16_t i = 0; i < count; i++, p += sizeof(wire::Gossip)) {
    wire::Gossip g;
    memcpy(&g, p, sizeof(g));
    uint16_t flags = ntohs(g.flags);
    std::string name = wire::fieldString(g.nodename, kNameLen);
    std::string gip = wire::fieldString(g.ip, wire::kIpLen);
    Node* node = lookupNode(name);
    if (node != nullptr) {
      if (sender != nullptr && sender->isMaster() && node != myself()) {
        if (flags & (kFail | kPfail)) {
          if (addFailureReport(node, sender))
            LOG_VERBOSE("Node %s reported node %s as not reachable.", sender->name.c_str(),
                        node->name.c_str());
          markFailingIfNeeded(node);
        } else if (delFailureReport(node, sender)) {
          LOG_VERBOSE("Node %s reported node %s is back online.", sender->name.c_str(),
                      node->name.c_str());
        }
      }
      if (!(flags & (kFail | kPfail)) && node->ping_sent == 0 && failureReportCount(node) == 0) {
        int64_t pongtime = static_cast<int64_t>(ntohl(g.pong_received)) * 1000;
        if (pongtime <= now + 500 && pongtime > node->pong_received) node->pong_received = pongtime;
      }
      if ((node->flags & (kFail | kPfail)) && !(flags & kNoAddr) && !(flags & (kFail | kPfail)) &&
          (strcasecmp(node->ip.c_str(), gip.c_str()) != 0 || node->port != ntohs(g.port) ||
           node->cport != ntohs(g.cport))) {
        if (node->link != nullptr) freeLink(node->link);
        node->ip = gip;
        node->port = ntohs(g.port);
        node->pport = ntohs(g.pport);
        node->cport = ntohs(g.cport);
        node->flags &= ~kNoAddr;
      }
    } else if (sender != nullptr && !(flags & kNoAddr) && !blacklisted(name) &&
               name.size() == kNameLen) {
      // Only a node we know may introduce others: an address alone could
      // belong to another cluster by now.
      Node* n = createNode(name, flags & static_cast<uint16_t>(~(kMyself | kMeet)));
      n->ip = gip;
      n->port = ntohs(g.port);
      n->pport = ntohs(g.pport);
      n->cport = ntohs(g.cport);
      todo(kTodoSaveConfig);
    }
  }
}

void processExtensions(const wire::Header* h, Node* sender) {
  std::string hostname;
  wire::forEachExtension(h, [&](uint16_t type, std::string_view body) {
    if (type == wire::kExtHostname)
      hostname = std::string(body.data(), strnlen(body.data(), body.size()));
    else
      LOG_WARNING("Received unknown extension type %d", type);
  });
  if (sender->hostname != hostname) {
    sender->hostname = hostname;
    todo(kTodoSaveConfig);
  }
}

// PING, PONG and MEET: the sender's view of itself and of others.
bool processPingPong(Link* l, const wire::Header& h, const uint8_t* msg, Node* sender,
                     uint64_t sender_config_epoch) {
  uint16_t type = ntohs(h.type);
  uint16_t flags = ntohs(h.flags);
  Node* me = myself();
  int64_t now = mstime();
  if (type == wire::kPing || type == wire::kMeet) {
    // A MEET comes from a node that reached us at our own address: learn
    // it (unless announced), as Redis does.
    if ((type == wire::kMeet || me->ip.empty()) && g_server->config.cluster_announce_ip.empty()) {
      std::string ip = hostOf(l->conn->localAddress());
      if (!ip.empty() && ip != me->ip) {
        me->ip = ip;
        LOG_WARNING("IP address for this node updated to %s", me->ip.c_str());
        todo(kTodoSaveConfig);
      }
    }
    if (sender == nullptr && type == wire::kMeet) {
      Node* n = createNode("", kHandshake);
      n->ip = senderIp(l, h);
      n->port = ntohs(h.port);
      n->pport = ntohs(h.pport);
      n->cport = ntohs(h.cport);
      todo(kTodoSaveConfig);
      processGossip(h, msg, l);
    }
    sendPing(l, wire::kPong);
  }
  if (!l->inbound) {
    if (l->node->inHandshake()) {
      if (sender != nullptr) {
        // We already know this node under its real name: update its
        // address and drop the handshake entry (and this link with it).
        LOG_VERBOSE("Handshake: we already know node %s, updating the address if needed.",
                    sender->name.c_str());
        if (updateAddressIfNeeded(sender, l, h)) todo(kTodoSaveConfig | kTodoUpdateState);
        deleteNode(l->node);
        return false;
      }
      std::string name = wire::fieldString(h.sender, kNameLen);
      if (name.size() != kNameLen || lookupNode(name) != nullptr) {
        deleteNode(l->node);
        return false;
      }
      renameNode(l->node, name);
      LOG_DEBUG("Handshake with node %s completed.", l->node->name.c_str());
      l->node->flags &= ~kHandshake;
      l->node->flags |= flags & (kMaster | kReplica);
      todo(kTodoSaveConfig);
    } else if (memcmp(l->node->name.data(), h.sender, kNameLen) != 0) {
      // Someone else answers at this node's address now.
      LOG_DEBUG("PONG contains mismatching sender ID. About node %s", l->node->name.c_str());
      Node* n = l->node;
      n->flags |= kNoAddr;
      n->ip.clear();
      n->port = n->pport = n->cport = 0;
      freeLink(l);
      todo(kTodoSaveConfig);
      return false;
    }
  }
  if (sender != nullptr) {
    sender->flags = static_cast<uint16_t>((sender->flags & ~kNoFailover) | (flags & kNoFailover));
  }
  if (sender != nullptr && type == wire::kPing && !sender->inHandshake() &&
      updateAddressIfNeeded(sender, l, h))
    todo(kTodoSaveConfig | kTodoUpdateState);
  if (!l->inbound && type == wire::kPong) {
    Node* n = l->node;
    n->pong_received = now;
    n->ping_sent = 0;
    if (n->timedOut()) {
      n->flags &= ~kPfail;
      todo(kTodoSaveConfig | kTodoUpdateState);
    } else if (n->failed()) {
      clearFailureIfNeeded(n);
    }
  }
  if (sender == nullptr) return true;
  // Role changes.
  if (nullName(h.replicaof)) {
    setNodeAsMaster(sender);
  } else {
    Node* master = lookupNode(wire::fieldString(h.replicaof, kNameLen));
    if (sender->isMaster()) {
      delNodeSlots(sender);
      sender->flags &= ~(kMaster | kMigrateTo);
      sender->flags |= kReplica;
      todo(kTodoSaveConfig | kTodoUpdateState);
    }
    if (master != nullptr && sender->master != master) {
      if (sender->master != nullptr) removeReplica(sender->master, sender);
      addReplica(master, sender);
      sender->master = master;
      todo(kTodoSaveConfig);
    }
  }
  // Slots: the sender (or its master) claims a set that differs from ours.
  Node* sender_master = sender->isMaster() ? sender : sender->master;
  bool dirty = sender_master != nullptr &&
               memcmp(sender_master->slots.data(), h.myslots, sizeof(h.myslots)) != 0;
  if (sender->isMaster() && dirty) updateSlotsConfigWith(sender, sender_config_epoch, h.myslots);
  if (dirty) {
    // The sender claims slots that a node with a greater epoch serves now:
    // tell it.
    const State& s = st();
    for (int j = 0; j < kSlots; j++) {
      if (!wire::slotBit(h.myslots, j)) continue;
      Node* owner = s.slots[j];
      if (owner == sender || owner == nullptr || slotUnclaimed(j)) continue;
      if (owner->config_epoch > sender_config_epoch) {
        LOG_VERBOSE("Node %s has old slots configuration, sending an UPDATE message about %s",
                    sender->name.c_str(), owner->name.c_str());
        sendUpdate(sender->link, owner);
        break;
      }
    }
  }
  if (me->isMaster() && sender->isMaster() && sender_config_epoch == me->config_epoch)
    handleEpochCollision(sender);
  processGossip(h, msg, l);
  processExtensions(reinterpret_cast<const wire::Header*>(msg), sender);
  return true;
}

}  // namespace

bool processMessage(Link* l, const uint8_t* msg, size_t len) {
  std::string why;
  if (!wire::validate(msg, len, &why)) {
    LOG_WARNING("%s (from %s); closing the link", why.c_str(), l->conn->peerAddress().c_str());
    freeLink(l);
    return false;
  }
  wire::Header h;
  memcpy(&h, msg, sizeof(h));
  State& s = st();
  uint16_t type = ntohs(h.type);
  if (type < wire::kTypeCount) s.received[type]++;
  if (type == g_drop_packet_type || g_drop_packet_type == -2) {
    LOG_WARNING("Dropping packet that matches debug drop filter");
    return true;
  }
  LOG_DEBUG("--- Processing packet of type %s, %zu bytes, %s link of %s", wire::typeName(type), len,
            l->inbound ? "inbound" : "outbound",
            l->node != nullptr ? l->node->name.c_str() : "(none)");
  int64_t now = mstime();
  Node* sender;
  if (l->node != nullptr && !l->node->inHandshake()) {
    sender = l->node;
  } else {
    sender = lookupNode(wire::fieldString(h.sender, kNameLen));
    if (sender != nullptr && l->inbound && l->node == nullptr) tieInbound(sender, l);
  }
  if (sender != nullptr) {
    sender->data_received = now;
    wire::getRdmaAnnounce(h, &sender->rdma_port, &sender->rdma_cport);
  }
  uint64_t sender_current = 0, sender_config = 0;
  if (sender != nullptr && !sender->inHandshake()) {
    sender_current = wire::ntoh64(h.current_epoch);
    sender_config = wire::ntoh64(h.config_epoch);
    if (sender_current > s.current_epoch) s.current_epoch = sender_current;
    if (sender_config > sender->config_epoch) {
      sender->config_epoch = sender_config;
      todo(kTodoSaveConfig | kTodoFsyncConfig);
    }
    sender->repl_offset = static_cast<int64_t>(wire::ntoh64(h.offset));
    sender->repl_offset_time = now;
    Node* me = myself();
    if (s.mf_end && me->isReplica() && me->master == sender && (h.mflags[0] & wire::kFlag0Paused) &&
        s.mf_master_offset == -1) {
      s.mf_master_offset = sender->repl_offset;
      todo(kTodoHandleManualFailover);
      LOG_WARNING("Received replication offset for paused master manual failover: %lld",
                  static_cast<long long>(s.mf_master_offset));
    }
  }
  switch (type) {
    case wire::kPing:
    case wire::kPong:
    case wire::kMeet:
      return processPingPong(l, h, msg, sender, sender_config);
    case wire::kFail: {
      std::string about =
          wire::fieldString(reinterpret_cast<const char*>(msg) + wire::kHeaderLen, kNameLen);
      if (sender == nullptr) {
        LOG_NOTICE("Ignoring FAIL message from unknown node %s about %s",
                   wire::fieldString(h.sender, kNameLen).c_str(), about.c_str());
        return true;
      }
      Node* failing = lookupNode(about);
      if (failing != nullptr && !(failing->flags & (kFail | kMyself))) {
        LOG_NOTICE("FAIL message received from %s about %s", sender->name.c_str(), about.c_str());
        failing->flags |= kFail;
        failing->fail_time = now;
        failing->flags &= ~kPfail;
        todo(kTodoSaveConfig | kTodoUpdateState);
      }
      return true;
    }
    case wire::kPublish:
    case wire::kPublishShard: {
      if (sender == nullptr) return true;
      uint32_t cl, ml;
      memcpy(&cl, msg + wire::kHeaderLen, 4);
      memcpy(&ml, msg + wire::kHeaderLen + 4, 4);
      const char* body = reinterpret_cast<const char*>(msg) + wire::kHeaderLen + 8;
      std::string_view channel(body, ntohl(cl));
      std::string_view message(body + ntohl(cl), ntohl(ml));
      pubsubDeliver(channel, message, type == wire::kPublishShard);
      return true;
    }
    case wire::kAuthRequest:
      if (sender != nullptr) handleAuthRequest(sender, h);
      return true;
    case wire::kAuthAck:
      // A vote counts from a master with slots, for this election's epoch.
      if (sender != nullptr && sender->isMaster() && sender->numslots > 0 &&
          sender_current >= s.failover_auth_epoch) {
        s.failover_auth_count++;
        todo(kTodoHandleFailover);
      }
      return true;
    case wire::kMfStart:
      if (sender == nullptr || sender->master != myself()) return true;
      resetManualFailover();
      s.mf_end = now + kManualFailoverTimeoutMs;
      s.mf_replica = sender;
      pause::holdWrites(pause::Hold::kClusterFailover, true);
      LOG_WARNING("Manual failover requested by replica %s.", sender->name.c_str());
      sendPing(l, wire::kPing);
      return true;
    case wire::kUpdate: {
      if (sender == nullptr) return true;
      wire::Update u;
      memcpy(&u, msg + wire::kHeaderLen, sizeof(u));
      Node* n = lookupNode(wire::fieldString(u.nodename, kNameLen));
      uint64_t epoch = wire::ntoh64(u.config_epoch);
      if (n == nullptr || n->config_epoch >= epoch) return true;
      if (n->isReplica()) setNodeAsMaster(n);
      n->config_epoch = epoch;
      todo(kTodoSaveConfig | kTodoFsyncConfig);
      updateSlotsConfigWith(n, epoch, u.slots);
      return true;
    }
    case wire::kModule:
      return true;  // no modules here: nobody listens
    default:
      LOG_WARNING("Received unknown packet type: %d", type);
      return true;
  }
}

}  // namespace server::cluster
