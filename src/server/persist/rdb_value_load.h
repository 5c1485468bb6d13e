// Loading the collection types (every type byte but strings); the entry
// point is loadValue() in rdb_value.h, which hands collections here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "server/db/listpack.h"
#include "server/db/value.h"
#include "server/persist/rdb_io.h"
#include "server/persist/rdb_value.h"

namespace server::persist {

// As loadValue() for a list, set, hash or sorted set type byte; any other
// type fails with a message naming it.
bool loadCollection(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out);

// Fails r with "unsupported value type NAME (N)" (the name as
// rdbTypeName() gives it for the file's writer).
bool failUnsupportedType(RdbReader& r, uint8_t type);

// Field, value, field, value, ... into a hash with the encoding the limits
// call for; false with r failed on a duplicate field. elems may be empty
// only when the caller wants no key (then *out stays empty).
bool loadHashPairs(RdbReader& r, const LoadLimits& lim, const std::vector<db::LpValue>& elems,
                   size_t blob_bytes, db::Value* out);

}  // namespace server::persist
