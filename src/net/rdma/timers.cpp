// The rdma connection's timers (RDMA.md, "Dead peers" and "Event
// handling"): the liveness probe, and the safety-net kick of a waiting
// writer.
#include <string>

#include "common/log.h"
#include "net/rdma/rdma_connection.h"

namespace net::rdma {

void RdmaConnection::startProbeTimer() {
  if (probe_timer_ != 0 || shared_->opts.keepalive_ms <= 0) return;
  probe_ms_ = shared_->opts.keepalive_ms;
  probe_timer_ =
      loop_->addTimer(probe_ms_, [this](event::EventLoop*, event::TimerId) { return probeTick(); });
}

int RdmaConnection::probeTick() {
  int period = probe_ms_;
  if (state_ != ConnState::kConnected || peer_closed_) return period;
  // A loop that was busy (or a client blocked outside it) may not have
  // reaped the acknowledgement yet: look before judging.
  if (probe_outstanding_ && !drainCq()) return dispatch() ? period : event::kNoMore;
  if (probe_outstanding_) {
    // A whole period without the peer's HCA acknowledging a zero-length
    // write (or keepalive): it is gone, whatever the transport retries say.
    shared_->stats.dead_peers++;
    fail("peer unreachable: liveness probe unacknowledged for " + std::to_string(period) + " ms",
         true);
    if (!dispatch()) return event::kNoMore;  // closed inside: timer deleted
    return period;
  }
  if (dialect_ == nullptr || !tx_ready_) return period;  // nothing to aim at yet
  wire::CtrlMsg ka;
  if (!outbound_ && dialect_->serverSendsKeepalive() && dialect_->encodeKeepalive(&ka)) {
    // Valkey's clients expect the server's keepalive; its completion is
    // the probe.
    if (!postControl(ka, kWrProbeCtrl, "keepalive")) return dispatch() ? period : event::kNoMore;
    shared_->stats.keepalives_sent++;
  } else {
    // Zero bytes: no receive is consumed on the peer, but its HCA acks it.
    if (int rc = postEmptyWrite(kWrProbe); rc != 0) {
      fail(postFailed("send (liveness probe)", rc), false);
      return dispatch() ? period : event::kNoMore;
    }
  }
  probe_outstanding_ = true;
  return period;
}

void RdmaConnection::startKickTimer() {
  if (kick_timer_ != 0) return;
  kick_timer_ = loop_->addTimer(kWriteKickMs, [this](event::EventLoop*, event::TimerId) {
    // Safety net: even if a completion event were lost, completions get
    // reaped and a waiting writer runs (and readers hear of what arrived).
    if (state_ == ConnState::kConnected) drainCq();
    if (!dispatch()) return event::kNoMore;  // closed inside: timer deleted
    return kWriteKickMs;
  });
}

void RdmaConnection::stopKickTimer() {
  if (kick_timer_ == 0) return;
  loop_->deleteTimer(kick_timer_);
  kick_timer_ = 0;
}

}  // namespace net::rdma
