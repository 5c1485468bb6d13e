// MIGRATE (see migrate.h): the kept links, the waits on the private loop
// and the command, with Redis 7.0's replies, retry and propagation.
#include "server/cluster/cluster.h"

#include <strings.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/strutil.h"
#include "event/event_loop.h"
#include "net/connection.h"
#include "net/registry.h"
#include "server/cluster/state.h"
#include "server/conf/config.h"
#include "server/core/client.h"
#include "server/core/command.h"
#include "server/core/state.h"
#include "server/db/db.h"
#include "server/persist/dump_payload.h"
#include "server/propagate/propagate.h"
#include "server/pubsub/notify.h"
#include "server/request/keyspace.h"

namespace server::cluster {
namespace {

constexpr size_t kMaxLinks = 64;
constexpr int64_t kIdleCloseSec = 10;
constexpr size_t kMaxReplyLine = 1024;  // longer replies are cut, as Redis

// One kept link to a target; the private loop's handlers keep `in` filled.
struct Link {
  net::Connection* conn = nullptr;
  std::string in;          // bytes read, not yet taken as lines
  int64_t last_dbid = -1;  // the target's db after our last SELECT
  int64_t last_use_sec = 0;
  bool connect_done = false;  // the connect callback ran
  bool writable = false;      // the write handler ran
  bool broken = false;        // EOF or an error

  ~Link() {
    if (conn != nullptr) conn->close();
  }
};

event::EventLoop& sideLoop() {
  static event::EventLoop loop;
  return loop;
}

std::map<std::string, std::unique_ptr<Link>>& links() {
  static std::map<std::string, std::unique_ptr<Link>> m;
  return m;
}

int64_t nowSec() {
  return event::EventLoop::nowMs() / 1000;
}

void onConnected(net::Connection* c) {
  auto* l = static_cast<Link*>(c->privateData());
  l->connect_done = true;
  if (c->state() != net::ConnState::kConnected) l->broken = true;
}

void onReadable(net::Connection* c) {
  auto* l = static_cast<Link*>(c->privateData());
  char buf[16 * 1024];
  for (;;) {
    ssize_t n = c->read(buf, sizeof(buf));
    if (n > 0) {
      l->in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && c->state() == net::ConnState::kConnected) return;  // would block
    l->broken = true;
    c->setReadHandler(nullptr);
    return;
  }
}

void onWritable(net::Connection* c) {
  auto* l = static_cast<Link*>(c->privateData());
  l->writable = true;
  c->setWriteHandler(nullptr);
}

// Runs the private loop until done() or the deadline (ms); false on timeout.
bool waitUntil(const std::function<bool()>& done, int64_t deadline) {
  event::EventLoop& loop = sideLoop();
  while (!done()) {
    int64_t left = deadline - event::EventLoop::nowMs();
    if (left <= 0) return false;
    event::TimerId t =
        loop.addTimer(left, [](event::EventLoop*, event::TimerId) { return event::kNoMore; });
    loop.processEvents(true);
    loop.deleteTimer(t);
  }
  return true;
}

// Why a transfer failed; `timed_out` stops the retry, as ETIMEDOUT does in
// Redis.
struct IoError {
  bool failed = false;
  bool timed_out = false;
};

bool writeAll(Link* l, std::string_view data, int64_t timeout_ms, IoError* e) {
  while (!data.empty()) {
    ssize_t n = l->conn->write(data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (l->conn->state() != net::ConnState::kConnected) break;
    l->writable = false;
    l->conn->setWriteHandler(onWritable);
    if (!waitUntil([l] { return l->writable || l->broken; },
                   event::EventLoop::nowMs() + timeout_ms)) {
      l->conn->setWriteHandler(nullptr);
      e->timed_out = true;
      break;
    }
    if (l->broken) break;
  }
  e->failed = !data.empty();
  return !e->failed;
}

// One reply line, without its CRLF (cut to kMaxReplyLine - 1 bytes).
bool readLine(Link* l, std::string* line, int64_t timeout_ms, IoError* e) {
  l->conn->setReadHandler(onReadable);
  onReadable(l->conn);  // bytes a transport holds in user space
  bool got = waitUntil([l] { return l->in.find('\n') != std::string::npos || l->broken; },
                       event::EventLoop::nowMs() + timeout_ms);
  if (l->conn != nullptr && !l->broken) l->conn->setReadHandler(nullptr);
  size_t nl = l->in.find('\n');
  if (nl == std::string::npos) {
    e->failed = true;
    e->timed_out = !got;
    return false;
  }
  size_t len = nl > 0 && l->in[nl - 1] == '\r' ? nl - 1 : nl;
  line->assign(l->in, 0, std::min(len, kMaxReplyLine - 1));
  l->in.erase(0, nl + 1);
  return !line->empty();
}

std::string linkName(std::string_view host, std::string_view port) {
  std::string name(host);
  name += ':';
  name += port;
  return name;
}

void closeLink(const std::string& name) {
  links().erase(name);
}

// A target named by another client port a node of this cluster announces
// (its RDMA port, or a TLS cluster's plaintext port: what the cluster tells
// such clients, e.g. redis-cli --cluster reshard --rdma) is that node:
// MIGRATE reaches it at the port of the cluster link's type.
int nodePortForClientPort(const std::string& host, int port) {
  if (!g_enabled) return port;
  for (auto& [name, n] : st().nodes) {
    if ((n->rdma_port == port || n->pport == port) && n->port != port &&
        strcasecmp(n->ip.c_str(), host.c_str()) == 0)
      return n->port;
  }
  return port;
}

// The kept link to host:port, or a new one; nullptr after replying the error.
Link* getLink(Client* c, std::string_view host, std::string_view port, int64_t timeout_ms) {
  std::string name = linkName(host, port);
  auto& m = links();
  if (auto it = m.find(name); it != m.end()) {
    it->second->last_use_sec = nowSec();
    return it->second.get();
  }
  if (m.size() >= kMaxLinks) {
    static std::mt19937 rng(std::random_device{}());
    auto victim = m.begin();
    std::advance(victim, static_cast<long>(rng() % m.size()));
    m.erase(victim);
  }
  const Config& cfg = g_server->config;
  net::ConnectionType* type = net::typeForLink(
      [&cfg](const std::string& n) { return configValue(cfg, n); }, net::ServerLink::kCluster);
  auto l = std::make_unique<Link>();
  net::ConnectAddr addr;
  addr.host = std::string(host);
  addr.port = atoi(std::string(port).c_str());
  addr.port = nodePortForClientPort(addr.host, addr.port);
  std::string err;
  if (type != nullptr) l->conn = type->connect(&sideLoop(), addr, onConnected, &err);
  if (l->conn != nullptr) {
    l->conn->setPrivateData(l.get());
    if (l->conn->state() == net::ConnState::kConnected) l->connect_done = true;
    waitUntil([&l] { return l->connect_done; }, event::EventLoop::nowMs() + timeout_ms);
  }
  if (l->conn == nullptr || !l->connect_done || l->broken) {
    c->addError("-IOERR error or timeout connecting to the client");
    return nullptr;
  }
  l->conn->setNoDelay(true);
  l->last_use_sec = nowSec();
  Link* out = l.get();
  m[name] = std::move(l);
  return out;
}

void appendArrayHeader(std::string* out, size_t n) {
  *out += '*';
  *out += std::to_string(n);
  *out += "\r\n";
}

void appendBulk(std::string* out, std::string_view s) {
  *out += '$';
  *out += std::to_string(s.size());
  *out += "\r\n";
  out->append(s.data(), s.size());
  *out += "\r\n";
}

struct Request {
  bool copy = false, replace = false;
  std::string_view username, password;
  bool auth = false;
  size_t first_key = 3, num_keys = 1;
  int64_t timeout_ms = 0, dbid = 0;
};

// Options from argv[6]; false after replying the error.
bool parseRequest(Client* c, Request* r) {
  for (size_t j = 6; j < c->argc(); j++) {
    std::string_view a = c->arg(j);
    size_t more = c->argc() - 1 - j;
    if (common::strutil::equalsIgnoreCase(a, "copy")) {
      r->copy = true;
    } else if (common::strutil::equalsIgnoreCase(a, "replace")) {
      r->replace = true;
    } else if (common::strutil::equalsIgnoreCase(a, "auth") && more >= 1) {
      r->auth = true;
      r->password = c->arg(++j);
    } else if (common::strutil::equalsIgnoreCase(a, "auth2") && more >= 2) {
      r->auth = true;
      r->username = c->arg(++j);
      r->password = c->arg(++j);
    } else if (common::strutil::equalsIgnoreCase(a, "keys")) {
      if (!c->arg(3).empty()) {
        c->addError(
            "When using MIGRATE KEYS option, the key argument must be set to the empty string");
        return false;
      }
      r->first_key = j + 1;
      r->num_keys = c->argc() - j - 1;
      break;
    } else {
      c->addError("syntax error");
      return false;
    }
  }
  if (!common::strutil::parseInt64(c->arg(5), &r->timeout_ms) ||
      !common::strutil::parseInt64(c->arg(4), &r->dbid)) {
    c->addNotInteger();
    return false;
  }
  if (r->timeout_ms <= 0) r->timeout_ms = 1000;
  return true;
}

// The request for one attempt: AUTH, SELECT unless the link is in the db
// already, one RESTORE per key still there (keys that expired since the
// lookup are left out, in *sent).
std::string buildRequest(const Request& r, db::Db* d, const std::vector<std::string_view>& keys,
                         bool select, std::vector<std::string_view>* sent) {
  std::string cmd;
  if (r.auth) {
    appendArrayHeader(&cmd, r.username.empty() ? 2 : 3);
    appendBulk(&cmd, "AUTH");
    if (!r.username.empty()) appendBulk(&cmd, r.username);
    appendBulk(&cmd, r.password);
  }
  if (select) {
    appendArrayHeader(&cmd, 2);
    appendBulk(&cmd, "SELECT");
    appendBulk(&cmd, std::to_string(r.dbid));
  }
  for (std::string_view key : keys) {
    db::Entry* e = d->find(key);
    if (e == nullptr) continue;
    int64_t ttl = 0;
    int64_t at = d->expireOf(e);
    if (at != -1) {
      ttl = at - db::Clock::nowMs;
      if (ttl < 0) continue;
      if (ttl < 1) ttl = 1;
    }
    sent->push_back(key);
    appendArrayHeader(&cmd, r.replace ? 5 : 4);
    // In cluster mode the target is importing the slot: RESTORE-ASKING
    // lets it take the key before the slot is its own.
    appendBulk(&cmd, g_enabled ? "RESTORE-ASKING" : "RESTORE");
    appendBulk(&cmd, key);
    appendBulk(&cmd, std::to_string(ttl));
    appendBulk(&cmd, persist::makeDumpPayload(e->val, g_server->config.rdbcompression));
    if (r.replace) appendBulk(&cmd, "REPLACE");
  }
  return cmd;
}

// How one attempt ended.
struct Attempt {
  bool target_error = false;  // replied to the client already
  bool socket_error = false;
  bool write_error = false;  // the socket error was in writing
  bool timed_out = false;
  size_t acked = 0;                          // key replies read before a socket error
  std::vector<std::string_view> del{"DEL"};  // the keys moved, as propagated
};

// Sends the request and reads the replies; deletes (unless COPY) each key
// the target acknowledged.
Attempt transfer(Client* c, const Request& r, Link* l, const std::vector<std::string_view>& keys) {
  Attempt a;
  db::Db* d = c->db();
  bool select = l->last_dbid != r.dbid;
  std::vector<std::string_view> sent;
  std::string cmd = buildRequest(r, d, keys, select, &sent);
  IoError io;
  std::string auth_reply, select_reply, reply;
  a.write_error = !writeAll(l, cmd, r.timeout_ms, &io);
  a.socket_error = a.write_error || (r.auth && !readLine(l, &auth_reply, r.timeout_ms, &io)) ||
                   (select && !readLine(l, &select_reply, r.timeout_ms, &io));
  for (; !a.socket_error && a.acked < sent.size(); a.acked++) {
    if (!readLine(l, &reply, r.timeout_ms, &io)) {
      a.socket_error = true;
      break;
    }
    // AUTH's or SELECT's error stands for every key, as in Redis.
    const std::string* err = r.auth && auth_reply[0] == '-'     ? &auth_reply
                             : select && select_reply[0] == '-' ? &select_reply
                             : reply[0] == '-'                  ? &reply
                                                                : nullptr;
    std::string_view key = sent[a.acked];
    if (err != nullptr) {
      if (!a.target_error) {
        l->last_dbid = -1;
        a.target_error = true;
        c->addErrorFormat("Target instance replied with error: %s", err->c_str() + 1);
      }
    } else if (!r.copy) {
      d->remove(key, false);
      keyModified(c, key);
      notify::keyEvent(c, notify::kGeneric, "del", key);
      a.del.push_back(key);
    }
  }
  a.timed_out = io.timed_out;
  return a;
}

void migrateCommand(Client* c) {
  Request r;
  if (!parseRequest(c, &r)) return;
  std::vector<std::string_view> keys;
  for (size_t j = 0; j < r.num_keys; j++) {
    if (lookupRead(c, c->arg(r.first_key + j)) != nullptr) keys.push_back(c->arg(r.first_key + j));
  }
  if (keys.empty()) {
    c->addStatus("NOKEY");
    return;
  }
  std::string name = linkName(c->arg(1), c->arg(2));
  for (int attempt = 1;; attempt++) {
    Link* l = getLink(c, c->arg(1), c->arg(2), r.timeout_ms);
    if (l == nullptr) return;
    Attempt a = transfer(c, r, l, keys);
    if (a.del.size() > 1 && propagate::wanted()) propagate::rewrite(a.del);
    if (!a.socket_error) {
      if (!a.target_error) {
        l->last_dbid = r.dbid;
        c->addOk();
      }
      return;
    }
    closeLink(name);
    if (a.target_error) return;
    // Nothing was applied yet: a stale kept link gets one more try.
    if (attempt == 1 && a.acked == 0 && !a.timed_out) continue;
    c->addErrorFormat("-IOERR error or timeout %s to target instance",
                      a.write_error ? "writing" : "reading");
    return;
  }
}

// The key at argv[3], or those after KEYS (none when argv[3] is not empty:
// MIGRATE refuses that). AUTH's and AUTH2's values are skipped, so a
// password "KEYS" is not the keyword.
bool migrateKeys(const std::vector<std::string_view>& argv, std::vector<size_t>* out) {
  size_t first = 3, num = 1;
  for (size_t i = 6; i < argv.size(); i++) {
    if (common::strutil::equalsIgnoreCase(argv[i], "keys")) {
      num = argv[3].empty() ? argv.size() - (i + 1) : 0;
      first = i + 1;
      break;
    }
    if (common::strutil::equalsIgnoreCase(argv[i], "auth")) {
      i += 1;
    } else if (common::strutil::equalsIgnoreCase(argv[i], "auth2")) {
      i += 2;
    }
  }
  for (size_t i = 0; i < num && first + i < argv.size(); i++) out->push_back(first + i);
  return true;
}

}  // namespace

void registerMigrateCommand(CommandTable& t) {
  t.add({"migrate", -6, kWrite, migrateCommand, 3, 3, 1, "generic",
         "Atomically transfer a key from a Redis instance to another one.", "2.6.0",
         "This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the "
         "target instance. See the pages of these commands for time complexity. Also an O(N) data "
         "transfer between the two instances is performed.",
         "keyspace write slow dangerous"});
  t.setKeysProc("migrate", migrateKeys);
}

void migrateCron() {
  int64_t now = nowSec();
  auto& m = links();
  for (auto it = m.begin(); it != m.end();) {
    if (now - it->second->last_use_sec > kIdleCloseSec) {
      it = m.erase(it);
    } else {
      ++it;
    }
  }
}

void migrateCloseLinks() {
  links().clear();
}

size_t migrateCachedLinks() {
  return links().size();
}

}  // namespace server::cluster
