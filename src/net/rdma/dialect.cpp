// The dialect objects and first-message recognition (see dialect.h).
#include "net/rdma/dialect.h"

#include <endian.h>

#include <cstdio>
#include <cstring>

namespace net::rdma {
namespace {

std::string hexHead(const void* buf, size_t len) {
  const auto* b = static_cast<const uint8_t*>(buf);
  std::string s;
  char tmp[4];
  for (size_t i = 0; i < len && i < 4; i++) {
    snprintf(tmp, sizeof tmp, "%02x", b[i]);
    if (!s.empty()) s += ' ';
    s += tmp;
  }
  return s;
}

bool checkSize(size_t len, std::string* err) {
  if (len == sizeof(wire::CtrlMsg)) return true;
  *err = "control message of " + std::to_string(len) + " bytes (expected 32)";
  return false;
}

// ours: exactly the format of wire.h.
class Ours : public Dialect {
 public:
  DialectId id() const override { return DialectId::kOurs; }
  wire::CtrlMsg encodeRegister(const wire::Region& r) const override {
    return wire::encodeRegister(r);
  }
  bool decode(const void* buf, size_t len, Control* out, std::string* err) const override {
    out->kind = Control::Kind::kRegister;
    return wire::decodeRegister(buf, len, &out->region, err);
  }
};

// ours under flow control: the same head, two more opcodes, a ring
// generation, rings from kFlowMinRing.
class OursFlow : public Ours {
 public:
  bool flow() const override { return true; }
  wire::CtrlMsg encodeRing(const wire::Region& r, uint32_t gen) const override {
    return wire::encodeRegister(r, gen);
  }
  bool decode(const void* buf, size_t len, Control* out, std::string* err) const override {
    wire::FlowMsg m;
    if (!wire::decodeFlow(buf, len, &m, err)) return false;
    out->gen = m.gen;
    switch (m.opcode) {
      case wire::kRegisterLocalAddr:
        out->kind = Control::Kind::kRegister;
        out->region = m.region;
        return true;
      case wire::kCredit:
        out->kind = Control::Kind::kCredit;
        out->consumed = m.consumed;
        return true;
      case wire::kSwitched:
        out->kind = Control::Kind::kSwitched;
        return true;
    }
    return false;
  }
};

// seed: the 2021 prototype. Its head is 'R', version 0, opcode 0; it reads
// neither magic nor version, so we send ours (version 1) and accept 0 or 1.
class Seed : public Dialect {
 public:
  DialectId id() const override { return DialectId::kSeed; }
  wire::CtrlMsg encodeRegister(const wire::Region& r) const override {
    return wire::encodeRegister(r);
  }
  bool decode(const void* buf, size_t len, Control* out, std::string* err) const override {
    if (!checkSize(len, err)) return false;
    wire::CtrlMsg m;
    memcpy(&m, buf, sizeof m);
    if (m.magic != wire::kMagic) {
      *err = "control message with bad magic " + std::to_string(m.magic);
      return false;
    }
    if (m.version > wire::kVersion) {
      *err = "control message with unsupported version " + std::to_string(m.version);
      return false;
    }
    if (m.opcode != wire::kRegisterLocalAddr) {
      *err = "control message with unknown opcode " + std::to_string(m.opcode);
      return false;
    }
    out->kind = Control::Kind::kRegister;
    out->region = {be64toh(m.addr), be32toh(m.length), be32toh(m.key)};
    return wire::checkRegion(out->region, "RegisterLocalAddr", err);
  }
  // The prototype's writes carry immediate 0: the completion's byte_len is
  // the length. A non-zero immediate must still agree with it.
  bool dataLength(uint32_t imm, uint32_t byte_len, uint32_t* out, std::string* err) const override {
    if (imm == 0) {
      if (byte_len == 0) {
        *err = "data write with zero length";
        return false;
      }
      *out = byte_len;
      return true;
    }
    return Dialect::dataLength(imm, byte_len, out, err);
  }
};

class Valkey : public Dialect {
 public:
  DialectId id() const override { return DialectId::kValkey; }
  wire::CtrlMsg encodeRegister(const wire::Region& r) const override {
    valkey::Memory m = {};
    m.opcode = htobe16(valkey::kRegisterXferMemory);
    m.addr = htobe64(r.addr);
    m.length = htobe32(r.length);
    m.key = htobe32(r.key);
    wire::CtrlMsg out;
    memcpy(&out, &m, sizeof out);
    return out;
  }
  bool encodeKeepalive(wire::CtrlMsg* out) const override {
    valkey::Keepalive k = {};
    k.opcode = htobe16(valkey::kKeepalive);
    memcpy(out, &k, sizeof *out);
    return true;
  }
  bool encodeFeatureReply(uint16_t select, wire::CtrlMsg* out) const override {
    valkey::Feature f = {};
    f.opcode = htobe16(valkey::kGetServerFeature);
    f.select = htobe16(select);
    f.features = 0;  // no optional feature is implemented
    memcpy(out, &f, sizeof *out);
    return true;
  }
  bool decode(const void* buf, size_t len, Control* out, std::string* err) const override {
    if (!checkSize(len, err)) return false;
    uint16_t op;
    memcpy(&op, buf, sizeof op);
    op = be16toh(op);
    switch (op) {
      case valkey::kGetServerFeature:
      case valkey::kSetClientFeature: {
        valkey::Feature f;
        memcpy(&f, buf, sizeof f);
        out->kind = op == valkey::kGetServerFeature ? Control::Kind::kGetFeature
                                                    : Control::Kind::kSetFeature;
        out->select = be16toh(f.select);
        out->features = be64toh(f.features);
        return true;
      }
      case valkey::kKeepalive:
        out->kind = Control::Kind::kKeepalive;
        return true;
      case valkey::kRegisterXferMemory: {
        valkey::Memory m;
        memcpy(&m, buf, sizeof m);
        out->kind = Control::Kind::kRegister;
        out->region = {be64toh(m.addr), be32toh(m.length), be32toh(m.key)};
        return wire::checkRegion(out->region, "RegisterXferMemory", err);
      }
      default:
        *err = "control message with unknown opcode " + std::to_string(op);
        return false;
    }
  }
  bool serverSendsKeepalive() const override { return true; }
};

const Ours kOursDialect;
const OursFlow kOursFlowDialect;
const Seed kSeedDialect;
const Valkey kValkeyDialect;

}  // namespace

const char* dialectName(DialectId id) {
  switch (id) {
    case DialectId::kOurs:
      return "ours";
    case DialectId::kSeed:
      return "seed";
    case DialectId::kValkey:
      return "valkey";
    default:
      return "unknown";
  }
}

bool parseDialect(const std::string& s, DialectId* out) {
  if (s == "auto") {
    *out = DialectId::kUnknown;
  } else if (s == "ours") {
    *out = DialectId::kOurs;
  } else if (s == "seed") {
    *out = DialectId::kSeed;
  } else if (s == "valkey") {
    *out = DialectId::kValkey;
  } else {
    return false;
  }
  return true;
}

bool hasHello(const void* data, size_t len) {
  return data != nullptr && len >= sizeof kHello && memcmp(data, kHello, sizeof kHello) == 0;
}

bool helloOffersFlow(const void* data, size_t len) {
  return hasHello(data, len) && len > kFeatureByte &&
         (static_cast<const uint8_t*>(data)[kFeatureByte] & kFeatureFlow) != 0;
}

bool Dialect::dataLength(uint32_t imm, uint32_t byte_len, uint32_t* out, std::string* err) const {
  if (imm == 0) {
    *err = "data write with zero length";
    return false;
  }
  if (byte_len != 0 && byte_len != imm) {
    *err = "data write of " + std::to_string(byte_len) + " bytes whose immediate claims " +
           std::to_string(imm);
    return false;
  }
  *out = imm;
  return true;
}

const Dialect* dialectFor(DialectId id, bool flow) {
  switch (id) {
    case DialectId::kOurs:
      return flow ? static_cast<const Dialect*>(&kOursFlowDialect) : &kOursDialect;
    case DialectId::kSeed:
      return &kSeedDialect;
    case DialectId::kValkey:
      return &kValkeyDialect;
    default:
      return nullptr;
  }
}

DialectId detectDialect(const void* buf, size_t len, std::string* err) {
  if (!checkSize(len, err)) return DialectId::kUnknown;
  const auto* b = static_cast<const uint8_t*>(buf);
  if (b[0] == wire::kMagic) return DialectId::kSeed;
  uint16_t op = static_cast<uint16_t>(b[0] << 8 | b[1]);
  if (op <= valkey::kRegisterXferMemory) return DialectId::kValkey;
  *err = "first control message matches no dialect (starts " + hexHead(buf, len) + ")";
  return DialectId::kUnknown;
}

}  // namespace net::rdma
