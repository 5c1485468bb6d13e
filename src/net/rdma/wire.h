// The RDMA transport's wire format and its tuning values. Pure data: no verbs
// calls, so it is unit-tested without a device and shared with the hostile
// test peer (tests/rdma/peer/).
//
// Two planes (RDMA.md has the diagrams):
// - Control: one 32-byte CtrlMsg per IBV_WR_SEND, received into buffers the
//   peer keeps posted. RegisterLocalAddr announces "my RX buffer is addr,
//   length, rkey"; the receiver writes there from offset 0 on.
// - Data: IBV_WR_RDMA_WRITE_WITH_IMM at the current TX offset of the peer's RX
//   buffer; the 32-bit immediate is the byte count of that write.
// Every multi-byte field travels in network byte order.
//
// Flow control (negotiated: kFeatureFlow in both sides' private data, see
// dialect.h): the RX buffer is a ring the sender writes around, as far as
// the receiver's credits allow. RegisterLocalAddr carries a ring generation
// and replaces the ring (to grow or shrink it); Credit says "of ring `gen`
// I consumed `consumed` bytes in all"; Switched says "from here on I write
// only into ring `gen`", so the receiver knows where the old ring's data
// ends and may free it once read.
#pragma once

#include <endian.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace net::rdma {

// ---- Tuning values (each one documented in RDMA.md) ----

// RX buffer bounds, for our own rdma-rx-size and for what a peer announces.
constexpr uint32_t kMinRxSize = 64 * 1024;
constexpr uint32_t kMaxRxSize = 16 * 1024 * 1024;
constexpr uint32_t kDefaultRxSize = 1024 * 1024;
// Receive work requests kept posted: every data write and every control
// message consumes one.
constexpr int kRecvDepth = 128;
// Data writes outstanding on the send queue; below kRecvDepth so a peer
// using our defaults never runs our receive queue dry.
constexpr int kMaxWritesInFlight = 64;
// Control message slots (send side): at most one register message, one
// keepalive and the answers to a peer's feature queries are outstanding.
constexpr int kCtrlSlots = 8;
// Data writes are posted unsignaled, but for one in every kSignalEvery and
// every write that leaves half the staging ring or more in flight: on an RC
// send queue a completion also completes every write posted before it, so
// one per batch frees the lot, and a request/reply exchange costs no
// completion event (no wake-up) for the reply's own write.
constexpr int kSignalEvery = kMaxWritesInFlight / 2;
// Writes, control messages, the closing fence (see Linger) and a probe.
constexpr int kSendDepth = kMaxWritesInFlight + kCtrlSlots + 2;
constexpr int kCqDepth = kRecvDepth + kSendDepth;
constexpr int kPollBatch = 32;
// rdma_cm timeouts and the whole client handshake's deadline.
constexpr int kResolveTimeoutMs = 2000;
constexpr int kHandshakeTimeoutMs = 10000;
// Default period of the liveness probe / Valkey keepalive (Valkey's value).
constexpr int kDefaultKeepaliveMs = 3000;
constexpr int kMaxKeepaliveMs = 3600 * 1000;
// Safety-net period of the per-connection timer that re-polls the CQ and
// kicks a waiting write handler.
constexpr int kWriteKickMs = 100;
// How long a closed connection keeps its QP for its last writes to
// complete before it disconnects anyway (see Linger).
constexpr int kLingerMs = 2000;
// 7 = retry forever on RNR NAK: a receive reposted late never kills the
// connection. Transport retries: the IB maximum.
constexpr uint8_t kRnrRetryCount = 7;
constexpr uint8_t kRetryCount = 7;

// Flow control: a connection starts with rings of kFlowMinRing bytes (RX,
// and TX staging), grows them towards rdma-rx-size while data streams, and
// shrinks them back after kFlowIdleMs without traffic.
constexpr uint32_t kFlowMinRing = 16 * 1024;
constexpr int kFlowIdleMs = 2000;
// A ring grows (x kFlowGrowFactor) once the bytes written into it and not
// yet credited back reach this fraction of it; the receiver credits
// consumed bytes once they reach 1/kCreditDivisor of the ring.
constexpr uint32_t kFlowGrowFactor = 4;
constexpr uint32_t kCreditDivisor = 4;

static_assert(kMinRxSize <= kDefaultRxSize && kDefaultRxSize <= kMaxRxSize);
static_assert(kFlowMinRing <= kMinRxSize && kFlowMinRing % 4096 == 0);
static_assert(kMaxRxSize <= UINT32_MAX / 2, "offsets and immediates are 32-bit");
static_assert(kMaxWritesInFlight < kRecvDepth, "peer writes must find posted receives");
static_assert(kCtrlSlots >= 2 && kPollBatch > 0 && kWriteKickMs > 0);
// A writer held back by kMaxWritesInFlight must have a signaled write in
// flight, whose completion frees the slots.
static_assert(kSignalEvery >= 1 && kSignalEvery <= kMaxWritesInFlight);

namespace wire {

constexpr uint8_t kMagic = 'R';
constexpr uint8_t kVersion = 1;
// kCredit and kSwitched exist only under flow control.
enum Opcode : uint8_t { kRegisterLocalAddr = 0, kCredit = 1, kSwitched = 2 };

// Exactly as on the wire (fields in network byte order). `gen` is the ring
// generation under flow control, zero (reserved) otherwise. A Credit puts
// its byte count in `addr`.
struct CtrlMsg {
  uint8_t magic;
  uint8_t version;
  uint8_t opcode;
  uint8_t rsvd0;
  uint32_t gen;
  uint8_t rsvd[8];
  uint64_t addr;
  uint32_t length;
  uint32_t key;
};
static_assert(sizeof(CtrlMsg) == 32, "control message is 32 bytes on the wire");
static_assert(offsetof(CtrlMsg, gen) == 4 && offsetof(CtrlMsg, addr) == 16 &&
              offsetof(CtrlMsg, length) == 24 && offsetof(CtrlMsg, key) == 28);

// A decoded RegisterLocalAddr, host byte order.
struct Region {
  uint64_t addr = 0;
  uint32_t length = 0;
  uint32_t key = 0;
};

inline CtrlMsg encodeRegister(const Region& r, uint32_t gen = 0) {
  CtrlMsg m = {};
  m.magic = kMagic;
  m.version = kVersion;
  m.opcode = kRegisterLocalAddr;
  m.gen = htobe32(gen);
  m.addr = htobe64(r.addr);
  m.length = htobe32(r.length);
  m.key = htobe32(r.key);
  return m;
}

// Flow control: "of ring `gen` I consumed `consumed` bytes in all".
inline CtrlMsg encodeCredit(uint32_t gen, uint64_t consumed) {
  CtrlMsg m = {};
  m.magic = kMagic;
  m.version = kVersion;
  m.opcode = kCredit;
  m.gen = htobe32(gen);
  m.addr = htobe64(consumed);
  return m;
}

// Flow control: "my writes go to ring `gen` from here on".
inline CtrlMsg encodeSwitched(uint32_t gen) {
  CtrlMsg m = {};
  m.magic = kMagic;
  m.version = kVersion;
  m.opcode = kSwitched;
  m.gen = htobe32(gen);
  return m;
}

// Region checks every dialect's register message shares (address, length
// bounds, wrap-around); false with *err naming the problem, `what` naming
// the message. `min_length`: kFlowMinRing under flow control.
inline bool checkRegion(const Region& r, const char* what, std::string* err,
                        uint32_t min_length = kMinRxSize) {
  if (r.addr == 0) {
    *err = std::string(what) + " with zero address";
    return false;
  }
  if (r.length < min_length || r.length > kMaxRxSize) {
    *err = std::string(what) + " with length " + std::to_string(r.length) + " outside [" +
           std::to_string(min_length) + ", " + std::to_string(kMaxRxSize) + "]";
    return false;
  }
  if (r.addr + r.length < r.addr) {
    *err = std::string(what) + " region wraps the address space";
    return false;
  }
  return true;
}

// Validates a received control message of `len` bytes. Returns false with
// *err naming the problem (for the log line that precedes closing).
inline bool decodeRegister(const void* buf, size_t len, Region* out, std::string* err) {
  if (len != sizeof(CtrlMsg)) {
    *err = "control message of " + std::to_string(len) + " bytes (expected 32)";
    return false;
  }
  CtrlMsg m;
  __builtin_memcpy(&m, buf, sizeof m);
  if (m.magic != kMagic) {
    *err = "control message with bad magic " + std::to_string(m.magic);
    return false;
  }
  if (m.version != kVersion) {
    *err = "control message with unsupported version " + std::to_string(m.version);
    return false;
  }
  if (m.opcode != kRegisterLocalAddr) {
    *err = "control message with unknown opcode " + std::to_string(m.opcode);
    return false;
  }
  Region r{be64toh(m.addr), be32toh(m.length), be32toh(m.key)};
  if (!checkRegion(r, "RegisterLocalAddr", err)) return false;
  *out = r;
  return true;
}

// A decoded control message under flow control, host byte order.
struct FlowMsg {
  Opcode opcode = kRegisterLocalAddr;
  uint32_t gen = 0;
  Region region;          // kRegisterLocalAddr
  uint64_t consumed = 0;  // kCredit
};

// Validates a control message of a connection under flow control: the same
// head as decodeRegister, any of the three opcodes, rings from kFlowMinRing.
inline bool decodeFlow(const void* buf, size_t len, FlowMsg* out, std::string* err) {
  if (len != sizeof(CtrlMsg)) {
    *err = "control message of " + std::to_string(len) + " bytes (expected 32)";
    return false;
  }
  CtrlMsg m;
  __builtin_memcpy(&m, buf, sizeof m);
  if (m.magic != kMagic || m.version != kVersion) {
    *err = "control message with bad magic " + std::to_string(m.magic) + " or version " +
           std::to_string(m.version);
    return false;
  }
  out->gen = be32toh(m.gen);
  switch (m.opcode) {
    case kRegisterLocalAddr:
      out->opcode = kRegisterLocalAddr;
      out->region = {be64toh(m.addr), be32toh(m.length), be32toh(m.key)};
      return checkRegion(out->region, "RegisterLocalAddr", err, kFlowMinRing);
    case kCredit:
      out->opcode = kCredit;
      out->consumed = be64toh(m.addr);
      return true;
    case kSwitched:
      out->opcode = kSwitched;
      return true;
    default:
      *err = "control message with unknown opcode " + std::to_string(m.opcode);
      return false;
  }
}

// Validates the immediate of a data write: `bytes` landed at offset `tail`
// of an RX buffer of `size` bytes. Returns false with *err set.
inline bool checkImmediate(uint32_t bytes, uint32_t tail, uint32_t size, std::string* err) {
  if (bytes == 0) {
    *err = "data write with zero length";
    return false;
  }
  if (tail > size || bytes > size - tail) {
    *err = "data write of " + std::to_string(bytes) + " bytes at offset " + std::to_string(tail) +
           " runs past the RX buffer end (" + std::to_string(size) + ")";
    return false;
  }
  return true;
}

}  // namespace wire
}  // namespace net::rdma
