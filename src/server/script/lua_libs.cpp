#include "server/script/lua_libs.h"

namespace server::script {

void openExtraLibs(lua_State*) {}

}  // namespace server::script
