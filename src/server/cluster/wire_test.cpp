// The bus format's length rules (wire.h): what a node accepts and what
// makes it drop a link.
#include "server/cluster/wire.h"

#include <gtest/gtest.h>

#include <string>

namespace server::cluster::wire {
namespace {

std::string header(uint16_t type, uint16_t count = 0) {
  Header h;
  memset(&h, 0, sizeof(h));
  memcpy(h.sig, "RCmb", 4);
  h.ver = htons(kProtoVersion);
  h.type = htons(type);
  h.count = htons(count);
  std::string s(reinterpret_cast<const char*>(&h), sizeof(h));
  return s;
}

void finish(std::string* m) {
  uint32_t t = htonl(static_cast<uint32_t>(m->size()));
  memcpy(m->data() + offsetof(Header, totlen), &t, 4);
}

void setExtensions(std::string* m, uint16_t n) {
  uint16_t e = htons(n);
  memcpy(m->data() + offsetof(Header, extensions), &e, 2);
  (*m)[offsetof(Header, mflags)] = static_cast<char>(kFlag0ExtData);
}

bool valid(const std::string& m, std::string* why = nullptr) {
  std::string w;
  return validate(reinterpret_cast<const uint8_t*>(m.data()), m.size(), why ? why : &w);
}

TEST(ClusterWire, PingWithGossipAndHostname) {
  std::string m = header(kPing, 2);
  m.append(2 * sizeof(Gossip), '\0');
  appendHostnameExt(&m, "node-1.example");
  setExtensions(&m, 1);
  finish(&m);
  EXPECT_TRUE(valid(m));
  std::string seen;
  Header h;
  memcpy(&h, m.data(), sizeof(h));
  forEachExtension(reinterpret_cast<const Header*>(m.data()),
                   [&](uint16_t type, std::string_view b) {
                     EXPECT_EQ(type, kExtHostname);
                     seen = std::string(b.data(), strnlen(b.data(), b.size()));
                     EXPECT_EQ(b.size() % 8, 0u);
                   });
  EXPECT_EQ(seen, "node-1.example");
}

TEST(ClusterWire, LengthMustMatchTheCount) {
  std::string m = header(kPong, 3);
  m.append(2 * sizeof(Gossip), '\0');  // one entry short
  finish(&m);
  std::string why;
  EXPECT_FALSE(valid(m, &why));
  EXPECT_NE(why.find("Received invalid pong packet"), std::string::npos) << why;
  m.append(sizeof(Gossip) + 1, '\0');  // one byte too many
  finish(&m);
  EXPECT_FALSE(valid(m));
}

TEST(ClusterWire, BadExtensionsAreRefused) {
  // Not a multiple of 8.
  std::string m = header(kMeet);
  ExtHeader e{htonl(12), htons(kExtHostname), 0};
  m.append(reinterpret_cast<const char*>(&e), sizeof(e));
  m.append(4, 'x');
  setExtensions(&m, 1);
  finish(&m);
  std::string why;
  EXPECT_FALSE(valid(m, &why));
  EXPECT_NE(why.find("without proper padding"), std::string::npos) << why;
  // Longer than what is left of the message.
  std::string m2 = header(kPing);
  ExtHeader e2{htonl(64), htons(kExtHostname), 0};
  m2.append(reinterpret_cast<const char*>(&e2), sizeof(e2));
  m2.append(8, 'x');
  setExtensions(&m2, 1);
  finish(&m2);
  EXPECT_FALSE(valid(m2, &why));
  EXPECT_NE(why.find("exceeds total packet length"), std::string::npos) << why;
  // More extensions announced than present.
  std::string m3 = header(kPing);
  setExtensions(&m3, 3);
  finish(&m3);
  EXPECT_FALSE(valid(m3));
}

TEST(ClusterWire, FixedBodies) {
  std::string fail = header(kFail);
  fail.append(kFailBody, 'a');
  finish(&fail);
  EXPECT_TRUE(valid(fail));
  fail.pop_back();
  finish(&fail);
  EXPECT_FALSE(valid(fail));
  std::string upd = header(kUpdate);
  upd.append(sizeof(Update), '\0');
  finish(&upd);
  EXPECT_TRUE(valid(upd));
  for (uint16_t t : {kAuthRequest, kAuthAck, kMfStart}) {
    std::string m = header(t);
    finish(&m);
    EXPECT_TRUE(valid(m)) << t;
    m.push_back('\0');
    finish(&m);
    EXPECT_FALSE(valid(m)) << t;
  }
}

TEST(ClusterWire, PublishLengthsAddUp) {
  std::string m = header(kPublish);
  uint32_t cl = htonl(4), ml = htonl(5);
  m.append(reinterpret_cast<const char*>(&cl), 4);
  m.append(reinterpret_cast<const char*>(&ml), 4);
  m.append("newshello");
  finish(&m);
  EXPECT_TRUE(valid(m));
  // A message length that points past the end.
  uint32_t huge = htonl(0xfffffff0u);
  memcpy(m.data() + kHeaderLen + 4, &huge, 4);
  EXPECT_FALSE(valid(m));
}

TEST(ClusterWire, VersionAndStart) {
  std::string m = header(kPing);
  finish(&m);
  uint16_t v = htons(2);
  memcpy(m.data() + offsetof(Header, ver), &v, 2);
  EXPECT_FALSE(valid(m));
  uint32_t totlen;
  std::string start = "RCmb";
  uint32_t t = htonl(static_cast<uint32_t>(kHeaderLen));
  start.append(reinterpret_cast<const char*>(&t), 4);
  EXPECT_TRUE(plausibleStart(reinterpret_cast<const uint8_t*>(start.data()), &totlen));
  EXPECT_EQ(totlen, kHeaderLen);
  t = htonl(100);  // shorter than a header
  memcpy(start.data() + 4, &t, 4);
  EXPECT_FALSE(plausibleStart(reinterpret_cast<const uint8_t*>(start.data()), &totlen));
  t = htonl(kMaxMessage + 1);
  memcpy(start.data() + 4, &t, 4);
  EXPECT_FALSE(plausibleStart(reinterpret_cast<const uint8_t*>(start.data()), &totlen));
  EXPECT_FALSE(plausibleStart(reinterpret_cast<const uint8_t*>("GARBAGE!"), &totlen));
  // Unknown types are taken as well formed (and ignored by the node).
  std::string u = header(200);
  u.append(17, 'x');
  finish(&u);
  EXPECT_TRUE(valid(u));
}

TEST(ClusterWire, RdmaEndpointsRideInTheUnusedBytes) {
  Header h;
  memset(&h, 0, sizeof(h));
  int port = -1, cport = -1;
  // A Redis node's header: all zero there, so no endpoint.
  EXPECT_FALSE(getRdmaAnnounce(h, &port, &cport));
  EXPECT_EQ(port, 0);
  EXPECT_EQ(cport, 0);
  // Nothing to announce leaves the bytes as Redis leaves them.
  putRdmaAnnounce(&h, 0, 0);
  EXPECT_EQ(std::string(h.unused, sizeof(h.unused)), std::string(sizeof(h.unused), '\0'));
  putRdmaAnnounce(&h, 7100, 17000);
  EXPECT_EQ(std::string(h.unused, 4), "RDMA");
  EXPECT_EQ(static_cast<uint8_t>(h.unused[4]), 7100 >> 8);  // network byte order
  EXPECT_TRUE(getRdmaAnnounce(h, &port, &cport));
  EXPECT_EQ(port, 7100);
  EXPECT_EQ(cport, 17000);
  // The fields around stay untouched, and a message with it still validates.
  EXPECT_EQ(h.extensions, 0);
  EXPECT_EQ(h.pport, 0);
  std::string m = header(kPing);
  putRdmaAnnounce(reinterpret_cast<Header*>(m.data()), 1, 2);
  finish(&m);
  EXPECT_TRUE(valid(m));
  // Any other signature is not an announcement.
  h.unused[0] = 'r';
  EXPECT_FALSE(getRdmaAnnounce(h, &port, &cport));
}

TEST(ClusterWire, ByteOrderHelpers) {
  EXPECT_EQ(ntoh64(hton64(0x0102030405060708ull)), 0x0102030405060708ull);
  uint64_t v = hton64(1);
  EXPECT_EQ(reinterpret_cast<const uint8_t*>(&v)[7], 1);
  uint8_t bitmap[kSlots / 8] = {};
  setSlotBit(bitmap, 9);
  EXPECT_EQ(bitmap[1], 2);
  EXPECT_TRUE(slotBit(bitmap, 9));
  clearSlotBit(bitmap, 9);
  EXPECT_FALSE(slotBit(bitmap, 9));
}

}  // namespace
}  // namespace server::cluster::wire
