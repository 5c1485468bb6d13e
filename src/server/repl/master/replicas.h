// Private to src/server/repl/: the replicas and what each asked for, the
// replication id and offset, and the stream of write effects sent to them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/core/command.h"

namespace server {
class Client;
}

namespace server::repl {

enum class SyncState {
  kNone,       // only REPLCONF so far
  kWaitStart,  // SYNC received, no child writes its RDB yet
  kWaitEnd,    // the running child writes its RDB
  kOnline,     // RDB sent: receives the stream
};

// Per-client replication state, created by the first REPLCONF or SYNC and
// freed by the client's close hook.
struct ReplicaState {
  Client* client = nullptr;
  // REPLCONF
  bool capa_eof = false;
  bool capa_psync2 = false;
  bool rdb_only = false;
  bool exclude_data = false;       // rdb-filter-only without the data
  bool exclude_functions = false;  // rdb-filter-only without "functions"
  int64_t listening_port = 0;
  std::string announced_ip;
  int64_t ack_offset = 0;
  int64_t ack_time_s = 0;
  // SYNC / PSYNC
  SyncState state = SyncState::kNone;
  bool pre_psync = false;      // SYNC: no +FULLRESYNC line, never times out
  bool socket_target = false;  // the RDB comes through the pipe ($EOF:)
  bool stream_on_ack = false;  // online, stream held until the first ACK
  int64_t psync_offset = 0;    // master offset the RDB corresponds to
  int64_t sync_start_s = 0;
  // Where this replica reads the replication buffer (the offset of the next
  // byte to send it): set when its RDB is forked (the stream after it waits
  // there until the RDB is sent) or by PSYNC; 0 while it takes no stream.
  int64_t stream_pos = 0;
  uint64_t rdb_bytes = 0;
  // Socket target: its queued RDB bytes at the last cron tick, and since
  // when that figure has stood still without being 0 (a replica that
  // stopped reading holds up the pipe, so every socket target, for
  // repl-timeout at most).
  size_t rdb_pending = 0;
  int64_t rdb_stalled_since_s = 0;
  // Disk target: the saved file being sent, and what is left of it.
  int file_fd = -1;
  uint64_t file_left = 0;
  // client-output-buffer-limit replica: since when the soft limit is
  // exceeded (0: it is not).
  int64_t obuf_soft_since_ms = 0;
};

// A master restarted from an RDB that names its replication id and offset
// (aux fields): that history becomes the secondary id (valid up to
// offset + 1) under a new id, with a backlog, so its replicas continue with
// PSYNC; the DELs of the keys the load found expired go into the stream
// first (as Redis 7.0). Nothing without those fields.
void continueHistoryAsMaster();

// The client's state; created when `create` (else nullptr if none).
ReplicaState* stateOf(Client* c, bool create);
// Clients that sent SYNC/PSYNC, in arrival order.
std::vector<ReplicaState*>& replicas();
bool isFiltered(const ReplicaState& r);

// The wall clock in seconds (ACK times, timeouts, INFO lags).
int64_t nowSec();
// 40 random hex characters: a replication id, a diskless transfer's EOF mark.
std::string randomId();

const std::string& replId();
// A new random replication id (DEBUG CHANGE-REPL-ID).
void changeReplId();
int64_t masterOffset();
// The previous id and the offset up to which it is valid (PSYNC2), or
// forty zeros and -1.
const std::string& replId2();
int64_t secondReplOffset();
// A full sync from a master: its id and the offset its RDB stands for.
void setReplIdAndOffset(const std::string& id, int64_t offset);
// The current id becomes the secondary one (valid up to the offset + 1)
// and `id` (a random one when empty) the current one.
void shiftReplId(const std::string& id);
// Creates the backlog (and the stream's propagation sink on a master) if
// there is none yet.
void ensureBacklog();
class ReplBuffer;
// The replication buffer (backlog and replicas' stream), or nullptr.
ReplBuffer* replBuffer();

// The aux fields of an RDB saved now (persist::setReplAuxHook).
std::vector<std::pair<std::string, std::string>> replAux();
// Appends raw bytes to the stream (backlog and replicas) and advances the
// offset: GETACK, and on a replica each applied piece of its master's
// stream, which our own replicas get unchanged.
void feedRaw(std::string_view bytes);

// wait.cpp: WAIT and min-replicas-to-write.
void registerWaitCommand(CommandTable& t);
// A replica acknowledged an offset: waiters may be done.
void onReplicaAck();
// Timeouts of waiters.
void waitCron();
// Online replicas whose last ACK is within min-replicas-max-lag.
int64_t goodReplicas();

// replica/replica.cpp: the replica side's hooks for this folder.
void registerReplicaCommands(CommandTable& t);
void replicaCron();
void appendInfoReplicaHeader(std::string* o);
void roleReplyReplica(Client* c);
// The master client of a replica, or nullptr.
Client* masterClient();

// Registers the stream's propagation sink (once) and creates the "backlog"
// (a new replication id) when the first replica arrives, as Redis does.
void attachReplica(ReplicaState* r);
// Forces a SELECT before the next command of the stream (new RDB forked).
void resetStreamDb();
// Appends raw bytes to the replica's output now (RDB, preambles).
void sendRaw(ReplicaState* r, std::string_view bytes);
// The replica takes the stream from `offset` (the next byte's; the buffer
// must cover it), sent as far as its output window allows now and the rest
// as its output drains.
void streamFrom(ReplicaState* r, int64_t offset);
// Holds the stream from the next byte on for a replica whose RDB is being
// made (unless it asked for the RDB only): streamFrom() sends it once the
// RDB is out.
void holdStream(ReplicaState* r);
// The RDB has been sent: rdb-only replicas are closed, others go online.
void transferDone(ReplicaState* r);
// Logs and schedules the replica's connection to close.
void dropReplica(ReplicaState* r, const char* why);
std::string replicaName(const ReplicaState& r);
// Its announced address, else its peer's (as INFO's slaveN:ip shows it).
std::string replicaIp(const ReplicaState& r);

// rdb_transfer.cpp
// Starts a child for the replicas waiting for one, when possible now.
void maybeStartTransfer(bool cron_tick);
// Installs the persistence child-done hook (once).
void installTransferHooks();
// The replica went away: stop forwarding to it (kills a diskless child
// left without any replica).
void forgetTransferTarget(ReplicaState* r);
// For INFO: a diskless transfer is in progress.
bool socketTransferActive();

// failover.cpp: FAILOVER, as Redis 7.0 coordinates it from the master.
enum class FailoverState { kNone, kWaitForSync, kInProgress };
FailoverState failoverState();
// INFO's master_failover_state: no-failover, waiting-for-sync,
// failover-in-progress.
const char* failoverStateName();
// The cron tick and every replica ACK: the target may have caught up, or
// the timeout passed.
void updateFailover();
// The replica side's PSYNC to the target (sent with FAILOVER while
// kInProgress) was accepted, or refused with an error.
void failoverPsyncAccepted();
void failoverPsyncRefused();
void registerFailoverCommand(CommandTable& t);
// rdb-del-sync-files on a master without persistence (no save points, no
// AOF): deletes the file a disk-target sync wrote once no replica still
// waits for it or reads it (the cron calls it).
void removeSyncFileIfDone();

}  // namespace server::repl
