// Private to src/server/repl/: the replicas and what each asked for, the
// replication id and offset, and the stream of write effects sent to them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
  // Stream produced while the RDB is still on its way: sent after it.
  std::string held;
  uint64_t rdb_bytes = 0;
  // Disk target: the saved file being sent, and what is left of it.
  int file_fd = -1;
  uint64_t file_left = 0;
  // client-output-buffer-limit replica: since when the soft limit is
  // exceeded (0: it is not).
  int64_t obuf_soft_since_ms = 0;
};

// The client's state; created when `create` (else nullptr if none).
ReplicaState* stateOf(Client* c, bool create);
// Clients that sent SYNC/PSYNC, in arrival order.
std::vector<ReplicaState*>& replicas();
bool isFiltered(const ReplicaState& r);

const std::string& replId();
int64_t masterOffset();

// Registers the stream's propagation sink (once) and creates the "backlog"
// (a new replication id) when the first replica arrives, as Redis does.
void attachReplica(ReplicaState* r);
// Forces a SELECT before the next command of the stream (new RDB forked).
void resetStreamDb();
// Appends raw bytes to the replica's output now (RDB, preambles).
void sendRaw(ReplicaState* r, std::string_view bytes);
// The RDB has been sent: rdb-only replicas are closed, others go online.
void transferDone(ReplicaState* r);
// Logs and schedules the replica's connection to close.
void dropReplica(ReplicaState* r, const char* why);
std::string replicaName(const ReplicaState& r);

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

}  // namespace server::repl
