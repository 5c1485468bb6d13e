// Hot path of the rdma transport: posting receives, control messages and
// data writes; draining the completion queue; read/write; and delivering
// handlers (no POLLOUT exists, and received bytes wait in user space).
#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/log.h"
#include "net/rdma/rdma_connection.h"

namespace net::rdma {
namespace {

constexpr uint32_t kCtrlSize = sizeof(wire::CtrlMsg);

}  // namespace

std::string postFailed(const char* what, int rc) {
  return std::string("ibv_post_") + what + " failed: " + strerror(rc);
}

void RdmaConnection::fail(const std::string& why, bool protocol) {
  if (state_ == ConnState::kError || state_ == ConnState::kClosed) return;
  if (protocol) {
    LOG_WARNING("RDMA connection %s: %s; closing it", peer_addr_.c_str(), why.c_str());
  } else {
    LOG_VERBOSE("RDMA connection %s: %s", peer_addr_.c_str(), why.c_str());
  }
  counters().errors++;
  setError(why);
  if (ep_.id && established_ && !disconnected_) {
    rdma_disconnect(ep_.id.get());
    disconnected_ = true;
  }
}

bool RdmaConnection::postRecv(uint32_t slot) {
  ibv_sge sge = {};
  sge.addr = reinterpret_cast<uintptr_t>(ep_.ctrl_rx.data() + slot * kCtrlSize);
  sge.length = kCtrlSize;
  sge.lkey = ep_.ctrl_rx.mr->lkey;
  ibv_recv_wr wr = {};
  wr.wr_id = slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(ep_.qp.get(), &wr, &bad); rc != 0) {
    fail(postFailed("recv", rc), false);
    return false;
  }
  return true;
}

bool RdmaConnection::postControl(const wire::CtrlMsg& msg, uint64_t wr_id, const char* what) {
  if (ctrl_inflight_ >= kCtrlSlots) {
    fail(std::string("control send queue full (") + what + ")", false);
    return false;
  }
  uint32_t slot = ctrl_next_++ % kCtrlSlots;
  uint8_t* dst = ep_.ctrl_tx.data() + slot * kCtrlSize;
  memcpy(dst, &msg, sizeof msg);
  ibv_sge sge = {};
  sge.addr = reinterpret_cast<uintptr_t>(dst);
  sge.length = kCtrlSize;
  sge.lkey = ep_.ctrl_tx.mr->lkey;
  ibv_send_wr wr = {};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(ep_.qp.get(), &wr, &bad); rc != 0) {
    fail(postFailed((std::string("send (") + what + ")").c_str(), rc), false);
    return false;
  }
  ctrl_inflight_++;
  return true;
}

bool RdmaConnection::postRegister() {
  wire::Region mine{reinterpret_cast<uintptr_t>(ep_.rx.data()), ep_.rx.size, ep_.rx.mr->rkey};
  announced_ = true;
  return postControl(dialect_->encodeRing(mine, rx_gen_), kWrCtrl, "register");
}

bool RdmaConnection::adoptDialect(DialectId id) {
  dialect_ = dialectFor(id);
  LOG_VERBOSE("RDMA connection %s speaks the %s dialect", peer_addr_.c_str(), dialect_->name());
  if (!outbound_ && handshake_timer_ != 0) {
    loop_->deleteTimer(handshake_timer_);  // the identify timer: it spoke
    handshake_timer_ = 0;
  }
  // A server waits for an unidentified peer to speak first; it answers
  // now, in the peer's dialect. A client announces once the dialect is
  // known (notifyHandshake).
  if (!outbound_ && !announced_) return postRegister();
  return true;
}

void RdmaConnection::onCompletion(event::EventLoop*, int, void* data, int) {
  auto* c = static_cast<RdmaConnection*>(data);
  // The event is acknowledged as it is fetched; then re-arm (or, when the
  // loop busy-polls, leave that to its re-arm before blocking), then drain:
  // a completion arriving between the drain and the re-arm would otherwise
  // never raise an event.
  if (takeCqEvent(c->ep_.comp.get())) {
    c->shared_->stats.completion_events++;
    c->cq_armed_ = false;
    bool handshaking = c->connect_cb_ != nullptr || c->accept_cb_ != nullptr;
    if (c->loop_->busyPollUs() > 0 && !handshaking && c->state_ == ConnState::kConnected) {
      // The loop spins before it sleeps: it polls this CQ instead of
      // waiting for the next event, and re-arms it before blocking.
      c->loop_->addPoller(c);
    } else {
      c->armCq();
    }
  }
  c->drainCq();
  if (c->connect_cb_ != nullptr || c->accept_cb_ != nullptr) {
    if (!c->notifyHandshake()) return;
  }
  c->dispatch();
}

bool RdmaConnection::armCq() {
  if (cq_armed_ || !ep_.cq) return true;
  if (ibv_req_notify_cq(ep_.cq.get(), 0) != 0) {
    fail(callFailed("ibv_req_notify_cq"), false);
    return false;
  }
  cq_armed_ = true;
  return true;
}

bool RdmaConnection::poll() {
  if (!ep_.cq) return false;
  bool was_broken = state_ == ConnState::kError;
  uint64_t reaped = 0;
  drainCq(&reaped);
  // Only news counts: reporting a known error on every poll would keep the
  // loop from ever blocking.
  if (reaped == 0 && (was_broken || state_ != ConnState::kError)) return false;
  shared_->stats.polled_completions += reaped;
  // Handlers run from processPendingData(), never from inside the loop's wait.
  updatePending();
  return true;
}

bool RdmaConnection::rearm() {
  // Arm first, then drain: a completion between the two raises an event.
  if (!armCq()) {
    updatePending();
    return true;
  }
  return poll();
}

bool RdmaConnection::drainCq(uint64_t* reaped) {
  if (!ep_.cq) return false;
  ibv_wc wcs[kPollBatch];
  for (;;) {
    int n = ibv_poll_cq(ep_.cq.get(), kPollBatch, wcs);
    if (n < 0) {
      fail("ibv_poll_cq failed", false);
      return false;
    }
    if (reaped != nullptr) *reaped += static_cast<uint64_t>(n);
    for (int i = 0; i < n; i++) {
      // After an error the rest is only reaped (flushes of a dead QP).
      if (state_ != ConnState::kError && !handleCompletion(wcs[i])) return false;
    }
    if (n < kPollBatch) return state_ != ConnState::kError;
  }
}

bool RdmaConnection::handleCompletion(const ibv_wc& wc) {
  if (wc.status != IBV_WC_SUCCESS) {
    if (wc.status == IBV_WC_WR_FLUSH_ERR) {
      // The QP went to the error state (peer gone, or we disconnected):
      // what was received is still delivered, then EOF.
      peer_closed_ = true;
      return true;
    }
    if (wc.status == IBV_WC_RETRY_EXC_ERR || wc.status == IBV_WC_RNR_RETRY_EXC_ERR) {
      // Nothing acknowledged our writes: the peer vanished without a
      // disconnect reaching us.
      shared_->stats.dead_peers++;
      fail(std::string("peer unreachable: ") + ibv_wc_status_str(wc.status) +
               (wc.wr_id == kWrProbe || wc.wr_id == kWrProbeCtrl ? " (liveness probe)" : ""),
           true);
      return false;
    }
    fail(std::string("completion error: ") + ibv_wc_status_str(wc.status) + " (vendor error " +
             std::to_string(wc.vendor_err) + ")",
         true);
    return false;
  }
  switch (wc.opcode) {
    case IBV_WC_RECV_RDMA_WITH_IMM:
      return onData(ntohl(wc.imm_data), wc.byte_len) && postRecv(static_cast<uint32_t>(wc.wr_id));
    case IBV_WC_RECV:
      if (wc.wc_flags & IBV_WC_WITH_IMM) {
        fail("protocol error: SEND with immediate data", true);
        return false;
      }
      return onControl(static_cast<uint32_t>(wc.wr_id), wc.byte_len) &&
             postRecv(static_cast<uint32_t>(wc.wr_id));
    case IBV_WC_RDMA_WRITE:
      if (wc.wr_id == kWrProbe) {
        probe_outstanding_ = false;  // the peer's HCA acknowledged it: alive
        return true;
      }
      // A signaled write: it and the unsignaled ones before it are done.
      while (!inflight_.empty()) {
        InFlight done = inflight_.front();
        inflight_.pop_front();
        inflight_bytes_ -= done.len;
        if (done.signaled) break;
      }
      if (inflight_.empty()) {
        st_head_ = 0;
        if (staging_want_ != 0) resizeStaging(staging_want_);
      }
      return true;
    case IBV_WC_SEND:
      if (ctrl_inflight_ > 0) ctrl_inflight_--;
      if (wc.wr_id == kWrProbeCtrl) probe_outstanding_ = false;
      if (credit_due_ || next_remote_due_) flushDeferredControl();
      return state_ != ConnState::kError;
    default:
      fail("unexpected completion opcode " + std::to_string(wc.opcode), true);
      return false;
  }
}

bool RdmaConnection::onData(uint32_t imm, uint32_t byte_len) {
  std::string err;
  uint32_t bytes = 0;
  if (dialect_ == nullptr) {
    // Nobody could know where our RX buffer is before we told them.
    fail("protocol error: data write before any control message", true);
    return false;
  }
  if (!dialect_->dataLength(imm, byte_len, &bytes, &err)) {
    fail("protocol error: " + err, true);
    return false;
  }
  if (flow_) return onFlowData(bytes);
  if (!wire::checkImmediate(bytes, rx_tail_, ep_.rx.size, &err)) {
    fail("protocol error: " + err, true);
    return false;
  }
  rx_tail_ += bytes;
  rx_unread_ += bytes;
  shared_->stats.bytes_received += bytes;
  return true;
}

bool RdmaConnection::onControl(uint32_t slot, uint32_t bytes) {
  std::string err;
  if (slot >= kRecvDepth) {
    fail("protocol error: receive completion for unknown slot " + std::to_string(slot), true);
    return false;
  }
  const uint8_t* buf = ep_.ctrl_rx.data() + slot * kCtrlSize;
  if (dialect_assumed_) {
    // "ours" was assumed and announced: a prototype's head (version 0) says
    // it is a seed client instead, which our register message suited.
    dialect_assumed_ = false;
    if (bytes == kCtrlSize && buf[0] == wire::kMagic && buf[1] == 0) {
      dialect_ = dialectFor(DialectId::kSeed);
      LOG_VERBOSE("RDMA connection %s speaks the %s dialect", peer_addr_.c_str(), dialect_->name());
    }
  }
  const Dialect* d = dialect_;
  if (d == nullptr) {
    DialectId id = detectDialect(buf, bytes, &err);
    if (id == DialectId::kUnknown) {
      shared_->stats.dialect_errors++;
      fail("protocol error: " + err, true);
      return false;
    }
    d = dialectFor(id);
  }
  Control c;
  if (!d->decode(buf, bytes, &c, &err)) {
    if (dialect_ == nullptr) shared_->stats.dialect_errors++;
    fail("protocol error (" + std::string(d->name()) + " dialect): " + err, true);
    return false;
  }
  // A valid first message: answer in its dialect (nothing is answered to
  // one that is not).
  if (dialect_ == nullptr && !adoptDialect(d->id())) return false;
  if (flow_) return onFlowControl(c);
  switch (c.kind) {
    case Control::Kind::kRegister:
      // The peer consumed everything we wrote (or this is its first buffer).
      remote_ = c.region;
      tx_off_ = 0;
      tx_ready_ = true;
      tx_waiting_ = false;
      return true;
    case Control::Kind::kKeepalive:
      shared_->stats.keepalives_received++;
      return true;
    case Control::Kind::kGetFeature: {
      wire::CtrlMsg reply;
      if (!dialect_->encodeFeatureReply(c.select, &reply)) return true;
      return postControl(reply, kWrCtrl, "feature reply");
    }
    case Control::Kind::kSetFeature:
      if (c.features != 0) {
        char hex[24];
        snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(c.features));
        fail(std::string("protocol error: SetClientFeature asks for features ") + hex +
                 ", none of which is supported",
             true);
        return false;
      }
      return true;
    case Control::Kind::kCredit:
    case Control::Kind::kSwitched:
      break;  // decoded only under flow control (onFlowControl)
  }
  return true;
}

uint32_t RdmaConnection::peerRoom() const {
  if (!tx_ready_) return 0;
  if (!flow_) return remote_.length - tx_off_;  // 0 once full: wait for its next register
  // Under flow control: what the credits leave of the ring, up to its end
  // (a write never wraps; tx_off_ is back at 0 once it reached the end).
  uint32_t free = remote_.length - static_cast<uint32_t>(tx_sent_ - tx_credit_);
  return std::min(free, remote_.length - tx_off_);
}

uint32_t RdmaConnection::stagingSlot(uint32_t* off) const {
  uint32_t size = ep_.tx.size;
  if (inflight_.empty()) {
    *off = 0;
    return size;
  }
  uint32_t tail = inflight_.front().offset;
  if (st_head_ > tail) {
    if (st_head_ < size) {
      *off = st_head_;
      return size - st_head_;
    }
    *off = 0;  // wrap: the space before the oldest write in flight
    return tail;
  }
  *off = st_head_;
  return st_head_ < tail ? tail - st_head_ : 0;
}

bool RdmaConnection::writable() const {
  uint32_t off;
  return state_ == ConnState::kConnected && !peer_closed_ && peerRoom() > 0 &&
         inflight_.size() < kMaxWritesInFlight && stagingSlot(&off) > 0;
}

int RdmaConnection::postEmptyWrite(uint64_t wr_id) {
  ibv_send_wr wr = {};
  wr.wr_id = wr_id;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = remote_.addr;
  wr.wr.rdma.rkey = remote_.key;
  ibv_send_wr* bad = nullptr;
  return ibv_post_send(ep_.qp.get(), &wr, &bad);
}

size_t RdmaConnection::signalLastWrite() {
  size_t signaled = 0;
  for (const InFlight& w : inflight_) signaled += w.signaled ? 1 : 0;
  if (inflight_.empty() || inflight_.back().signaled) return signaled;
  // Its completion comes after every write before it.
  if (int rc = postEmptyWrite(kWrData); rc != 0) {
    LOG_VERBOSE("RDMA connection %s: %s", peer_addr_.c_str(),
                postFailed("send (closing fence)", rc).c_str());
    return 0;
  }
  return signaled + 1;
}

ssize_t RdmaConnection::writeChunks(const struct iovec* iov, int iovcnt) {
  if (state_ == ConnState::kError) return -1;
  if (state_ != ConnState::kConnected) {
    if (state_ == ConnState::kClosed) setError("write on a closed connection");
    return -1;
  }
  if (peer_closed_) {
    setError("connection closed by peer");
    return -1;
  }
  size_t total = 0;
  for (int i = 0; i < iovcnt; i++) total += iov[i].iov_len;
  size_t done = 0;
  int cur = 0;
  size_t cur_off = 0;
  if (staging_want_ != 0 && inflight_.empty()) resizeStaging(staging_want_);
  while (done < total) {
    uint32_t peer = peerRoom();
    if (peer == 0) {
      // The peer's RX buffer is full: wait for its RegisterLocalAddr (or,
      // under flow control, its Credit).
      if (!tx_waiting_) {
        tx_waiting_ = true;
        counters().tx_full_waits++;
      }
      break;
    }
    if (inflight_.size() >= kMaxWritesInFlight) break;
    uint32_t off = 0;
    uint32_t room = stagingSlot(&off);
    size_t n = std::min<size_t>({total - done, room, peer});
    if (flow_ && n < std::min<size_t>(total - done, peer) && staging_want_ == 0 && !grow_failed_) {
      // Our staging buffer, not the peer, holds the stream back: a bigger
      // one once the writes in flight completed (never past the peer's ring).
      uint32_t cap = std::min(shared_->opts.rx_size, remote_.length);
      if (ep_.tx.size < cap) {
        uint64_t bigger = static_cast<uint64_t>(ep_.tx.size) * kFlowGrowFactor;
        staging_want_ = static_cast<uint32_t>(std::min<uint64_t>(bigger, cap));
      }
    }
    if (n == 0) break;
    // Gather the chunk from the iovecs into the staging buffer.
    uint8_t* dst = ep_.tx.data() + off;
    for (size_t copied = 0; copied < n;) {
      while (cur_off == iov[cur].iov_len) {
        cur++;
        cur_off = 0;
      }
      size_t k = std::min(n - copied, iov[cur].iov_len - cur_off);
      memcpy(dst + copied, static_cast<const uint8_t*>(iov[cur].iov_base) + cur_off, k);
      copied += k;
      cur_off += k;
    }
    ibv_sge sge = {};
    sge.addr = reinterpret_cast<uintptr_t>(dst);
    sge.length = static_cast<uint32_t>(n);
    sge.lkey = ep_.tx.mr->lkey;
    ibv_send_wr wr = {};
    wr.wr_id = kWrData;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    // Signaled now and then, and whenever half the ring or the write slots
    // are taken: a writer that runs out of either always has a signaled
    // write in flight to free them.
    bool signaled = inflight_.size() + 1 >= kSignalEvery || inflight_bytes_ + n >= ep_.tx.size / 2;
    wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
    wr.imm_data = htonl(static_cast<uint32_t>(n));
    wr.wr.rdma.remote_addr = remote_.addr + tx_off_;
    wr.wr.rdma.rkey = remote_.key;
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(ep_.qp.get(), &wr, &bad); rc != 0) {
      fail(postFailed("send (RDMA write)", rc), false);
      break;
    }
    inflight_.push_back({off, static_cast<uint32_t>(n), signaled});
    inflight_bytes_ += static_cast<uint32_t>(n);
    st_head_ = off + static_cast<uint32_t>(n);
    tx_off_ += static_cast<uint32_t>(n);
    if (flow_) {
      tx_sent_ += n;
      activity_ += n;
      if (tx_off_ == remote_.length) tx_off_ = 0;  // around the ring
    }
    done += n;
    counters().writes_posted++;
    counters().bytes_sent += n;
  }
  updatePending();
  if (done > 0) return static_cast<ssize_t>(done);
  return -1;  // nothing written: would block (kConnected) or broken (kError)
}

ssize_t RdmaConnection::doWrite(const void* buf, size_t len) {
  struct iovec iov = {const_cast<void*>(buf), len};
  return writeChunks(&iov, 1);
}

ssize_t RdmaConnection::doWritev(const struct iovec* iov, int iovcnt) {
  return writeChunks(iov, iovcnt);
}

ssize_t RdmaConnection::doRead(void* buf, size_t len) {
  if (state_ == ConnState::kError) return -1;
  uint32_t avail = readable();
  if (avail == 0) {
    if (peer_closed_ && state_ == ConnState::kConnected) {
      state_ = ConnState::kClosed;
      updatePending();  // no longer wants service: out of the list
      return 0;
    }
    return state_ == ConnState::kClosed ? 0 : -1;
  }
  if (flow_) {
    size_t got = readFlow(static_cast<uint8_t*>(buf), len);
    updatePending();
    return static_cast<ssize_t>(got);
  }
  size_t n = std::min<size_t>(len, avail);
  memcpy(buf, ep_.rx.data() + rx_head_, n);
  rx_head_ += static_cast<uint32_t>(n);
  rx_unread_ -= static_cast<uint32_t>(n);
  if (rx_head_ == rx_tail_ && rx_tail_ == ep_.rx.size && !peer_closed_) {
    // The peer filled the buffer and stopped; all of it is consumed now.
    rx_head_ = rx_tail_ = 0;
    counters().reregistrations++;
    postRegister();
  }
  updatePending();
  return static_cast<ssize_t>(n);
}

int RdmaConnection::doSetReadHandler(ConnHandler h) {
  read_handler_ = h;
  updatePending();
  return 0;
}

int RdmaConnection::doSetWriteHandler(ConnHandler h, bool barrier) {
  write_handler_ = h;
  write_barrier_ = barrier;
  if (h != nullptr) {
    startKickTimer();
  } else {
    stopKickTimer();
  }
  updatePending();
  return 0;
}

bool RdmaConnection::wantsService() const {
  if (state_ != ConnState::kConnected && state_ != ConnState::kError) return false;
  bool broken = state_ == ConnState::kError || peer_closed_;
  bool read_due = read_handler_ != nullptr && (readable() > 0 || broken);
  bool write_due = write_handler_ != nullptr && (broken || writable());
  return read_due || write_due;
}

void RdmaConnection::doAfterForeignIo() {
  Stats& f = foreign_stats_;
  Stats& t = shared_->stats;
  t.errors += f.errors;
  t.tx_full_waits += f.tx_full_waits;
  t.writes_posted += f.writes_posted;
  t.bytes_sent += f.bytes_sent;
  t.reregistrations += f.reregistrations;
  t.credits_sent += f.credits_sent;
  t.ring_grows += f.ring_grows;
  t.ring_shrinks += f.ring_shrinks;
  t.ring_grow_failures += f.ring_grow_failures;
  f = Stats();
  if (idle_due_) {
    idle_due_ = false;
    startIdleTimer();
  }
  if (pending_stale_) {
    pending_stale_ = false;
    updatePending();
  }
}

void RdmaConnection::updatePending() {
  if (onIoThread()) [[unlikely]] {
    pending_stale_ = true;
    return;
  }
  if (wantsService()) {
    shared_->pending.insert(this);
  } else {
    shared_->pending.erase(this);
  }
}

bool RdmaConnection::dispatch() {
  auto broken = [this] { return state_ == ConnState::kError || peer_closed_; };
  auto write_due = [&] {
    return write_handler_ != nullptr && (state_ == ConnState::kConnected || broken()) &&
           (broken() || writable());
  };
  auto read_due = [&] {
    return read_handler_ != nullptr &&
           (state_ == ConnState::kConnected || state_ == ConnState::kError) &&
           (readable() > 0 || broken());
  };
  bool wrote = false;
  if (write_barrier_ && write_due()) {
    if (!callHandler(write_handler_)) return false;
    wrote = true;
  }
  if (read_due() && !callHandler(read_handler_)) return false;
  if (!wrote && write_due() && !callHandler(write_handler_)) return false;
  updatePending();
  return true;
}

bool RdmaConnection::service() {
  return dispatch();
}

}  // namespace net::rdma
