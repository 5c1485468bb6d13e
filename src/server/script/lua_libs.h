// The libraries Redis bundles that Debian does not package, written here:
// struct (lua_struct.cpp) and cmsgpack (lua_cmsgpack.cpp).
#pragma once

extern "C" {
#include <lua.h>
}

namespace server::script {

// Opens struct and cmsgpack and names them as globals.
void openExtraLibs(lua_State* L);

}  // namespace server::script
