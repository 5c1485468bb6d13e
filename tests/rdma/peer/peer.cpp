// rdma-test-peer: a raw-verbs client of the rdma transport that can behave
// or misbehave on purpose, for the server's end-to-end tests. It speaks the
// wire protocol by hand (not through net::Connection), so it can send what a
// correct implementation never would. Usage: see kUsage below or --help.
#include <arpa/inet.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "event/event_loop.h"
#include "net/rdma/resources.h"
#include "net/rdma/wire.h"
#include "resp_reply.h"

namespace peer {
namespace {

using namespace net::rdma;

const char* kUsage =
    "Usage: rdma-test-peer --host ADDR --port PORT [--mode MODE] [--timeout-ms N]\n"
    "                      [--rx-size BYTES] [--repeat N] [--pipeline]\n"
    "                      [--connections N] [-- CMD ARG...]\n"
    "Connects to an rdma server and plays MODE:\n"
    "  normal        handshake, send CMD ARG... as a RESP command (default PING)\n"
    "                --repeat N times, print each reply; exit 0 once all arrived.\n"
    "                --pipeline sends all N before reading any reply;\n"
    "                --connections N does it all on N connections, one after another\n"
    "  bad-magic     after the server's RegisterLocalAddr, send a control message\n"
    "  bad-version   that is invalid in the named way (short-ctrl: 16 bytes;\n"
    "  bad-opcode    huge-length: 1 GiB; zero-addr: address 0)\n"
    "  zero-addr\n"
    "  huge-length\n"
    "  short-ctrl\n"
    "  oob-imm       register, then a data write whose immediate claims more bytes\n"
    "                than the server's RX buffer has left\n"
    "  zero-imm      register, then a data write with immediate 0\n"
    "  write-no-reg  data write to an address/rkey the server never registered\n"
    "  disconnect-mid  send the first 32 KiB of a 1 MB SET, then disconnect\n"
    "  kill-mid        same, then _exit() without disconnecting\n"
    "Exit status: 0 the expected outcome (normal: every reply arrived; attack\n"
    "modes: the server closed the connection; *-mid: data was sent), 1 not (the\n"
    "server kept the connection / no reply in time), 2 could not connect or set\n"
    "up, 77 no RDMA device. One result line goes to stdout:\n"
    "  'reply: <raw RESP>' per reply, 'result: server-closed', 'result: still-open',\n"
    "  'result: sent-partial'.\n";

struct Options {
  std::string host;
  int port = 0;
  std::string mode = "normal";
  int timeout_ms = 5000;
  uint32_t rx_size = kDefaultRxSize;
  int repeat = 1;
  bool pipeline = false;
  int connections = 1;
  std::vector<std::string> cmd;
};

[[noreturn]] void die(int code, const std::string& msg) {
  fprintf(stderr, "rdma-test-peer: %s\n", msg.c_str());
  fflush(stdout);
  exit(code);
}

class Peer {
 public:
  explicit Peer(const Options& o) : opts_(o) {}

  void connect();
  // Processes events until `done` or the deadline; false on time-out.
  template <typename F>
  bool pumpUntil(F done, int timeout_ms);
  // Posts a control message; with wait, until its completion.
  void sendCtrl(const wire::CtrlMsg& m, uint32_t len, bool wait = true);
  void registerRx(bool wait = true) {
    sendCtrl(wire::encodeRegister(myRegion()), sizeof(wire::CtrlMsg), wait);
  }
  // RDMA_WRITE_WITH_IMM of `data` at the peer's TX offset (or to addr/rkey).
  void writeImm(const std::string& data, uint32_t imm, uint64_t addr, uint32_t rkey);
  void send(const std::string& data);
  void disconnect() { rdma_disconnect(ep_.id.get()); }

  bool closed() const { return closed_; }
  bool haveRemote() const { return have_remote_; }
  const wire::Region& remote() const { return remote_; }
  std::string& received() { return received_; }

 private:
  wire::Region myRegion() const {
    return {reinterpret_cast<uintptr_t>(ep_.rx.data()), ep_.rx.size, ep_.rx.mr->rkey};
  }
  rdma_cm_event_type waitCm(int timeout_ms);
  void pollOnce(int timeout_ms);
  void drain();
  void postRecv(uint64_t slot);
  void waitSend();

  Options opts_;
  Endpoint ep_;
  bool closed_ = false;
  bool have_remote_ = false;
  wire::Region remote_;
  uint32_t tx_off_ = 0;
  uint32_t rx_tail_ = 0;
  int sends_done_ = 0;
  int sends_posted_ = 0;
  uint32_t ctrl_next_ = 0;
  std::string received_;
};

rdma_cm_event_type Peer::waitCm(int timeout_ms) {
  pollfd p = {ep_.channel->fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) die(2, "timed out waiting for an rdma_cm event");
  rdma_cm_event* ev = nullptr;
  if (rdma_get_cm_event(ep_.channel.get(), &ev) != 0) die(2, callFailed("rdma_get_cm_event"));
  rdma_cm_event_type t = ev->event;
  rdma_ack_cm_event(ev);
  return t;
}

void Peer::connect() {
  std::string err;
  ep_.channel = makeEventChannel(&err);
  if (!ep_.channel) die(errno == ENODEV || errno == ENOENT ? 77 : 2, err);
  ep_.id = makeCmId(ep_.channel.get(), this, &err);
  if (!ep_.id) die(2, err);
  addrinfo hints = {}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(opts_.host.c_str(), std::to_string(opts_.port).c_str(), &hints, &res) != 0) {
    die(2, "cannot resolve " + opts_.host);
  }
  int rc = rdma_resolve_addr(ep_.id.get(), nullptr, res->ai_addr, kResolveTimeoutMs);
  freeaddrinfo(res);
  if (rc != 0) die(errno == ENODEV ? 77 : 2, callFailed("rdma_resolve_addr"));
  if (waitCm(opts_.timeout_ms) != RDMA_CM_EVENT_ADDR_RESOLVED) die(2, "address not resolved");
  if (rdma_resolve_route(ep_.id.get(), kResolveTimeoutMs) != 0) {
    die(2, callFailed("rdma_resolve_route"));
  }
  if (waitCm(opts_.timeout_ms) != RDMA_CM_EVENT_ROUTE_RESOLVED) die(2, "route not resolved");
  if (!ep_.createVerbs(opts_.rx_size, -1, &err)) die(2, err);
  for (uint64_t slot = 0; slot < kRecvDepth; slot++) postRecv(slot);
  rdma_conn_param param = {};
  param.retry_count = kRetryCount;
  param.rnr_retry_count = kRnrRetryCount;
  if (rdma_connect(ep_.id.get(), &param) != 0) die(2, callFailed("rdma_connect"));
  rdma_cm_event_type t = waitCm(opts_.timeout_ms);
  if (t != RDMA_CM_EVENT_ESTABLISHED) {
    die(2, std::string("connect failed: ") + rdma_event_str(t));
  }
}

void Peer::postRecv(uint64_t slot) {
  ibv_sge sge = {reinterpret_cast<uintptr_t>(ep_.ctrl_rx.data() + slot * 32), 32,
                 ep_.ctrl_rx.mr->lkey};
  ibv_recv_wr wr = {}, *bad = nullptr;
  wr.wr_id = slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  if (int rc = ibv_post_recv(ep_.qp.get(), &wr, &bad); rc != 0) {
    die(2, std::string("ibv_post_recv failed: ") + strerror(rc));
  }
}

void Peer::pollOnce(int timeout_ms) {
  pollfd p[2] = {{ep_.channel->fd, POLLIN, 0}, {ep_.comp->fd, POLLIN, 0}};
  if (poll(p, 2, timeout_ms) <= 0) return;
  rdma_cm_event* ev = nullptr;
  while (rdma_get_cm_event(ep_.channel.get(), &ev) == 0) {
    if (ev->event == RDMA_CM_EVENT_DISCONNECTED) closed_ = true;
    rdma_ack_cm_event(ev);
  }
  ibv_cq* cq = nullptr;
  void* ctx = nullptr;
  bool got = false;
  while (ibv_get_cq_event(ep_.comp.get(), &cq, &ctx) == 0) {
    ibv_ack_cq_events(cq, 1);
    got = true;
  }
  if (got) ibv_req_notify_cq(ep_.cq.get(), 0);
  drain();
}

void Peer::drain() {
  ibv_wc wc[16];
  int n;
  while ((n = ibv_poll_cq(ep_.cq.get(), 16, wc)) > 0) {
    for (int i = 0; i < n; i++) {
      if (wc[i].status != IBV_WC_SUCCESS) {
        // Our QP is in error: the server's side is gone or refused us.
        if (wc[i].status != IBV_WC_WR_FLUSH_ERR) {
          fprintf(stderr, "rdma-test-peer: completion: %s\n", ibv_wc_status_str(wc[i].status));
        }
        sends_done_++;
        continue;
      }
      if (wc[i].opcode == IBV_WC_RECV) {
        wire::Region r;
        std::string err;
        if (!wire::decodeRegister(ep_.ctrl_rx.data() + wc[i].wr_id * 32, wc[i].byte_len, &r,
                                  &err)) {
          die(1, "server sent a bad control message: " + err);
        }
        remote_ = r;
        have_remote_ = true;
        tx_off_ = 0;
        postRecv(wc[i].wr_id);
      } else if (wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
        uint32_t len = ntohl(wc[i].imm_data);
        std::string err;
        if (!wire::checkImmediate(len, rx_tail_, ep_.rx.size, &err)) die(1, "server: " + err);
        received_.append(reinterpret_cast<char*>(ep_.rx.data()) + rx_tail_, len);
        rx_tail_ += len;
        if (rx_tail_ == ep_.rx.size) {
          rx_tail_ = 0;  // consumed at once (copied out): hand it back
          registerRx(false);
        }
        postRecv(wc[i].wr_id);
      } else {
        sends_done_++;
      }
    }
  }
}

template <typename F>
bool Peer::pumpUntil(F done, int timeout_ms) {
  int64_t deadline = event::EventLoop::nowMs() + timeout_ms;
  while (!done()) {
    int64_t left = deadline - event::EventLoop::nowMs();
    if (left <= 0) return false;
    pollOnce(static_cast<int>(left < 50 ? left : 50));
    drain();  // also reaps completions whose event was not requested
  }
  return true;
}

void Peer::waitSend() {
  if (!pumpUntil([&] { return sends_done_ >= sends_posted_ || closed_; }, opts_.timeout_ms)) {
    die(1, "send did not complete");
  }
}

void Peer::sendCtrl(const wire::CtrlMsg& m, uint32_t len, bool wait) {
  uint8_t* slot = ep_.ctrl_tx.data() + (ctrl_next_++ % kCtrlSlots) * sizeof m;
  memcpy(slot, &m, sizeof m);
  ibv_sge sge = {reinterpret_cast<uintptr_t>(slot), len, ep_.ctrl_tx.mr->lkey};
  ibv_send_wr wr = {}, *bad = nullptr;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  if (int rc = ibv_post_send(ep_.qp.get(), &wr, &bad); rc != 0) {
    die(2, std::string("ibv_post_send failed: ") + strerror(rc));
  }
  sends_posted_++;
  if (wait) waitSend();
}

void Peer::writeImm(const std::string& data, uint32_t imm, uint64_t addr, uint32_t rkey) {
  memcpy(ep_.tx.data(), data.data(), data.size());
  ibv_sge sge = {reinterpret_cast<uintptr_t>(ep_.tx.data()), static_cast<uint32_t>(data.size()),
                 ep_.tx.mr->lkey};
  ibv_send_wr wr = {}, *bad = nullptr;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.imm_data = htonl(imm);
  wr.wr.rdma.remote_addr = addr;
  wr.wr.rdma.rkey = rkey;
  if (int rc = ibv_post_send(ep_.qp.get(), &wr, &bad); rc != 0) {
    die(2, std::string("ibv_post_send failed: ") + strerror(rc));
  }
  sends_posted_++;
  waitSend();
}

// Sends a byte stream the way the transport does: in chunks that fit the
// server's RX buffer, waiting for its re-registration when it is full.
void Peer::send(const std::string& data) {
  size_t pos = 0;
  while (pos < data.size()) {
    if (!pumpUntil([&] { return (have_remote_ && tx_off_ < remote_.length) || closed_; },
                   opts_.timeout_ms)) {
      die(1, "server never re-registered its RX buffer");
    }
    if (closed_) die(1, "server closed the connection while sending");
    size_t n = std::min<size_t>({data.size() - pos, remote_.length - tx_off_, ep_.tx.size});
    // Advance before waiting for the completion: the server may drain and
    // re-register (offset back to 0) while we wait.
    uint64_t at = remote_.addr + tx_off_;
    tx_off_ += static_cast<uint32_t>(n);
    writeImm(data.substr(pos, n), static_cast<uint32_t>(n), at, remote_.key);
    pos += n;
  }
}

std::string encodeCommand(const std::vector<std::string>& words) {
  std::string s = "*" + std::to_string(words.size()) + "\r\n";
  for (const auto& w : words) s += "$" + std::to_string(w.size()) + "\r\n" + w + "\r\n";
  return s;
}

int run(const Options& o) {
  Peer p(o);
  p.connect();
  if (!p.pumpUntil([&] { return p.haveRemote() || p.closed(); }, o.timeout_ms)) {
    die(1, "the server never sent RegisterLocalAddr");
  }
  auto expectClose = [&] {
    bool closed = p.pumpUntil([&] { return p.closed(); }, o.timeout_ms);
    printf("result: %s\n", closed ? "server-closed" : "still-open");
    return closed ? 0 : 1;
  };
  wire::CtrlMsg m = wire::encodeRegister({0x10000, kDefaultRxSize, 1});
  const std::string& mode = o.mode;
  if (mode == "normal") {
    p.registerRx();
    std::string cmd = encodeCommand(o.cmd.empty() ? std::vector<std::string>{"PING"} : o.cmd);
    if (o.pipeline) {
      // One stream of every command: the server parses many per RX chunk and
      // its replies pile up in our RX buffer while we are still sending.
      std::string all;
      all.reserve(cmd.size() * o.repeat);
      for (int i = 0; i < o.repeat; i++) all += cmd;
      p.send(all);
    }
    for (int i = 0; i < o.repeat; i++) {
      if (!o.pipeline) p.send(cmd);
      size_t end = 0;
      if (!p.pumpUntil([&] { return (end = replyEnd(p.received())) != 0 || p.closed(); },
                       o.timeout_ms) ||
          end == 0) {
        printf("result: %s\n", p.closed() ? "server-closed" : "no-reply");
        return 1;
      }
      printf("reply: %s\n", p.received().substr(0, end).c_str());
      p.received().erase(0, end);
    }
    p.disconnect();
    return 0;
  }
  if (mode == "bad-magic" || mode == "bad-version" || mode == "bad-opcode" || mode == "zero-addr" ||
      mode == "huge-length" || mode == "short-ctrl") {
    if (mode == "bad-magic") m.magic = 'X';
    if (mode == "bad-version") m.version = 99;
    if (mode == "bad-opcode") m.opcode = 7;
    if (mode == "zero-addr") m.addr = 0;
    if (mode == "huge-length") m.length = htonl(1u << 30);
    p.sendCtrl(m, mode == "short-ctrl" ? 16 : sizeof m);
    return expectClose();
  }
  if (mode == "oob-imm" || mode == "zero-imm") {
    p.registerRx();
    const wire::Region& r = p.remote();
    p.writeImm("0123456789abcdef", mode == "zero-imm" ? 0 : r.length + 1, r.addr, r.key);
    return expectClose();
  }
  if (mode == "write-no-reg") {
    p.registerRx();
    p.writeImm("0123456789abcdef", 16, 0x10000, p.remote().key ^ 0x5a5a5a5a);
    return expectClose();
  }
  if (mode == "disconnect-mid" || mode == "kill-mid") {
    p.registerRx();
    std::string big = encodeCommand({"SET", "rdma-test-peer:partial", std::string(1000000, 'v')});
    p.send(big.substr(0, 32 * 1024));
    printf("result: sent-partial\n");
    fflush(stdout);
    if (mode == "kill-mid") _exit(0);  // the kernel tears the connection down
    p.disconnect();
    return 0;
  }
  die(2, "unknown mode '" + mode + "' (see --help)");
}

}  // namespace
}  // namespace peer

int main(int argc, char** argv) {
  peer::Options o;
  static const option longopts[] = {{"host", required_argument, nullptr, 'h'},
                                    {"port", required_argument, nullptr, 'p'},
                                    {"mode", required_argument, nullptr, 'm'},
                                    {"timeout-ms", required_argument, nullptr, 't'},
                                    {"rx-size", required_argument, nullptr, 'r'},
                                    {"repeat", required_argument, nullptr, 'n'},
                                    {"pipeline", no_argument, nullptr, 'P'},
                                    {"connections", required_argument, nullptr, 'c'},
                                    {"help", no_argument, nullptr, 'H'},
                                    {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h:p:m:t:r:n:Pc:", longopts, nullptr)) != -1) {
    switch (c) {
      case 'h':
        o.host = optarg;
        break;
      case 'p':
        o.port = atoi(optarg);
        break;
      case 'm':
        o.mode = optarg;
        break;
      case 't':
        o.timeout_ms = atoi(optarg);
        break;
      case 'r':
        o.rx_size = static_cast<uint32_t>(strtoul(optarg, nullptr, 10));
        break;
      case 'n':
        o.repeat = atoi(optarg);
        break;
      case 'P':
        o.pipeline = true;
        break;
      case 'c':
        o.connections = atoi(optarg);
        break;
      case 'H':
        fputs(peer::kUsage, stdout);
        return 0;
      default:
        fputs(peer::kUsage, stderr);
        return 2;
    }
  }
  for (int i = optind; i < argc; i++) o.cmd.push_back(argv[i]);
  if (o.host.empty() || o.port <= 0 || o.timeout_ms <= 0 || o.repeat <= 0 || o.connections <= 0) {
    fputs(peer::kUsage, stderr);
    return 2;
  }
  if (o.rx_size < net::rdma::kMinRxSize || o.rx_size > net::rdma::kMaxRxSize) {
    fprintf(stderr, "rdma-test-peer: --rx-size out of bounds\n");
    return 2;
  }
  // Each round is a fresh Peer (its verbs resources freed before the next).
  for (int i = 0; i < o.connections; i++) {
    if (int rc = peer::run(o); rc != 0) return rc;
  }
  return 0;
}
