// The cluster module: Redis Cluster 7.0 (cluster-enabled yes), whose
// nodes form one cluster with Redis 7.0.15 nodes, and MIGRATE.
//
// With cluster-enabled no (the default) CLUSTER, ASKING, READONLY and
// READWRITE reply "This instance has cluster support disabled", as Redis.
// With yes, init() loads (or creates) nodes.conf and opens the cluster bus
// (port + 10000, or cluster-port); the cron and before-sleep run the bus,
// failure detection and failover; the dispatcher asks routeRequest() which
// node serves each request (-MOVED, -ASK, -CROSSSLOT, -TRYAGAIN,
// -CLUSTERDOWN). Files: wire.h (the bus format), state.h (the node table
// and its private API), nodes.cpp, nodes_conf.cpp, bus.cpp, messages.cpp,
// failure.cpp, node_cmds.cpp and slot_cmds.cpp (CLUSTER), redirect.cpp.
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
// persist/ (dump payloads), request/ (keyspace, pause), pubsub/, repl/ and
// propagate/.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace server {
class CommandTable;
class Client;
struct Command;
}  // namespace server

namespace server::cluster {

// cluster-enabled yes (set by init(); one load on the command path).
extern bool g_enabled;

// At start-up, after the configuration and before the data is loaded:
// nodes.conf, the bus listener, the slot index of db 0. False with *err
// (start-up stops).
bool init(std::string* err);
// After the data is loaded: keys in slots this node does not serve are
// reported (and their slots taken or marked importing, as Redis); false
// when a db other than 0 holds keys.
bool verifyWithData(std::string* err);
void cron();  // every 100 ms
void beforeSleep();
// The dispatcher, for a command that has keys (or EXEC): true when this
// node serves it; else the redirection or error is replied and false.
bool routeRequest(Client* c, const Command* cmd);
// PUBLISH / SPUBLISH in cluster mode: to the other nodes.
void propagatePublish(std::string_view channel, std::string_view message, bool sharded);
// Bytes the bus links hold (INFO mem_cluster_links).
size_t linksMemory();
// INFO's cluster section body.
void appendInfo(std::string* o);
// DEBUG DROP-CLUSTER-PACKET-FILTER <type>: received bus messages of this
// type are dropped (-1: none; -2: every type, as later Redis and Valkey
// allow: the node hears nobody, a partition seen from its side), a test aid
// as in Redis.
extern int64_t g_drop_packet_type;
// DEBUG CLUSTERLINK KILL to|from|all <node>: drops bus links (tests of
// reconnection); "" on success, else the error text.
std::string debugKillLink(std::string_view direction, std::string_view node);
// Closes the bus (shutdown) and saves nodes.conf.
void shutdown();

void registerClusterCommands(CommandTable& t);
void registerMigrateCommand(CommandTable& t);

// Closes the links idle for more than 10 s; from the server's cron.
void migrateCron();
// Closes every cached MIGRATE link now (shutdown: while the event loop
// their connections use is still alive).
void migrateCloseLinks();

// Links kept now (INFO's migrate_cached_sockets).
size_t migrateCachedLinks();

}  // namespace server::cluster
