// The three control-message dialects one rdma port speaks, and how a
// connection's dialect is recognised. Pure data and byte layouts: no verbs
// calls, so it is unit-tested without a device and shared with the test peer.
//
// All three use a 32-byte control message sent with IBV_WR_SEND and data
// written with RDMA WRITE WITH IMM into the peer's registered RX buffer; an RX
// buffer is registered again only once it was filled and consumed. They
// differ in the control message's head and in what the immediate carries
// (RDMA.md has the byte diagrams):
// - ours:   'R', version 1, opcode 0 RegisterLocalAddr; imm = byte count.
// - seed:   the 2021 prototype: 'R', version 0 (we accept 0 and 1 and send
//           1: it never checks the version), opcode 0; its writes carry
//           imm 0 and the receiver takes the length from the completion.
// - valkey: big-endian u16 opcode at bytes 0-1 (0 GetServerFeature,
//           1 SetClientFeature, 2 Keepalive, 3 RegisterXferMemory), no
//           magic or version; imm = byte count; the server sends Keepalive.
// addr (u64), length (u32) and key (u32) sit big-endian at offsets 16, 24
// and 28 in every dialect's register message.
//
// Recognition: our own client and server put kHello in the rdma_cm connect /
// accept private data (the other implementations ignore private data). A
// peer that sent kHello speaks "ours" and may be spoken to first; any other
// peer's dialect is read from its first control message (both other
// dialects send their register message on ESTABLISHED without waiting),
// except a client asking for no RDMA-read resources: an older build of our
// own, which waits for the server; "ours" is assumed for it (cm.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "net/rdma/wire.h"

namespace net::rdma {

enum class DialectId : uint8_t { kUnknown = 0, kOurs, kSeed, kValkey };
constexpr int kDialectCount = 4;  // including kUnknown, for per-dialect counters

// "unknown", "ours", "seed", "valkey".
const char* dialectName(DialectId id);
// Parses "auto" (kUnknown: detect), "ours", "seed", "valkey".
bool parseDialect(const std::string& s, DialectId* out);

// ---- rdma_cm private data ----

// What our client puts in the connect request and our server in the accept
// reply. rdma_cm zero-fills the rest of the private data area.
constexpr uint8_t kHello[8] = {'r', 'e', 'd', 'i', 's', 'R', 'D', '1'};
bool hasHello(const void* data, size_t len);
// The byte after kHello: feature bits. A client sets those it offers, the
// server those it takes of them; builds from before flow control send and
// read none (rdma_cm zero-fills the area, and they compare kHello only).
constexpr size_t kFeatureByte = sizeof kHello;
constexpr uint8_t kFeatureFlow = 0x01;  // credited rings that grow and shrink (wire.h)
constexpr uint8_t kHelloFlow[9] = {'r', 'e', 'd', 'i', 's', 'R', 'D', '1', kFeatureFlow};
// Whether private data carrying kHello also offers flow control.
bool helloOffersFlow(const void* data, size_t len);

// ---- Valkey's layouts (u16 opcode first, big-endian) ----
namespace valkey {

enum Opcode : uint16_t {
  kGetServerFeature = 0,
  kSetClientFeature = 1,
  kKeepalive = 2,
  kRegisterXferMemory = 3,
};
struct Feature {
  uint16_t opcode;
  uint16_t select;
  uint8_t rsvd[20];
  uint64_t features;
};
struct Keepalive {
  uint16_t opcode;
  uint8_t rsvd[30];
};
struct Memory {
  uint16_t opcode;
  uint8_t rsvd[14];
  uint64_t addr;
  uint32_t length;
  uint32_t key;
};
static_assert(sizeof(Feature) == 32 && offsetof(Feature, select) == 2 &&
              offsetof(Feature, features) == 24);
static_assert(sizeof(Keepalive) == 32);
static_assert(sizeof(Memory) == 32 && offsetof(Memory, addr) == 16 &&
              offsetof(Memory, length) == 24 && offsetof(Memory, key) == 28);
static_assert(sizeof(Memory) == sizeof(wire::CtrlMsg));

}  // namespace valkey

// A received control message, decoded (host byte order).
struct Control {
  enum class Kind : uint8_t { kRegister, kKeepalive, kGetFeature, kSetFeature, kCredit, kSwitched };
  Kind kind = Kind::kRegister;
  wire::Region region;    // kRegister
  uint16_t select = 0;    // kGetFeature / kSetFeature
  uint64_t features = 0;  // kSetFeature
  uint32_t gen = 0;       // flow control: kRegister, kCredit, kSwitched
  uint64_t consumed = 0;  // kCredit
};

// One dialect's encoding rules. The datapath holds a pointer to the
// connection's dialect and never tests which one it is.
class Dialect {
 public:
  virtual ~Dialect() = default;
  virtual DialectId id() const = 0;
  const char* name() const { return dialectName(id()); }
  // "My RX buffer is r."
  virtual wire::CtrlMsg encodeRegister(const wire::Region& r) const = 0;
  // Validates and decodes a control message of len bytes; false with *err.
  virtual bool decode(const void* buf, size_t len, Control* out, std::string* err) const = 0;
  // The dialect's keepalive message, if it has one.
  virtual bool encodeKeepalive(wire::CtrlMsg* out) const {
    (void)out;
    return false;
  }
  // The answer to a GetServerFeature(select): no features.
  virtual bool encodeFeatureReply(uint16_t select, wire::CtrlMsg* out) const {
    (void)select;
    (void)out;
    return false;
  }
  // Bytes of a data write from its completion's immediate and byte_len;
  // false with *err for a zero length or an immediate that disagrees with
  // a non-zero byte_len. Bounds are checked by wire::checkImmediate.
  virtual bool dataLength(uint32_t imm, uint32_t byte_len, uint32_t* out, std::string* err) const;
  // Whether the server sends the dialect's keepalive message periodically
  // (Valkey's clients expect one every 3 s).
  virtual bool serverSendsKeepalive() const { return false; }
  // Flow control (wire.h): the RX buffer is a credited ring; "ours" only,
  // once both sides offered kFeatureFlow.
  virtual bool flow() const { return false; }
  // "My RX ring is now r, generation gen" (flow control).
  virtual wire::CtrlMsg encodeRing(const wire::Region& r, uint32_t gen) const {
    (void)gen;
    return encodeRegister(r);
  }
};

// The dialect object of a known id (kUnknown: nullptr); `flow`: our own
// dialect under flow control.
const Dialect* dialectFor(DialectId id, bool flow = false);

// The dialect a first control message is written in (for a peer that sent
// no kHello): 'R' at byte 0 is the seed dialect, a big-endian opcode 0..3 at
// bytes 0-1 Valkey's. kUnknown with *err when it matches none.
DialectId detectDialect(const void* buf, size_t len, std::string* err);

}  // namespace net::rdma
