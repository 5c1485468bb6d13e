// Server and introspection commands (INFO, CLIENT, CONFIG, COMMAND, DEBUG,
// TIME, ...), split by command over several files; registerServerCommands
// (server_cmds.cpp) adds them all. The pure formatting helpers are declared
// here so unit tests can check them without a running server.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/command.h"
#include "server/core/reply_helpers.h"   // replyHelp, appendFormat, bytesToHuman
#include "server/request/client_info.h"  // ClientLine, for CLIENT LIST/INFO

namespace server {

class Client;

// One registration function per file.
void registerInfoCommand(CommandTable& t);     // info.cpp
void registerClientCommand(CommandTable& t);   // client_cmd.cpp
void registerConfigCommand(CommandTable& t);   // config_cmd.cpp
void registerCommandCommand(CommandTable& t);  // command_cmd.cpp
void registerDebugCommand(CommandTable& t);    // debug.cpp
// DEBUG's handler, with external linkage so that a stack trace (the
// watchdog's, a crash report) names it, as tools look for Redis's.
void debugCommand(Client* c);
// DEBUG OBJECT, POPULATE, QUICKLIST-PACKED-THRESHOLD, PAUSE-CRON,
// SET-DISABLE-DENY-SCRIPTS, CHANGE-REPL-ID (debug_inspect.cpp); false when
// the subcommand is none of these.
bool debugInspectSubcommand(Client* c);
void registerMemoryCommand(CommandTable& t);   // memory_cmd.cpp
void registerSlowlogCommand(CommandTable& t);  // slowlog_cmd.cpp
void registerLolwutCommand(CommandTable& t);   // lolwut.cpp
void registerModuleCommand(CommandTable& t);   // module_cmd.cpp
// MONITOR, CLIENT PAUSE/UNPAUSE (after registerClientCommand).
void registerMonitorAndPauseCommands(CommandTable& t);  // monitor_pause_cmd.cpp

// Copies maxmemory-policy / lfu-* into the keyspace's LFU tracking
// (memory_cmd.cpp); called at start and after CONFIG SET.
void syncLfuConfig();

// ---- INFO (info.cpp)

// The allocator's and the process's memory figures (INFO memory, MEMORY
// STATS).
struct MemoryNumbers {
  uint64_t used = 0;       // used_memory (evict::usedMemory)
  uint64_t allocated = 0;  // the allocator's own figure (jemalloc stats.allocated)
  uint64_t active = 0;     // allocator pages in use (jemalloc)
  uint64_t resident = 0;   // allocator resident pages (jemalloc)
  uint64_t rss = 0;        // process resident set
};
MemoryNumbers memoryNumbers();
// The peak of `used` seen so far, raised to `used` first.
uint64_t peakMemory(uint64_t used);

// How used_memory splits (memory_cmd.cpp; INFO memory's used_memory_overhead,
// _startup, _dataset and _dataset_perc, and MEMORY STATS).
struct MemoryOverhead {
  uint64_t startup = 0;     // what was allocated at start, before clients and keys
  uint64_t clients = 0;     // normal clients: structs, query and reply buffers
  uint64_t total = 0;       // startup + clients + every db's tables and entries
  uint64_t dataset = 0;     // used - total: the values and what they own
  double dataset_perc = 0;  // dataset in percent of used - startup
};
MemoryOverhead memoryOverhead(uint64_t used);

// Which INFO sections a list of arguments selects. Section names are lower
// case ("server", "commandstats", "rdma"). No argument means "default";
// "all" is every section but the modules' own; "everything" is all of them.
struct InfoSelection {
  bool all = false;                // every section ("all" / "everything")
  bool defaults = false;           // the default set ("default" / no argument)
  std::vector<std::string> names;  // sections named explicitly
  bool wants(std::string_view section, bool in_default, bool in_all) const;
};
InfoSelection parseInfoSections(const std::vector<std::string_view>& args);

// The INFO text for a selection: "# Section\r\nfield:value\r\n" blocks, a
// blank line between blocks.
std::string genInfoString(const InfoSelection& sel);

// CONFIG RESETSTAT: zeroes the INFO stats, commandstats and errorstats.
void resetServerStats();
// CONFIG REWRITE (and DEBUG CONFIG-REWRITE-FORCE-ALL, `force_all`: every
// option written): rewrites the server's config file, logs, replies.
void rewriteConfigAndReply(Client* c, bool force_all);

// DEBUG is refused unless enable-debug-command allows it for this client
// (config_cmd.cpp).
bool debugCommandAllowed(Client* c);

}  // namespace server
