// The cluster helpers of the client library, on values from the Redis
// Cluster specification and from replies Redis 7.0 sends.
#include "client/cluster.h"

#include <gtest/gtest.h>

namespace client {
namespace {

TEST(ClusterSlots, KeyHashSlotMatchesTheSpecification) {
  // The spec's CRC16 check value: "123456789" -> 0x31C3.
  EXPECT_EQ(keyHashSlot("123456789"), 0x31C3 & 16383);
  EXPECT_EQ(keyHashSlot("foo"), 12182);
  EXPECT_EQ(keyHashSlot(""), 0);
  // A hash tag decides; an empty one does not count.
  EXPECT_EQ(keyHashSlot("{user1000}.following"), keyHashSlot("{user1000}.followers"));
  EXPECT_EQ(keyHashSlot("{user1000}.following"), keyHashSlot("user1000"));
  EXPECT_EQ(keyHashSlot("foo{}{bar}"), keyHashSlot("foo{}{bar}"));
  EXPECT_NE(keyHashSlot("foo{}{bar}"), keyHashSlot("bar"));
  EXPECT_EQ(keyHashSlot("foo{{bar}}zap"), keyHashSlot("{bar"));
}

TEST(ClusterSlots, EverySlotHasATagThatHashesToIt) {
  for (int s = 0; s < kClusterSlots; s++) {
    const std::string& tag = slotTag(s);
    ASSERT_FALSE(tag.empty()) << s;
    ASSERT_LE(tag.size(), 3u) << s;
    ASSERT_EQ(keyHashSlot("key:{" + tag + "}:1"), s) << tag;
  }
}

TEST(ClusterRedirect, MovedAndAsk) {
  Redirect r;
  ASSERT_TRUE(parseRedirect("MOVED 3999 127.0.0.1:6381", &r));
  EXPECT_FALSE(r.ask);
  EXPECT_EQ(r.slot, 3999);
  EXPECT_EQ(r.host, "127.0.0.1");
  EXPECT_EQ(r.port, 6381);
  ASSERT_TRUE(parseRedirect("ASK 0 ::1:7000", &r));
  EXPECT_TRUE(r.ask);
  EXPECT_EQ(r.host, "::1");
  EXPECT_EQ(r.port, 7000);
  EXPECT_FALSE(parseRedirect("ERR unknown command", &r));
  EXPECT_FALSE(parseRedirect("MOVED 12", &r));
  EXPECT_FALSE(parseRedirect("CLUSTERDOWN The cluster is down", &r));
}

TEST(ClusterEndpoint, KeepsTheChosenTypeButForUnixSockets) {
  Endpoint tls;
  tls.type = "tls";
  Endpoint ep = nodeEndpoint(tls, "10.0.0.2", 7001);
  EXPECT_EQ(ep.type, "tls");
  EXPECT_EQ(ep.host, "10.0.0.2");
  EXPECT_EQ(ep.port, 7001);
  Endpoint unix_socket;
  unix_socket.type = "unix";
  unix_socket.path = "/tmp/redis.sock";
  ep = nodeEndpoint(unix_socket, "10.0.0.3", 7002);
  EXPECT_EQ(ep.type, Endpoint().type);
  EXPECT_TRUE(ep.path.empty());
  EXPECT_EQ(ep.port, 7002);
}

TEST(ClusterNodes, ParsesMastersReplicasAndOpenSlots) {
  const char* text =
      "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@40001 myself,master - 0 0 1 "
      "connected 0-5460 7000 [5461->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]\n"
      "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@40002,host.example master - 0 "
      "1426238316232 2 connected 5462-10922 [5461-<-e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca]\n"
      "292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@40003 slave "
      "e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238318243 3 connected\n";
  std::vector<ClusterNodeLine> nodes;
  std::string err;
  ASSERT_TRUE(parseClusterNodes(text, &nodes, &err)) << err;
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_TRUE(nodes[0].hasFlag("myself"));
  EXPECT_EQ(nodes[0].port, 30001);
  EXPECT_EQ(nodes[0].bus_port, 40001);
  ASSERT_EQ(nodes[0].slots.size(), 2u);
  EXPECT_EQ(nodes[0].slots[0], std::make_pair(0, 5460));
  EXPECT_EQ(nodes[0].slots[1], std::make_pair(7000, 7000));
  ASSERT_EQ(nodes[0].migrating.size(), 1u);
  EXPECT_EQ(nodes[0].migrating[0].first, 5461);
  EXPECT_EQ(nodes[0].migrating[0].second, nodes[1].id);
  EXPECT_EQ(nodes[1].host, "127.0.0.1");
  EXPECT_EQ(nodes[1].port, 30002);
  EXPECT_EQ(nodes[1].config_epoch, 2u);
  ASSERT_EQ(nodes[1].importing.size(), 1u);
  EXPECT_EQ(nodes[1].importing[0].second, nodes[0].id);
  EXPECT_TRUE(nodes[2].hasFlag("slave"));
  EXPECT_EQ(nodes[2].master_id, nodes[0].id);
  EXPECT_TRUE(nodes[2].slots.empty());
  EXPECT_FALSE(parseClusterNodes("abc 127.0.0.1:1 master\n", &nodes, &err));
}

}  // namespace
}  // namespace client
