// The control message and immediate checks: every field a hostile peer can
// set is rejected with a message naming it. Runs without an RDMA device.
#include "net/rdma/wire.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>

namespace net::rdma::wire {
namespace {

CtrlMsg valid() {
  return encodeRegister({0x7f0012345000ull, kDefaultRxSize, 0xabcd});
}

bool decode(const CtrlMsg& m, std::string* err, Region* r = nullptr) {
  Region tmp;
  return decodeRegister(&m, sizeof m, r != nullptr ? r : &tmp, err);
}

TEST(RdmaWire, RegisterRoundTripsInNetworkByteOrder) {
  CtrlMsg m = valid();
  const auto* b = reinterpret_cast<const uint8_t*>(&m);
  EXPECT_EQ(b[0], 'R');
  EXPECT_EQ(b[1], 1);
  EXPECT_EQ(b[2], 0);
  // addr is big-endian at offset 16: its last byte is the low byte.
  EXPECT_EQ(b[16 + 7], 0x00);
  EXPECT_EQ(b[16 + 6], 0x50);
  uint32_t len_be;
  memcpy(&len_be, b + 24, 4);
  EXPECT_EQ(ntohl(len_be), kDefaultRxSize);
  std::string err;
  Region r;
  ASSERT_TRUE(decode(m, &err, &r)) << err;
  EXPECT_EQ(r.addr, 0x7f0012345000ull);
  EXPECT_EQ(r.length, kDefaultRxSize);
  EXPECT_EQ(r.key, 0xabcdu);
}

TEST(RdmaWire, RejectsEachBadField) {
  std::string err;
  CtrlMsg m = valid();
  m.magic = 'X';
  EXPECT_FALSE(decode(m, &err));
  EXPECT_NE(err.find("magic"), std::string::npos) << err;
  m = valid();
  m.version = 2;
  EXPECT_FALSE(decode(m, &err));
  EXPECT_NE(err.find("version"), std::string::npos) << err;
  m = valid();
  m.opcode = 9;
  EXPECT_FALSE(decode(m, &err));
  EXPECT_NE(err.find("opcode"), std::string::npos) << err;
  m = valid();
  m.addr = 0;
  EXPECT_FALSE(decode(m, &err));
  EXPECT_NE(err.find("zero address"), std::string::npos) << err;
  m = valid();
  m.length = htonl(kMaxRxSize + 1);
  EXPECT_FALSE(decode(m, &err));
  EXPECT_NE(err.find("length"), std::string::npos) << err;
  m = valid();
  m.length = htonl(kMinRxSize - 1);
  EXPECT_FALSE(decode(m, &err));
  m = valid();
  m.addr = htobe64(UINT64_MAX - 100);
  EXPECT_FALSE(decode(m, &err));
  EXPECT_NE(err.find("wraps"), std::string::npos) << err;
  m = valid();
  Region r;
  EXPECT_FALSE(decodeRegister(&m, 16, &r, &err));
  EXPECT_NE(err.find("16 bytes"), std::string::npos) << err;
}

TEST(RdmaWire, ImmediateNeverPastBufferEnd) {
  std::string err;
  EXPECT_TRUE(checkImmediate(100, 0, 1000, &err));
  EXPECT_TRUE(checkImmediate(1000, 0, 1000, &err));
  EXPECT_TRUE(checkImmediate(1, 999, 1000, &err));
  EXPECT_FALSE(checkImmediate(2, 999, 1000, &err));
  EXPECT_NE(err.find("past the RX buffer end"), std::string::npos) << err;
  EXPECT_FALSE(checkImmediate(1, 1000, 1000, &err));
  EXPECT_FALSE(checkImmediate(UINT32_MAX, 1, 1000, &err));  // no overflow
  EXPECT_FALSE(checkImmediate(0, 0, 1000, &err));
  EXPECT_NE(err.find("zero length"), std::string::npos) << err;
}

TEST(RdmaWire, FlowMessagesRoundTripWithTheirGeneration) {
  std::string err;
  FlowMsg f;
  CtrlMsg reg = encodeRegister({0x7f0012345000ull, kFlowMinRing, 7}, 3);
  const auto* b = reinterpret_cast<const uint8_t*>(&reg);
  EXPECT_EQ(b[4], 0);  // gen is big-endian at offset 4
  EXPECT_EQ(b[7], 3);
  ASSERT_TRUE(decodeFlow(&reg, sizeof reg, &f, &err)) << err;
  EXPECT_EQ(f.opcode, kRegisterLocalAddr);
  EXPECT_EQ(f.gen, 3u);
  EXPECT_EQ(f.region.length, kFlowMinRing);
  // A 16 KiB ring is valid under flow control only.
  Region r;
  EXPECT_FALSE(decodeRegister(&reg, sizeof reg, &r, &err));

  CtrlMsg credit = encodeCredit(5, 0x123456789ull);
  ASSERT_TRUE(decodeFlow(&credit, sizeof credit, &f, &err)) << err;
  EXPECT_EQ(f.opcode, kCredit);
  EXPECT_EQ(f.gen, 5u);
  EXPECT_EQ(f.consumed, 0x123456789ull);
  // Credit and Switched are not RegisterLocalAddr without flow control.
  EXPECT_FALSE(decodeRegister(&credit, sizeof credit, &r, &err));
  EXPECT_NE(err.find("opcode 1"), std::string::npos) << err;

  CtrlMsg sw = encodeSwitched(6);
  ASSERT_TRUE(decodeFlow(&sw, sizeof sw, &f, &err)) << err;
  EXPECT_EQ(f.opcode, kSwitched);
  EXPECT_EQ(f.gen, 6u);
}

TEST(RdmaWire, FlowRejectsBadHeadsOpcodesAndRings) {
  std::string err;
  FlowMsg f;
  CtrlMsg m = encodeSwitched(1);
  m.opcode = 3;
  EXPECT_FALSE(decodeFlow(&m, sizeof m, &f, &err));
  EXPECT_NE(err.find("opcode 3"), std::string::npos) << err;
  m = encodeCredit(0, 1);
  m.magic = 'X';
  EXPECT_FALSE(decodeFlow(&m, sizeof m, &f, &err));
  EXPECT_NE(err.find("magic"), std::string::npos) << err;
  m = encodeRegister({0x7f0012345000ull, kFlowMinRing - 1, 7}, 1);
  EXPECT_FALSE(decodeFlow(&m, sizeof m, &f, &err));
  EXPECT_NE(err.find("length"), std::string::npos) << err;
  m = encodeRegister({0, kFlowMinRing, 7}, 1);
  EXPECT_FALSE(decodeFlow(&m, sizeof m, &f, &err));
  EXPECT_FALSE(decodeFlow(&m, 31, &f, &err));
  EXPECT_NE(err.find("31 bytes"), std::string::npos) << err;
}

}  // namespace
}  // namespace net::rdma::wire
