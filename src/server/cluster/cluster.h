// The cluster module: what a Redis 7.0.15 node that is not in cluster mode
// offers, which is all this server has so far.
//
// CLUSTER, ASKING, READONLY, READWRITE (cluster_cmds.cpp): in the command
// table as Redis has them, each replying "This instance has cluster
// support disabled".
//
// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
//         [AUTH password | AUTH2 username password] [KEYS key [key ...]]
// (migrate.cpp) and the links it keeps to its targets.
//
// As in Redis 7.0, MIGRATE is synchronous: the server sends the keys as
// RESTORE commands (RESTORE-ASKING in cluster mode) and waits for the
// target's replies, each wait bounded by the command's timeout, before it
// deletes what the target acknowledged. No other client runs meanwhile, so
// none can see or change a key between its DUMP and its DEL.
//
// Links go through the connection table (net::typeForLink with the
// cluster link: TCP, or TLS with tls-cluster yes) on a private event loop
// that runs only inside the command; the server's loop never sees them. A
// link is reused for the same host:port (64 at most; one dropped at random
// to make room) and closed once idle for more than 10 s (migrateCron).
//
// Module cluster/ (namespace server::cluster): includes core/, db/,
// persist/ (dump payloads), request/ (keyspace) and propagate/.
#pragma once

#include <cstddef>

namespace server {
class CommandTable;
}

namespace server::cluster {

void registerClusterCommands(CommandTable& t);
void registerMigrateCommand(CommandTable& t);

// Closes the links idle for more than 10 s; from the server's cron.
void migrateCron();

// Links kept now (INFO's migrate_cached_sockets).
size_t migrateCachedLinks();

}  // namespace server::cluster
