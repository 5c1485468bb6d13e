// The link to the master up to its PSYNC reply: a non-blocking connect
// through the connection table, PING, then AUTH and the REPLCONF options
// pipelined, then PSYNC, each reply read as it arrives on the event loop.
// Replies are single lines; each is decoded by the shared reply parser. A
// master may send bare newlines while it prepares the RDB: they only keep
// the link alive.
#include <strings.h>

#include <cstring>

#include "common/log.h"
#include "net/connection.h"
#include "net/registry.h"
#include "server/core/state.h"
#include "server/repl/master/replicas.h"
#include "server/repl/replica/replica.h"

namespace server::repl::replica {

namespace {

constexpr size_t kReadChunk = 16 * 1024;
// Longest reply line accepted during the handshake.
constexpr size_t kMaxLine = 64 * 1024;

struct Io {
  std::string in;   // bytes read, not yet a whole line
  std::string out;  // requests not yet taken by the transport
};

Io& io() {
  static Io s;
  return s;
}

void onReadable(net::Connection* conn);

void onWritable(net::Connection* conn) {
  Io& s = io();
  while (!s.out.empty()) {
    ssize_t n = conn->write(s.out.data(), s.out.size());
    if (n <= 0) break;
    s.out.erase(0, static_cast<size_t>(n));
  }
  if (conn->state() == net::ConnState::kError) {
    linkLost("Error writing to MASTER: " + conn->lastError());
    return;
  }
  if (s.out.empty()) {
    conn->setWriteHandler(nullptr);
  } else if (!conn->hasWriteHandler()) {
    conn->setWriteHandler(onWritable);
  }
}

void send(const std::vector<std::string>& argv) {
  resp::appendCommand(&io().out, argv);
  onWritable(link().conn);
}

// Decodes one reply line with the shared parser; false if it is not RESP.
bool decodeLine(const std::string& line, resp::Reply* out) {
  Link& l = link();
  l.parser.reset();
  l.parser.feed(line.data(), line.size());
  l.parser.feed("\r\n", 2);
  return l.parser.next(out) == resp::ReplyParser::Result::kReply;
}

void sendPsync() {
  Link& l = link();
  std::string id = "?", off = "-1";
  // Only a history this replica still holds continues (after a load that
  // failed, the data no longer matches the id and offset).
  if (l.ever_synced) {
    id = replId();
    off = std::to_string(masterOffset() + 1);
    LOG_NOTICE("Trying a partial resynchronization (request %s:%s).", id.c_str(), off.c_str());
  } else {
    LOG_NOTICE("Partial resynchronization not possible (no cached master)");
  }
  l.state = State::kPsync;
  // FAILOVER (master/failover.cpp): the target promotes itself first.
  if (failoverState() == FailoverState::kInProgress)
    send({"PSYNC", id, off, "FAILOVER"});
  else
    send({"PSYNC", id, off});
}

void sendHandshake() {
  Link& l = link();
  const Config& cfg = g_server->config;
  l.expect.clear();
  if (!cfg.masterauth.empty()) {
    if (cfg.masteruser.empty())
      send({"AUTH", cfg.masterauth});
    else
      send({"AUTH", cfg.masteruser, cfg.masterauth});
    l.expect.push_back("AUTH");
  }
  int64_t port = cfg.replica_announce_port ? cfg.replica_announce_port : cfg.port;
  send({"REPLCONF", "listening-port", std::to_string(port)});
  l.expect.push_back("listening-port");
  if (!cfg.replica_announce_ip.empty()) {
    send({"REPLCONF", "ip-address", cfg.replica_announce_ip});
    l.expect.push_back("ip-address");
  }
  send({"REPLCONF", "capa", "eof", "capa", "psync2"});
  l.expect.push_back("capa");
}

// One reply line during the handshake. False when the link was dropped.
bool handshakeReply(const std::string& line) {
  Link& l = link();
  resp::Reply r;
  if (!decodeLine(line, &r)) {
    linkLost("Master replied with a malformed line: '" + line.substr(0, 128) + "'");
    return false;
  }
  std::string step = l.expect.front();
  l.expect.erase(l.expect.begin());
  if (step == "PING") {
    // A master requiring AUTH answers -NOAUTH: the handshake goes on.
    if (r.isError() && strncmp(r.str.c_str(), "NOAUTH", 6) != 0 &&
        strncmp(r.str.c_str(), "NOPERM", 6) != 0 &&
        strncmp(r.str.c_str(), "ERR operation not permitted", 27) != 0) {
      linkLost("Error reply to PING from master: '-" + r.str + "'");
      return false;
    }
    LOG_NOTICE("Master replied to PING, replication can continue...");
    sendHandshake();
    return true;
  }
  if (step == "AUTH" && r.isError()) {
    linkLost("Unable to AUTH to MASTER: -" + r.str);
    return false;
  }
  if (r.isError())
    LOG_NOTICE("(Non critical) Master does not understand REPLCONF %s: -%s", step.c_str(),
               r.str.c_str());
  if (l.expect.empty()) sendPsync();
  return true;
}

// The PSYNC reply. False when the link changed state (dropped, transfer
// or stream started: the caller stops reading lines).
bool psyncReply(const std::string& line, std::string_view rest) {
  resp::Reply r;
  if (!decodeLine(line, &r)) {
    linkLost("Unexpected reply to PSYNC from master: " + line.substr(0, 128));
    return false;
  }
  if (r.type == resp::ReplyType::kStatus && strncmp(r.str.c_str(), "FULLRESYNC ", 11) == 0) {
    char id[41] = {};
    long long off = 0;
    if (sscanf(r.str.c_str() + 11, "%40s %lld", id, &off) != 2 || strlen(id) != 40) {
      linkLost("Master replied with wrong +FULLRESYNC syntax.");
      return false;
    }
    LOG_NOTICE("Full resync from master: %s:%lld", id, off);
    failoverPsyncAccepted();
    beginTransfer(id, off, rest);
    return false;
  }
  if (r.type == resp::ReplyType::kStatus && strncmp(r.str.c_str(), "CONTINUE", 8) == 0) {
    LOG_NOTICE("Successful partial resynchronization with master.");
    std::string id = r.str.size() > 9 ? r.str.substr(9) : std::string();
    if (id.size() == 40 && id != replId()) {
      // The master's history continues under a new id (it was promoted):
      // ours becomes the secondary one, and our replicas must follow.
      shiftReplId(id);
      LOG_NOTICE("Master replication ID changed to %s", id.c_str());
      dropSubReplicas();
    }
    LOG_NOTICE("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
    failoverPsyncAccepted();
    becomeConnected(rest);
    return false;
  }
  std::string why = r.isError() ? "-" + r.str : line.substr(0, 128);
  if (r.isError() && failoverState() == FailoverState::kInProgress) {
    LOG_WARNING("Unexpected reply to PSYNC FAILOVER from the target: %s", why.c_str());
    failoverPsyncRefused();  // a master again: the link is closed
    return false;
  }
  if (strncmp(r.str.c_str(), "NOMASTERLINK", 12) == 0 || strncmp(r.str.c_str(), "LOADING", 7) == 0)
    linkLost("Master is currently unable to PSYNC but should be in the future: " + why);
  else
    linkLost("Unexpected reply to PSYNC from master: " + why);
  return false;
}

void onReadable(net::Connection* conn) {
  Link& l = link();
  Io& s = io();
  char buf[kReadChunk];
  ssize_t n = conn->read(buf, sizeof(buf));
  if (n == 0) {
    linkLost("Master closed the connection during the handshake");
    return;
  }
  if (n < 0) {
    if (conn->state() == net::ConnState::kConnected) return;
    linkLost("Error condition on socket for SYNC: " + conn->lastError());
    return;
  }
  noteIo();
  s.in.append(buf, static_cast<size_t>(n));
  size_t pos = 0;
  while (l.conn == conn && (l.state == State::kHandshake || l.state == State::kPsync)) {
    size_t nl = s.in.find('\n', pos);
    if (nl == std::string::npos) break;
    std::string line = s.in.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;  // a keep-alive newline
    if (l.state == State::kHandshake) {
      if (l.expect.empty() || !handshakeReply(line)) break;
    } else {
      std::string rest = s.in.substr(pos);
      s.in.clear();
      psyncReply(line, rest);
      return;
    }
  }
  if (l.conn != conn || l.state == State::kTransfer || l.state == State::kConnected) return;
  s.in.erase(0, pos);
  if (s.in.size() > kMaxLine) linkLost("Master sent a reply line longer than 64 KiB");
}

void onConnected(net::Connection* conn) {
  Link& l = link();
  if (conn->state() != net::ConnState::kConnected) {
    linkLost("Error condition on socket for SYNC: " + conn->lastError());
    return;
  }
  LOG_NOTICE("Non blocking connect for SYNC fired the event.");
  l.state = State::kHandshake;
  l.expect = {"PING"};
  conn->setReadHandler(onReadable);
  send({"PING"});
}

}  // namespace

void noteIo() {
  link().last_io_s = nowSec();
}

void connectToMaster() {
  Link& l = link();
  const Config& cfg = g_server->config;
  net::ConnectionType* type =
      net::typeForLink([&cfg](const std::string& name) { return configValue(cfg, name); },
                       net::ServerLink::kReplication);
  LOG_NOTICE("Connecting to MASTER %s:%d", l.host.c_str(), l.port);
  l.attempt++;
  l.connect_start_s = nowSec();
  l.last_io_s = l.connect_start_s;
  std::string err;
  net::ConnectAddr addr;
  addr.host = l.host;
  addr.port = l.port;
  addr.source_addr = cfg.bind_source_addr;
  net::Connection* conn = nullptr;
  if (type == nullptr) {
    err = "no connection type carries replication in this build";
  } else {
    conn = type->connect(&g_server->loop, addr, onConnected, &err);
  }
  if (conn == nullptr) {
    LOG_WARNING("Unable to connect to MASTER: %s", err.c_str());
    return;  // still kConnect: the cron tries again
  }
  io() = Io();
  l.conn = conn;
  l.state = State::kConnecting;
  LOG_NOTICE("MASTER <-> REPLICA sync started");
}

void cancelHandshake() {
  Link& l = link();
  abortTransfer();
  if (l.conn != nullptr) {
    l.conn->setReadHandler(nullptr);
    l.conn->setWriteHandler(nullptr);
    l.conn->close();
    l.conn = nullptr;
  }
  io() = Io();
  l.expect.clear();
  if (l.state != State::kNone) l.state = State::kConnect;
}

void linkLost(const std::string& why) {
  Link& l = link();
  LOG_WARNING("%s", why.c_str());
  if (l.state == State::kConnected && l.master != nullptr) {
    // The master client's close hook moves the link back to kConnect.
    g_server->freeClientAsync(l.master);
    return;
  }
  cancelHandshake();
}

}  // namespace server::repl::replica
