// Loading the collection types (every type byte but strings); the entry
// point is loadValue() in rdb_value.h, which hands collections here.
#pragma once

#include <cstdint>

#include "server/db/value.h"
#include "server/persist/rdb_io.h"
#include "server/persist/rdb_value.h"

namespace persist {

// As loadValue() for a list, set, hash or sorted set type byte; any other
// type fails with a message naming it.
bool loadCollection(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out);

}  // namespace persist
