// rdma_cm side of the rdma transport: listening, the client's resolve /
// connect sequence, the server's accept, ESTABLISHED / DISCONNECTED, and
// teardown. Every event is acknowledged right after it is copied, before any
// handler runs: rdma_destroy_id() waits for unacknowledged events of its id,
// and a handler may close (destroy) the connection.
#include <arpa/inet.h>
#include <netdb.h>

#include <cstring>
#include <utility>

#include "common/log.h"
#include "net/rdma/rdma_connection.h"

namespace net::rdma {
namespace {

// Resolves a numeric (listen) or any (connect) host into *out.
bool resolve(const std::string& host, int port, bool numeric, sockaddr_storage* out,
             std::string* err) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = numeric ? (AI_NUMERICHOST | AI_PASSIVE) : 0;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) {
    *err = "getaddrinfo(" + host + ") failed: " + gai_strerror(rc);
    return false;
  }
  memcpy(out, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  return true;
}

std::string cmError(rdma_cm_event_type type, int status) {
  std::string s = std::string("rdma_cm reported ") + rdma_event_str(type);
  if (status != 0) {
    s += " (status " + std::to_string(status);
    if (status < 0) s += std::string(": ") + strerror(-status);
    s += ")";
  }
  return s;
}

// `hello`: carry kHello in the private data (our own peers recognise it;
// the prototype and Valkey ignore private data); `flow`: with kFeatureFlow.
rdma_conn_param connParam(bool hello, bool flow) {
  rdma_conn_param p = {};
  // No RDMA reads are used: no responder resources or initiator depth.
  p.retry_count = kRetryCount;
  p.rnr_retry_count = kRnrRetryCount;
  if (hello) {
    p.private_data = flow ? kHelloFlow : kHello;
    p.private_data_len = flow ? sizeof kHelloFlow : sizeof kHello;
  } else {
    // Speaking another implementation's dialect: ask what its clients ask
    // (libvalkey: one read each way), which also keeps our own server from
    // taking us for an older build of our client (eventNoReads).
    p.responder_resources = 1;
    p.initiator_depth = 1;
  }
  return p;
}

Hello eventHello(const rdma_cm_event* ev) {
  const void* d = ev->param.conn.private_data;
  uint8_t len = ev->param.conn.private_data_len;
  if (!hasHello(d, len)) return Hello::kNone;
  return helloOffersFlow(d, len) ? Hello::kFlow : Hello::kPlain;
}

// A connect request asking for no RDMA-read resources: what builds of our
// client before the dialects send (connParam without kHello). libvalkey asks
// for one of each, so a Valkey client never matches; a prototype client that
// matched would be served too (our register message is valid in its dialect).
bool eventNoReads(const rdma_cm_event* ev) {
  return ev->param.conn.responder_resources == 0 && ev->param.conn.initiator_depth == 0;
}

}  // namespace

std::string formatSockaddr(const sockaddr* sa) {
  if (sa == nullptr) return "";
  char ip[INET6_ADDRSTRLEN] = {};
  if (sa->sa_family == AF_INET) {
    auto* s = reinterpret_cast<const sockaddr_in*>(sa);
    inet_ntop(AF_INET, &s->sin_addr, ip, sizeof ip);
    return std::string(ip) + ":" + std::to_string(ntohs(s->sin_port));
  }
  if (sa->sa_family == AF_INET6) {
    auto* s = reinterpret_cast<const sockaddr_in6*>(sa);
    inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof ip);
    return "[" + std::string(ip) + "]:" + std::to_string(ntohs(s->sin6_port));
  }
  return "";
}

RdmaConnection::RdmaConnection(const ConnectionType* type, Shared* shared, event::EventLoop* loop)
    : Connection(type, loop), shared_(shared) {
  shared_->live.insert(this);
}

RdmaConnection::~RdmaConnection() {
  shared_->live.erase(this);
  shared_->pending.erase(this);
}

RdmaConnection* RdmaConnection::connectTo(const ConnectionType* type, Shared* shared,
                                          event::EventLoop* loop, const ConnectAddr& addr,
                                          ConnHandler cb, std::string* err) {
  if (!checkMemlock(pinnedPerConnection(shared->opts.rx_size), err)) return nullptr;
  sockaddr_storage dst = {}, src = {};
  if (!resolve(addr.host, addr.port, false, &dst, err)) return nullptr;
  bool has_src = !addr.source_addr.empty();
  if (has_src && !resolve(addr.source_addr, 0, true, &src, err)) return nullptr;

  auto* c = new RdmaConnection(type, shared, loop);
  c->outbound_ = true;
  c->state_ = ConnState::kConnecting;
  c->connect_cb_ = cb;
  c->peer_addr_ = formatSockaddr(reinterpret_cast<sockaddr*>(&dst));
  c->ep_.channel = makeEventChannel(err);
  if (c->ep_.channel) c->ep_.id = makeCmId(c->ep_.channel.get(), c, err);
  if (!c->ep_.id) {
    delete c;
    return nullptr;
  }
  if (rdma_resolve_addr(c->ep_.id.get(), has_src ? reinterpret_cast<sockaddr*>(&src) : nullptr,
                        reinterpret_cast<sockaddr*>(&dst), kResolveTimeoutMs) != 0) {
    *err = "RDMA connect to " + c->peer_addr_ + ": " + callFailed("rdma_resolve_addr");
    delete c;
    return nullptr;
  }
  if (!c->watchFds()) {
    *err = c->lastError();
    delete c;
    return nullptr;
  }
  c->armHandshakeTimer();
  return c;
}

RdmaConnection* RdmaConnection::fromRequest(const ConnectionType* type, Shared* shared,
                                            event::EventLoop* loop, rdma_cm_id* id, Hello hello,
                                            bool no_reads, std::string* err) {
  auto* c = new RdmaConnection(type, shared, loop);
  c->state_ = ConnState::kAccepting;
  // Our own client said so in its request: it speaks "ours" and waits for
  // us to speak first. So does an older build of it, which sends no kHello
  // but asks for no read resources. Anyone else is identified by its first
  // message.
  // Flow control when our client offers it and we take it (rdma-flow-control):
  // the rings start small.
  c->flow_ = hello == Hello::kFlow && shared->opts.flow;
  if (hello != Hello::kNone || no_reads) c->dialect_ = dialectFor(DialectId::kOurs, c->flow_);
  c->dialect_assumed_ = hello == Hello::kNone && no_reads;
  c->ep_.id = adoptCmId(id);
  id->context = c;
  c->peer_addr_ = formatSockaddr(rdma_get_peer_addr(id));
  c->local_addr_ = formatSockaddr(rdma_get_local_addr(id));
  uint32_t ring = c->flow_ ? kFlowMinRing : shared->opts.rx_size;
  bool ok = c->ep_.createVerbs(ring, ring, shared->opts.completion_vector, err);
  if (ok) {
    c->ep_.channel = makeEventChannel(err);
    ok = c->ep_.channel != nullptr;
  }
  // Its own channel: the connection then outlives the listener, and its
  // events are dispatched without a lookup.
  if (ok && rdma_migrate_id(id, c->ep_.channel.get()) != 0) {
    *err = callFailed("rdma_migrate_id");
    ok = false;
  }
  for (uint32_t slot = 0; ok && slot < kRecvDepth; slot++) ok = c->postRecv(slot);
  if (ok) ok = c->watchFds();
  if (!ok) {
    if (err->empty()) *err = c->lastError();
    *err = "RDMA connection from " + c->peer_addr_ + " refused: " + *err;
    rdma_reject(id, nullptr, 0);
    delete c;
    return nullptr;
  }
  return c;
}

bool RdmaConnection::watchFds() {
  if (ep_.channel && loop_->addFileEvent(ep_.channel->fd, event::kReadable, onCmEvent, this) != 0) {
    setError(callFailed("epoll_ctl (rdma_cm channel)"));
    return false;
  }
  if (ep_.comp && loop_->addFileEvent(ep_.comp->fd, event::kReadable, onCompletion, this) != 0) {
    setError(callFailed("epoll_ctl (completion channel)"));
    return false;
  }
  watching_ = true;
  return true;
}

void RdmaConnection::armHandshakeTimer() {
  if (handshake_timer_ != 0) return;
  handshake_timer_ =
      loop_->addTimer(kHandshakeTimeoutMs, [this](event::EventLoop*, event::TimerId) {
        handshake_timer_ = 0;
        if (state_ == ConnState::kConnecting || state_ == ConnState::kAccepting) {
          fail("RDMA handshake with " + peer_addr_ + " timed out", false);
          notifyHandshake();
        }
        return event::kNoMore;
      });
}

int RdmaConnection::doAccept(ConnHandler cb) {
  if (state_ != ConnState::kAccepting || accept_called_) return -1;
  // Always tell the peer we are this implementation: our client then knows
  // it may wait for us to speak first, in our dialect.
  rdma_conn_param p = connParam(true, flow_);
  if (rdma_accept(ep_.id.get(), &p) != 0) {
    setError(callFailed("rdma_accept"));
    shared_->stats.errors++;
    return -1;
  }
  accept_called_ = true;
  accept_cb_ = cb;
  armHandshakeTimer();
  return 0;
}

void RdmaConnection::onCmEvent(event::EventLoop*, int, void* data, int) {
  auto* c = static_cast<RdmaConnection*>(data);
  rdma_cm_event* ev = nullptr;
  while (c->ep_.channel && rdma_get_cm_event(c->ep_.channel.get(), &ev) == 0) {
    rdma_cm_event_type type = ev->event;
    int status = ev->status;
    Hello hello = eventHello(ev);  // private data dies with the ack
    rdma_ack_cm_event(ev);
    if (!c->handleCmEvent(type, status, hello)) return;
  }
}

bool RdmaConnection::handleCmEvent(rdma_cm_event_type type, int status, Hello hello) {
  LOG_DEBUG("RDMA %s: %s", peer_addr_.c_str(), cmError(type, status).c_str());
  switch (type) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
      if (rdma_resolve_route(ep_.id.get(), kResolveTimeoutMs) != 0) {
        fail(callFailed("rdma_resolve_route"), false);
        return notifyHandshake();
      }
      return true;
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
      return onRouteResolved();
    case RDMA_CM_EVENT_ESTABLISHED:
      return onEstablished(hello);
    case RDMA_CM_EVENT_ADDR_ERROR:
    case RDMA_CM_EVENT_ROUTE_ERROR:
    case RDMA_CM_EVENT_CONNECT_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_REJECTED:
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
      fail("RDMA connection " + peer_addr_ + ": " + cmError(type, status), false);
      if (connect_cb_ != nullptr || accept_cb_ != nullptr) return notifyHandshake();
      return dispatch();
    case RDMA_CM_EVENT_DISCONNECTED:
      // Data that arrived before the disconnect is still delivered, then EOF.
      if (state_ != ConnState::kError) drainCq();
      peer_closed_ = true;
      disconnected_ = true;  // the CM already disconnected the QP
      if (connect_cb_ != nullptr || accept_cb_ != nullptr) {
        fail("RDMA connection " + peer_addr_ + " closed during the handshake", false);
        return notifyHandshake();
      }
      return dispatch();
    default:  // TIMEWAIT_EXIT, ADDR_CHANGE, ...: nothing to do
      return true;
  }
}

bool RdmaConnection::onRouteResolved() {
  std::string err;
  // Offering flow control, the rings start small; flow_ then means
  // "offered" until the server's accept says whether it took it.
  DialectId want = shared_->opts.client_dialect;
  bool hello = want == DialectId::kUnknown || want == DialectId::kOurs;
  flow_ = hello && shared_->opts.flow;
  uint32_t ring = flow_ ? kFlowMinRing : shared_->opts.rx_size;
  bool ok = ep_.createVerbs(ring, ring, shared_->opts.completion_vector, &err);
  if (!ok) {
    fail("RDMA connect to " + peer_addr_ + ": " + err, false);
    return notifyHandshake();
  }
  local_addr_ = formatSockaddr(rdma_get_local_addr(ep_.id.get()));
  for (uint32_t slot = 0; ok && slot < kRecvDepth; slot++) ok = postRecv(slot);
  if (ok) ok = watchFds();
  // kHello unless told to speak another dialect: a server that knows it
  // (ours) speaks first in our dialect; the others ignore it.
  rdma_conn_param p = connParam(hello, flow_);
  if (ok && rdma_connect(ep_.id.get(), &p) != 0) {
    fail("RDMA connect to " + peer_addr_ + ": " + callFailed("rdma_connect"), false);
    ok = false;
  }
  return ok ? true : notifyHandshake();
}

bool RdmaConnection::onEstablished(Hello hello) {
  established_ = true;
  startProbeTimer();
  if (outbound_) {
    // Flow control if we offered it and the server took it; otherwise the
    // rings, small for the offer, take their full size before we announce.
    flow_ = flow_ && hello == Hello::kFlow;
    if (!flow_ && !fullSizeRings()) return notifyHandshake();
    DialectId want = shared_->opts.client_dialect;
    if (want == DialectId::kUnknown && hello != Hello::kNone) want = DialectId::kOurs;
    if (want == DialectId::kUnknown) return true;  // the server's first message tells
    dialect_ = dialectFor(want, flow_);
    // The prototype's and Valkey's servers announce on ESTABLISHED without
    // waiting, and so do we when speaking their dialect; our own server
    // speaks first and we answer (notifyHandshake).
    if (want != DialectId::kOurs) postRegister();
    return notifyHandshake();  // connected once the server registered
  }
  state_ = ConnState::kConnected;
  shared_->stats.connected_clients++;
  counted_client_ = true;
  if (handshake_timer_ != 0) {
    loop_->deleteTimer(handshake_timer_);
    handshake_timer_ = 0;
  }
  if (dialect_ != nullptr) {
    // Our own client waits for us to speak first. (A peer whose first
    // message overtook this event was answered already.)
    if (!announced_) postRegister();
  } else {
    armIdentifyTimer();  // anyone else speaks first; we answer in its dialect
  }
  ConnHandler cb = accept_cb_;
  accept_cb_ = nullptr;
  if (!callHandler(cb)) return false;
  return dispatch();
}

void RdmaConnection::armIdentifyTimer() {
  handshake_timer_ =
      loop_->addTimer(kHandshakeTimeoutMs, [this](event::EventLoop*, event::TimerId) {
        handshake_timer_ = 0;
        if (dialect_ == nullptr && state_ == ConnState::kConnected) {
          fail("peer sent no control message within " + std::to_string(kHandshakeTimeoutMs) +
                   " ms of connecting",
               true);
          dispatch();
        }
        return event::kNoMore;
      });
}

bool RdmaConnection::notifyHandshake() {
  ConnHandler cb = nullptr;
  if (state_ == ConnState::kError) {
    cb = connect_cb_ != nullptr ? connect_cb_ : accept_cb_;
  } else if (outbound_ && connect_cb_ != nullptr && state_ == ConnState::kConnecting &&
             established_ && tx_ready_) {
    // Server's RX is known: announce ours (unless done), and the stream is
    // open both ways.
    if (announced_ || postRegister()) state_ = ConnState::kConnected;
    cb = connect_cb_;
  }
  if (cb == nullptr) return true;
  connect_cb_ = nullptr;
  accept_cb_ = nullptr;
  if (handshake_timer_ != 0) {
    loop_->deleteTimer(handshake_timer_);
    handshake_timer_ = 0;
  }
  if (!callHandler(cb)) return false;
  return dispatch();
}

void RdmaConnection::doClose() {
  stopKickTimer();
  if (idle_timer_ != 0) {
    loop_->deleteTimer(idle_timer_);
    idle_timer_ = 0;
  }
  if (probe_timer_ != 0) {
    loop_->deleteTimer(probe_timer_);
    probe_timer_ = 0;
  }
  loop_->removePoller(this);
  if (handshake_timer_ != 0) {
    loop_->deleteTimer(handshake_timer_);
    handshake_timer_ = 0;
  }
  shared_->pending.erase(this);
  if (counted_client_) {
    shared_->stats.connected_clients--;
    counted_client_ = false;
  }
  if (watching_) {
    if (ep_.channel) loop_->removeFileEvent(ep_.channel->fd, event::kReadable);
    if (ep_.comp) loop_->removeFileEvent(ep_.comp->fd, event::kReadable);
    watching_ = false;
  }
  size_t completions = 0;
  if (ep_.comp && established_ && !disconnected_ && !peer_closed_ &&
      state_ == ConnState::kConnected && !inflight_.empty() &&
      (completions = signalLastWrite()) > 0) {
    // The last writes (often the final reply) have not completed yet:
    // disconnecting now would flush them. The Linger owns the resources
    // from here and disconnects once they are done, hearing of them
    // through completion events: the CQ must be armed.
    armCq();
    Linger::start(shared_, loop_, std::move(ep_), completions, false);
    inflight_.clear();
    inflight_bytes_ = 0;
    ep_.reset();
    state_ = ConnState::kClosed;
    return;
  }
  if (ep_.id) {
    if (state_ == ConnState::kAccepting && !accept_called_) {
      rdma_reject(ep_.id.get(), nullptr, 0);
    } else if (established_ && !disconnected_) {
      rdma_disconnect(ep_.id.get());  // tells the peer at once, not at QP timeout
    }
  }
  ep_.reset();
  state_ = ConnState::kClosed;
}

std::string RdmaConnection::doAddress(bool peer) const {
  return peer ? peer_addr_ : local_addr_;
}

bool RdmaConnection::doIsLocal() const {
  // Protected mode trusts loopback addresses only, as for TCP, where a
  // client connecting from one of this host's interface addresses is remote
  // too. rdma_cm cannot route over lo, so in practice every RDMA peer is.
  std::string p = peer_addr_.substr(0, peer_addr_.rfind(':'));
  // Exactly 127.0.0.1 and ::1, as Redis 7.0 compares them.
  return p == "127.0.0.1" || p == "[::1]";
}

std::string RdmaConnection::doTransport() const {
  return std::string(type_->name()) + "/" + dialectName(dialectId());
}

int RdmaConnection::doFd() const {
  return ep_.comp ? ep_.comp->fd : -1;
}

// ---- Listener ----

RdmaListener* RdmaListener::create(const ConnectionType* type, Shared* shared,
                                   event::EventLoop* loop, const ListenSpec& spec,
                                   AcceptCallback cb, void* cb_data, std::string* err) {
  std::vector<std::string> addrs = spec.addrs;
  if (addrs.empty()) addrs = {"*"};
  std::string where = addrs[0] + ":" + std::to_string(spec.port);
  std::string e;
  if (!checkMemlock(pinnedPerConnection(shared->opts.rx_size), &e)) {
    *err = "Could not create RDMA listener on " + where + ": " + e;
    return nullptr;
  }
  std::unique_ptr<RdmaListener> l(new RdmaListener());
  l->type_ = type;
  l->shared_ = shared;
  l->loop_ = loop;
  l->cb_ = cb;
  l->cb_data_ = cb_data;
  l->channel_ = makeEventChannel(&e);
  if (!l->channel_) {
    *err = "Could not create RDMA listener on " + where + ": " + e;
    return nullptr;
  }
  for (const auto& spec_addr : addrs) {
    bool optional = !spec_addr.empty() && spec_addr[0] == '-';
    std::string a = optional ? spec_addr.substr(1) : spec_addr;
    if (a == "*" || a.empty()) a = "0.0.0.0";
    if (a == "::*") a = "::";
    where = a + ":" + std::to_string(spec.port);
    sockaddr_storage ss = {};
    CmId id;
    if (resolve(a, spec.port, true, &ss, &e)) id = makeCmId(l->channel_.get(), l.get(), &e);
    if (id && rdma_bind_addr(id.get(), reinterpret_cast<sockaddr*>(&ss)) != 0) {
      e = callFailed("rdma_bind_addr");
      if (errno == ENODEV || errno == EADDRNOTAVAIL) e += " (no RDMA device has this address)";
      id.reset();
    } else if (id && id->verbs == nullptr && a != "0.0.0.0" && a != "::") {
      // A specific address bound without a device (loopback): clients
      // could never reach it over RDMA.
      e = "rdma_bind_addr bound no RDMA device (the address is not on an RDMA interface)";
      id.reset();
    }
    if (id && rdma_listen(id.get(), spec.backlog) != 0) {
      e = callFailed("rdma_listen");
      id.reset();
    }
    if (!id) {
      if (optional) continue;
      *err = "Could not create RDMA listener on " + where + ": " + e;
      return nullptr;
    }
    l->ids_.push_back(std::move(id));
    if (!l->description_.empty()) l->description_ += " ";
    l->description_ += where;
  }
  if (l->ids_.empty()) {
    *err = "Could not create RDMA listener: no address could be bound";
    return nullptr;
  }
  if (loop->addFileEvent(l->channel_->fd, event::kReadable, onCmEvent, l.get()) != 0) {
    *err = "Could not create RDMA listener on " + where + ": " + callFailed("epoll_ctl");
    return nullptr;
  }
  shared->stats.listeners++;
  l->counted_ = true;
  return l.release();
}

RdmaListener::~RdmaListener() {
  if (shared_ == nullptr) return;
  if (channel_) loop_->removeFileEvent(channel_->fd, event::kReadable);
  if (counted_) shared_->stats.listeners--;
  ids_.clear();  // ids before their channel
}

void RdmaListener::onCmEvent(event::EventLoop*, int, void* data, int) {
  auto* l = static_cast<RdmaListener*>(data);
  // Bounded batch, as for TCP accepts: a connect flood cannot starve clients.
  constexpr int kMaxEventsPerCall = 256;
  rdma_cm_event* ev = nullptr;
  for (int i = 0; i < kMaxEventsPerCall && rdma_get_cm_event(l->channel_.get(), &ev) == 0; i++) {
    rdma_cm_event_type type = ev->event;
    int status = ev->status;
    rdma_cm_id* id = ev->id;
    Hello hello = type == RDMA_CM_EVENT_CONNECT_REQUEST ? eventHello(ev) : Hello::kNone;
    bool no_reads =
        type == RDMA_CM_EVENT_CONNECT_REQUEST && hello == Hello::kNone && eventNoReads(ev);
    rdma_ack_cm_event(ev);
    if (type != RDMA_CM_EVENT_CONNECT_REQUEST) {
      if (type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
        LOG_WARNING("RDMA listener %s: device removed", l->description_.c_str());
      } else {
        LOG_VERBOSE("RDMA listener %s: %s", l->description_.c_str(), cmError(type, status).c_str());
      }
      continue;
    }
    std::string err;
    RdmaConnection* c =
        RdmaConnection::fromRequest(l->type_, l->shared_, l->loop_, id, hello, no_reads, &err);
    if (c == nullptr) {
      LOG_WARNING("%s", err.c_str());
      l->shared_->stats.errors++;
      continue;
    }
    l->cb_(c, l->cb_data_);
  }
}

}  // namespace net::rdma
