// Redis 7.0 functions: libraries of Lua functions loaded with FUNCTION
// LOAD and called with FCALL / FCALL_RO.
//
// A library's code starts with "#!lua name=<library>"; running it once
// (at load) calls redis.register_function for each function, with a name
// and callback, or a table {function_name=, callback=, flags={...},
// description=}. While it loads, the code sees only `redis` with
// register_function, log, the LOG_* levels and REDIS_VERSION(_NUM); later,
// when the functions run, the full environment of scripts (without
// register_function). Loading is all or nothing: a library whose code
// fails, registers nothing, or collides with an existing function is not
// kept. Loading is cut off after 500 ms ("FUNCTION LOAD timeout").
//
// All libraries live in one Lua state, separate from EVAL's.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "server/core/command.h"

namespace server::script {

void registerFunctionCommands(CommandTable& t);  // FUNCTION FCALL FCALL_RO

size_t functionsVmMemory();
size_t functionsMemory();
size_t functionsCount();
size_t librariesCount();

// ---- persistence (RDB saves each library's code; loading replays it)
// The code of every library, in name order.
std::vector<std::string> libraryCodes();
// Loads one library from its code (replace: an existing library of the
// same name is replaced). Returns false with the error text in *err.
bool loadLibrary(std::string_view code, bool replace, std::string* err);
// FCALL of this function may write (unknown functions count as writing).
bool functionMayWrite(std::string_view name);
// The flags of the function (ScriptFlag); false when there is none.
bool functionFlags(std::string_view name, uint32_t* flags);
// Deletes every library.
void flushFunctions();

// ---- FUNCTION DUMP / RESTORE (function_dump.cpp)
// The payload FUNCTION DUMP returns (Redis 7.0's format).
std::string dumpFunctionsPayload();
enum class RestorePolicy { kAppend, kReplace, kFlush };
// Restores a payload; false with Redis's error text in *err (nothing
// changed then).
bool restoreFunctionsPayload(std::string_view payload, RestorePolicy policy, std::string* err);

// Used by restore: loads libraries into a staging set, then commits them
// all or none. Internal to the module.
class LibraryStaging {
 public:
  LibraryStaging();
  ~LibraryStaging();  // drops what was not committed
  bool add(std::string_view code, std::string* err);
  bool commit(RestorePolicy policy, std::string* err);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace server::script
