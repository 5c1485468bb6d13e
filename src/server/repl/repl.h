// Replication: the module's only entry (nothing outside repl/ includes its
// other headers). Today the master side (master/), as Redis 7.0 serves SYNC
// and PSYNC to a replica, to `redis-cli --rdb/--functions-rdb/--replica`
// and to tools that read the replication stream; the replica side
// (REPLICAOF, the link to a master, reading and running its stream through
// request/call.h) is to come in repl/replica/. repl/ may include core/,
// request/, propagate/, persist/ and below; commands/ and the top include
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
// There is no replication backlog yet: every PSYNC gets +FULLRESYNC. The
// replica side is not implemented yet (REPLICAOF: repl/replica/, to come).
#pragma once

#include <string>

#include "server/core/command.h"

namespace server {
class Client;
}

namespace server::repl {

void registerReplCommands(CommandTable& t);
// False when c is a replica and cmd is something it may not send; c is
// then already scheduled to close.
bool allowedFromReplica(Client* c, const Command* cmd);
void cron();
void appendInfoReplication(std::string* o);
void roleReply(Client* c);

}  // namespace server::repl
