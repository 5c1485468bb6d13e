// The test peer's connection: posting, completions and the three dialects'
// behaviour (see link.h).
#include "link.h"

#include <arpa/inet.h>
#include <poll.h>

#include <algorithm>

#include <cstdio>
#include <cstring>

namespace peer {

using namespace net::rdma;

namespace {
constexpr uint32_t kMsg = sizeof(wire::CtrlMsg);
constexpr uint64_t kWrCtrlSend = 10;
constexpr uint64_t kWrData = 11;
}  // namespace

bool Link::setup(std::string* err) {
  if (!ep_.createVerbs(rx_size_, rx_size_, -1, err)) return false;
  for (uint64_t slot = 0; slot < kRecvDepth; slot++) postRecv(slot);
  return !failed_;
}

void Link::fatal(const std::string& why) {
  fprintf(stderr, "rdma-test-peer: %s\n", why.c_str());
  failed_ = true;
  closed_ = true;
}

void Link::postRecv(uint64_t slot) {
  ibv_sge sge = {reinterpret_cast<uintptr_t>(ep_.ctrl_rx.data() + slot * kMsg), kMsg,
                 ep_.ctrl_rx.mr->lkey};
  ibv_recv_wr wr = {}, *bad = nullptr;
  wr.wr_id = slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  if (int rc = ibv_post_recv(ep_.qp.get(), &wr, &bad); rc != 0) {
    fatal(std::string("ibv_post_recv failed: ") + strerror(rc));
  }
}

void Link::sendCtrl(const void* msg, uint32_t len) {
  uint8_t* slot = ep_.ctrl_tx.data() + (ctrl_next_++ % kCtrlSlots) * kMsg;
  memcpy(slot, msg, len);
  ibv_sge sge = {reinterpret_cast<uintptr_t>(slot), len, ep_.ctrl_tx.mr->lkey};
  ibv_send_wr wr = {}, *bad = nullptr;
  wr.wr_id = kWrCtrlSend;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  if (int rc = ibv_post_send(ep_.qp.get(), &wr, &bad); rc != 0) {
    fatal(std::string("ibv_post_send failed: ") + strerror(rc));
    return;
  }
  sends_posted_++;
}

void Link::registerRx() {
  wire::Region mine{reinterpret_cast<uintptr_t>(ep_.rx.data()), ep_.rx.size, ep_.rx.mr->rkey};
  wire::CtrlMsg m = dialectFor(dialect_, flow_)->encodeRing(mine, 0);
  if (dialect_ == DialectId::kSeed) m.version = 0;  // the prototype never sets it
  sendCtrl(&m, sizeof m);
}

void Link::sendKeepalive() {
  wire::CtrlMsg m;
  if (dialectFor(dialect_)->encodeKeepalive(&m)) sendCtrl(&m, sizeof m);
}

void Link::writeRaw(const std::string& data, uint32_t imm, uint64_t addr, uint32_t rkey) {
  memcpy(ep_.tx.data(), data.data(), data.size());
  ibv_sge sge = {reinterpret_cast<uintptr_t>(ep_.tx.data()), static_cast<uint32_t>(data.size()),
                 ep_.tx.mr->lkey};
  ibv_send_wr wr = {}, *bad = nullptr;
  wr.wr_id = kWrData;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.imm_data = htonl(imm);
  wr.wr.rdma.remote_addr = addr;
  wr.wr.rdma.rkey = rkey;
  if (int rc = ibv_post_send(ep_.qp.get(), &wr, &bad); rc != 0) {
    fatal(std::string("ibv_post_send failed: ") + strerror(rc));
    return;
  }
  sends_posted_++;
  write_in_flight_ = true;
}

void Link::flush() {
  // One data write in flight at a time (it goes from offset 0 of the
  // staging buffer): simple, and enough for functional tests.
  if (closed_ || write_in_flight_ || outq_.empty() || !have_remote_) return;
  if (tx_off_ >= remote_.length) return;  // peer's buffer full: wait for it
  size_t room = remote_.length - tx_off_;
  if (flow_) room = std::min<uint64_t>(room, remote_.length - (tx_sent_ - tx_credit_));
  size_t n = std::min<size_t>({outq_.size(), room, ep_.tx.size});
  if (n == 0) return;  // flow: wait for a Credit
  uint64_t at = remote_.addr + tx_off_;
  tx_off_ += static_cast<uint32_t>(n);
  if (flow_) {
    tx_sent_ += n;
    if (tx_off_ == remote_.length) tx_off_ = 0;  // around the ring
  }
  // The prototype's writes carry immediate 0; the others the byte count.
  uint32_t imm = dialect_ == DialectId::kSeed ? 0 : static_cast<uint32_t>(n);
  writeRaw(outq_.substr(0, n), imm, at, remote_.key);
  outq_.erase(0, n);
}

void Link::vanish() {
  ibv_qp_attr attr = {};
  attr.qp_state = IBV_QPS_ERR;
  if (ibv_modify_qp(ep_.qp.get(), &attr, IBV_QP_STATE) != 0) fatal("ibv_modify_qp(ERR) failed");
}

void Link::onControl(const uint8_t* buf, uint32_t len) {
  Control c;
  std::string err;
  if (!dialectFor(dialect_, flow_)->decode(buf, len, &c, &err)) {
    fatal("bad control message from the other side: " + err);
    return;
  }
  switch (c.kind) {
    case Control::Kind::kRegister:
      if (flow_ && have_remote_) {
        // A new ring: say so before writing into it.
        wire::CtrlMsg sw = wire::encodeSwitched(c.gen);
        sendCtrl(&sw, sizeof sw);
      }
      remote_ = c.region;
      have_remote_ = true;
      tx_off_ = 0;
      tx_gen_ = c.gen;
      tx_sent_ = 0;
      tx_credit_ = 0;
      break;
    case Control::Kind::kCredit:
      if (c.gen == tx_gen_) tx_credit_ = c.consumed;
      credits_received_++;
      break;
    case Control::Kind::kSwitched:
      fatal("Switched from the other side, but this peer never announces a new ring");
      return;
    case Control::Kind::kKeepalive:
      keepalives_++;
      break;
    case Control::Kind::kGetFeature:
      // A client receives this as the answer to its query; a server
      // answers the query with no features.
      feature_replies_++;
      last_features_ = c.features;
      break;
    case Control::Kind::kSetFeature:
      break;
  }
}

void Link::drain() {
  if (!ep_.cq) return;
  ibv_wc wc[16];
  int n;
  while ((n = ibv_poll_cq(ep_.cq.get(), 16, wc)) > 0) {
    for (int i = 0; i < n; i++) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        // Our QP is in error: the other side is gone or refused us.
        if (wc[i].status != IBV_WC_WR_FLUSH_ERR) {
          fprintf(stderr, "rdma-test-peer: completion: %s\n", ibv_wc_status_str(wc[i].status));
        }
        if (wc[i].opcode & IBV_WC_RECV) continue;
        sends_done_++;
        if (wc[i].wr_id == kWrData) write_in_flight_ = false;
        closed_ = true;
        continue;
      }
      if (wc[i].opcode == IBV_WC_RECV) {
        const uint8_t* buf = ep_.ctrl_rx.data() + wc[i].wr_id * kMsg;
        if (wc[i].wc_flags & IBV_WC_WITH_IMM) {
          fatal("SEND with immediate data from the other side");
          return;
        }
        // Valkey's feature reply shares the opcode of the query: read the
        // features here, where the role is known by who receives it.
        if (dialect_ == DialectId::kValkey && wc[i].byte_len == kMsg) {
          valkey::Feature f;
          memcpy(&f, buf, sizeof f);
          if (be16toh(f.opcode) == valkey::kGetServerFeature) {
            feature_replies_++;
            last_features_ = be64toh(f.features);
            postRecv(wc[i].wr_id);
            continue;
          }
        }
        onControl(buf, wc[i].byte_len);
        postRecv(wc[i].wr_id);
      } else if (wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
        uint32_t imm = ntohl(wc[i].imm_data);
        // Seed: the prototype reads only byte_len; the others the immediate.
        uint32_t len = dialect_ == DialectId::kSeed ? wc[i].byte_len : imm;
        std::string err;
        if (!wire::checkImmediate(len, rx_tail_, ep_.rx.size, &err)) {
          fatal("the other side: " + err);
          return;
        }
        received_.append(reinterpret_cast<char*>(ep_.rx.data()) + rx_tail_, len);
        rx_tail_ += len;
        if (flow_) {
          // Consumed at once: credited every quarter of the ring.
          if (rx_tail_ == ep_.rx.size) rx_tail_ = 0;
          rx_consumed_ += len;
          if (!withhold_ && rx_consumed_ - rx_credited_ >= ep_.rx.size / kCreditDivisor) {
            wire::CtrlMsg cr = wire::encodeCredit(0, rx_consumed_);
            sendCtrl(&cr, sizeof cr);
            rx_credited_ = rx_consumed_;
          }
        } else if (rx_tail_ == ep_.rx.size) {
          rx_tail_ = 0;  // consumed at once (copied out): hand it back
          rereg_++;
          registerRx();
        }
        postRecv(wc[i].wr_id);
      } else {
        sends_done_++;
        if (wc[i].wr_id == kWrData) write_in_flight_ = false;
      }
    }
  }
  flush();
}

void takeEvents(Link& l) {
  ibv_cq* cq = nullptr;
  void* ctx = nullptr;
  bool got = false;
  while (l.ep().comp && ibv_get_cq_event(l.ep().comp.get(), &cq, &ctx) == 0) {
    ibv_ack_cq_events(cq, 1);
    got = true;
  }
  if (got) ibv_req_notify_cq(l.ep().cq.get(), 0);
}

void waitFds(const int* fds, int n, int timeout_ms) {
  pollfd p[64];
  if (n > 64) n = 64;
  for (int i = 0; i < n; i++) p[i] = {fds[i], POLLIN, 0};
  poll(p, static_cast<nfds_t>(n), timeout_ms);
}

}  // namespace peer
