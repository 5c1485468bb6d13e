#include "server/script/lua_sandbox.h"

#include <cstdio>
#include <cstring>
#include <string>

extern "C" {
#include <lua-bitop.h>
#include <lua-cjson.h>
#include <lualib.h>
}

#include "server/script/lua_libs.h"

namespace server::script {

namespace {

// Registry keys: the proxy -> real table map (weak keys), and the
// protected globals proxy.
constexpr const char* kProxiesKey = "redis_ro_proxies";
constexpr const char* kEnvKey = "redis_ro_env";
constexpr const char* kProtectedMetaKey = "redis_ro_meta";

// Pushes the real table behind the value at idx when it is a proxy, else
// the value itself.
void pushReal(lua_State* L, int idx) {
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  if (lua_istable(L, idx)) {
    lua_getfield(L, LUA_REGISTRYINDEX, kProxiesKey);
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    if (!lua_isnil(L, -1)) {
      lua_remove(L, -2);
      return;
    }
    lua_pop(L, 2);
  }
  lua_pushvalue(L, idx);
}

bool isProxy(lua_State* L, int idx) {
  if (!lua_istable(L, idx)) return false;
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  lua_getfield(L, LUA_REGISTRYINDEX, kProxiesKey);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  bool yes = !lua_isnil(L, -1);
  lua_pop(L, 2);
  return yes;
}

int proxyNewIndex(lua_State* L) {
  return raiseReadonly(L, true);
}

int missingGlobal(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    name ? name : "?");
}

int safeRawset(lua_State* L) {
  if (isProxy(L, 1)) return raiseReadonly(L, false);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

int safeRawget(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  pushReal(L, 1);
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

int safeSetmetatable(lua_State* L) {
  if (isProxy(L, 1)) return raiseReadonly(L, false);
  // The original, kept as upvalue 1.
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

int safeGetmetatable(lua_State* L) {
  // A protected table shows a metatable that cannot be changed either.
  if (isProxy(L, 1)) {
    lua_getfield(L, LUA_REGISTRYINDEX, kProtectedMetaKey);
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

int safeNext(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  pushReal(L, 1);
  lua_replace(L, 1);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

int safePairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));  // our next
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// Bytecode starts with ESC (LUA_SIGNATURE); scripts may only load source.
bool isBytecode(const char* s, size_t n) {
  return n > 0 && s[0] == LUA_SIGNATURE[0];
}

int finishLoad(lua_State* L, int status) {
  if (status != 0) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  setProtectedEnv(L);
  return 1;
}

int safeLoadstring(lua_State* L) {
  size_t n;
  const char* s = luaL_checklstring(L, 1, &n);
  const char* chunkname = luaL_optstring(L, 2, s);
  if (isBytecode(s, n)) {
    lua_pushnil(L);
    lua_pushstring(L, "loading of precompiled chunks is not allowed");
    return 2;
  }
  return finishLoad(L, luaL_loadbuffer(L, s, n, chunkname));
}

// load(func [, chunkname]): gathers the pieces first so the bytecode check
// sees the whole chunk.
int safeLoad(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* chunkname = luaL_optstring(L, 2, "=(load)");
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (;;) {
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
    size_t n;
    lua_tolstring(L, -1, &n);
    if (n == 0) {
      lua_pop(L, 1);
      break;
    }
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  size_t n;
  const char* s = lua_tolstring(L, -1, &n);
  if (isBytecode(s, n)) {
    lua_pushnil(L);
    lua_pushstring(L, "loading of precompiled chunks is not allowed");
    return 2;
  }
  return finishLoad(L, luaL_loadbuffer(L, s, n, chunkname));
}

// Opens a library and names it as a global (lua-cjson does not set one).
void openLib(lua_State* L, lua_CFunction fn, const char* name) {
  lua_pushcfunction(L, fn);
  lua_pushstring(L, name);
  if (name[0] == '\0') {
    lua_call(L, 1, 0);
    return;
  }
  lua_call(L, 1, 1);
  if (lua_istable(L, -1))
    lua_setglobal(L, name);
  else
    lua_pop(L, 1);
}

void wrapWithOriginal(lua_State* L, const char* name, lua_CFunction fn) {
  lua_getglobal(L, name);
  lua_pushcclosure(L, fn, 1);
  lua_setglobal(L, name);
}

}  // namespace

int raiseReadonly(lua_State* L, bool with_where) {
  if (with_where) return luaL_error(L, "Attempt to modify a readonly table");
  lua_pushstring(L, "Attempt to modify a readonly table");
  return lua_error(L);
}

lua_State* newSandboxState() {
  lua_State* L = luaL_newstate();
  if (L == nullptr) return nullptr;
  openLib(L, luaopen_base, "");
  openLib(L, luaopen_table, LUA_TABLIBNAME);
  openLib(L, luaopen_string, LUA_STRLIBNAME);
  openLib(L, luaopen_math, LUA_MATHLIBNAME);
  openLib(L, luaopen_cjson, "cjson");
  openLib(L, luaopen_bit, "bit");
  openExtraLibs(L);
  // lua-cjson and bit register globals and package.loaded entries; without
  // the package library there is no package table to fill.
  for (const char* name : {"dofile", "loadfile", "print", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  lua_newtable(L);
  lua_newtable(L);
  lua_pushstring(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, kProxiesKey);
  lua_newtable(L);
  makeReadonlyProxy(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kProtectedMetaKey);

  lua_pushcfunction(L, safeLoadstring);
  lua_setglobal(L, "loadstring");
  lua_pushcfunction(L, safeLoad);
  lua_setglobal(L, "load");
  lua_pushcfunction(L, safeRawset);
  lua_setglobal(L, "rawset");
  lua_pushcfunction(L, safeRawget);
  lua_setglobal(L, "rawget");
  wrapWithOriginal(L, "setmetatable", safeSetmetatable);
  wrapWithOriginal(L, "getmetatable", safeGetmetatable);
  lua_pushcfunction(L, safeNext);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "next");
  lua_pushcclosure(L, safePairs, 1);
  lua_setglobal(L, "pairs");
  lua_pushcfunction(L, errorHandler);
  lua_setglobal(L, "__redis__err__handler");
  return L;
}

void makeReadonlyProxy(lua_State* L) {
  int real = lua_gettop(L);
  lua_newtable(L);  // proxy
  lua_newtable(L);  // its metatable
  lua_pushvalue(L, real);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, proxyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_getfield(L, LUA_REGISTRYINDEX, kProxiesKey);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, real);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_replace(L, real);
}

void protectGlobals(lua_State* L) {
  for (const char* name :
       {"string", "table", "math", "coroutine", "cjson", "bit", "struct", "cmsgpack", "redis"}) {
    lua_getglobal(L, name);
    if (!lua_istable(L, -1)) {
      lua_pop(L, 1);
      continue;
    }
    makeReadonlyProxy(L);
    lua_setglobal(L, name);
  }
  // The real globals raise on a missing name; the proxy scripts see also
  // refuses writes. _G names the proxy.
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  lua_newtable(L);
  lua_pushcfunction(L, missingGlobal);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, proxyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  makeReadonlyProxy(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, kEnvKey);
  lua_pushstring(L, "_G");
  lua_insert(L, -2);
  lua_rawset(L, LUA_GLOBALSINDEX);
}

void setProtectedEnv(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  lua_setfenv(L, -2);
}

void setEnvFallback(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
  if (!lua_getmetatable(L, -1)) {
    lua_pop(L, 2);
    return;
  }
  if (lua_isnil(L, -3))
    lua_pushvalue(L, LUA_GLOBALSINDEX);
  else
    lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 3);
}

void pushMissingGlobalHandler(lua_State* L) {
  lua_pushcfunction(L, missingGlobal);
}

void setRawGlobal(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  lua_insert(L, -2);
  lua_rawset(L, LUA_GLOBALSINDEX);
}

int errorHandler(lua_State* L) {
  lua_Debug ar;
  bool have = false;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar)) {
    have = true;
    if (strcmp(ar.what, "C") == 0) have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "Sl", &ar);
  }
  if (!lua_istable(L, 1)) {
    // The message as tostring() would write it ("nil" for error()).
    std::string err = "ERR ";
    switch (lua_type(L, 1)) {
      case LUA_TSTRING:
      case LUA_TNUMBER:
        err += lua_tostring(L, 1);
        break;
      case LUA_TNIL:
        err += "nil";
        break;
      case LUA_TBOOLEAN:
        err += lua_toboolean(L, 1) ? "true" : "false";
        break;
      default: {
        char buf[64];
        snprintf(buf, sizeof(buf), "%s: %p", luaL_typename(L, 1), lua_topointer(L, 1));
        err += buf;
      }
    }
    lua_settop(L, 0);
    lua_newtable(L);
    lua_pushlstring(L, err.data(), err.size());
    lua_setfield(L, -2, "err");
  } else {
    lua_settop(L, 1);
  }
  if (have) {
    lua_pushstring(L, ar.source);
    lua_setfield(L, -2, "source");
    lua_pushinteger(L, ar.currentline);
    lua_setfield(L, -2, "line");
  }
  return 1;
}

}  // namespace server::script
