// Client tests against a real server: Debian's /usr/bin/redis-server on a
// free loopback port and a unix socket (skipped when it is not installed).
#include "client/client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace client {
namespace {

constexpr const char* kServer = "/usr/bin/redis-server";

int freePort() {
  // Bind to port 0 and let the kernel choose; the tiny race before the
  // server binds it is acceptable for a test.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa = {};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  socklen_t len = sizeof(sa);
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  int port = ntohs(sa.sin_port);
  close(fd);
  return port;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kServer, X_OK) != 0) GTEST_SKIP() << kServer << " not installed";
    port_ = freePort();
    dir_ = "/tmp/client_test." + std::to_string(getpid());
    std::string mk = "mkdir -p " + dir_;
    ASSERT_EQ(system(mk.c_str()), 0);
    sock_ = dir_ + "/redis.sock";
    pid_ = fork();
    if (pid_ == 0) {
      std::string port = std::to_string(port_);
      execl(kServer, kServer, "--port", port.c_str(), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", dir_.c_str(), "--unixsocket", sock_.c_str(), "--logfile",
            "/dev/null", static_cast<char*>(nullptr));
      _exit(127);
    }
    // Wait until it answers.
    for (int i = 0; i < 100; i++) {
      Client c;
      Reply r;
      if (c.connect(tcp(), 200) && c.call({"PING"}, &r, 1000)) return;
      usleep(50 * 1000);
    }
    FAIL() << "redis-server did not start on port " << port_;
  }
  void TearDown() override {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    if (!dir_.empty()) {
      std::string rm = "rm -rf " + dir_;
      (void)system(rm.c_str());
    }
  }
  Endpoint tcp() const {
    Endpoint ep;
    ep.port = port_;
    return ep;
  }
  Endpoint unixSocket() const {
    Endpoint ep;
    ep.type = "unix";
    ep.path = sock_;
    return ep;
  }

  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  std::string sock_;
};

TEST_F(ServerTest, BlockingCallsOverTcpAndUnix) {
  for (const Endpoint& ep : {tcp(), unixSocket()}) {
    Client c;
    ASSERT_TRUE(c.connect(ep, 2000)) << c.lastError();
    Reply r;
    std::string value("bin\0\r\nary", 9);
    ASSERT_TRUE(c.call({"SET", "k:" + ep.type, value}, &r));
    EXPECT_EQ(r.type, ReplyType::kStatus);
    EXPECT_EQ(r.str, "OK");
    ASSERT_TRUE(c.call({"GET", "k:" + ep.type}, &r));
    EXPECT_EQ(r.type, ReplyType::kBulk);
    EXPECT_EQ(r.str, value);
    ASSERT_TRUE(c.call({"NOSUCHCOMMAND"}, &r));
    EXPECT_TRUE(r.isError());
    EXPECT_EQ(r.str.rfind("ERR unknown command", 0), 0u) << r.str;
  }
}

TEST_F(ServerTest, Resp3Types) {
  Client c;
  ASSERT_TRUE(c.connect(tcp(), 2000));
  Reply r;
  ASSERT_TRUE(c.call({"HELLO", "3"}, &r));
  ASSERT_EQ(r.type, ReplyType::kMap);
  ASSERT_TRUE(c.call({"HSET", "h", "f", "v"}, &r));
  ASSERT_TRUE(c.call({"HGETALL", "h"}, &r));
  ASSERT_EQ(r.type, ReplyType::kMap);
  ASSERT_EQ(r.elements.size(), 2u);
  EXPECT_EQ(r.elements[1].str, "v");
  ASSERT_TRUE(c.call({"ZADD", "z", "1.5", "m"}, &r));
  ASSERT_TRUE(c.call({"ZSCORE", "z", "m"}, &r));
  EXPECT_EQ(r.type, ReplyType::kDouble);
  EXPECT_DOUBLE_EQ(r.dval, 1.5);
  ASSERT_TRUE(c.call({"GET", "missing"}, &r));
  EXPECT_EQ(r.type, ReplyType::kNil);
}

TEST_F(ServerTest, LargeValueRoundTrip) {
  Client c;
  ASSERT_TRUE(c.connect(tcp(), 2000));
  std::string big(8 * 1024 * 1024 + 7, 'x');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>('a' + i % 26);
  Reply r;
  ASSERT_TRUE(c.call({"SET", "big", big}, &r));
  ASSERT_TRUE(c.call({"GET", "big"}, &r));
  EXPECT_EQ(r.str.size(), big.size());
  EXPECT_TRUE(r.str == big);
}

TEST_F(ServerTest, ConnectFailuresSayWhy) {
  Client c;
  Endpoint ep = tcp();
  ep.port = freePort();  // nobody listens there
  EXPECT_FALSE(c.connect(ep, 2000));
  EXPECT_NE(c.lastError().find("Connection refused"), std::string::npos) << c.lastError();
  Endpoint bad = unixSocket();
  bad.path = dir_ + "/nope.sock";
  EXPECT_FALSE(c.connect(bad, 2000));
  EXPECT_NE(c.lastError().find("No such file or directory"), std::string::npos);
  Endpoint none;
  none.type = "no-such-transport";
  EXPECT_FALSE(c.connect(none, 2000));
  EXPECT_NE(c.lastError().find("not compiled in"), std::string::npos);
}

TEST_F(ServerTest, CallTimesOutAndClosesTheConnection) {
  Client c;
  ASSERT_TRUE(c.connect(tcp(), 2000));
  Reply r;
  int64_t start = event::EventLoop::nowMs();
  EXPECT_FALSE(c.call({"BLPOP", "emptylist", "0"}, &r, 150));
  int64_t took = event::EventLoop::nowMs() - start;
  EXPECT_GE(took, 140);
  EXPECT_LT(took, 2000);
  EXPECT_EQ(c.lastError(), "timeout");
  EXPECT_FALSE(c.connected());
  ASSERT_TRUE(c.connect(tcp(), 2000));
  ASSERT_TRUE(c.call({"PING"}, &r));
  EXPECT_EQ(r.str, "PONG");
}

TEST_F(ServerTest, ServerClosingFailsQueuedCallbacks) {
  Client victim;
  ASSERT_TRUE(victim.connect(tcp(), 2000));
  Reply r;
  ASSERT_TRUE(victim.call({"CLIENT", "SETNAME", "victim"}, &r));
  ASSERT_TRUE(victim.call({"CLIENT", "ID"}, &r));
  std::string id = std::to_string(r.integer);
  int failed = 0;
  bool disconnected = false;
  victim.setDisconnectHandler([&] { disconnected = true; });
  victim.command({"BLPOP", "never", "0"}, [&](Reply* rep) { failed += rep == nullptr; });
  victim.command({"PING"}, [&](Reply* rep) { failed += rep == nullptr; });
  Client killer;
  ASSERT_TRUE(killer.connect(tcp(), 2000));
  ASSERT_TRUE(killer.call({"CLIENT", "KILL", "ID", id}, &r));
  EXPECT_EQ(r.integer, 1);
  victim.waitUntil([&] { return disconnected; }, 2000);
  EXPECT_TRUE(disconnected);
  EXPECT_EQ(failed, 2);
  EXPECT_EQ(victim.lastError(), "Server closed the connection");
  EXPECT_FALSE(victim.call({"PING"}, &r));
}

// Many clients on one loop, pipelined: replies arrive in order per client.
TEST_F(ServerTest, AsyncClientsShareOneLoop) {
  event::EventLoop loop;
  installLoopHooks(&loop);
  constexpr int kClients = 8;
  constexpr int kPerClient = 200;
  std::vector<std::unique_ptr<Client>> clients;
  int connected = 0;
  for (int i = 0; i < kClients; i++) {
    clients.push_back(std::make_unique<Client>(&loop));
    clients.back()->connectAsync(i % 2 ? tcp() : unixSocket(), [&](bool ok) {
      EXPECT_TRUE(ok);
      connected++;
    });
  }
  int done = 0;
  int out_of_order = 0;
  for (int i = 0; i < kClients; i++) {
    auto* c = clients[i].get();
    std::string key = "ctr" + std::to_string(i);
    for (int j = 1; j <= kPerClient; j++) {
      // Queued while still connecting: sent once connected.
      c->command({"INCR", key}, [&, j](Reply* r) {
        ASSERT_NE(r, nullptr);
        if (r->integer != j) out_of_order++;
        done++;
      });
    }
  }
  int64_t deadline = event::EventLoop::nowMs() + 5000;
  while (done < kClients * kPerClient && event::EventLoop::nowMs() < deadline) {
    loop.processEvents(true);
  }
  EXPECT_EQ(connected, kClients);
  EXPECT_EQ(done, kClients * kPerClient);
  EXPECT_EQ(out_of_order, 0);
}

struct SkimCount {
  int replies = 0;
  int errors = 0;
  std::string last_error;
};

TEST_F(ServerTest, SkimModeCountsPipelinedReplies) {
  Client c;
  ASSERT_TRUE(c.connect(tcp(), 2000));
  SkimCount count;
  c.setSkimHandler(
      [](Client*, const ReplySummary& s, void* data) {
        auto* sc = static_cast<SkimCount*>(data);
        sc->replies++;
        if (s.type == ReplyType::kError) {
          sc->errors++;
          sc->last_error = std::string(s.error);
        }
      },
      &count);
  std::string batch;
  for (int i = 0; i < 1000; i++) appendCommand(&batch, std::vector<std::string_view>{"INCR", "n"});
  appendCommand(&batch, std::vector<std::string_view>{"LPUSH", "n", "x"});  // WRONGTYPE
  c.appendRaw(batch);
  ASSERT_TRUE(c.flush());
  EXPECT_TRUE(c.waitUntil([&] { return count.replies == 1001; }, 5000));
  EXPECT_EQ(count.errors, 1);
  EXPECT_EQ(count.last_error.rfind("WRONGTYPE", 0), 0u) << count.last_error;
}

}  // namespace
}  // namespace client
