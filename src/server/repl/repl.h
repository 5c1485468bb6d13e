// Replication: the module's only entry (nothing outside repl/ includes its
// other headers). Today the master side (master/), as Redis 7.0 serves SYNC
// and PSYNC to a replica, to `redis-cli --rdb/--functions-rdb/--replica`
// and to tools that read the replication stream; and the replica side
// (replica/: REPLICAOF, the link to a master, reading and running its
// stream through request/call.h). repl/ may include core/, request/,
// propagate/, persist/, process/ and below; commands/ and the top include
// it. The entry points the rest of the server uses:
//
//   commands     registerReplCommands(): SYNC PSYNC REPLCONF.
//   dispatch     allowedFromReplica(): a replica may only send REPLCONF
//                (anything that would get a reply closes it, as Redis).
//   server cron  cron(): newlines to replicas waiting for their RDB, the
//                delayed diskless start, PING every repl-ping-replica-period,
//                repl-timeout.
//   INFO / ROLE  appendInfoReplication(), roleReply().
//
// The replica side (replica/): REPLICAOF and the replicaof directive; the
// link to the master, its RDB and stream. Its entry points:
//
//   start-up     startReplicaFromConfig() once the data set is loaded.
//   dispatch     g_is_replica, then allowedOnReplica() (-READONLY,
//                -MASTERDOWN); commands from the master client (kMaster)
//                skip those checks.
//   client I/O   masterApplied() through request/'s master-applied hook:
//                each request of the master's stream once applied (offset,
//                sub-replicas' copy of the stream).
//   server cron  cron() also runs the replica's: connect, ACK, timeouts.
//
// PSYNC continues from the replication backlog (repl_buffer.h) when it can
// (+CONTINUE), else gets +FULLRESYNC.
#pragma once

#include <string>
#include <string_view>

#include "server/core/command.h"

namespace server {
class Client;
}

namespace server::repl {

void registerReplCommands(CommandTable& t);

// True while this server follows a master (one load on the command path).
extern bool g_is_replica;
void startReplicaFromConfig();
// The checks a replica adds for its clients, given the command's flags
// (for EXEC, those of the queue: dispatch.cpp); false with the error replied.
bool allowedOnReplica(Client* c, uint32_t cmd_flags);
// A replica whose master link is down, with replica-serve-stale-data no:
// only commands flagged stale may run (clients' and scripts' alike).
bool servingStale();
// `bytes` of the master's stream were applied (one request, or bare
// newlines) by the master client c.
void masterApplied(Client* c, std::string_view bytes);
// REPLCONF GETACK from the master.
void ackToMaster();
// min-replicas-to-write: false while too few replicas acknowledged within
// min-replicas-max-lag (writes get -NOREPLICAS).
bool enoughGoodReplicas();
// CONFIG SET repl-backlog-size.
void applyBacklogSize();
// False when c is a replica and cmd is something it may not send; c is
// then already scheduled to close.
bool allowedFromReplica(Client* c, const Command* cmd);
void cron();
// REPLCONF GETACK * to every replica (WAIT, SHUTDOWN): they answer with
// their offset at once.
void requestAcks();
// SHUTDOWN waiting for lagging replicas (the top's shutdown.cpp): true when
// every replica has acknowledged the whole stream, or there is none.
bool replicasInSync();
// At the end of that wait: a line per lagging replica and "N of M replicas
// are in sync when shutting down.", as Redis logs them.
void logReplicasAtShutdown();
// Memory replication holds, as INFO memory shows it: `buffer` is the
// shared replication buffer (mem_total_replication_buffers), split as Redis
// does into the backlog's share (up to repl-backlog-size) and the
// replicas' (the rest, while there are replicas), to which our replicas'
// own output is added; `not_counted` is what maxmemory leaves out (all
// that is the replicas', less the backlog's block headers), so that a
// lagging replica does not evict keys.
struct MemoryUse {
  size_t buffer = 0;
  size_t backlog = 0;
  size_t replicas = 0;
  size_t not_counted = 0;
};
MemoryUse memoryUse();
void appendInfoReplication(std::string* o);
// Cluster mode (server/cluster/) drives the replica side itself: the
// master a node replicates is the one its node table says (CLUSTER
// REPLICATE, an election won or lost), and REPLICAOF is refused.
void clusterFollow(const std::string& host, int port);
void clusterStopFollowing();
// Our offset in the stream: a master's own, a replica's processed one.
int64_t replicationOffset();
// Milliseconds since the master's data last arrived while the link is up,
// or since the link went down (an election's data age); -1 when this
// server follows no master or its link never came up.
int64_t masterDataAgeMs();
void roleReply(Client* c);

}  // namespace server::repl
