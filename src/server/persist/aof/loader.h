// Loading the AOF at start: the manifest's base then its incr files, the
// RDB part through the RDB loader and commands replayed through the command
// table with a client of no connection.
#pragma once

#include <cstdint>
#include <string>

namespace server::persist::aof {

enum class LoadStatus {
  kOk,
  kNotExist,   // no manifest and no old-style file: start empty
  kFailed,     // logged; start-up stops
  kAbandoned,  // shutdown requested while loading
};

// Reads the manifest (upgrading an old single appendonly.aof in `dir`
// first) into state().manifest and loads every file it names.
LoadStatus loadFromDisk();

}  // namespace server::persist::aof
