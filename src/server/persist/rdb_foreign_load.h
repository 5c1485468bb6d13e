// Values that only newer servers or modules write: hashes whose fields carry
// expiry times (Redis 7.4's four types, Valkey 9's type 22) and module
// values, which are named in the refusal.
//
// Field expiry times are not kept (this server, like Redis 7.0, has no
// field expiry): a field whose time has passed is dropped, the others are
// kept as ordinary fields, and the reader counts both for the log.
#pragma once

#include <cstdint>
#include <string>

#include "server/db/value.h"
#include "server/persist/rdb_io.h"
#include "server/persist/rdb_value.h"

namespace server::persist {

// Types 22 to 25 (Redis 7.4 meanings, or Valkey's hash 2 when r.valkey()).
bool loadHashWithFieldTtls(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out);

// Types 6 and 7: reads the module type id and fails naming the module type.
bool failModuleValue(RdbReader& r);

// The nine-character module type name encoded in a module id (the low ten
// bits are the encoding version).
std::string moduleTypeName(uint64_t module_id);

}  // namespace server::persist
