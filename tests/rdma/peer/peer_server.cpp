// rdma-test-peer --listen: a small RESP server that speaks the prototype's
// (seed) or Valkey's dialect, so our client library, redis-cli --rdma and
// redis-benchmark --rdma can be tested against an implementation that is not
// ours. It behaves as those servers do on the wire (link.h): no private data
// in the accept reply, its register message sent on ESTABLISHED without
// waiting, Valkey's Keepalive every 3 s. With --dialect ours it behaves as
// our own server instead (kHello in the accept, register on ESTABLISHED).
//
// --mode garbage-first / mixed-first: the first control message is 32
// bytes of 0xee / a seed head with Valkey's register opcode (3) instead of
// the register message. The command SWITCHDIALECT sends, unanswered, a
// register message of another dialect (valkey, or seed for a valkey server).
//
// The command VANISH makes the whole server vanish as a crashed host would:
// every QP goes to the error state, nothing is answered or disconnected,
// and the process stays alive until killed: the clients must find out alone
// (RDMA.md, "Dead peers").
#include <netdb.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "event/event_loop.h"
#include "link.h"
#include "peer.h"

namespace peer {
namespace {

using namespace net::rdma;

constexpr int kKeepaliveMs = 3000;  // Valkey's period

struct Served {
  std::unique_ptr<Link> link;
  bool established = false;
  int64_t next_keepalive = 0;
};

// Parses one RESP array command at buf[*pos]: 1 complete (args filled, *pos
// advanced), 0 incomplete, -1 malformed.
int parseCommand(const std::string& buf, size_t* pos, std::vector<std::string>* args) {
  size_t p = *pos;
  if (p >= buf.size()) return 0;
  if (buf[p] != '*') return -1;
  size_t eol = buf.find("\r\n", p);
  if (eol == std::string::npos) return 0;
  long n = strtol(buf.c_str() + p + 1, nullptr, 10);
  if (n <= 0 || n > 1024) return -1;
  p = eol + 2;
  args->clear();
  for (long i = 0; i < n; i++) {
    if (p >= buf.size()) return 0;
    if (buf[p] != '$') return -1;
    eol = buf.find("\r\n", p);
    if (eol == std::string::npos) return 0;
    long len = strtol(buf.c_str() + p + 1, nullptr, 10);
    if (len < 0 || len > 512L * 1024 * 1024) return -1;
    p = eol + 2;
    if (buf.size() < p + static_cast<size_t>(len) + 2) return 0;
    args->push_back(buf.substr(p, static_cast<size_t>(len)));
    p += static_cast<size_t>(len) + 2;
  }
  *pos = p;
  return 1;
}

std::string bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(toupper(static_cast<unsigned char>(ch)));
  return s;
}

std::string execute(std::map<std::string, std::string>& db, const std::vector<std::string>& a) {
  std::string cmd = upper(a[0]);
  if (cmd == "PING") return a.size() > 1 ? bulk(a[1]) : "+PONG\r\n";
  if (cmd == "ECHO" && a.size() == 2) return bulk(a[1]);
  if (cmd == "SET" && a.size() >= 3) {
    db[a[1]] = a[2];
    return "+OK\r\n";
  }
  if (cmd == "GET" && a.size() == 2) {
    auto it = db.find(a[1]);
    return it == db.end() ? "$-1\r\n" : bulk(it->second);
  }
  if (cmd == "DEL" && a.size() >= 2) {
    long n = 0;
    for (size_t i = 1; i < a.size(); i++) n += static_cast<long>(db.erase(a[i]));
    return ":" + std::to_string(n) + "\r\n";
  }
  if (cmd == "CONFIG" || cmd == "COMMAND") return "*0\r\n";
  return "-ERR unknown command '" + a[0] + "'\r\n";
}

}  // namespace

int serve(const Options& o) {
  std::string err;
  EventChannel channel = makeEventChannel(&err);
  if (!channel) return errno == ENODEV || errno == ENOENT ? 77 : 2;
  CmId lid = makeCmId(channel.get(), nullptr, &err);
  if (!lid) return 2;
  addrinfo hints = {}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
  if (getaddrinfo(o.host.c_str(), std::to_string(o.port).c_str(), &hints, &res) != 0) return 2;
  int rc = rdma_bind_addr(lid.get(), res->ai_addr);
  freeaddrinfo(res);
  if (rc != 0 || rdma_listen(lid.get(), 128) != 0) {
    fprintf(stderr, "rdma-test-peer: %s\n", callFailed("rdma_bind_addr/rdma_listen").c_str());
    return errno == ENODEV ? 77 : 2;
  }
  printf("result: listening\n");
  fflush(stdout);

  std::map<std::string, std::string> db;
  std::map<rdma_cm_id*, Served> conns;
  int closed = 0;
  for (;;) {
    std::vector<int> fds = {channel->fd};
    for (auto& [id, s] : conns) {
      if (s.link->ep().comp) fds.push_back(s.link->ep().comp->fd);
    }
    waitFds(fds.data(), static_cast<int>(fds.size()), 50);
    rdma_cm_event* ev = nullptr;
    while (rdma_get_cm_event(channel.get(), &ev) == 0) {
      rdma_cm_event_type type = ev->event;
      rdma_cm_id* id = ev->id;
      rdma_ack_cm_event(ev);
      if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
        auto link = std::make_unique<Link>(o.dialect, o.rx_size);
        link->ep().id = adoptCmId(id);
        std::string e;
        if (!link->setup(&e)) {
          fprintf(stderr, "rdma-test-peer: %s\n", e.c_str());
          rdma_reject(id, nullptr, 0);
          continue;
        }
        rdma_conn_param param = {};  // no private data, as their servers
        param.retry_count = kRetryCount;
        param.rnr_retry_count = kRnrRetryCount;
        if (o.dialect == DialectId::kOurs) {
          param.private_data = kHello;
          param.private_data_len = sizeof kHello;
        }
        if (rdma_accept(id, &param) != 0) {
          fprintf(stderr, "rdma-test-peer: %s\n", callFailed("rdma_accept").c_str());
          continue;
        }
        conns[id].link = std::move(link);
      } else if (type == RDMA_CM_EVENT_ESTABLISHED) {
        auto it = conns.find(id);
        if (it == conns.end()) continue;
        it->second.established = true;
        // Both their servers announce on ESTABLISHED without waiting.
        Link& l = *it->second.link;
        if (o.mode == "garbage-first" || o.mode == "mixed-first") {
          // A first message our client cannot place: it must fail the
          // handshake with the reason, not wait.
          wire::CtrlMsg m = {};
          if (o.mode == "garbage-first") {
            memset(&m, 0xee, sizeof m);
          } else {
            m = wire::encodeRegister({reinterpret_cast<uintptr_t>(l.ep().rx.data()), l.ep().rx.size,
                                      l.ep().rx.mr->rkey});
            m.version = 0;
            m.opcode = 3;  // a seed head with Valkey's register opcode
          }
          l.sendCtrl(&m, sizeof m);
        } else {
          l.registerRx();
        }
        it->second.next_keepalive = event::EventLoop::nowMs() + kKeepaliveMs;
      } else if (type == RDMA_CM_EVENT_DISCONNECTED || type == RDMA_CM_EVENT_CONNECT_ERROR ||
                 type == RDMA_CM_EVENT_UNREACHABLE || type == RDMA_CM_EVENT_REJECTED) {
        auto it = conns.find(id);
        if (it == conns.end()) continue;
        conns.erase(it);
        closed++;
        if (o.connections > 1 && closed >= o.connections) return 0;
      }
    }
    int64_t now = event::EventLoop::nowMs();
    for (auto& [id, s] : conns) {
      Link& l = *s.link;
      takeEvents(l);
      l.drain();
      if (!s.established || l.closed()) continue;
      if (o.dialect == DialectId::kValkey && now >= s.next_keepalive) {
        l.sendKeepalive();
        s.next_keepalive = now + kKeepaliveMs;
      }
      size_t pos = 0;
      std::vector<std::string> args;
      int r;
      while ((r = parseCommand(l.received(), &pos, &args)) == 1) {
        if (upper(args[0]) == "SWITCHDIALECT") {
          // A register message of another dialect mid-connection.
          DialectId other = o.dialect == DialectId::kValkey ? DialectId::kSeed : DialectId::kValkey;
          wire::Region mine{reinterpret_cast<uintptr_t>(l.ep().rx.data()), l.ep().rx.size,
                            l.ep().rx.mr->rkey};
          wire::CtrlMsg m = dialectFor(other)->encodeRegister(mine);
          if (other == DialectId::kSeed) m.version = 0;  // the prototype's head
          l.sendCtrl(&m, sizeof m);
          continue;
        }
        if (upper(args[0]) == "VANISH") {
          for (auto& [vid, v] : conns) v.link->vanish();
          printf("result: vanished\n");
          fflush(stdout);
          for (;;) pause();  // alive, silent, never disconnecting
        }
        l.queue(execute(db, args));
      }
      l.received().erase(0, pos);
      if (r < 0) {
        l.queue("-ERR Protocol error\r\n");
        l.received().clear();
      }
      l.flush();
    }
  }
}

}  // namespace peer
