// The Lua 5.1 environment scripts and function libraries run in, built as
// Redis 7.0 builds it:
//
// - Libraries: the base library without dofile, loadfile, print, getfenv,
//   setfenv, newproxy (and no package/require, io, os, debug), then table,
//   string, math, cjson (Debian lua-cjson), bit (Debian lua-bitop), struct
//   and cmsgpack (ours: lua_struct.h, lua_cmsgpack.h).
// - loadstring/load refuse precompiled bytecode (they return nil and a
//   message), and what they compile runs in the protected environment.
// - Globals are protected: reading an undefined global raises "Script
//   attempted to access nonexistent global variable 'x'"; assigning any
//   global, or any field of a library table, raises "Attempt to modify a
//   readonly table". Debian's Lua has no read-only tables, so each
//   protected table is an empty proxy whose metatable reads through to the
//   real table and refuses writes; rawset, setmetatable, getmetatable,
//   rawget, next and pairs are wrapped so the proxies behave like the
//   tables they stand for.
// - __redis__err__handler (errorHandler) is the message handler every call
//   uses: it turns any error into a table {err=..., source=..., line=...}.
#pragma once

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace server::script {

// A new state with the libraries above loaded and not yet protected.
lua_State* newSandboxState();

// Replaces the table on top of the stack with a read-only proxy of it.
void makeReadonlyProxy(lua_State* L);

// Protects the library tables and the globals (call once everything,
// including the `redis` table, is in place). Compiled chunks must then get
// the protected environment with setProtectedEnv.
void protectGlobals(lua_State* L);

// Sets the environment of the function on top of the stack to the
// protected globals.
void setProtectedEnv(lua_State* L);

// Makes the protected environment read through to the table on top of the
// stack instead of the globals (pops it); with nil on top, back to the
// globals. FUNCTION LOAD runs library code against a reduced table.
void setEnvFallback(lua_State* L);

// Pushes a C function raising "Script attempted to access nonexistent
// global variable" for a missing key (an __index metamethod).
void pushMissingGlobalHandler(lua_State* L);

// Assigns a global bypassing the protection (KEYS, ARGV); pops the value.
void setRawGlobal(lua_State* L, const char* name);

// lua_pcall message handler (see above).
int errorHandler(lua_State* L);

// Raises "Attempt to modify a readonly table" (with the caller's position
// when with_where).
int raiseReadonly(lua_State* L, bool with_where);

}  // namespace server::script
