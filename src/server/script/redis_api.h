// The `redis` table scripts call: call, pcall, error_reply, status_reply,
// sha1hex, log, setresp, set_repl, replicate_commands, breakpoint, debug,
// acl_check_cmd and the LOG_*, REPL_*, REDIS_VERSION(_NUM) constants, as
// Redis 7.0 has them.
//
// redis.call / redis.pcall run a command through the command table on the
// script client (run_context.h), refusing what Redis refuses from scripts
// with its texts: no arguments, arguments that are not strings or numbers,
// unknown commands, wrong arity, commands flagged noscript, writes from a
// read-only script, deny-oom commands when memory is over maxmemory (until
// the script wrote). call raises the error reply; pcall returns it as
// {err=...}. Commands count in commandstats and show in SLOWLOG and MONITOR
// (as "lua").
#pragma once

extern "C" {
#include <lua.h>
}

namespace server::script {

// Creates the global `redis` table in L (not yet protected).
void registerRedisApi(lua_State* L);

// Individual functions the functions engine's load-time table reuses.
int luaRedisLog(lua_State* L);
// Sets the version constants on the table on top of the stack.
void setVersionFields(lua_State* L);
void setLogLevelFields(lua_State* L);

}  // namespace server::script
