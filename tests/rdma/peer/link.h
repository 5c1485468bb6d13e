// One RC connection of the test peer, in either role, speaking one of the
// three dialects by hand (src/net/rdma/dialect.h has the byte layouts) the
// way the implementation behind it behaves, written from the facts in
// RDMA.md:
// - ours:   connect private data carries kHello; the server speaks first.
// - seed:   the 2021 prototype: register 'R', version 0, opcode 0, sent on
//           ESTABLISHED without waiting; data writes carry immediate 0 and
//           the length is the completion's byte_len.
// - valkey: RegisterXferMemory on ESTABLISHED; imm = byte count; a server
//           sends Keepalive every 3 s; GetServerFeature is answered.
// Both roles consume received data at once (copied out) and register their
// RX buffer again as soon as the peer filled it: the rule all three share.
// Under flow control (ours, kFeatureFlow in both private data; wire.h) the
// RX buffer is instead a ring credited back every quarter consumed, writes
// go around the peer's ring as far as its credits allow, and a ring the
// peer announces anew is answered with Switched (this peer never resizes
// its own).
#pragma once

#include <cstdint>
#include <string>

#include "net/rdma/dialect.h"
#include "net/rdma/resources.h"

namespace peer {

using net::rdma::DialectId;

class Link {
 public:
  Link(DialectId dialect, uint32_t rx_size) : dialect_(dialect), rx_size_(rx_size) {}
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  net::rdma::Endpoint& ep() { return ep_; }
  DialectId dialect() const { return dialect_; }

  // Creates the verbs resources on ep().id and posts the receives; false
  // with *err.
  bool setup(std::string* err);
  // Handles completions; false once the connection is unusable (closed or a
  // fatal protocol problem, logged on stderr).
  void drain();
  // Announces our RX buffer in our dialect.
  void registerRx();
  // Flow control, decided by the handshake (before the first register).
  void setFlow(bool on) { flow_ = on; }
  bool flow() const { return flow_; }
  // Hostile: never send a Credit.
  void withholdCredits() { withhold_ = true; }
  uint64_t creditsReceived() const { return credits_received_; }
  uint32_t ringsSwitched() const { return tx_gen_; }
  // Posts a raw control message of len bytes (hostile modes).
  void sendCtrl(const void* msg, uint32_t len);
  // RDMA_WRITE_WITH_IMM of data to addr/rkey with the given immediate.
  void writeRaw(const std::string& data, uint32_t imm, uint64_t addr, uint32_t rkey);
  // Queues bytes for the peer; flush() writes what the peer's buffer takes.
  void queue(const std::string& data) { outq_ += data; }
  void flush();
  bool outEmpty() const { return outq_.empty() && !write_in_flight_; }
  void sendKeepalive();
  // Moves the QP to the error state without a disconnect: to the other
  // side we look like a host that vanished.
  void vanish();

  bool closed() const { return closed_; }
  void markClosed() { closed_ = true; }
  bool failed() const { return failed_; }
  bool haveRemote() const { return have_remote_; }
  const net::rdma::wire::Region& remote() const { return remote_; }
  std::string& received() { return received_; }
  int sendsPending() const { return sends_posted_ - sends_done_; }
  int keepalivesReceived() const { return keepalives_; }
  int featureReplies() const { return feature_replies_; }
  uint64_t lastFeatures() const { return last_features_; }
  uint64_t rxReregistrations() const { return rereg_; }

 private:
  void postRecv(uint64_t slot);
  void onControl(const uint8_t* buf, uint32_t len);
  void fatal(const std::string& why);

  DialectId dialect_;
  uint32_t rx_size_;
  net::rdma::Endpoint ep_;
  bool closed_ = false;
  bool failed_ = false;
  bool have_remote_ = false;
  net::rdma::wire::Region remote_;
  uint32_t tx_off_ = 0;
  uint32_t rx_tail_ = 0;
  int sends_done_ = 0;
  int sends_posted_ = 0;
  uint32_t ctrl_next_ = 0;
  std::string received_;
  std::string outq_;
  bool write_in_flight_ = false;
  int keepalives_ = 0;
  int feature_replies_ = 0;
  uint64_t last_features_ = 0;
  uint64_t rereg_ = 0;
  bool flow_ = false;
  bool withhold_ = false;
  uint64_t rx_consumed_ = 0;  // flow: bytes of our ring consumed (copied out)
  uint64_t rx_credited_ = 0;
  uint32_t tx_gen_ = 0;
  uint64_t tx_sent_ = 0;
  uint64_t tx_credit_ = 0;
  uint64_t credits_received_ = 0;
};

// Waits up to timeout_ms for events on the given fds (cm channel and
// completion channel of each link), acknowledging completion events and
// re-arming the CQs. Returns after the first wake-up or the timeout.
void waitFds(const int* fds, int n, int timeout_ms);
// Acknowledges pending completion events of a link and re-arms its CQ.
void takeEvents(Link& l);

}  // namespace peer
