// Lua scripting and functions (Redis 7.0): the module's entry points for
// the rest of the server. Inside the module:
//   lua_sandbox   the Lua state and its protections
//   lua_convert   RESP <-> Lua values
//   redis_api     the `redis` table (call, pcall, ...)
//   run_context   one running script: busy state, kill, the script client
//   eval          EVAL family and SCRIPT, the script cache
//   functions     FUNCTION / FCALL and the libraries
//   function_dump FUNCTION DUMP / RESTORE payloads
//   lua_struct, lua_cmsgpack  the struct and cmsgpack libraries
//
// Module script/ (namespace server::script): may include acl/ (the
// permission check of redis.call), core/, db/, request/ (call.h),
// propagate/, pubsub/, evict/ and repl/ (siblings on its floor) and below.
// Included through this header by the top, commands/, persist/ (functions
// in the RDB and the AOF), request/ (MULTI, CLIENT PAUSE) and pubsub/
// (tracking: the two includes of a higher floor, listed by
// utils/layering.sh).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/core/command.h"

namespace server {
class Client;
}

namespace server::script {

// EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT FCALL FCALL_RO FUNCTION.
void registerScriptingCommands(CommandTable& t);

// COMMAND GETKEYS for EVAL / FCALL and their variants: numkeys at argv[2]
// (zero allowed), then the keys.
bool scriptKeys(const std::vector<std::string_view>& argv, std::vector<size_t>* out);

// True while a script or function runs (the cron and before-sleep hold
// back what must not happen in the middle of one).
bool running();

// Dispatch hook (run_context.h): true when a busy script keeps cmd from
// running for c; c got -BUSY.
bool rejectWhileBusy(Client* c, const Command* cmd);
// For CLIENT PAUSE WRITE, which judges a script by its flags (Redis 7.0):
// -1 when argv is not EVAL, EVALSHA or FCALL; else 1 when the script may
// write (no no-writes flag, or not known yet), 0 when it may not. The *_RO
// forms are judged by their command flags.
int scriptMayWrite(const std::vector<std::string_view>& argv);
// The same, with a script without a shebang counting as a write only when
// compat_writes (cluster routing, as Redis's command flags: such a script
// goes by EVAL's own flags, which are not a write's).
int scriptWriteFlags(const std::vector<std::string_view>& argv, bool compat_writes);

// The flags the server's checks judge a script command by, as Redis 7.0
// derives them from the script's own flags: for EVAL, EVALSHA, FCALL and
// their *_RO forms naming a known script with flags, a write unless
// no-writes, deny-oom unless allow-oom or no-writes, stale-safe only with
// allow-stale. Other commands, scripts not known yet (their error
// follows) and scripts without a shebang keep cmd_flags; *flagless (may be
// null) tells the last kind (Redis refuses one on a stale replica when it
// is about to run it). dispatch uses them on a replica, MULTI for EXEC.
uint32_t scriptCommandFlags(const std::vector<std::string_view>& argv, uint32_t cmd_flags,
                            bool* flagless);

// Before-sleep, outside scripts: frees what busy scripts had to keep.
void afterScripts();

// Cluster mode (server/cluster/ installs it): may a command a script calls
// touch its keys on this node? nullptr when it may, else the error. `slot`
// is the slot the script's calls used so far (-1: none yet), updated.
using ClusterCallCheck = const char* (*)(const Client* caller, const Command* cmd,
                                         const std::vector<std::string_view>& argv,
                                         bool allow_cross_slot, int* slot);
void setClusterCallCheck(ClusterCallCheck f);

// The client a running script was called by (its connection must not be
// freed meanwhile), or nullptr.
Client* runningCaller();

// INFO memory lines (used_memory_lua ... used_memory_scripts_human).
void appendMemoryInfo(std::string* out);

// Creates the Lua states of EVAL and FUNCTION now, as Redis does at start:
// used_memory counts them from the start (otherwise the first INFO memory,
// which measures them, would create them and add their memory after it
// read used_memory).
void startEngines();

}  // namespace server::script
