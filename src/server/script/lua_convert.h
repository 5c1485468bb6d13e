// Conversions between RESP and Lua values, as Redis 7.0 documents them.
//
// Reply -> Lua (what redis.call / redis.pcall return):
//   integer -> number; bulk -> string; array -> table (1..n); status ->
//   {ok=s}; error -> {err=s, ignore_error_stats_update=true}; RESP2 null
//   bulk/array -> false. RESP3 (after redis.setresp(3)): null -> nil, map
//   -> {map={k=v}}, set -> {set={m=true}}, boolean -> boolean, double ->
//   {double=n}, big number -> {big_number=s}, verbatim ->
//   {verbatim_string={format=f, string=s}}; attributes are skipped.
//
// Lua -> reply (what a script returns):
//   number -> integer (truncated); string -> bulk; boolean -> RESP3
//   boolean when the script selected RESP3, else true -> :1 and false ->
//   null; a table with a string `err` -> error, with a string `ok` ->
//   status, with a number `double` -> double, a string `big_number` -> big
//   number, a table `map` / `set` -> map / set, a table `verbatim_string`
//   -> verbatim string; any other table -> array of t[1], t[2], ... up to
//   the first nil; anything else -> null.
#pragma once

#include <cstddef>

extern "C" {
#include <lua.h>
}

namespace server {
class Client;
}

namespace server::script {

// Parses the one complete reply at p and pushes it. Returns the bytes
// consumed, 0 when the input is malformed or truncated (nothing pushed).
// The input comes from our own reply writer.
size_t pushReplyAsLua(lua_State* L, const char* p, size_t len);

// Writes the value at the top of the stack as a reply to c and pops it.
// lua_resp: the protocol the script selected (redis.setresp).
void replyFromLua(Client* c, lua_State* L, int lua_resp);

// Raises/pushes helpers shared by the redis.* API: pushes the error table
// {err = "<CODE> <message>"} for msg given as "-CODE message" or as a bare
// message (which gets the ERR code), with trailing CR/LF trimmed.
void pushErrorTable(lua_State* L, const char* msg, size_t len);

}  // namespace server::script
