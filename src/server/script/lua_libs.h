// The libraries Redis bundles that Debian does not package, written here:
// struct (lua_struct.cpp) and cmsgpack (lua_cmsgpack.cpp).
#pragma once

extern "C" {
#include <lua.h>
}

namespace server::script {

// Each pushes its library table (lua_CFunction shape).
int luaopenStruct(lua_State* L);
int luaopenCmsgpack(lua_State* L);

// Opens struct and cmsgpack and names them as globals.
void openExtraLibs(lua_State* L);

}  // namespace server::script
