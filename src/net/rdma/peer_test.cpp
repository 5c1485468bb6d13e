// The rdma transport against a hostile peer: src/rdma-test-peer runs as a
// separate process against an in-process echo listener, and every protocol
// violation must close only that connection, free its resources, and leave
// the listener serving others. Also the start-up checks of listen().
// Needs an RDMA device (the rxe VM) except for the RLIMIT_MEMLOCK test.
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "event/event_loop.h"
#include "net/connection.h"
#include "net/rdma/resources.h"
#include "net/rdma/wire.h"
#include "net/registry.h"

namespace {

constexpr const char* kPeer = "src/rdma-test-peer";

bool devicePresent() {
  DIR* d = opendir("/sys/class/infiniband");
  if (d == nullptr) return false;
  bool any = false;
  while (dirent* e = readdir(d)) any = any || e->d_name[0] != '.';
  closedir(d);
  return any;
}

std::string infoField(const net::ConnectionType* t, const std::string& key) {
  std::string info = t->info();
  size_t p = info.find(key + ":");
  if (p == std::string::npos) return "";
  size_t e = info.find("\r\n", p);
  return info.substr(p + key.size() + 1, e - p - key.size() - 1);
}

// Server side of one accepted connection: echoes, remembers how it ended.
struct ServerConn {
  net::Connection* conn = nullptr;
  size_t bytes = 0;
  bool eof = false, error = false, closed = false;
  std::string last_error;
  std::string out;
};

void closeServer(ServerConn* s) {
  if (s->conn == nullptr) return;
  s->conn->close();
  s->conn = nullptr;
  s->closed = true;
}

void onWritable(net::Connection* c) {
  auto* s = static_cast<ServerConn*>(c->privateData());
  while (!s->out.empty()) {
    ssize_t n = c->write(s->out.data(), s->out.size());
    if (n > 0) {
      s->out.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (c->state() == net::ConnState::kConnected) {
      c->setWriteHandler(onWritable);
      return;
    }
    s->error = true;
    closeServer(s);
    return;
  }
  c->setWriteHandler(nullptr);
}

void onReadable(net::Connection* c) {
  auto* s = static_cast<ServerConn*>(c->privateData());
  char buf[16384];
  for (;;) {
    ssize_t n = c->read(buf, sizeof buf);
    if (n > 0) {
      s->bytes += static_cast<size_t>(n);
      s->out.append(buf, static_cast<size_t>(n));
      onWritable(c);
      if (s->conn == nullptr) return;
      continue;
    }
    if (n == -1 && c->state() == net::ConnState::kConnected) return;
    if (n == 0) s->eof = true;
    if (n == -1) {
      s->error = true;
      s->last_error = c->lastError();
    }
    closeServer(s);
    return;
  }
}

void onAccepted(net::Connection* c) {
  auto* s = static_cast<ServerConn*>(c->privateData());
  if (c->state() != net::ConnState::kConnected) {
    s->error = true;
    closeServer(s);
    return;
  }
  c->setReadHandler(onReadable);
}

class RdmaPeer : public ::testing::Test {
 protected:
  void SetUp() override {
    type_ = net::findType("rdma");
    ASSERT_NE(type_, nullptr);
    if (!devicePresent()) GTEST_SKIP() << "no RDMA device (run in the rxe VM)";
    if (access(kPeer, X_OK) != 0) GTEST_SKIP() << kPeer << " not built";
    const char* a = getenv("RDMA_TEST_ADDR");
    addr_ = a != nullptr ? a : "10.99.0.1";
    std::string err;
    ASSERT_TRUE(type_->configure("rx-size", "65536", &err)) << err;
    loop_ = std::make_unique<event::EventLoop>();
    loop_->setBeforeSleep([](event::EventLoop* l) {
      net::processPendingData();
      if (net::anyPendingData()) l->setDontWait(true);
    });
    loop_->addTimer(10, [](event::EventLoop*, event::TimerId) { return 10; });
    std::mt19937 rng(static_cast<uint32_t>(getpid() ^ time(nullptr)));
    for (int i = 0; i < 20 && listener_ == nullptr; i++) {
      net::ListenSpec spec;
      spec.addrs = {addr_};
      port_ = 21000 + static_cast<int>(rng() % 9000);
      spec.port = port_;
      listener_.reset(type_->listen(loop_.get(), spec, onAccept, this, &err));
    }
    ASSERT_NE(listener_, nullptr) << err;
  }

  void TearDown() override {
    for (auto& s : conns_) closeServer(s.get());
    listener_.reset();
  }

  static void onAccept(net::Connection* c, void* data) {
    auto* t = static_cast<RdmaPeer*>(data);
    t->conns_.push_back(std::make_unique<ServerConn>());
    ServerConn* s = t->conns_.back().get();
    s->conn = c;
    c->setPrivateData(s);
    if (c->accept(onAccepted) == -1) closeServer(s);
  }

  // Runs the peer to completion while serving; returns its exit status and
  // puts its stdout in *out.
  int runPeer(const std::vector<std::string>& args, std::string* out) {
    std::string path = "/tmp/rdma-peer-" + std::to_string(getpid()) + ".out";
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(fd, 1);
      std::vector<std::string> all = {kPeer, "--host", addr_, "--port", std::to_string(port_)};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(kPeer, argv.data());
      _exit(127);
    }
    int status = 0;
    int64_t deadline = event::EventLoop::nowMs() + 60000;
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (event::EventLoop::nowMs() > deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        ADD_FAILURE() << "peer hung";
        break;
      }
      loop_->processEvents(true);
    }
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    *out = ss.str();
    unlink(path.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  template <typename F>
  bool runUntil(F done, int timeout_ms = 10000) {
    int64_t deadline = event::EventLoop::nowMs() + timeout_ms;
    while (!done()) {
      if (event::EventLoop::nowMs() > deadline) return false;
      loop_->processEvents(true);
    }
    return true;
  }

  void expectServing() {
    std::string out;
    EXPECT_EQ(runPeer({"--", "PING"}, &out), 0) << out;
    EXPECT_NE(out.find("reply: *1\r\n$4\r\nPING\r\n"), std::string::npos) << out;
  }

  net::ConnectionType* type_ = nullptr;
  std::unique_ptr<event::EventLoop> loop_;
  std::unique_ptr<net::Listener> listener_;
  std::vector<std::unique_ptr<ServerConn>> conns_;
  std::string addr_;
  int port_ = 0;
};

TEST_F(RdmaPeer, NormalPeerGetsReplies) {
  std::string out;
  // 100 kB commands with 64 KiB RX buffers on both ends: both re-register.
  std::string big(100000, 'v');
  ASSERT_EQ(runPeer({"--rx-size", "65536", "--repeat", "3", "--", "SET", "k", big}, &out), 0)
      << out.substr(0, 200);
  std::string reply = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n" + big + "\r\n";
  size_t n = 0;
  for (size_t p = 0; (p = out.find("reply: " + reply, p)) != std::string::npos; p++) n++;
  EXPECT_EQ(n, 3u);
  EXPECT_NE(infoField(type_, "rdma_reregistrations"), "0");
}

class RdmaHostile : public RdmaPeer, public ::testing::WithParamInterface<std::string> {};

TEST_P(RdmaHostile, ViolationClosesOnlyThatConnection) {
  std::string errors_before = infoField(type_, "rdma_errors");
  std::string objects = infoField(type_, "rdma_verbs_objects");
  std::string out;
  EXPECT_EQ(runPeer({"--mode", GetParam()}, &out), 0) << out;
  EXPECT_NE(out.find("result: server-closed"), std::string::npos) << out;
  ASSERT_EQ(conns_.size(), 1u);
  ASSERT_TRUE(runUntil([&] { return conns_[0]->closed; }));
  EXPECT_TRUE(conns_[0]->error) << "closed without an error";
  EXPECT_NE(infoField(type_, "rdma_errors"), errors_before);
  EXPECT_EQ(infoField(type_, "rdma_verbs_objects"), objects) << "resources not freed";
  expectServing();
}

INSTANTIATE_TEST_SUITE_P(Modes, RdmaHostile,
                         ::testing::Values("bad-magic", "bad-version", "bad-opcode", "zero-addr",
                                           "huge-length", "short-ctrl", "oob-imm", "zero-imm",
                                           "write-no-reg"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (auto& ch : s) ch = ch == '-' ? '_' : ch;
                           return s;
                         });

class RdmaVanishing : public RdmaPeer, public ::testing::WithParamInterface<std::string> {};

TEST_P(RdmaVanishing, PeerGoneMidTransferFreesEverything) {
  std::string objects = infoField(type_, "rdma_verbs_objects");
  std::string pinned = infoField(type_, "rdma_pinned_bytes");
  std::string out;
  EXPECT_EQ(runPeer({"--mode", GetParam()}, &out), 0) << out;
  ASSERT_EQ(conns_.size(), 1u);
  ASSERT_TRUE(runUntil([&] { return conns_[0]->closed; })) << "server never noticed";
  EXPECT_EQ(conns_[0]->bytes, 32u * 1024);
  EXPECT_EQ(infoField(type_, "rdma_verbs_objects"), objects);
  EXPECT_EQ(infoField(type_, "rdma_pinned_bytes"), pinned);
  EXPECT_EQ(infoField(type_, "rdma_connected_clients"), "0");
  expectServing();
}

INSTANTIATE_TEST_SUITE_P(Modes, RdmaVanishing, ::testing::Values("disconnect-mid", "kill-mid"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (auto& ch : s) ch = ch == '-' ? '_' : ch;
                           return s;
                         });

TEST(RdmaListen, RefusesAddressWithoutRdmaDevice) {
  if (!devicePresent()) GTEST_SKIP() << "no RDMA device (run in the rxe VM)";
  event::EventLoop loop;
  net::ListenSpec spec;
  spec.addrs = {"127.0.0.1"};  // lo carries no RDMA device
  spec.port = 21000 + getpid() % 9000;
  std::string err;
  std::unique_ptr<net::Listener> l(net::findType("rdma")->listen(
      &loop, spec, [](net::Connection*, void*) {}, nullptr, &err));
  EXPECT_EQ(l, nullptr);
  EXPECT_NE(err.find("rdma_bind_addr"), std::string::npos) << err;
  EXPECT_NE(err.find("127.0.0.1"), std::string::npos) << err;
}

TEST(RdmaListen, RefusesWhenMemlockTooLow) {
  // In a child: drop CAP_IPC_LOCK (which lifts the limit) and lower
  // RLIMIT_MEMLOCK below what one connection pins.
  pid_t pid = fork();
  if (pid == 0) {
    __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capget, &hdr, data) == 0) {
      data[0].effective &= ~(1u << CAP_IPC_LOCK);
      data[0].permitted &= ~(1u << CAP_IPC_LOCK);
      syscall(SYS_capset, &hdr, data);
    }
    struct rlimit rl = {64 * 1024, 64 * 1024};
    if (setrlimit(RLIMIT_MEMLOCK, &rl) != 0) _exit(3);
    event::EventLoop loop;
    net::ListenSpec spec;
    spec.addrs = {"10.99.0.1"};
    spec.port = 21000 + getpid() % 9000;
    std::string err;
    net::Listener* l = net::findType("rdma")->listen(
        &loop, spec, [](net::Connection*, void*) {}, nullptr, &err);
    bool ok = l == nullptr && err.find("RLIMIT_MEMLOCK") != std::string::npos &&
              err.find("KiB") != std::string::npos;
    if (!ok) fprintf(stderr, "listen error: '%s'\n", err.c_str());
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace

namespace {

// A raw rdma_cm server that accepts and then never sends RegisterLocalAddr:
// the client's handshake must fail after kHandshakeTimeoutMs, not hang, and
// free what it created.
TEST(RdmaClient, HandshakeTimesOutWhenServerNeverRegisters) {
  if (!devicePresent()) GTEST_SKIP() << "no RDMA device (run in the rxe VM)";
  using namespace net::rdma;
  const char* a = getenv("RDMA_TEST_ADDR");
  std::string addr = a != nullptr ? a : "10.99.0.1";
  std::string err;
  EventChannel ch = makeEventChannel(&err);
  ASSERT_TRUE(ch) << err;
  CmId lid = makeCmId(ch.get(), nullptr, &err);
  ASSERT_TRUE(lid) << err;
  sockaddr_in sin = {};
  sin.sin_family = AF_INET;
  inet_pton(AF_INET, addr.c_str(), &sin.sin_addr);
  int port = 0;
  for (int i = 0; i < 20; i++) {
    port = 21000 + static_cast<int>((getpid() * 7 + i * 131) % 9000);
    sin.sin_port = htons(static_cast<uint16_t>(port));
    if (rdma_bind_addr(lid.get(), reinterpret_cast<sockaddr*>(&sin)) == 0) break;
    port = 0;
  }
  ASSERT_NE(port, 0);
  ASSERT_EQ(rdma_listen(lid.get(), 4), 0);

  event::EventLoop loop;
  loop.addTimer(10, [](event::EventLoop*, event::TimerId) { return 10; });
  struct Silent {
    Endpoint ep;  // the accepted side, kept silent
    rdma_event_channel* ch;
  } silent{{}, ch.get()};
  loop.addFileEvent(
      ch->fd, event::kReadable,
      [](event::EventLoop*, int, void* data, int) {
        auto* s = static_cast<Silent*>(data);
        rdma_cm_event* ev = nullptr;
        while (rdma_get_cm_event(s->ch, &ev) == 0) {
          rdma_cm_id* id = ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ? ev->id : nullptr;
          rdma_ack_cm_event(ev);
          if (id == nullptr) continue;
          std::string e;
          s->ep.id = adoptCmId(id);
          if (!s->ep.createVerbs(kMinRxSize, kMinRxSize, 0, &e)) ADD_FAILURE() << e;
          rdma_conn_param p = {};
          p.rnr_retry_count = kRnrRetryCount;
          rdma_accept(id, &p);
        }
      },
      &silent);

  static bool done;
  static net::ConnState final_state;
  static std::string final_error;
  done = false;
  net::ConnectAddr ca;
  ca.host = addr;
  ca.port = port;
  net::Connection* c = net::findType("rdma")->connect(
      &loop, ca,
      [](net::Connection* conn) {
        done = true;
        final_state = conn->state();
        final_error = conn->lastError();
        conn->close();
      },
      &err);
  ASSERT_NE(c, nullptr) << err;
  int64_t start = event::EventLoop::nowMs();
  while (!done && event::EventLoop::nowMs() - start < kHandshakeTimeoutMs + 20000) {
    loop.processEvents(true);
  }
  int64_t took = event::EventLoop::nowMs() - start;
  ASSERT_TRUE(done) << "connect callback never ran";
  EXPECT_EQ(final_state, net::ConnState::kError);
  EXPECT_NE(final_error.find("timed out"), std::string::npos) << final_error;
  EXPECT_GE(took, kHandshakeTimeoutMs - 100);
  loop.removeFileEvent(ch->fd, event::kReadable);
  silent.ep.reset();
  EXPECT_EQ(infoField(net::findType("rdma"), "rdma_connections"), "0");
}

}  // namespace
