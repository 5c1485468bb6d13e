// One registration function per command family; each lives in
// commands/<family>.cpp and adds its Command entries to the table.
//
// Module commands/: the command families (types/: one file family per data
// type; keys/: the keyspace commands; server/: server and connection
// commands), the registry and the docs table (syntax_table). May include
// every module of the server but the top (server.h, dispatch.h); included
// only by the top and by tests.
#pragma once

#include "server/core/command.h"

namespace server {

// Registers every family below into g_server's table, then attaches the
// command docs (commands/registry.cpp).
// `top` registers the commands of the floor above (SHUTDOWN, from
// server/shutdown.h) before the docs are attached to every command.
void registerAllCommands(void (*top)(CommandTable&) = nullptr);

void registerConnectionCommands(CommandTable& t);    // PING ECHO QUIT RESET HELLO AUTH SELECT
void registerStringCommands(CommandTable& t);        // GET SET ... LCS
void registerKeyCommands(CommandTable& t);           // DEL EXISTS ... SCAN, expiry, OBJECT
void registerServerCommands(CommandTable& t);        // INFO CLIENT CONFIG COMMAND TIME DEBUG ...
void registerBitmapCommands(CommandTable& t);        // SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD
void registerHllCommands(CommandTable& t);           // PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST
void registerHashCommands(CommandTable& t);          // HSET HGET ... HRANDFIELD HSCAN
void registerSetCommands(CommandTable& t);           // SADD SREM ... SINTER SUNION SDIFF SSCAN
void registerSortedSetCommands(CommandTable& t);     // ZADD ZRANGE ZUNION ZPOPMIN ... ZSCAN
void registerListCommands(CommandTable& t);          // LPUSH ... LMPOP
void registerListBlockingCommands(CommandTable& t);  // BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP
void registerZsetBlockingCommands(CommandTable& t);  // BZPOPMIN BZPOPMAX BZMPOP
void registerSortCommands(CommandTable& t);          // SORT SORT_RO
void registerStreamCommands(CommandTable& t);        // XADD XRANGE ... XREADGROUP XINFO
void registerGeoCommands(CommandTable& t);           // GEOADD GEODIST ... GEOSEARCHSTORE

}  // namespace server
