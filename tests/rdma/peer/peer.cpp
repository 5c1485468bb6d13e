// rdma-test-peer: a raw-verbs client (or, with --listen, server) of the rdma
// transport that can behave or misbehave on purpose, in any of the three
// dialects, for the end-to-end tests. It speaks the wire protocol by hand
// (link.h), so it can send what a correct implementation never would.
// Usage: see kUsage below or --help.
#include <getopt.h>
#include <netdb.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "event/event_loop.h"
#include "link.h"
#include "peer.h"
#include "resp_reply.h"

namespace peer {
namespace {

using namespace net::rdma;

const char* kUsage =
    "Usage: rdma-test-peer --host ADDR --port PORT [--mode MODE] [--dialect D]\n"
    "                      [--timeout-ms N] [--rx-size BYTES] [--repeat N] [--pipeline]\n"
    "                      [--connections N] [--listen] [-- CMD ARG...]\n"
    "                      [--read-resources N] [--flow] [--pause-ms N]\n"
    "--dialect ours|legacy|seed|valkey (default ours) picks the behaviour: ours\n"
    "sends kHello in the connect private data and waits for the server to speak;\n"
    "legacy is ours as before the dialects (no kHello, no read resources asked);\n"
    "seed behaves as the 2021 prototype (register 'R' version 0 on ESTABLISHED,\n"
    "data writes with immediate 0); valkey as Valkey (RegisterXferMemory on\n"
    "ESTABLISHED, imm = byte count). --read-resources N: RDMA-read resources asked\n"
    "in the connect request (default: ours/legacy 0, seed/valkey 1 as libvalkey).\n"
    "--flow (ours): offer flow control (kFeatureFlow after kHello); used if the\n"
    "server's accept takes it ('result: flow on|off' is printed).\n"
    "--listen: serve instead of connect: a small RESP server (PING, ECHO, SET,\n"
    "GET, DEL, CONFIG, unknown -> error; VANISH: every QP to the error state,\n"
    "then silence) on ADDR:PORT speaking seed, valkey or ours; prints\n"
    "'result: listening' when ready; runs until killed or --connections closed.\n"
    "Client modes:\n"
    "  normal        handshake, send CMD ARG... as a RESP command (default PING)\n"
    "                --repeat N times, print each reply; exit 0 once all arrived.\n"
    "                --pipeline sends all N before reading any reply;\n"
    "                --connections N does it all on N connections, one after another\n"
    "  bad-magic     (ours) after the server's RegisterLocalAddr, send a control\n"
    "  bad-version   message that is invalid in the named way (short-ctrl: 16\n"
    "  bad-opcode    bytes; huge-length: 1 GiB; zero-addr: address 0)\n"
    "  zero-addr\n"
    "  huge-length\n"
    "  short-ctrl\n"
    "  oob-imm       register, then a data write whose immediate claims more bytes\n"
    "                than the server's RX buffer has left\n"
    "  zero-imm      register, then a data write with immediate 0 (valid in seed)\n"
    "  write-no-reg  data write to an address/rkey the server never registered\n"
    "  disconnect-mid  send the first 32 KiB of a 1 MB SET, then disconnect\n"
    "  kill-mid        same, then _exit() without disconnecting\n"
    "  garbage-first   first control message matches no dialect (0xee bytes)\n"
    "  mixed-first     first control message 'R', version 0, opcode 3 (a seed\n"
    "                  head with Valkey's register opcode)\n"
    "  switch-dialect  handshake and PING in --dialect, then a register message\n"
    "                  in the other non-ours dialect\n"
    "  bad-feature     (valkey) SetClientFeature asking for feature bit 0\n"
    "  feature-query   (valkey) GetServerFeature; prints 'result: features N'\n"
    "  keepalive-wait  (valkey) waits for the server's Keepalive; 'result: keepalive'\n"
    "  silent          connect without kHello and never send anything\n"
    "  vanish          handshake and PING, then put the QP in the error state\n"
    "                  without disconnecting and stay alive --timeout-ms\n"
    "  no-credit     (--flow) send CMD, never credit what arrives; after --timeout-ms\n"
    "                print 'result: stalled N' (N bytes received), disconnect\n"
    "  over-credit   (--flow) a Credit for far more bytes than the server wrote\n"
    "  over-write    (--flow) four writes of the server's whole ring at once,\n"
    "                past its credit; prints 'result: ready' and waits --pause-ms\n"
    "                before them\n"
    "  bad-switch    (--flow) Switched, though the server announced no new ring\n"
    "  hold          handshake and PING on --connections N connections held at\n"
    "                once; 'result: holding N', then idle --timeout-ms, disconnect\n"
    "  fill          as hold, but a connection the server refuses ends the opening:\n"
    "                the K accepted before it are held ('result: holding K')\n"
    "Exit status: 0 the expected outcome (normal: every reply arrived; attack\n"
    "modes: the server closed the connection; *-mid: data was sent; vanish: done),\n"
    "1 not (the server kept the connection / no reply in time), 2 could not connect\n"
    "or set up, 77 no RDMA device. Result lines on stdout:\n"
    "  'reply: <raw RESP>' per reply, 'result: server-closed', 'result: still-open',\n"
    "  'result: sent-partial', 'result: no-reply', 'result: vanished'.\n";

[[noreturn]] void die(int code, const std::string& msg) {
  fprintf(stderr, "rdma-test-peer: %s\n", msg.c_str());
  fflush(stdout);
  exit(code);
}

class Client {
 public:
  Client(const Options& o, DialectId d) : opts_(o), link_(d, o.rx_size) {}

  // Dies on any failure, or returns false when the server refused the
  // connection and refused_ok is set.
  bool connect(bool hello, bool refused_ok = false);
  // Handshake in the link's dialect; dies unless the server registered.
  void handshake();
  template <typename F>
  bool pumpUntil(F done, int timeout_ms) {
    int64_t deadline = event::EventLoop::nowMs() + timeout_ms;
    while (!done()) {
      int64_t left = deadline - event::EventLoop::nowMs();
      if (left <= 0) return false;
      pollOnce(static_cast<int>(left < 50 ? left : 50));
    }
    return true;
  }
  void waitSends() {
    if (!pumpUntil([&] { return link_.sendsPending() == 0 || link_.closed(); }, opts_.timeout_ms))
      die(1, "send did not complete");
  }
  // Sends a byte stream the way the dialect does, waiting for the other
  // side's re-registration whenever its RX buffer is full.
  void send(const std::string& data) {
    link_.queue(data);
    link_.flush();
    if (!pumpUntil([&] { return link_.outEmpty() || link_.closed(); }, opts_.timeout_ms)) {
      die(1, "server never re-registered its RX buffer");
    }
    if (link_.closed() && !link_.outEmpty()) die(1, "server closed the connection while sending");
  }
  Link& link() { return link_; }

 private:
  rdma_cm_event_type waitCm(int timeout_ms);
  void pollOnce(int timeout_ms);

  Options opts_;
  Link link_;
};

rdma_cm_event_type Client::waitCm(int timeout_ms) {
  int fd = link_.ep().channel->fd;
  waitFds(&fd, 1, timeout_ms);
  rdma_cm_event* ev = nullptr;
  if (rdma_get_cm_event(link_.ep().channel.get(), &ev) != 0) {
    die(2, "timed out waiting for an rdma_cm event");
  }
  rdma_cm_event_type t = ev->event;
  rdma_ack_cm_event(ev);
  return t;
}

bool Client::connect(bool hello, bool refused_ok) {
  std::string err;
  Endpoint& ep = link_.ep();
  ep.channel = makeEventChannel(&err);
  if (!ep.channel) die(errno == ENODEV || errno == ENOENT ? 77 : 2, err);
  ep.id = makeCmId(ep.channel.get(), this, &err);
  if (!ep.id) die(2, err);
  addrinfo hints = {}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(opts_.host.c_str(), std::to_string(opts_.port).c_str(), &hints, &res) != 0) {
    die(2, "cannot resolve " + opts_.host);
  }
  int rc = rdma_resolve_addr(ep.id.get(), nullptr, res->ai_addr, kResolveTimeoutMs);
  freeaddrinfo(res);
  if (rc != 0) die(errno == ENODEV ? 77 : 2, callFailed("rdma_resolve_addr"));
  if (waitCm(opts_.timeout_ms) != RDMA_CM_EVENT_ADDR_RESOLVED) die(2, "address not resolved");
  if (rdma_resolve_route(ep.id.get(), kResolveTimeoutMs) != 0) {
    die(2, callFailed("rdma_resolve_route"));
  }
  if (waitCm(opts_.timeout_ms) != RDMA_CM_EVENT_ROUTE_RESOLVED) die(2, "route not resolved");
  if (!link_.setup(&err)) die(2, err);
  rdma_conn_param param = {};
  param.retry_count = kRetryCount;
  param.rnr_retry_count = kRnrRetryCount;
  int reads = opts_.read_resources;
  if (reads < 0) reads = hello || opts_.legacy ? 0 : 1;
  param.responder_resources = static_cast<uint8_t>(reads);
  param.initiator_depth = static_cast<uint8_t>(reads);
  bool flow = hello && opts_.flow;
  if (hello) {
    param.private_data = flow ? kHelloFlow : kHello;
    param.private_data_len = flow ? sizeof kHelloFlow : sizeof kHello;
  }
  if (rdma_connect(ep.id.get(), &param) != 0) die(2, callFailed("rdma_connect"));
  int fd = ep.channel->fd;
  waitFds(&fd, 1, opts_.timeout_ms);
  rdma_cm_event* ev = nullptr;
  if (rdma_get_cm_event(ep.channel.get(), &ev) != 0) die(2, "timed out waiting for ESTABLISHED");
  rdma_cm_event_type t = ev->event;
  // The accept's private data: did the server take flow control?
  bool taken =
      flow && helloOffersFlow(ev->param.conn.private_data, ev->param.conn.private_data_len);
  rdma_ack_cm_event(ev);
  if (t == RDMA_CM_EVENT_REJECTED && refused_ok) return false;
  if (t != RDMA_CM_EVENT_ESTABLISHED) {
    die(2, std::string("connect failed: ") + rdma_event_str(t));
  }
  link_.setFlow(taken);
  bool quiet = opts_.mode == "hold" || opts_.mode == "fill";
  if (flow && !quiet) printf("result: flow %s\n", taken ? "on" : "off");
  return true;
}

void Client::handshake() {
  DialectId d = link_.dialect();
  if (d != DialectId::kOurs) link_.registerRx();
  if (!pumpUntil([&] { return link_.haveRemote() || link_.closed(); }, opts_.timeout_ms)) {
    die(1, "the server never sent its register message");
  }
  if (link_.closed()) die(1, "the server closed the connection during the handshake");
  if (d == DialectId::kOurs) link_.registerRx();
}

void Client::pollOnce(int timeout_ms) {
  Endpoint& ep = link_.ep();
  int fds[2] = {ep.channel->fd, ep.comp->fd};
  waitFds(fds, 2, timeout_ms);
  rdma_cm_event* ev = nullptr;
  while (rdma_get_cm_event(ep.channel.get(), &ev) == 0) {
    if (ev->event == RDMA_CM_EVENT_DISCONNECTED) link_.markClosed();
    rdma_ack_cm_event(ev);
  }
  takeEvents(link_);
  link_.drain();  // also reaps completions whose event was not requested
}

std::string encodeCommand(const std::vector<std::string>& words) {
  std::string s = "*" + std::to_string(words.size()) + "\r\n";
  for (const auto& w : words) s += "$" + std::to_string(w.size()) + "\r\n" + w + "\r\n";
  return s;
}

DialectId otherDialect(DialectId d) {
  return d == DialectId::kValkey ? DialectId::kSeed : DialectId::kValkey;
}

// --mode hold: every connection at once, idle. --mode fill: as many as the
// server accepts.
int hold(const Options& o) {
  std::vector<std::unique_ptr<Client>> all;
  bool fill = o.mode == "fill";
  for (int i = 0; i < o.connections; i++) {
    all.push_back(std::make_unique<Client>(o, o.dialect));
    Client& c = *all.back();
    if (!c.connect(o.dialect == DialectId::kOurs && !o.legacy, fill)) {
      all.pop_back();
      break;
    }
    c.handshake();
    c.send(encodeCommand({"PING"}));
    if (!c.pumpUntil([&] { return replyEnd(c.link().received()) != 0 || c.link().closed(); },
                     o.timeout_ms) ||
        c.link().closed()) {
      die(1, "connection " + std::to_string(i + 1) + ": no reply to PING");
    }
  }
  printf("result: holding %zu\n", all.size());
  fflush(stdout);
  usleep(static_cast<useconds_t>(o.timeout_ms) * 1000);
  for (auto& c : all) rdma_disconnect(c->link().ep().id.get());
  return 0;
}

int run(const Options& o) {
  const std::string& mode = o.mode;
  bool no_hello = mode == "garbage-first" || mode == "mixed-first" || mode == "silent";
  DialectId d = o.dialect;
  Client p(o, d);
  Link& l = p.link();
  p.connect(d == DialectId::kOurs && !no_hello && !o.legacy);
  auto expectClose = [&] {
    bool closed = p.pumpUntil([&] { return l.closed(); }, o.timeout_ms);
    printf("result: %s\n", closed ? "server-closed" : "still-open");
    return closed ? 0 : 1;
  };
  if (no_hello) {
    if (mode == "silent") return expectClose();
    wire::CtrlMsg m = {};
    if (mode == "garbage-first") {
      memset(&m, 0xee, sizeof m);
    } else {
      m = wire::encodeRegister(
          {reinterpret_cast<uintptr_t>(l.ep().rx.data()), l.ep().rx.size, l.ep().rx.mr->rkey});
      m.version = 0;
      m.opcode = 3;
    }
    l.sendCtrl(&m, sizeof m);
    return expectClose();
  }
  // The prototype and Valkey announce on ESTABLISHED; ours waits for the
  // server, which speaks first to a client that sent kHello (or, legacy,
  // that asked for no read resources).
  if (d != DialectId::kOurs) l.registerRx();
  if (!p.pumpUntil([&] { return l.haveRemote() || l.closed(); }, o.timeout_ms)) {
    die(1, "the server never sent its register message");
  }
  if (l.closed()) die(1, "the server closed the connection during the handshake");
  wire::CtrlMsg m = wire::encodeRegister({0x10000, kDefaultRxSize, 1});
  auto roundTrip = [&](const std::string& cmd) {
    p.send(cmd);
    size_t end = 0;
    if (!p.pumpUntil([&] { return (end = replyEnd(l.received())) != 0 || l.closed(); },
                     o.timeout_ms) ||
        end == 0) {
      printf("result: %s\n", l.closed() ? "server-closed" : "no-reply");
      return false;
    }
    printf("reply: %s\n", l.received().substr(0, end).c_str());
    l.received().erase(0, end);
    return true;
  };
  if (mode == "normal") {
    if (d == DialectId::kOurs) l.registerRx();
    std::string cmd = encodeCommand(o.cmd.empty() ? std::vector<std::string>{"PING"} : o.cmd);
    if (o.pipeline) {
      // One stream of every command: the server parses many per RX chunk and
      // its replies pile up in our RX buffer while we are still sending.
      std::string all;
      all.reserve(cmd.size() * o.repeat);
      for (int i = 0; i < o.repeat; i++) all += cmd;
      l.queue(all);
      l.flush();
      for (int i = 0; i < o.repeat; i++) {
        size_t end = 0;
        if (!p.pumpUntil([&] { return (end = replyEnd(l.received())) != 0 || l.closed(); },
                         o.timeout_ms) ||
            end == 0) {
          printf("result: %s\n", l.closed() ? "server-closed" : "no-reply");
          return 1;
        }
        printf("reply: %s\n", l.received().substr(0, end).c_str());
        l.received().erase(0, end);
      }
    } else {
      for (int i = 0; i < o.repeat; i++) {
        if (!roundTrip(cmd)) return 1;
      }
    }
    if (o.print_rereg)
      printf("result: rx-reregistrations %llu\n",
             static_cast<unsigned long long>(l.rxReregistrations()));
    rdma_disconnect(l.ep().id.get());
    return 0;
  }
  if (mode == "bad-magic" || mode == "bad-version" || mode == "bad-opcode" || mode == "zero-addr" ||
      mode == "huge-length" || mode == "short-ctrl") {
    if (mode == "bad-magic") m.magic = 'X';
    if (mode == "bad-version") m.version = 99;
    if (mode == "bad-opcode") m.opcode = 7;
    if (mode == "zero-addr") m.addr = 0;
    if (mode == "huge-length") m.length = htonl(1u << 30);
    l.sendCtrl(&m, mode == "short-ctrl" ? 16 : sizeof m);
    return expectClose();
  }
  if (d == DialectId::kOurs) l.registerRx();
  p.waitSends();
  if (mode == "oob-imm" || mode == "zero-imm") {
    const wire::Region& r = l.remote();
    l.writeRaw("0123456789abcdef", mode == "zero-imm" ? 0 : r.length + 1, r.addr, r.key);
    return expectClose();
  }
  if (mode == "write-no-reg") {
    l.writeRaw("0123456789abcdef", 16, 0x10000, l.remote().key ^ 0x5a5a5a5a);
    return expectClose();
  }
  if (mode == "disconnect-mid" || mode == "kill-mid") {
    std::string big = encodeCommand({"SET", "rdma-test-peer:partial", std::string(1000000, 'v')});
    p.send(big.substr(0, 32 * 1024));
    printf("result: sent-partial\n");
    fflush(stdout);
    if (mode == "kill-mid") _exit(0);  // the kernel tears the connection down
    rdma_disconnect(l.ep().id.get());
    return 0;
  }
  if (mode == "switch-dialect") {
    if (!roundTrip(encodeCommand({"PING"}))) return 1;
    wire::Region mine{reinterpret_cast<uintptr_t>(l.ep().rx.data()), l.ep().rx.size,
                      l.ep().rx.mr->rkey};
    wire::CtrlMsg other = dialectFor(otherDialect(d))->encodeRegister(mine);
    if (d == DialectId::kValkey) other.version = 0;  // the prototype's head
    l.sendCtrl(&other, sizeof other);
    return expectClose();
  }
  if (mode == "bad-feature" || mode == "feature-query") {
    valkey::Feature f = {};
    f.opcode =
        htobe16(mode == "bad-feature" ? valkey::kSetClientFeature : valkey::kGetServerFeature);
    f.features = htobe64(mode == "bad-feature" ? 1 : 0);
    l.sendCtrl(&f, sizeof f);
    if (mode == "bad-feature") return expectClose();
    if (!p.pumpUntil([&] { return l.featureReplies() > 0 || l.closed(); }, o.timeout_ms) ||
        l.featureReplies() == 0) {
      printf("result: no-reply\n");
      return 1;
    }
    printf("result: features %llu\n", static_cast<unsigned long long>(l.lastFeatures()));
    return roundTrip(encodeCommand({"PING"})) ? 0 : 1;
  }
  if (mode == "keepalive-wait") {
    bool got = p.pumpUntil([&] { return l.keepalivesReceived() > 0 || l.closed(); }, o.timeout_ms);
    printf("result: %s\n", got && l.keepalivesReceived() > 0 ? "keepalive" : "no-keepalive");
    return got && l.keepalivesReceived() > 0 ? 0 : 1;
  }
  if (mode == "over-credit") {
    wire::CtrlMsg cr = wire::encodeCredit(l.ringsSwitched(), 1ull << 40);
    l.sendCtrl(&cr, sizeof cr);
    return expectClose();
  }
  if (mode == "bad-switch") {
    wire::CtrlMsg sw = wire::encodeSwitched(l.ringsSwitched() + 1);
    l.sendCtrl(&sw, sizeof sw);
    return expectClose();
  }
  if (mode == "over-write") {
    // Spaces: an unfinished inline command to the server, not a protocol
    // error; only the credit is broken. Posted back to back, the four land
    // before the server can read and credit the first.
    // --pause-ms: "result: ready", then a pause in which a test can keep
    // the server's loop busy (DEBUG SLEEP), so that no Credit can come
    // between the writes.
    printf("result: ready\n");
    fflush(stdout);
    if (o.pause_ms > 0) usleep(static_cast<useconds_t>(o.pause_ms) * 1000);
    const wire::Region& r = l.remote();
    std::string fill(r.length, ' ');
    for (int i = 0; i < 4; i++) l.writeRaw(fill, r.length, r.addr, r.key);
    return expectClose();
  }
  if (mode == "no-credit") {
    l.withholdCredits();
    p.send(encodeCommand(o.cmd.empty() ? std::vector<std::string>{"PING"} : o.cmd));
    p.pumpUntil([&] { return l.closed(); }, o.timeout_ms);
    printf("result: %s %zu\n", l.closed() ? "server-closed" : "stalled", l.received().size());
    fflush(stdout);
    rdma_disconnect(l.ep().id.get());
    return l.closed() ? 1 : 0;
  }
  if (mode == "vanish") {
    if (!roundTrip(encodeCommand({"PING"}))) return 1;
    l.vanish();
    printf("result: vanished\n");
    fflush(stdout);
    // Stay alive, not disconnecting: the other side must find out alone.
    usleep(static_cast<useconds_t>(o.timeout_ms) * 1000);
    _exit(0);
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
                                    {"dialect", required_argument, nullptr, 'd'},
                                    {"timeout-ms", required_argument, nullptr, 't'},
                                    {"rx-size", required_argument, nullptr, 'r'},
                                    {"repeat", required_argument, nullptr, 'n'},
                                    {"pipeline", no_argument, nullptr, 'P'},
                                    {"connections", required_argument, nullptr, 'c'},
                                    {"listen", no_argument, nullptr, 'L'},
                                    {"print-rereg", no_argument, nullptr, 'R'},
                                    {"read-resources", required_argument, nullptr, 'x'},
                                    {"flow", no_argument, nullptr, 'F'},
                                    {"pause-ms", required_argument, nullptr, 'w'},
                                    {"help", no_argument, nullptr, 'H'},
                                    {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h:p:m:d:t:r:n:Pc:LRx:Fw:", longopts, nullptr)) != -1) {
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
      case 'd':
        if (strcmp(optarg, "legacy") == 0) {
          o.dialect = net::rdma::DialectId::kOurs;
          o.legacy = true;
          break;
        }
        if (!net::rdma::parseDialect(optarg, &o.dialect) ||
            o.dialect == net::rdma::DialectId::kUnknown) {
          fprintf(stderr, "rdma-test-peer: --dialect must be ours, legacy, seed or valkey\n");
          return 2;
        }
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
      case 'L':
        o.listen = true;
        break;
      case 'R':
        o.print_rereg = true;
        break;
      case 'x':
        o.read_resources = atoi(optarg);
        break;
      case 'F':
        o.flow = true;
        break;
      case 'w':
        o.pause_ms = atoi(optarg);
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
  uint32_t min_rx = o.flow ? net::rdma::kFlowMinRing : net::rdma::kMinRxSize;
  if (o.rx_size < min_rx || o.rx_size > net::rdma::kMaxRxSize) {
    fprintf(stderr, "rdma-test-peer: --rx-size out of bounds\n");
    return 2;
  }
  if (o.listen) return peer::serve(o);
  if (o.mode == "hold" || o.mode == "fill") return peer::hold(o);
  // Each round is a fresh connection (its verbs resources freed before the next).
  for (int i = 0; i < o.connections; i++) {
    if (int rc = peer::run(o); rc != 0) return rc;
  }
  return 0;
}
