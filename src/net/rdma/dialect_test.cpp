// The three dialects' byte layouts, first-message recognition and data
// lengths. Runs without an RDMA device.
#include "net/rdma/dialect.h"

#include <arpa/inet.h>
#include <endian.h>
#include <gtest/gtest.h>

#include <cstring>

namespace net::rdma {
namespace {

const wire::Region kRegion{0x7f0012345000ull, kDefaultRxSize, 0xabcd};

const uint8_t* bytes(const wire::CtrlMsg& m) {
  return reinterpret_cast<const uint8_t*>(&m);
}

TEST(RdmaDialect, ValkeyRegisterLayout) {
  wire::CtrlMsg m = dialectFor(DialectId::kValkey)->encodeRegister(kRegion);
  const uint8_t* b = bytes(m);
  EXPECT_EQ(b[0], 0);  // big-endian u16 opcode 3 = RegisterXferMemory
  EXPECT_EQ(b[1], 3);
  for (int i = 2; i < 16; i++) EXPECT_EQ(b[i], 0) << i;
  uint64_t addr;
  uint32_t len, key;
  memcpy(&addr, b + 16, 8);
  memcpy(&len, b + 24, 4);
  memcpy(&key, b + 28, 4);
  EXPECT_EQ(be64toh(addr), kRegion.addr);
  EXPECT_EQ(ntohl(len), kRegion.length);
  EXPECT_EQ(ntohl(key), kRegion.key);
  Control c;
  std::string err;
  ASSERT_TRUE(dialectFor(DialectId::kValkey)->decode(&m, sizeof m, &c, &err)) << err;
  EXPECT_EQ(c.kind, Control::Kind::kRegister);
  EXPECT_EQ(c.region.addr, kRegion.addr);
}

TEST(RdmaDialect, ValkeyKeepaliveAndFeatures) {
  const Dialect* v = dialectFor(DialectId::kValkey);
  wire::CtrlMsg m;
  ASSERT_TRUE(v->encodeKeepalive(&m));
  EXPECT_EQ(bytes(m)[0], 0);
  EXPECT_EQ(bytes(m)[1], 2);
  Control c;
  std::string err;
  ASSERT_TRUE(v->decode(&m, sizeof m, &c, &err));
  EXPECT_EQ(c.kind, Control::Kind::kKeepalive);

  // GetServerFeature is answered with the same opcode, select echoed and
  // features 0 (u64 big-endian at offset 24).
  ASSERT_TRUE(v->encodeFeatureReply(1, &m));
  EXPECT_EQ(bytes(m)[1], 0);
  EXPECT_EQ(bytes(m)[2], 0);
  EXPECT_EQ(bytes(m)[3], 1);
  for (int i = 24; i < 32; i++) EXPECT_EQ(bytes(m)[i], 0);

  valkey::Feature f = {};
  f.opcode = htobe16(valkey::kSetClientFeature);
  f.features = htobe64(5);
  ASSERT_TRUE(v->decode(&f, sizeof f, &c, &err));
  EXPECT_EQ(c.kind, Control::Kind::kSetFeature);
  EXPECT_EQ(c.features, 5u);

  f.opcode = htobe16(4);
  EXPECT_FALSE(v->decode(&f, sizeof f, &c, &err));
  EXPECT_NE(err.find("unknown opcode 4"), std::string::npos) << err;
  // Ours and seed have no keepalive message.
  EXPECT_FALSE(dialectFor(DialectId::kOurs)->encodeKeepalive(&m));
  EXPECT_FALSE(dialectFor(DialectId::kSeed)->encodeKeepalive(&m));
}

TEST(RdmaDialect, SeedAcceptsVersionZeroAndOne) {
  const Dialect* s = dialectFor(DialectId::kSeed);
  wire::CtrlMsg m = s->encodeRegister(kRegion);
  EXPECT_EQ(bytes(m)[0], 'R');
  EXPECT_EQ(bytes(m)[1], 1);  // we send 1; the prototype ignores it
  Control c;
  std::string err;
  for (uint8_t v : {0, 1}) {
    m.version = v;
    EXPECT_TRUE(s->decode(&m, sizeof m, &c, &err)) << err;
  }
  m.version = 2;
  EXPECT_FALSE(s->decode(&m, sizeof m, &c, &err));
  m.version = 0;
  m.opcode = 3;
  EXPECT_FALSE(s->decode(&m, sizeof m, &c, &err));
  // Ours stays strict about the version.
  m.opcode = 0;
  EXPECT_FALSE(dialectFor(DialectId::kOurs)->decode(&m, sizeof m, &c, &err));
}

TEST(RdmaDialect, FirstMessageRecognition) {
  std::string err;
  wire::CtrlMsg m = wire::encodeRegister(kRegion);
  m.version = 0;
  EXPECT_EQ(detectDialect(&m, sizeof m, &err), DialectId::kSeed);
  m = dialectFor(DialectId::kValkey)->encodeRegister(kRegion);
  EXPECT_EQ(detectDialect(&m, sizeof m, &err), DialectId::kValkey);
  memset(&m, 0xee, sizeof m);
  EXPECT_EQ(detectDialect(&m, sizeof m, &err), DialectId::kUnknown);
  EXPECT_NE(err.find("matches no dialect"), std::string::npos) << err;
  EXPECT_EQ(detectDialect(&m, 16, &err), DialectId::kUnknown);
}

TEST(RdmaDialect, DataLengths) {
  std::string err;
  uint32_t n = 0;
  const Dialect* seed = dialectFor(DialectId::kSeed);
  const Dialect* ours = dialectFor(DialectId::kOurs);
  // Seed: immediate 0 means "the length is byte_len".
  ASSERT_TRUE(seed->dataLength(0, 700, &n, &err));
  EXPECT_EQ(n, 700u);
  EXPECT_FALSE(seed->dataLength(0, 0, &n, &err));
  // A non-zero immediate must agree with a non-zero byte_len, everywhere.
  EXPECT_FALSE(seed->dataLength(5, 700, &n, &err));
  EXPECT_FALSE(ours->dataLength(5, 700, &n, &err));
  EXPECT_NE(err.find("immediate claims 5"), std::string::npos) << err;
  ASSERT_TRUE(ours->dataLength(700, 700, &n, &err));
  EXPECT_EQ(n, 700u);
  EXPECT_FALSE(ours->dataLength(0, 700, &n, &err));
  EXPECT_FALSE(dialectFor(DialectId::kValkey)->dataLength(0, 700, &n, &err));
}

TEST(RdmaDialect, HelloAndNames) {
  uint8_t pd[56] = {};
  EXPECT_FALSE(hasHello(pd, sizeof pd));
  memcpy(pd, kHello, sizeof kHello);
  EXPECT_TRUE(hasHello(pd, sizeof pd));
  EXPECT_FALSE(hasHello(pd, 4));
  EXPECT_FALSE(hasHello(nullptr, 0));
  DialectId d;
  EXPECT_TRUE(parseDialect("valkey", &d));
  EXPECT_EQ(d, DialectId::kValkey);
  EXPECT_TRUE(parseDialect("auto", &d));
  EXPECT_EQ(d, DialectId::kUnknown);
  EXPECT_FALSE(parseDialect("redis", &d));
  EXPECT_STREQ(dialectName(DialectId::kSeed), "seed");
}

TEST(RdmaDialect, FlowIsOfferedAfterHelloAndDecodedOnlyWhenAgreed) {
  uint8_t pd[56] = {};
  memcpy(pd, kHello, sizeof kHello);
  // An older build's private data: kHello, then zeros.
  EXPECT_FALSE(helloOffersFlow(pd, sizeof pd));
  memcpy(pd, kHelloFlow, sizeof kHelloFlow);
  EXPECT_TRUE(hasHello(pd, sizeof pd));  // older builds still see our kHello
  EXPECT_TRUE(helloOffersFlow(pd, sizeof pd));
  EXPECT_FALSE(helloOffersFlow(pd, sizeof kHello));  // cut before the feature byte
  pd[0] = 'x';
  EXPECT_FALSE(helloOffersFlow(pd, sizeof pd));

  const Dialect* plain = dialectFor(DialectId::kOurs);
  const Dialect* flow = dialectFor(DialectId::kOurs, true);
  EXPECT_FALSE(plain->flow());
  EXPECT_TRUE(flow->flow());
  EXPECT_EQ(flow->id(), DialectId::kOurs);
  wire::CtrlMsg credit = wire::encodeCredit(2, 4096);
  Control c;
  std::string err;
  EXPECT_FALSE(plain->decode(&credit, sizeof credit, &c, &err));
  ASSERT_TRUE(flow->decode(&credit, sizeof credit, &c, &err)) << err;
  EXPECT_EQ(c.kind, Control::Kind::kCredit);
  EXPECT_EQ(c.gen, 2u);
  EXPECT_EQ(c.consumed, 4096u);
  wire::CtrlMsg ring = flow->encodeRing({0x1000, kFlowMinRing, 9}, 4);
  ASSERT_TRUE(flow->decode(&ring, sizeof ring, &c, &err)) << err;
  EXPECT_EQ(c.kind, Control::Kind::kRegister);
  EXPECT_EQ(c.gen, 4u);
  EXPECT_EQ(c.region.length, kFlowMinRing);
  // Without flow control the generation is not sent (reserved, zero).
  wire::CtrlMsg old = plain->encodeRing({0x1000, kMinRxSize, 9}, 4);
  EXPECT_EQ(old.gen, 0u);
}

}  // namespace
}  // namespace net::rdma
