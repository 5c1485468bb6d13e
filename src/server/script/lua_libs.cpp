#include "server/script/lua_libs.h"

namespace server::script {

void openExtraLibs(lua_State* L) {
  luaopenStruct(L);
  lua_setglobal(L, "struct");
  luaopenCmsgpack(L);
  lua_setglobal(L, "cmsgpack");
}

}  // namespace server::script
