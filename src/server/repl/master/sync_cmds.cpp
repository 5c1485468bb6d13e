// REPLCONF, SYNC and PSYNC with Redis 7.0's replies and error texts.
#include <strings.h>

#include <string>
#include <vector>

#include "common/log.h"
#include "common/strutil.h"
#include "resp/request_parser.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/persist/persist.h"
#include "server/persist/snapshot.h"
#include "server/repl/master/replicas.h"
#include "server/repl/repl.h"
#include "server/repl/repl_buffer.h"
#include "server/repl/replica/replica.h"
#include "server/request/client_info.h"
#include "server/request/multi.h"

namespace server::repl {

namespace {

// Redis's NET_HOST_STR_LEN: the longest ip-address a replica may announce.
constexpr size_t kMaxHostLen = 256;

bool argIs(std::string_view a, const char* s) {
  return a.size() == strlen(s) && strncasecmp(a.data(), s, a.size()) == 0;
}

// PSYNC <replid> <offset>: continues from the backlog when the id is ours
// (or our previous one, up to where it was valid) and the backlog still
// holds that offset (`off`, already checked to be a number). False when a
// full resync must follow (logged why).
bool tryPartial(Client* c, ReplicaState* r, int64_t off) {
  std::string id(c->arg(1));
  if (id == "?") {
    LOG_NOTICE("Full resync requested by replica %s", replicaName(*r).c_str());
    return false;
  }
  if (id != replId() && (id != replId2() || off > secondReplOffset())) {
    if (id != replId2()) {
      LOG_NOTICE(
          "Partial resynchronization not accepted: Replication ID mismatch (Replica asked for "
          "'%s', my replication IDs are '%s' and '%s')",
          id.c_str(), replId().c_str(), replId2().c_str());
    } else {
      LOG_NOTICE(
          "Partial resynchronization not accepted: Requested offset for second ID was %lld, but "
          "I can reply up to %lld",
          static_cast<long long>(off), static_cast<long long>(secondReplOffset()));
    }
    g_server->stats.sync_partial_err++;
    return false;
  }
  ReplBuffer* b = replBuffer();
  if (b == nullptr || !b->covers(off)) {
    LOG_NOTICE(
        "Unable to partial resync with replica %s for lack of backlog (Replica request was: "
        "%lld).",
        replicaName(*r).c_str(), static_cast<long long>(off));
    if (off > masterOffset())
      LOG_WARNING(
          "Warning: replica %s tried to PSYNC with an offset that is greater than the master "
          "replication offset.",
          replicaName(*r).c_str());
    g_server->stats.sync_partial_err++;
    return false;
  }
  c->flags &= ~(kReplyOff | kReplySkipNext);
  attachReplica(r);
  r->state = SyncState::kOnline;
  r->ack_time_s = nowSec();
  std::string reply = r->capa_psync2 ? "+CONTINUE " + replId() + "\r\n" : "+CONTINUE\r\n";
  sendRaw(r, reply);
  // The backlog's bytes from `off` on go out from the shared buffer as the
  // replica takes them.
  long long behind = static_cast<long long>(b->endOffset() - off);
  streamFrom(r, off);
  LOG_NOTICE(
      "Partial resynchronization request from %s accepted. Sending %lld bytes of backlog starting "
      "from offset %lld.",
      replicaName(*r).c_str(), behind, static_cast<long long>(off));
  g_server->stats.sync_partial_ok++;
  return true;
}

// The stream held back since the transfer ended starts now.
void startStreamOnAck(ReplicaState* r) {
  r->stream_on_ack = false;
  if (r->rdb_only) {
    dropReplica(r, "Close the connection with replica as RDB transfer is complete:");
    return;
  }
  streamFrom(r, r->stream_pos);
}

void replconfCommand(Client* c) {
  if (c->argc() % 2 == 0) {
    c->addSyntaxError();
    return;
  }
  ReplicaState* r = stateOf(c, true);
  for (size_t j = 1; j < c->argc(); j += 2) {
    std::string_view opt = c->arg(j), val = c->arg(j + 1);
    if (argIs(opt, "listening-port")) {
      int64_t port;
      if (!c->argInt64(j + 1, &port)) return;
      r->listening_port = port;
    } else if (argIs(opt, "ip-address")) {
      if (val.size() >= kMaxHostLen) {
        c->addErrorFormat("REPLCONF ip-address provided by replica instance is too long: %zu bytes",
                          val.size());
        return;
      }
      r->announced_ip.assign(val);
    } else if (argIs(opt, "capa")) {
      // Unknown capabilities are ignored: a newer replica may offer more.
      if (argIs(val, "eof")) r->capa_eof = true;
      if (argIs(val, "psync2")) r->capa_psync2 = true;
    } else if (argIs(opt, "ack")) {
      // ACK has no reply, whatever happens.
      int64_t off;
      if (!(c->flags & kReplica) || !common::strutil::parseInt64(val, &off)) return;
      if (off > r->ack_offset) r->ack_offset = off;
      r->ack_time_s = nowSec();
      onReplicaAck();
      updateFailover();
      if (r->stream_on_ack && r->state == SyncState::kOnline) startStreamOnAck(r);
      return;
    } else if (argIs(opt, "getack")) {
      // From our master: acknowledge now. No reply either way.
      if (c->flags & kMaster) ackToMaster();
      return;
    } else if (argIs(opt, "rdb-only")) {
      int64_t v;
      if (!c->argInt64(j + 1, &v)) return;
      if (v < 0 || v > 1) {
        c->addError("value is out of range, value must between 0 and 1");
        return;
      }
      r->rdb_only = v == 1;
    } else if (argIs(opt, "rdb-filter-only")) {
      std::vector<std::string> filters;
      if (!resp::splitArgs(val, &filters)) {
        c->addError("Missing rdb-filter-only values");
        return;
      }
      // Everything is left out but what the filters name.
      r->exclude_data = true;
      r->exclude_functions = true;
      for (const std::string& f : filters) {
        if (argIs(f, "functions")) {
          r->exclude_functions = false;
        } else {
          c->addErrorFormat("Unsupported rdb-filter-only option: %s", f.c_str());
          return;
        }
      }
    } else {
      std::string o(opt);
      c->addErrorFormat("Unrecognized REPLCONF option: %s", o.c_str());
      return;
    }
  }
  c->addOk();
}

void syncCommand(Client* c) {
  // A second SYNC from a replica is ignored, without a reply.
  if (c->flags & kReplica) return;
  bool psync = argIs(c->arg(0), "psync");
  // A master failing over to us: its history is ours (same id), so this
  // replica becomes a master and answers the PSYNC as one (+CONTINUE).
  if (psync && c->argc() > 3 && argIs(c->arg(3), "failover")) {
    if (c->arg(1) != replId()) {
      c->addError("PSYNC FAILOVER replid must match my replid.");
      return;
    }
    replica::promoteForFailover(c);
  }
  if (failoverState() != FailoverState::kNone) {
    c->addError("-NOMASTERLINK Can't SYNC while failing over");
    return;
  }
  if (c->hasPendingReplies()) {
    c->addError("SYNC and PSYNC are invalid with pending output");
    return;
  }
  // A replica serves its replicas only while its own link is up.
  if (g_is_replica && masterClient() == nullptr) {
    c->addError("-NOMASTERLINK Can't SYNC while not connected with my master");
    return;
  }
  ReplicaState* r = stateOf(c, true);
  if (isFiltered(*r) && !r->capa_eof) {
    c->addError("Filtered replica requires EOF capability");
    return;
  }
  LOG_NOTICE("Replica %s asks for synchronization", replicaName(*r).c_str());
  int64_t offset;
  if (psync && !common::strutil::parseInt64(c->arg(2), &offset)) {
    LOG_WARNING("Replica %s asks for synchronization but with a wrong offset",
                replicaName(*r).c_str());
    c->addNotInteger();
    return;
  }
  if (psync) {
    if (tryPartial(c, r, offset)) return;
  } else {
    r->pre_psync = true;
  }
  g_server->stats.sync_full++;
  // Fewer, fuller packets for this replica from now on, at the cost of
  // latency (repl-disable-tcp-nodelay; failing is harmless: unix, rdma).
  if (g_server->config.repl_disable_tcp_nodelay) c->conn()->setNoDelay(false);
  // Clear CLIENT REPLY OFF/SKIP: what is written from now on is the RDB and
  // the stream, never replies.
  c->flags &= ~(kReplyOff | kReplySkipNext);
  r->state = SyncState::kWaitStart;
  attachReplica(r);
  const Config& cfg = g_server->config;
  if (persist::childActive()) {
    LOG_NOTICE("Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE for SYNC");
  } else if (cfg.repl_diskless_sync && r->capa_eof && cfg.repl_diskless_sync_delay > 0) {
    LOG_NOTICE("Delay next BGSAVE for diskless SYNC");
  } else {
    maybeStartTransfer(false);
  }
}

}  // namespace

bool allowedFromReplica(Client* c, const Command* cmd) {
  if (!(c->flags & kReplica)) return true;
  std::string_view name = cmd->name;
  if (name == "replconf" || name == "sync" || name == "psync") return true;
  // A keyspace command is refused first, and that error is what the
  // replica would get (as Redis logs it).
  if (cmd->flags & (kWrite | kReadOnly | kMayReplicate))
    LOG_WARNING(
        "== CRITICAL == This master is sending an error to its replica: 'Replica can't interact "
        "with the keyspace' after processing the command '%s'",
        cmd->name);
  std::string line;
  formatClientLine(describeClient(c), &line);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  LOG_WARNING("Replica generated a reply to command '%s', disconnecting it: %s", cmd->name,
              line.c_str());
  g_server->freeClientAsync(c);
  return false;
}

void registerReplCommands(CommandTable& t) {
  installTransferHooks();
  persist::setReplAuxHook(replAux);
  registerReplicaCommands(t);
  registerWaitCommand(t);
  registerFailoverCommand(t);
  t.add({"sync", 1, kAdmin | kNoScript | kNoAsyncLoading | kNoMulti, syncCommand, 0, 0, 0, "server",
         "Internal command used for replication", "1.0.0", nullptr, "admin slow dangerous"});
  t.add({"psync", -3, kAdmin | kNoScript | kNoAsyncLoading | kNoMulti, syncCommand, 0, 0, 0,
         "server", "Internal command used for replication", "2.8.0", nullptr,
         "admin slow dangerous"});
  t.add({"replconf", -1, kAdmin | kNoScript | kLoading | kStale | kAllowBusy, replconfCommand, 0, 0,
         0, "server", "An internal command for configuring the replication stream", "3.0.0", "O(1)",
         "admin slow dangerous"});
}

}  // namespace server::repl
