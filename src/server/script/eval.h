// EVAL scripts: the script cache of the eval Lua state (one state, as in
// Redis; SCRIPT FLUSH replaces it), and the commands EVAL EVALSHA EVAL_RO
// EVALSHA_RO and SCRIPT LOAD/EXISTS/FLUSH/KILL/HELP.
//
// A script is named by the SHA-1 of its body and compiled once, as the
// chunk "@user_script" (errors read "user_script:<line>: ..."). An
// optional first line "#!lua [flags=f1,f2]" declares flags (run_context.h);
// it is kept as an empty line so line numbers stay the user's. A script
// without it runs in compatibility mode.
#pragma once

#include <cstddef>
#include <string>

#include "server/core/command.h"

namespace server::script {

void registerEvalCommands(CommandTable& t);

// For INFO: the eval state's Lua heap, the cached scripts and their bodies.
size_t evalVmMemory();
size_t evalCachedScripts();
size_t evalScriptsMemory();

// Parses a "#!..." first line of an EVAL script into flags. Returns false
// with Redis's error text in *err. Without a shebang sets kFlagEvalCompat.
// *body_offset: where the code to compile starts (the shebang's newline).
bool parseEvalShebang(std::string_view body, uint32_t* flags, size_t* body_offset,
                      std::string* err);

}  // namespace server::script
