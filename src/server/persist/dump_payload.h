// DUMP payloads as Redis 7.0 makes them: the value's type byte and RDB
// bytes, then the RDB version (2 bytes, little-endian) and a CRC-64 of
// everything before it (8 bytes, little-endian). Payloads move between
// Redis 7.0 and this server in both directions.
#pragma once

#include <string>
#include <string_view>

#include "server/db/value.h"
#include "server/persist/rdb_value.h"

namespace persist {

std::string makeDumpPayload(const db::Value& v, bool compress);
// Checks length, version (at most ours) and checksum.
bool verifyDumpPayload(std::string_view p);
// Decodes a verified payload; false with *err on malformed data.
bool decodeDumpPayload(std::string_view p, const LoadLimits& lim, db::Value* out, std::string* err);

}  // namespace persist
