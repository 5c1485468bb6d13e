// Flow control of our own dialect (wire.h; RDMA.md, "Flow control"),
// negotiated through the rdma_cm private data. The RX buffer is a ring the
// peer writes around as far as our credits allow, instead of a buffer it
// fills once and then waits on until we drained it and registered it again.
// Rings start at kFlowMinRing bytes, so an idle connection pins little; a
// ring the peer keeps three quarters full is replaced by one kFlowGrowFactor
// times bigger (up to rdma-rx-size), and after kFlowIdleMs without traffic
// by the smallest again. The TX staging buffer follows the same rule on the
// sending side.
#include <algorithm>
#include <cstring>

#include "common/log.h"
#include "net/rdma/rdma_connection.h"

namespace net::rdma {

bool RdmaConnection::fullSizeRings() {
  uint32_t want = shared_->opts.rx_size;
  std::string err;
  if ((ep_.rx.size < want && !ep_.replace(&ep_.rx, want, &err)) ||
      (ep_.tx.size < want && !ep_.replace(&ep_.tx, want, &err))) {
    fail("RDMA connect to " + peer_addr_ + ": " + err, false);
    return false;
  }
  return true;
}

bool RdmaConnection::onFlowData(uint32_t bytes) {
  std::string err;
  if (!wire::checkImmediate(bytes, rx_tail_, ep_.rx.size, &err)) {
    fail("protocol error: " + err, true);
    return false;
  }
  // The peer may write as far as our last Credit plus one ring.
  if (rx_received_ + bytes > rx_credited_ + ep_.rx.size) {
    fail("protocol error: data write of " + std::to_string(bytes) +
             " bytes beyond the credit (ring " + std::to_string(rx_gen_) + " of " +
             std::to_string(ep_.rx.size) + " bytes: " + std::to_string(rx_received_) +
             " received, " + std::to_string(rx_credited_) + " credited)",
         true);
    return false;
  }
  rx_tail_ += bytes;
  if (rx_tail_ == ep_.rx.size) rx_tail_ = 0;
  rx_unread_ += bytes;
  rx_received_ += bytes;
  activity_ += bytes;
  shared_->stats.bytes_received += bytes;
  // Three quarters of the ring written and not credited back: the peer
  // streams faster than one ring per round trip, so offer it a bigger one.
  uint32_t max = shared_->opts.rx_size;
  if (!ring_announced_ && !grow_failed_ && !ep_.rx_old.mr && ep_.rx.size < max &&
      rx_received_ - rx_credited_ >= ep_.rx.size / 4 * 3) {
    uint64_t bigger = static_cast<uint64_t>(ep_.rx.size) * kFlowGrowFactor;
    if (announceRing(static_cast<uint32_t>(std::min<uint64_t>(bigger, max)))) {
      shared_->stats.ring_grows++;
      startIdleTimer();
    }
  }
  return state_ != ConnState::kError;
}

size_t RdmaConnection::readFlow(uint8_t* dst, size_t len) {
  // Copies from ring r at *head, around its end, until dst holds len bytes.
  size_t n = 0;
  auto take = [&](const Region& r, uint32_t* head, uint32_t* unread) {
    while (*unread > 0 && n < len) {
      uint32_t k = static_cast<uint32_t>(
          std::min<size_t>({len - n, static_cast<size_t>(*unread), r.size - *head}));
      memcpy(dst + n, r.data() + *head, k);
      n += k;
      *head += k;
      if (*head == r.size) *head = 0;
      *unread -= k;
    }
  };
  // What the replaced ring still holds came before anything in the new one.
  if (old_unread_ > 0) take(ep_.rx_old, &old_head_, &old_unread_);
  if (old_unread_ == 0 && ep_.rx_old.mr) ep_.rx_old.reset();
  size_t from_old = n;
  take(ep_.rx, &rx_head_, &rx_unread_);
  rx_consumed_ += n - from_old;  // credits count the current ring only
  activity_ += n;
  maybeCredit();
  return n;
}

void RdmaConnection::maybeCredit() {
  if (rx_consumed_ - rx_credited_ < ep_.rx.size / kCreditDivisor) return;
  if (ctrl_inflight_ >= kCtrlSlots) {
    credit_due_ = true;  // the next send completion frees a slot
    return;
  }
  if (!postControl(wire::encodeCredit(rx_gen_, rx_consumed_), kWrCredit, "credit")) return;
  credit_due_ = false;
  rx_credited_ = rx_consumed_;
  counters().credits_sent++;
}

void RdmaConnection::flushDeferredControl() {
  if (next_remote_due_ && !switchRemote()) return;
  if (credit_due_) maybeCredit();
}

bool RdmaConnection::announceRing(uint32_t size) {
  if (ctrl_inflight_ >= kCtrlSlots) return false;  // tried again with the next data
  std::string err;
  if (!ep_.replace(&ep_.rx_next, size, &err)) {
    // Registered memory ran out (RLIMIT_MEMLOCK, the device's limits): the
    // connection goes on with the ring it has.
    grow_failed_ = true;
    shared_->stats.ring_grow_failures++;
    LOG_WARNING("RDMA connection %s keeps its %u-byte ring: %s", peer_addr_.c_str(), ep_.rx.size,
                err.c_str());
    startIdleTimer();  // clears grow_failed_ at its next tick
    return false;
  }
  wire::Region r{reinterpret_cast<uintptr_t>(ep_.rx_next.data()), size, ep_.rx_next.mr->rkey};
  if (!postControl(dialect_->encodeRing(r, rx_gen_ + 1), kWrCtrl, "register")) return false;
  ring_announced_ = true;
  return true;
}

bool RdmaConnection::switchRemote() {
  if (ctrl_inflight_ >= kCtrlSlots) return true;  // flushDeferredControl sends it later
  // Switched goes first: every write before it lands in the old ring, every
  // write after it in the new one (an RC queue pair keeps the order).
  if (!postControl(wire::encodeSwitched(next_gen_), kWrCredit, "switched")) return false;
  writeInto(next_remote_, next_gen_);
  next_remote_due_ = false;
  return true;
}

void RdmaConnection::writeInto(const wire::Region& ring, uint32_t gen) {
  remote_ = ring;
  tx_gen_ = gen;
  tx_off_ = 0;
  tx_sent_ = 0;
  tx_credit_ = 0;
  tx_ready_ = true;
  tx_waiting_ = false;
}

bool RdmaConnection::onFlowControl(const Control& c) {
  switch (c.kind) {
    case Control::Kind::kRegister:
      if (!tx_ready_) {  // the peer's first ring
        writeInto(c.region, c.gen);
        return true;
      }
      if (next_remote_due_ || c.gen != tx_gen_ + 1) {
        fail("protocol error: RegisterLocalAddr for ring " + std::to_string(c.gen) +
                 " while writing ring " + std::to_string(tx_gen_) +
                 (next_remote_due_ ? " with ring " + std::to_string(next_gen_) + " pending" : ""),
             true);
        return false;
      }
      next_remote_ = c.region;
      next_gen_ = c.gen;
      next_remote_due_ = true;
      return switchRemote();
    case Control::Kind::kCredit:
      if (c.gen != tx_gen_) {
        // A credit for a ring we left is stale and harmless; one for a
        // ring never announced is not.
        if (c.gen < tx_gen_) return true;
        fail("protocol error: Credit for ring " + std::to_string(c.gen) + " while writing ring " +
                 std::to_string(tx_gen_),
             true);
        return false;
      }
      if (c.consumed > tx_sent_ || c.consumed < tx_credit_) {
        fail("protocol error: Credit of " + std::to_string(c.consumed) + " bytes for ring " +
                 std::to_string(c.gen) + ", where " + std::to_string(tx_sent_) +
                 " were written and " + std::to_string(tx_credit_) + " credited before",
             true);
        return false;
      }
      tx_credit_ = c.consumed;
      tx_waiting_ = false;
      shared_->stats.credits_received++;
      return true;
    case Control::Kind::kSwitched:
      if (!ring_announced_ || c.gen != rx_gen_ + 1) {
        fail("protocol error: Switched to ring " + std::to_string(c.gen) + " while ring " +
                 std::to_string(rx_gen_) + " is current" +
                 (ring_announced_ ? "" : " and no other was announced"),
             true);
        return false;
      }
      // Everything the peer wrote into the current ring came before this
      // message: it drains from rx_old, then the new ring is read.
      ep_.rx_old = std::move(ep_.rx);
      ep_.rx = std::move(ep_.rx_next);
      old_head_ = rx_head_;
      old_unread_ = rx_unread_;
      rx_head_ = 0;
      rx_tail_ = 0;
      rx_unread_ = 0;
      rx_gen_ = c.gen;
      rx_received_ = 0;
      rx_consumed_ = 0;
      rx_credited_ = 0;
      credit_due_ = false;
      ring_announced_ = false;
      if (old_unread_ == 0) ep_.rx_old.reset();
      return true;
    default:
      fail("protocol error: unexpected control message under flow control", true);
      return false;
  }
}

void RdmaConnection::resizeStaging(uint32_t size) {
  if (!inflight_.empty()) {
    staging_want_ = size;  // when the last write in flight completes
    return;
  }
  staging_want_ = 0;
  if (size == ep_.tx.size) return;
  std::string err;
  if (!ep_.replace(&ep_.tx, size, &err)) {
    // As a ring that cannot grow: the connection writes through the buffer it
    // has, and the idle timer's next tick lets it try again (it may be the
    // only timer this connection would run).
    grow_failed_ = true;
    if (size > ep_.tx.size) counters().ring_grow_failures++;
    LOG_WARNING("RDMA connection %s keeps its %u-byte staging buffer: %s", peer_addr_.c_str(),
                ep_.tx.size, err.c_str());
    startIdleTimer();
    return;
  }
  st_head_ = 0;
  if (size > kFlowMinRing) {
    counters().ring_grows++;
    startIdleTimer();
  } else {
    counters().ring_shrinks++;
  }
}

void RdmaConnection::startIdleTimer() {
  if (onIoThread()) {
    idle_due_ = true;  // doAfterForeignIo, on the loop's thread
    return;
  }
  if (idle_timer_ != 0) return;
  activity_seen_ = activity_;
  idle_timer_ = loop_->addTimer(kFlowIdleMs,
                                [this](event::EventLoop*, event::TimerId) { return idleTick(); });
}

int RdmaConnection::idleTick() {
  grow_failed_ = false;
  if (state_ != ConnState::kConnected || activity_ != activity_seen_) {
    activity_seen_ = activity_;
    return kFlowIdleMs;
  }
  // A whole period without a byte either way: back to the smallest rings.
  if (ep_.rx.size > kFlowMinRing && !ring_announced_ && !ep_.rx_old.mr && rx_unread_ == 0 &&
      announceRing(kFlowMinRing)) {
    shared_->stats.ring_shrinks++;
  }
  if (ep_.tx.size > kFlowMinRing) resizeStaging(kFlowMinRing);
  if (ep_.rx.size > kFlowMinRing || ep_.tx.size > kFlowMinRing || ring_announced_) {
    return kFlowIdleMs;
  }
  idle_timer_ = 0;
  return event::kNoMore;
}

}  // namespace net::rdma
