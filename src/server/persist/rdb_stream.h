// Streams in RDB form (Redis 7.0's RDB_TYPE_STREAM_LISTPACKS_2, type 19;
// type 15 of Redis 5/6 is read too): the nodes as Redis listpacks keyed by
// their 16-byte master ID, the stream's counters, then each consumer group
// with its PEL and consumers. Loading validates every listpack and the
// stream layout inside it, and that each pending entry has one consumer.
#pragma once

#include <cstdint>

#include "server/db/stream.h"
#include "server/db/value.h"
#include "server/persist/rdb_io.h"

namespace server::persist {

void saveStream(RdbWriter& w, const db::Stream& s);
// type is kTypeStreamListpacks, kTypeStreamListpacks2 or kTypeStreamListpacks3. False with
// r.error() set on malformed input.
bool loadStream(RdbReader& r, uint8_t type, db::Value* out);

}  // namespace server::persist
