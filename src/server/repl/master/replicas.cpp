// The replicas, the stream of write effects sent to them (a propagation
// sink), and what INFO, ROLE and CLIENT LIST show of them.
#include "server/repl/master/replicas.h"

#include <time.h>

#include <algorithm>
#include <memory>

#include "common/hash.h"
#include "common/log.h"
#include "server/core/client.h"
#include "server/core/reply_helpers.h"
#include "server/core/state.h"
#include "server/persist/persist.h"
#include "server/propagate/propagate.h"
#include "server/repl/repl.h"
#include "server/repl/repl_buffer.h"
#include "server/request/client_info.h"
#include "server/request/client_io.h"
#include "server/request/obuf_limits.h"

namespace server::repl {

namespace {

struct Globals {
  std::vector<ReplicaState*> replicas;
  std::string replid;
  std::string replid2 = std::string(40, '0');
  int64_t second_offset = -1;
  int64_t offset = 0;
  int stream_db = -1;   // db of the last SELECT in the stream; -1: none yet
  int64_t seconds = 0;  // one-second ticks of the cron so far
  int64_t last_newline_s = 0;
  bool sink_added = false;
  // The backlog and the replicas' stream. Created with the first replica
  // (or a replica's first sync), freed after repl-backlog-ttl without
  // replicas on a master.
  std::unique_ptr<ReplBuffer> backlog;
  // repl-backlog-ttl counts from here: start, the last replica gone, or a
  // new history (a promotion must not find its backlog already expired).
  int64_t no_replicas_since_s = static_cast<int64_t>(time(nullptr));
};

// A plain global, not a function-local static: the stream's path reads it
// several times per write, and nothing uses it before main().
Globals g_globals;
inline Globals& g() {
  return g_globals;
}

// A streaming replica is sent at most this much ahead of what its
// connection took; the rest of the stream stays in the shared buffer.
constexpr size_t kStreamWindow = 128 * 1024;
// Blocks the backlog frees per feed and per cron call (a big drop of
// memory, after a lagging replica left, is spread over time).
constexpr size_t kTrimPerFeed = 10;
constexpr size_t kTrimPerCron = 100;

bool streaming(const ReplicaState& r) {
  return r.stream_pos > 0 && r.state == SyncState::kOnline && !r.stream_on_ack && !r.rdb_only;
}

// Stream bytes the replica has not been sent yet (kept in the shared buffer).
size_t streamBehind(const ReplicaState& r) {
  if (r.stream_pos <= 0 || !g().backlog) return 0;
  return static_cast<size_t>(std::max<int64_t>(g().backlog->endOffset() - r.stream_pos, 0));
}

// client-output-buffer-limit replica, on what the replica has queued: its
// output and the stream it has not been sent. As in Redis, a hard limit
// below repl-backlog-size counts as repl-backlog-size (the replica shares
// the backlog's memory; a smaller limit would only break partial
// resynchronization). False when the replica has been scheduled to close.
bool withinLimits(ReplicaState* r) {
  Client* c = r->client;
  const Config& cfg = g_server->config;
  Config::OutputBufferLimit lim = cfg.obuf_limits[Config::kClassReplica];
  if (lim.hard > 0 && lim.hard < cfg.repl_backlog_size) lim.hard = cfg.repl_backlog_size;
  int64_t used = static_cast<int64_t>(c->outputBytes() + streamBehind(*r));
  return !closeIfOverLimit(c, lim, used, false, &r->obuf_soft_since_ms);
}

// Copies the stream from the replica's position into its output, up to
// kStreamWindow pending, and queues the write unless `draining` (called
// from the drained hook: client_io installs the write handler then).
void pump(ReplicaState* r, bool draining = false) {
  Client* c = r->client;
  ReplBuffer* b = g().backlog.get();
  if (b == nullptr || (c->flags & kCloseAsap)) return;
  while (r->stream_pos < b->endOffset() && c->outputBytes() < kStreamWindow) {
    std::string_view piece = b->read(r->stream_pos, kStreamWindow - c->outputBytes());
    c->writeUnmuted([&](resp::Writer& w) { w.raw(piece); });
    r->stream_pos += static_cast<int64_t>(piece.size());
  }
  if (!draining && c->hasPendingReplies() && !(c->flags & kPendingWrite)) g_server->queueWrite(c);
}

// The oldest position a replica still reads from (INT64_MAX: none).
int64_t minReader() {
  int64_t m = INT64_MAX;
  for (const ReplicaState* r : g().replicas)
    if (r->stream_pos > 0 && !(r->client->flags & kCloseAsap)) m = std::min(m, r->stream_pos);
  return m;
}

void trimBuffer(size_t max_blocks) {
  if (g().backlog && g().backlog->trimmable()) g().backlog->trim(minReader(), max_blocks);
}

// The client_io hook: a replica's output drained; true when it has more.
bool onReplicaDrained(Client* c) {
  ReplicaState* r = c->repl_state;
  if (r == nullptr || !streaming(*r)) return false;
  pump(r, true);
  return c->hasPendingReplies();
}

// Appends `bytes` to the stream (the shared buffer), sends it on to the
// replicas that take it now, and advances the offset. Iterates the list
// itself: a replica over its limits is only scheduled to close.
void feedStream(std::string_view bytes) {
  g().offset += static_cast<int64_t>(bytes.size());
  ReplBuffer* b = g().backlog.get();
  if (b == nullptr) return;
  int64_t fed_at = b->endOffset();
  b->feed(bytes);
  for (ReplicaState* r : g().replicas) {
    Client* c = r->client;
    if (c->flags & kCloseAsap) continue;
    if (streaming(*r)) {
      if (r->stream_pos == fed_at && c->outputBytes() + bytes.size() <= kStreamWindow) {
        // Caught up, with room: these bytes are all it needs (the usual
        // case, without looking them up in the buffer).
        sendRaw(r, bytes);
        r->stream_pos = b->endOffset();
      } else {
        pump(r);
      }
    }
    if (r->stream_pos > 0) withinLimits(r);
  }
  trimBuffer(kTrimPerFeed);
}

class StreamSink : public propagate::Sink {
 public:
  void feed(int db, std::span<const std::string_view> argv) override {
    // A replica's replicas get its master's stream (feedRaw), not
    // its own effects.
    if (!g().backlog || g_is_replica) return;
    buf_.clear();
    propagate::appendToStream(&buf_, &g().stream_db, db, argv);
    feedStream(buf_);
    // Reused while commands are small; a big value's room is given back.
    if (buf_.capacity() > kKeepBytes) std::string().swap(buf_);
    // The client whose call is propagating (EXEC's and a script's caller:
    // their effects go out at the end of the outermost call).
    if (Client* c = g_server->current_client) c->repl_woff = g().offset;
  }
  // A replica stream: PUBLISH and redis.set_repl(REPL_REPLICA) effects come
  // here, not to the AOF (propagate.h, Targets).
  unsigned target() const override { return propagate::kToReplicas; }

 private:
  static constexpr size_t kKeepBytes = 64 * 1024;
  std::string buf_;  // one command's stream bytes
};

StreamSink& sink() {
  static StreamSink s;
  return s;
}

const char* stateName(const ReplicaState& r) {
  switch (r.state) {
    case SyncState::kWaitStart:
    case SyncState::kWaitEnd:
      return "wait_bgsave";
    case SyncState::kOnline:
      return "online";
    default:
      return "none";
  }
}

void onClientClose(Client* c) {
  ReplicaState* r = c->repl_state;
  if (r == nullptr) return;
  auto& v = g().replicas;
  auto it = std::find(v.begin(), v.end(), r);
  if (it != v.end()) {
    v.erase(it);
    LOG_WARNING("Connection with replica %s lost.", replicaName(*r).c_str());
    forgetTransferTarget(r);
    // The backlog goes on without replicas (a replica may come back and
    // continue) until repl-backlog-ttl.
    if (v.empty()) g().no_replicas_since_s = nowSec();
  }
  c->repl_state = nullptr;
  delete r;
}

}  // namespace

std::string replicaIp(const ReplicaState& r) {
  if (!r.announced_ip.empty()) return r.announced_ip;
  if (r.client->conn() == nullptr) return "?";
  std::string a = r.client->conn()->peerAddress();
  size_t colon = a.rfind(':');
  if (colon != std::string::npos) a = a.substr(0, colon);
  if (a.size() >= 2 && a.front() == '[' && a.back() == ']') a = a.substr(1, a.size() - 2);
  return a;
}

int64_t nowSec() {
  return static_cast<int64_t>(time(nullptr));
}

ReplicaState* stateOf(Client* c, bool create) {
  if (c->repl_state == nullptr && create) {
    static bool hook = false;
    if (!hook) {
      hook = true;
      Client::addCloseHook(onClientClose);
    }
    c->repl_state = new ReplicaState();
    c->repl_state->client = c;
  }
  return c->repl_state;
}

std::vector<ReplicaState*>& replicas() {
  return g().replicas;
}

bool isFiltered(const ReplicaState& r) {
  return r.exclude_data || r.exclude_functions;
}

std::string randomId() {
  static const char hex[] = "0123456789abcdef";
  std::string id(40, '0');
  for (char& ch : id) ch = hex[common::randomU64() & 15];
  return id;
}

const std::string& replId() {
  if (g().replid.empty()) g().replid = randomId();
  return g().replid;
}

const std::string& replId2() {
  return g().replid2;
}

int64_t secondReplOffset() {
  return g().second_offset;
}

void setReplIdAndOffset(const std::string& id, int64_t offset) {
  g().replid = id;
  g().offset = offset;
  // The backlog restarts at the new history; positions in the old one mean
  // nothing (its replicas are dropped: they must resynchronize).
  for (ReplicaState* r : g().replicas) r->stream_pos = 0;
  g().backlog.reset();
  ensureBacklog();
  g().replid2.assign(40, '0');
  g().second_offset = -1;
}

void continueHistoryAsMaster() {
  const persist::ReplInfo& ri = persist::loadedReplInfo();
  std::vector<std::pair<int, std::string>> expired = persist::takeLoadExpiredKeys();
  if (ri.id.size() != 40 || ri.offset < 0 || ri.stream_db < 0) return;
  setReplIdAndOffset(ri.id, ri.offset);
  shiftReplId(std::string());
  bool lazy = g_server->config.lazyfree_lazy_expire;
  for (const auto& [db, key] : expired) {
    std::string_view argv[] = {lazy ? "UNLINK" : "DEL", key};
    std::string out;
    propagate::appendToStream(&out, &g().stream_db, db, argv);
    feedStream(out);
  }
}

void shiftReplId(const std::string& id) {
  Globals& s = g();
  s.replid2 = replId();
  s.second_offset = s.offset + 1;
  s.replid = id.empty() ? randomId() : id;
  s.no_replicas_since_s = nowSec();
  LOG_WARNING(
      "Setting secondary replication ID to %s, valid up to offset: %lld. New replication "
      "ID is %s",
      s.replid2.c_str(), static_cast<long long>(s.second_offset), s.replid.c_str());
}

// DEBUG CHANGE-REPL-ID: a new history, as Redis makes it (a new id and the
// secondary id cleared), so no replica can continue the old one.
void changeReplId() {
  g().replid = randomId();
  g().replid2.assign(40, '0');
  g().second_offset = -1;
}

int64_t masterOffset() {
  return g().offset;
}

void ensureBacklog() {
  Globals& s = g();
  if (!s.backlog) {
    s.backlog = std::make_unique<ReplBuffer>(
        static_cast<size_t>(g_server->config.repl_backlog_size), s.offset + 1);
    replId();
  }
  // A master's own writes feed it; a replica's stream comes from its master.
  if (!s.sink_added && !g_is_replica) {
    s.sink_added = true;
    propagate::addSink(&sink());
  }
}

ReplBuffer* replBuffer() {
  return g().backlog.get();
}

bool replicasInSync() {
  for (const ReplicaState* r : g().replicas) {
    if (r->ack_offset != g().offset) return false;
  }
  return true;
}

void logReplicasAtShutdown() {
  size_t lagging = 0;
  int64_t now = nowSec();
  for (const ReplicaState* r : g().replicas) {
    if (r->ack_offset == g().offset) continue;
    lagging++;
    long long lag = r->state == SyncState::kOnline ? now - r->ack_time_s : 0;
    LOG_WARNING("Lagging replica %s reported offset %lld behind master, lag=%lld, state=%s.",
                replicaName(*r).c_str(), static_cast<long long>(g().offset - r->ack_offset), lag,
                stateName(*r));
  }
  if (!g().replicas.empty())
    LOG_NOTICE("%zu of %zu replicas are in sync when shutting down.", g().replicas.size() - lagging,
               g().replicas.size());
}

MemoryUse memoryUse() {
  MemoryUse m;
  size_t shared = g().backlog ? g().backlog->memory() : 0;
  m.buffer = shared;
  // As Redis splits the shared buffer: up to repl-backlog-size it is the
  // backlog's; what replicas hold beyond it is theirs.
  size_t backlog_size = static_cast<size_t>(g_server->config.repl_backlog_size);
  if (!g().replicas.empty() && shared > backlog_size) {
    m.backlog = backlog_size;
    m.replicas = shared - backlog_size;
  } else {
    m.backlog = shared;
  }
  // Eviction leaves out what exceeds the backlog's size and its blocks'
  // headers: a lagging replica's share grows with every write.
  size_t counted = backlog_size + (backlog_size / ReplBuffer::kMinBlock + 1) * 64;
  if (shared > counted) m.not_counted = shared - counted;
  // Our replicas' own output (the window of stream copied for them, the
  // RDB and the preambles in flight) is theirs too.
  for (const ReplicaState* r : g().replicas) {
    m.replicas += r->client->outputMemory();
    m.not_counted += r->client->outputMemory();
  }
  return m;
}

std::vector<std::pair<std::string, std::string>> replAux() {
  // As Redis's rdbPopulateSaveInfo: a master with a backlog, or a replica
  // whose link is up, records where its data stands in the stream.
  Client* m = masterClient();
  if (g_is_replica ? m == nullptr : !g().backlog) return {};
  int db = g_is_replica ? m->dbIndex() : std::max(g().stream_db, 0);
  return {{"repl-stream-db", std::to_string(db)},
          {"repl-id", replId()},
          {"repl-offset", std::to_string(g().offset)}};
}

void feedRaw(std::string_view bytes) {
  feedStream(bytes);
}

void applyBacklogSize() {
  if (g().backlog)
    g().backlog->setBacklogSize(static_cast<size_t>(g_server->config.repl_backlog_size));
}

void attachReplica(ReplicaState* r) {
  static bool hooked = false;
  if (!hooked) {
    hooked = true;
    setReplicaDrainedHook(onReplicaDrained);
    setReplicaPendingHook([](const Client* c) {
      return c->repl_state != nullptr ? streamBehind(*c->repl_state) : size_t{0};
    });
  }
  ensureBacklog();
  g().replicas.push_back(r);
  r->client->flags |= kReplica;
  r->sync_start_s = nowSec();
}

void resetStreamDb() {
  g().stream_db = -1;
}

void sendRaw(ReplicaState* r, std::string_view bytes) {
  Client* c = r->client;
  if (c->flags & kCloseAsap) return;
  c->writeUnmuted([&](resp::Writer& w) { w.raw(bytes); });
  if (!(c->flags & kPendingWrite)) g_server->queueWrite(c);
}

void streamFrom(ReplicaState* r, int64_t offset) {
  r->stream_pos = offset;
  if (streaming(*r)) pump(r);
}

void holdStream(ReplicaState* r) {
  // An rdb-only replica gets nothing after its RDB: it holds nothing.
  r->stream_pos = r->rdb_only ? 0 : g().offset + 1;
}

void transferDone(ReplicaState* r) {
  Client* c = r->client;
  if (r->rdb_only) {
    // Nothing follows the RDB: close once it is written out.
    LOG_NOTICE("Close the connection with replica %s as RDB transfer is complete",
               replicaName(*r).c_str());
    c->flags |= kCloseAfterReply;
    if (!(c->flags & kPendingWrite)) g_server->queueWrite(c);
    r->state = SyncState::kOnline;
    r->stream_pos = 0;
    return;
  }
  r->state = SyncState::kOnline;
  r->ack_time_s = nowSec();
  LOG_NOTICE("Synchronization with replica %s succeeded", replicaName(*r).c_str());
  // After a diskless transfer the replica still has to load what it got:
  // the stream starts with its first REPLCONF ACK, as in Redis 7.0.
  if (r->socket_target) {
    r->stream_on_ack = true;
    return;
  }
  streamFrom(r, r->stream_pos);
}

void dropReplica(ReplicaState* r, const char* why) {
  LOG_WARNING("%s %s", why, replicaName(*r).c_str());
  g_server->freeClientAsync(r->client);
}

std::string replicaName(const ReplicaState& r) {
  std::string port = r.listening_port > 0 ? std::to_string(r.listening_port)
                                          : std::string("<unknown-replica-port>");
  return replicaIp(r) + ":" + port;
}

// ------------------------------------------------------------ public hooks

namespace {

// A socket target whose queued RDB bytes have not moved for repl-timeout
// seconds (checked once a tick).
bool rdbStalled(ReplicaState& r, int64_t now) {
  size_t pending = r.client->outputBytes();
  if (pending == 0 || pending != r.rdb_pending) {
    r.rdb_pending = pending;
    r.rdb_stalled_since_s = now;
    return false;
  }
  return now - r.rdb_stalled_since_s > g_server->config.repl_timeout;
}

}  // namespace

void cron() {
  Globals& s = g();
  int64_t now = nowSec();
  const Config& cfg = g_server->config;
  bool tick = now != s.last_newline_s;
  if (tick) {
    s.last_newline_s = now;
    s.seconds++;
    // Replicas waiting for their RDB get a newline a second, so neither
    // side times the link out (the replica ignores them).
    for (ReplicaState* r : s.replicas) {
      if (r->state == SyncState::kWaitStart ||
          (r->state == SyncState::kWaitEnd && !r->socket_target && r->file_fd < 0))
        sendRaw(r, "\n");
    }
    // A replica that speaks PSYNC acknowledges every second; one silent
    // for repl-timeout is gone.
    for (ReplicaState* r : std::vector<ReplicaState*>(s.replicas)) {
      if (r->state == SyncState::kOnline && !r->pre_psync && !r->rdb_only &&
          now - r->ack_time_s > cfg.repl_timeout)
        dropReplica(r, "Disconnecting timedout replica (streaming sync):");
      else if (r->state == SyncState::kWaitEnd && r->socket_target && rdbStalled(*r, now))
        dropReplica(r, "Disconnecting timedout replica (full sync):");
    }
  }
  // PING every repl-ping-replica-period seconds of the clock of ticks, not
  // of the replica's arrival (as Redis counts its replication cron).
  // A replica's replicas get its master's PINGs instead.
  if (tick && !g_is_replica && !s.replicas.empty() && s.seconds % cfg.repl_ping_replica_period == 0)
    feedStream("*1\r\n$4\r\nping\r\n");
  maybeStartTransfer(true);
  trimBuffer(kTrimPerCron);
  if (tick) removeSyncFileIfDone();
  updateFailover();
  waitCron();
  if (tick) replicaCron();
  // A master without replicas for repl-backlog-ttl seconds frees its
  // backlog; the new id makes sure nobody continues from it later.
  if (tick && s.backlog && !g_is_replica && s.replicas.empty() && cfg.repl_backlog_ttl > 0 &&
      now - s.no_replicas_since_s > cfg.repl_backlog_ttl) {
    LOG_NOTICE("Replication backlog freed after %lld seconds without connected replicas.",
               static_cast<long long>(cfg.repl_backlog_ttl));
    s.backlog.reset();
    s.replid = randomId();
    s.replid2.assign(40, '0');
    s.second_offset = -1;
    if (s.sink_added) {
      s.sink_added = false;
      propagate::removeSink(&sink());
    }
  }
}

void appendInfoReplication(std::string* o) {
  Globals& s = g();
  const Config& cfg = g_server->config;
  if (g_is_replica)
    appendInfoReplicaHeader(o);
  else
    appendFormat(o, "role:master\r\n");
  appendFormat(o, "connected_slaves:%zu\r\n", s.replicas.size());
  if (cfg.min_replicas_to_write && cfg.min_replicas_max_lag)
    appendFormat(o, "min_slaves_good_slaves:%lld\r\n", static_cast<long long>(goodReplicas()));
  int64_t now = nowSec();
  size_t i = 0;
  for (ReplicaState* r : s.replicas) {
    appendFormat(o, "slave%zu:ip=%s,port=%lld,state=%s,offset=%lld,lag=%lld\r\n", i++,
                 replicaIp(*r).c_str(), static_cast<long long>(r->listening_port), stateName(*r),
                 static_cast<long long>(r->ack_offset),
                 static_cast<long long>(now - (r->ack_time_s ? r->ack_time_s : r->sync_start_s)));
  }
  appendFormat(o, "master_failover_state:%s\r\nmaster_replid:%s\r\n", failoverStateName(),
               replId().c_str());
  appendFormat(o, "master_replid2:%s\r\n", s.replid2.c_str());
  appendFormat(o, "master_repl_offset:%lld\r\nsecond_repl_offset:%lld\r\n",
               static_cast<long long>(s.offset), static_cast<long long>(s.second_offset));
  appendFormat(o, "repl_backlog_active:%d\r\nrepl_backlog_size:%lld\r\n", s.backlog ? 1 : 0,
               static_cast<long long>(g_server->config.repl_backlog_size));
  appendFormat(o, "repl_backlog_first_byte_offset:%lld\r\nrepl_backlog_histlen:%zu\r\n",
               static_cast<long long>(s.backlog ? s.backlog->firstOffset() : 0),
               s.backlog ? s.backlog->histlen() : 0);
}

void roleReply(Client* c) {
  if (g_is_replica) {
    roleReplyReplica(c);
    return;
  }
  std::vector<ReplicaState*> online;
  for (ReplicaState* r : g().replicas)
    if (r->state == SyncState::kOnline && !r->rdb_only) online.push_back(r);
  c->addArrayLen(3);
  c->addBulk("master");
  c->addInteger(g().offset);
  c->addArrayLen(static_cast<int64_t>(online.size()));
  for (ReplicaState* r : online) {
    c->addArrayLen(3);
    c->addBulk(replicaIp(*r));
    c->addBulk(std::to_string(r->listening_port));
    c->addBulk(std::to_string(r->ack_offset));
  }
}

}  // namespace server::repl
