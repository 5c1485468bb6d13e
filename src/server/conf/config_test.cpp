#include "server/conf/config.h"

#include <gtest/gtest.h>

namespace server {
namespace {

TEST(Config, DefaultsAndOverrides) {
  Config c;
  std::string err;
  ASSERT_TRUE(loadConfigText(&c,
                             "# comment\n\nport 7000\nbind 127.0.0.1 ::1\nsave \"\"\n"
                             "proto-max-bulk-len 2mb\nrequirepass \"p w\"\nloglevel WARNING\n"
                             "port 7001\n",
                             &err))
      << err;
  EXPECT_EQ(c.port, 7001);  // later lines (the command line) win
  EXPECT_EQ(c.bind, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_EQ(c.save, "");
  EXPECT_EQ(c.proto_max_bulk_len, 2 * 1024 * 1024);
  EXPECT_EQ(c.requirepass, "p w");
  EXPECT_EQ(c.loglevel, "warning");
  EXPECT_EQ(c.databases, 16);
}

TEST(Config, BareSaveLineSetsNoSavePoints) {
  // `save` with nothing after it (a `save ""` written without its quotes):
  // no save points when it is the file's first save line, nothing added
  // after one (Redis 7.0.15 reads both so).
  Config c;
  std::string err;
  ASSERT_TRUE(loadConfigText(&c, "port 7000\nsave \n", &err)) << err;
  EXPECT_EQ(c.save, "");
  Config d;
  ASSERT_TRUE(loadConfigText(&d, "save 900 1\nsave\n", &err)) << err;
  EXPECT_EQ(d.save, "900 1");
}

TEST(Config, ErrorsNameLineAndReason) {
  Config c;
  std::string err;
  EXPECT_FALSE(loadConfigText(&c, "port 7000\nfoo bar\n", &err));
  EXPECT_NE(err.find("*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***"), std::string::npos);
  EXPECT_NE(err.find("at line 2\n>>> 'foo bar'\nBad directive or wrong number of arguments"),
            std::string::npos)
      << err;

  EXPECT_FALSE(loadConfigText(&c, "port 70000\n", &err));
  EXPECT_NE(err.find("argument must be between 0 and 65535 inclusive"), std::string::npos);
  EXPECT_FALSE(loadConfigText(&c, "port abc\n", &err));
  EXPECT_NE(err.find("argument couldn't be parsed into an integer"), std::string::npos);
  EXPECT_FALSE(loadConfigText(&c, "protected-mode maybe\n", &err));
  EXPECT_NE(err.find("argument must be 'yes' or 'no'"), std::string::npos);
  EXPECT_FALSE(loadConfigText(&c, "port\n", &err));
  EXPECT_NE(err.find("wrong number of arguments"), std::string::npos);
  EXPECT_FALSE(loadConfigText(&c, "client-query-buffer-limit 12zb\n", &err));
  EXPECT_NE(err.find("argument must be a memory value"), std::string::npos);
  // No sign, as in Redis: -1 is not a memory value either.
  EXPECT_FALSE(loadConfigText(&c, "maxmemory -1\n", &err));
  EXPECT_NE(err.find("argument must be a memory value"), std::string::npos);
  EXPECT_FALSE(loadConfigText(&c, "save 100\n", &err));
  EXPECT_FALSE(loadConfigText(&c, "requirepass \"unterminated\n", &err));
  EXPECT_NE(err.find("Unbalanced quotes"), std::string::npos);
#ifdef HAVE_RDMA
  // The rdma type owns these settings and their bounds (net::allSettings):
  // the table accepts exactly what the transport does.
  EXPECT_FALSE(loadConfigText(&c, "rdma-rx-size 1k\n", &err));
  EXPECT_FALSE(loadConfigText(&c, "rdma-completion-vector 1024\n", &err));
  EXPECT_NE(err.find("completion-vector must be -1"), std::string::npos) << err;
  EXPECT_FALSE(loadConfigText(&c, "rdma-keepalive-interval -5\n", &err));
  ASSERT_TRUE(loadConfigText(&c, "rdma-rx-size 64k\nrdma-completion-vector 1023\n", &err)) << err;
  EXPECT_EQ(configGet(c, "rdma-rx-size"),
            (std::vector<std::pair<std::string, std::string>>{{"rdma-rx-size", "65536"}}));
  EXPECT_EQ(c.transport_settings["rdma-completion-vector"], "1023");
#endif
}

TEST(Config, MemoryUnits) {
  Config c;
  std::string err;
  ASSERT_TRUE(
      loadConfigText(&c, "client-query-buffer-limit 1gb\nproto-max-bulk-len 5000000\n", &err));
  EXPECT_EQ(c.client_query_buffer_limit, 1024ll * 1024 * 1024);
  EXPECT_EQ(c.proto_max_bulk_len, 5000000);
  ASSERT_TRUE(loadConfigText(&c, "proto-max-bulk-len 2m\n", &err));
  EXPECT_EQ(c.proto_max_bulk_len, 2000000);
}

TEST(Config, SetAndGet) {
  Config c;
  std::string err;
  bool unknown, immutable;
  EXPECT_TRUE(configSet(&c, "timeout", {"30"}, &err, &unknown, &immutable));
  EXPECT_EQ(c.timeout, 30);
  EXPECT_FALSE(configSet(&c, "timeout", {"-1"}, &err, &unknown, &immutable));
  EXPECT_EQ(c.timeout, 30);  // a rejected value leaves the old one
  EXPECT_FALSE(configSet(&c, "databases", {"3"}, &err, &unknown, &immutable));
  EXPECT_TRUE(immutable);
  EXPECT_FALSE(configSet(&c, "nosuch", {"1"}, &err, &unknown, &immutable));
  EXPECT_TRUE(unknown);
  auto got = configGet(c, "time*");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first, "timeout");
  EXPECT_EQ(got[0].second, "30");
  got = configGet(c, "unixsocketperm");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].second, "0");
}

}  // namespace
}  // namespace server
