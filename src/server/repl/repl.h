// Replication, master side, as Redis 7.0 serves SYNC and PSYNC to a replica,
// to `redis-cli --rdb/--functions-rdb/--replica` and to tools that read the
// replication stream. The only entry points the rest of the server uses:
//
//   commands     registerReplCommands(): SYNC PSYNC REPLCONF.
//   dispatch     allowedFromReplica(): a replica may only send REPLCONF
//                (anything that would get a reply closes it, as Redis).
//   server cron  cron(): newlines to replicas waiting for their RDB, the
//                delayed diskless start, PING every repl-ping-replica-period,
//                repl-timeout.
//   INFO / ROLE  appendInfoReplication(), roleReply().
//
// There is no replication backlog: every PSYNC gets +FULLRESYNC. This
// server never becomes a replica itself (REPLICAOF is not implemented).
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
