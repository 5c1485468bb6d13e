// One value in RDB form: the type byte Redis 7.0 uses for each of our
// encodings, the value's bytes after the key, and the way back from those
// bytes to a db::Value with the encoding our limits call for.
//
// Written types (what Redis 7.0 reads): strings 0; lists 18 (quicklist 2,
// one packed node per listpack node); sets 11 (intset) or 2 (hashtable);
// hashes 16 (listpack) or 4; sorted sets 17 (listpack) or 5; streams 19
// (rdb_stream.h).
// Loaded types: the above plus 3 (text scores), 15 (streams of Redis 5/6),
// the encodings of Redis 2.x to 6.2 (zipmap hashes 9, ziplist lists 10,
// ziplist sorted sets 12, ziplist hashes 13, quicklist lists 14 with ziplist
// nodes), 20 (Redis 7.2 listpack sets, loaded as intset or hashtable) and
// the hashes with field expiry of Redis 7.4 (22 to 25) and Valkey 9 (22;
// rdb_foreign_load.h). Module values are refused with a message naming the
// type (and the module).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "server/db/hash.h"
#include "server/db/set.h"
#include "server/db/value.h"
#include "server/persist/rdb_io.h"

namespace server::persist {

// Encoding limits the loaded value must respect (from the configuration).
struct LoadLimits {
  db::HashLimits hash{512, 64};
  db::SetLimits set{512};
  size_t zset_max_entries = 128;
  size_t zset_max_value = 64;
  int list_fill = -2;
  int list_compress = 0;
};

uint8_t rdbTypeOf(const db::Value& v);
void saveValue(RdbWriter& w, const db::Value& v);

// Reads a value of the given type. On success *out holds it, or stays
// empty when the file holds an empty collection (Redis skips those keys
// with a warning). False with r.error() set on any malformed input.
bool loadValue(RdbReader& r, uint8_t type, const LoadLimits& lim, db::Value* out);

// Name of a type byte for messages ("list-ziplist", "stream", ...); types
// 22 and 23 mean other things in Valkey's files.
std::string rdbTypeName(uint8_t type, bool valkey = false);

}  // namespace server::persist
