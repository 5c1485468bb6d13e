// The replica side of replication, private to src/server/repl/: this
// server following a master (REPLICAOF / the replicaof directive).
//
// The link goes through these states, as Redis 7.0's:
//
//   kConnect     a master is set; the cron starts a connection (at once
//                after REPLICAOF, then once a second while it fails)
//   kConnecting  non-blocking connect through the connection table
//   kHandshake   PING sent, then AUTH / REPLCONF listening-port /
//                ip-address / capa pipelined; their replies read in order
//   kPsync       PSYNC <replid> <offset> sent, its reply awaited
//   kTransfer    +FULLRESYNC: the RDB arrives ("$<len>" or "$EOF:<mark>")
//                into a temp file (disk load) or the loader (diskless)
//   kConnected   the connection belongs to the master client (kMaster):
//                the stream is applied through the ordinary request path
//
// Files: link.cpp (connect, handshake, PSYNC), transfer.cpp (the RDB and
// its load), replica.cpp (REPLICAOF, the master client, cron, INFO, ROLE).
// Nothing here names a transport: connections come from the connection
// table by the repl-transport setting's name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "resp/reply_parser.h"

namespace net {
class Connection;
}
namespace server {
class Client;
}

namespace server::repl::replica {

enum class State { kNone, kConnect, kConnecting, kHandshake, kPsync, kTransfer, kConnected };

struct Link {
  std::string host;
  int port = 0;
  State state = State::kNone;
  // The connection until it becomes the master client's.
  net::Connection* conn = nullptr;
  Client* master = nullptr;  // kConnected
  resp::ReplyParser parser;
  // Handshake replies still to read, in order ("PING", "AUTH", ...).
  std::vector<std::string> expect;
  uint64_t attempt = 0;         // counts connection attempts
  int64_t connect_start_s = 0;  // when the current attempt began
  int64_t last_io_s = 0;        // last bytes from the master (any state)
  int64_t down_since_s = 0;     // when the link went down; 0: never up
  int64_t last_ack_s = 0;
  bool ever_synced = false;  // replid/offset are a master's: PSYNC may continue
  // Transfer (transfer.cpp).
  std::string preamble;  // the "$..." line being read
  bool have_preamble = false;
  std::string mark;
  int64_t size = -1;  // announced length; -1 with an EOF mark
  uint64_t received = 0;
  uint64_t synced = 0;    // disk: bytes whose writeback has been started
  bool diskless = false;  // loaded as it arrives
  std::string tail;       // disk with a mark: the last bytes written
  int fd = -1;
  std::string tmpfile;
  std::string full_replid;  // from +FULLRESYNC
  bool async = false;       // the transfer loads asynchronously (swapdb)
  int64_t full_offset = 0;
};

Link& link();
// REPLICAOF host port and REPLICAOF NO ONE, also used by FAILOVER
// (master/failover.cpp): a master demotes itself to a replica of its
// target, and a failed failover makes it a master again (a new id).
void setMaster(const std::string& host, int port);
void unsetMaster();
// PSYNC ... FAILOVER from our master's own history (sync_cmds.cpp): this
// replica becomes a master before answering it.
void promoteForFailover(Client* by);

// link.cpp
// Starts connecting to link().host:port (state kConnect -> kConnecting).
void connectToMaster();
// Drops the connection of a link not yet connected; back to kConnect.
void cancelHandshake();
// Drops the current link, whatever its state, and logs why; the cron
// reconnects.
void linkLost(const std::string& why);
// The master's bytes arrived: last_io_s.
void noteIo();

// transfer.cpp
// +FULLRESYNC <replid> <offset> was read: the RDB follows. `rest`: bytes
// already read after the reply.
void beginTransfer(const std::string& replid, int64_t offset, std::string_view rest);
// Frees what a transfer holds (temp file, buffer); the link state is left.
void abortTransfer();

// replica.cpp
// The master accepted us (after a full sync's load, or +CONTINUE): the
// connection becomes the master client; `rest` is stream already read.
void becomeConnected(std::string_view rest);
// The db the next master client starts in (the RDB's repl-stream-db).
void setMasterDb(int db);
// Sends REPLCONF ACK <offset> to the master now.
void sendAck();
// Disconnects this server's own replicas (after a full sync or when the
// replication id changes, so they resync).
void dropSubReplicas();

}  // namespace server::repl::replica
