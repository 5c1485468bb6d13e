// REPLICAOF / SLAVEOF and the replicaof directive, the master client (the
// connection the stream arrives on, run through the ordinary request path
// with its replies dropped), REPLCONF ACK, repl-timeout, reconnection, and
// what INFO, ROLE and dispatch see of a replica.
#include "server/repl/replica/replica.h"

#include <strings.h>

#include "common/log.h"
#include "common/strutil.h"
#include "net/connection.h"
#include "server/core/client.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"
#include "server/db/db.h"
#include "server/persist/persist.h"
#include "server/process/os_tuning.h"
#include "server/repl/master/replicas.h"
#include "server/repl/repl.h"
#include "server/request/blocking.h"
#include "server/request/client_info.h"
#include "server/request/client_io.h"

namespace server::repl {

bool g_is_replica = false;

namespace replica {

namespace {

struct Extra {
  int master_db = 0;  // the master client's db when the link was lost
  bool hook = false;
};

Extra& extra() {
  static Extra s;
  return s;
}

void onClientClose(Client* c) {
  Link& l = link();
  if (c != l.master) return;
  l.master = nullptr;
  extra().master_db = c->dbIndex();
  if (l.state == State::kConnected) {
    LOG_NOTICE("Connection with master lost.");
    LOG_NOTICE("* Caching the disconnected master state.");
    l.state = State::kConnect;
    // When it was closed (CLIENT KILL frees the master link only later,
    // possibly after a long command such as DEBUG SLEEP): a cluster
    // replica's data is that old (its election's data age), as in Redis,
    // where CLIENT KILL drops the master link at once.
    int64_t at_ms = c->close_asap_ms != 0 ? c->close_asap_ms : db::Clock::nowMs;
    l.down_since_s = at_ms / 1000;
    l.ever_synced = true;
  }
}

std::string clientDescription(Client* c) {
  std::string line;
  formatClientLine(describeClient(c), &line);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

// Commands of blocked clients cannot finish the same way on a replica.
void unblockAll() {
  for (Client* c : std::vector<Client*>(g_server->clients.begin(), g_server->clients.end())) {
    if (!blocking::isBlocked(c)) continue;
    blocking::unblockClient(c, false);
  }
}

}  // namespace

void setMaster(const std::string& host, int port) {
  Link& l = link();
  bool was_master = !g_is_replica;
  if (l.master != nullptr) {
    Client* m = l.master;
    l.master = nullptr;  // replaced, not lost: the close hook leaves it be
    extra().master_db = m->dbIndex();
    g_server->freeClientAsync(m);
  }
  cancelHandshake();
  unblockAll();
  l.host = host;
  l.port = port;
  l.state = State::kConnect;
  l.down_since_s = 0;
  g_is_replica = true;
  db::Db::expiry_replica = true;
  common::logging::setRole('S');
  g_server->config.replicaof = host + " " + std::to_string(port);
  process::applyServerOomScoreAdj(g_server->config);  // the replica class
  if (was_master) {
    LOG_NOTICE(
        "Before turning into a replica, using my own master parameters to synthesize a cached "
        "master: I may be able to synchronize with the new master with just a partial transfer.");
    l.ever_synced = true;
    extra().master_db = 0;
  }
  connectToMaster();
}

void unsetMaster() {
  Link& l = link();
  if (!g_is_replica) return;
  Client* m = l.master;
  l.master = nullptr;
  l.state = State::kNone;
  if (m != nullptr) g_server->freeClientAsync(m);
  cancelHandshake();
  l.state = State::kNone;
  l.host.clear();
  l.port = 0;
  g_is_replica = false;
  db::Db::expiry_replica = false;
  common::logging::setRole('M');
  g_server->config.replicaof.clear();
  process::applyServerOomScoreAdj(g_server->config);  // the master class
  // Our history continues under a new id; the old one stays valid as the
  // secondary id up to this offset, so our replicas can continue.
  shiftReplId(std::string());
  dropSubReplicas();
  resetStreamDb();
  ensureBacklog();  // now fed by our own writes
}

void promoteForFailover(Client* by) {
  if (!g_is_replica) return;
  unsetMaster();
  LOG_NOTICE("MASTER MODE enabled (failover request from '%s')", clientDescription(by).c_str());
}

namespace {

void replicaofCommand(Client* c) {
  if (g_server->config.cluster_enabled) {
    c->addError("REPLICAOF not allowed in cluster mode.");
    return;
  }
  if (failoverState() != FailoverState::kNone) {
    c->addError("REPLICAOF not allowed while failing over.");
    return;
  }
  if (strcasecmp(std::string(c->arg(1)).c_str(), "no") == 0 &&
      strcasecmp(std::string(c->arg(2)).c_str(), "one") == 0) {
    if (g_is_replica) {
      unsetMaster();
      LOG_NOTICE("MASTER MODE enabled (user request from '%s')", clientDescription(c).c_str());
    }
    c->addOk();
    return;
  }
  if (c->flags & kReplica) {
    c->addError("Command is not valid when client is a replica.");
    return;
  }
  int64_t port;
  if (!c->argInt64Msg(2, &port, "Invalid master port")) return;
  if (port < 0 || port > 65535) {
    c->addError("Invalid master port");
    return;
  }
  std::string host(c->arg(1));
  Link& l = link();
  if (g_is_replica && strcasecmp(l.host.c_str(), host.c_str()) == 0 && l.port == port) {
    LOG_NOTICE(
        "REPLICAOF would result into synchronization with the master we are already connected "
        "with. No operation performed.");
    c->addStatus("OK Already connected to specified master");
    return;
  }
  setMaster(host, static_cast<int>(port));
  LOG_NOTICE("REPLICAOF %s:%d enabled (user request from '%s')", host.c_str(),
             static_cast<int>(port), clientDescription(c).c_str());
  c->addOk();
}

const char* stateName() {
  switch (link().state) {
    case State::kNone:
      return "none";
    case State::kConnect:
      return "connect";
    case State::kConnecting:
      return "connecting";
    case State::kHandshake:
    case State::kPsync:
      return "handshake";
    case State::kTransfer:
      return "sync";
    case State::kConnected:
      return "connected";
  }
  return "unknown";
}

}  // namespace

Link& link() {
  static Link l;
  return l;
}

void becomeConnected(std::string_view rest) {
  Link& l = link();
  if (!extra().hook) {
    extra().hook = true;
    Client::addCloseHook(onClientClose);
  }
  net::Connection* conn = l.conn;
  l.conn = nullptr;
  conn->setReadHandler(nullptr);
  conn->setWriteHandler(nullptr);
  Client* c = g_server->newClient(conn);
  // Its replies are dropped (CLIENT REPLY OFF); REPLCONF ACK is written
  // past that (writeUnmuted).
  c->flags |= kMaster | kAuthenticated | kReplyOff;
  int db = extra().master_db;
  if (db < 0 || db >= static_cast<int>(g_server->dbs.size())) db = 0;
  c->setDb(&g_server->dbAt(db));
  g_server->linkClient(c);
  l.master = c;
  l.state = State::kConnected;
  l.down_since_s = 0;
  l.ever_synced = true;
  // Our replicas continue from it, and so do we after a promotion.
  ensureBacklog();
  noteIo();
  startReading(c);
  // The stream already read with the RDB runs first.
  if (!rest.empty()) {
    c->setPendingInput(rest);
    if (!resumeInput(c)) return;
  }
  sendAck();
}

void setMasterDb(int db) {
  extra().master_db = db;
}

void sendAck() {
  Link& l = link();
  Client* c = l.master;
  if (c == nullptr || (c->flags & kCloseAsap)) return;
  std::string off = std::to_string(masterOffset());
  std::string cmd =
      "*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$" + std::to_string(off.size()) + "\r\n" + off + "\r\n";
  c->writeUnmuted([&](resp::Writer& w) { w.raw(cmd); });
  if (!(c->flags & kPendingWrite)) g_server->queueWrite(c);
  l.last_ack_s = nowSec();
}

void dropSubReplicas() {
  for (ReplicaState* r : std::vector<ReplicaState*>(replicas()))
    g_server->freeClientAsync(r->client);
}

}  // namespace replica

using replica::link;
using replica::State;

void registerReplicaCommands(CommandTable& t) {
  setMasterAppliedHook(masterApplied);
  t.add({"replicaof", 3, kAdmin | kNoScript | kStale | kNoAsyncLoading, replica::replicaofCommand,
         0, 0, 0, "server",
         "Make the server a replica of another instance, or promote it as master.", "5.0.0", "O(1)",
         "admin slow dangerous"});
  t.add({"slaveof", 3, kAdmin | kNoScript | kStale | kNoAsyncLoading, replica::replicaofCommand, 0,
         0, 0, "server", "Make the server a replica of another instance, or promote it as master.",
         "1.0.0", "O(1)", "admin slow dangerous"});
}

void startReplicaFromConfig() {
  const std::string& v = g_server->config.replicaof;
  if (v.empty()) {
    continueHistoryAsMaster();
    return;
  }
  size_t sp = v.rfind(' ');
  int64_t port = 0;
  common::strutil::parseInt64(std::string_view(v).substr(sp + 1), &port);
  replica::Link& l = link();
  l.host = v.substr(0, sp);
  l.port = static_cast<int>(port);
  l.state = State::kConnect;
  g_is_replica = true;
  db::Db::expiry_replica = true;
  common::logging::setRole('S');
  // Our own RDB says where its data stands in the master's stream: the
  // first PSYNC may continue from there.
  const persist::ReplInfo& ri = persist::loadedReplInfo();
  persist::takeLoadExpiredKeys();  // a master's concern only: released
  if (ri.id.size() == 40 && ri.offset >= 0 && ri.stream_db >= 0) {
    setReplIdAndOffset(ri.id, ri.offset);
    replica::setMasterDb(static_cast<int>(ri.stream_db));
    l.ever_synced = true;
  }
}

Client* masterClient() {
  replica::Link& l = link();
  return l.state == State::kConnected ? l.master : nullptr;
}

void ackToMaster() {
  replica::sendAck();
}

bool servingStale() {
  return g_is_replica && link().state != State::kConnected &&
         !g_server->config.replica_serve_stale_data;
}

bool allowedOnReplica(Client* c, uint32_t cmd_flags) {
  const Config& cfg = g_server->config;
  if (cfg.replica_read_only && (cmd_flags & kWrite)) {
    c->addError("-READONLY You can't write against a read only replica.");
    return false;
  }
  if (!(cmd_flags & kStale) && servingStale()) {
    c->addError(
        "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
    return false;
  }
  return true;
}

void masterApplied(Client* c, std::string_view bytes) {
  (void)c;
  replica::noteIo();
  feedRaw(bytes);
}

void replicaCron() {
  replica::Link& l = link();
  if (!g_is_replica) return;
  // A diskless transfer counts as loading (clients get -LOADING) but still
  // times out here.
  if (persist::loading() && l.state != State::kTransfer) return;
  const Config& cfg = g_server->config;
  int64_t now = nowSec();
  switch (l.state) {
    case State::kConnecting:
    case State::kHandshake:
    case State::kPsync:
      if (now - l.connect_start_s > cfg.repl_timeout) {
        LOG_WARNING("Timeout connecting to the MASTER...");
        replica::cancelHandshake();
      }
      break;
    case State::kTransfer:
      if (now - l.last_io_s > cfg.repl_timeout) {
        LOG_WARNING(
            "Timeout receiving bulk data from MASTER... If the problem persists try to set the "
            "'repl-timeout' parameter in redis.conf to a larger value.");
        replica::cancelHandshake();
      }
      break;
    case State::kConnected:
      if (l.master != nullptr && now - l.last_io_s > cfg.repl_timeout) {
        LOG_WARNING("MASTER timeout: no data nor PING received...");
        g_server->freeClientAsync(l.master);
        break;
      }
      if (now != l.last_ack_s) replica::sendAck();
      break;
    case State::kConnect:
      replica::connectToMaster();
      break;
    case State::kNone:
      break;
  }
}

void appendInfoReplicaHeader(std::string* o) {
  const replica::Link& l = link();
  // A master link found closed in this iteration is down already, though
  // its client is freed only before the loop sleeps.
  bool up = l.state == State::kConnected && l.master != nullptr && !(l.master->flags & kCloseAsap);
  const Config& cfg = g_server->config;
  int64_t now = nowSec();
  using ll = long long;
  appendFormat(o, "role:slave\r\nmaster_host:%s\r\nmaster_port:%d\r\n", l.host.c_str(), l.port);
  appendFormat(o, "master_link_status:%s\r\n", up ? "up" : "down");
  appendFormat(o, "master_last_io_seconds_ago:%d\r\n",
               l.master != nullptr ? static_cast<int>(now - l.last_io_s) : -1);
  appendFormat(o, "master_sync_in_progress:%d\r\n", l.state == State::kTransfer ? 1 : 0);
  ll read =
      masterOffset() + (l.master != nullptr ? static_cast<ll>(l.master->queryBufferBytes()) : 0);
  appendFormat(o, "slave_read_repl_offset:%lld\r\nslave_repl_offset:%lld\r\n", read,
               static_cast<ll>(masterOffset()));
  if (l.state == State::kTransfer) {
    ll size = l.size, got = static_cast<ll>(l.received);
    double perc = size > 0 ? static_cast<double>(got) / static_cast<double>(size) * 100 : 0;
    appendFormat(o,
                 "master_sync_total_bytes:%lld\r\nmaster_sync_read_bytes:%lld\r\n"
                 "master_sync_left_bytes:%lld\r\nmaster_sync_perc:%.2f\r\n"
                 "master_sync_last_io_seconds_ago:%d\r\n",
                 size, got, size - got, perc, static_cast<int>(now - l.last_io_s));
  }
  if (!up)
    appendFormat(o, "master_link_down_since_seconds:%lld\r\n",
                 l.down_since_s ? static_cast<ll>(now - l.down_since_s) : -1LL);
  appendFormat(o, "slave_priority:%lld\r\nslave_read_only:%d\r\nreplica_announced:%d\r\n",
               static_cast<ll>(cfg.replica_priority), cfg.replica_read_only ? 1 : 0,
               cfg.replica_announced ? 1 : 0);
}

void roleReplyReplica(Client* c) {
  const replica::Link& l = link();
  c->addArrayLen(5);
  c->addBulk("slave");
  c->addBulk(l.host);
  c->addInteger(l.port);
  c->addBulk(replica::stateName());
  c->addInteger(l.master != nullptr ? masterOffset() : -1);
}

void clusterFollow(const std::string& host, int port) {
  const replica::Link& l = link();
  if (g_is_replica && l.port == port && strcasecmp(l.host.c_str(), host.c_str()) == 0) return;
  replica::setMaster(host, port);
  LOG_NOTICE("Connecting to MASTER %s:%d (cluster configuration)", host.c_str(), port);
}

void clusterStopFollowing() {
  if (!g_is_replica) return;
  replica::unsetMaster();
  LOG_NOTICE("MASTER MODE enabled (cluster configuration)");
}

int64_t replicationOffset() {
  // A full sync in progress: the old history is gone and the new one not
  // loaded yet, so the offset is 0, as Redis reports it then (CLUSTER
  // SHARDS shows such a replica as "loading").
  if (g_is_replica && link().state == State::kTransfer) return 0;
  return masterOffset();
}

int64_t masterDataAgeMs() {
  const replica::Link& l = link();
  if (!g_is_replica) return -1;
  int64_t now = nowSec();
  if (l.state == State::kConnected) return (now - l.last_io_s) * 1000;
  if (l.down_since_s == 0) return -1;
  return (now - l.down_since_s) * 1000;
}

}  // namespace server::repl
