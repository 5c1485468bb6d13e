// DUMP payloads as Redis 7.0 makes them: the value's type byte and RDB
// bytes, then the RDB version (2 bytes, little-endian) and a CRC-64 of
// everything before it (8 bytes, little-endian). Payloads move between
// Redis 7.0 and this server in both directions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "server/db/value.h"
#include "server/persist/rdb_value.h"

namespace server::persist {

std::string makeDumpPayload(const db::Value& v, bool compress);
// Checks length, version (one the loader knows: 1 to 12 from Redis, 80 on
// from Valkey 9; older ones hold the encodings of their time) and checksum.
bool verifyDumpPayload(std::string_view p);
// Decodes a verified payload; false with *err on malformed data. Hash
// fields whose expiry time is before now_ms are dropped, later ones kept
// without it; *note (when given) then says how many of each.
bool decodeDumpPayload(std::string_view p, const LoadLimits& lim, db::Value* out, std::string* err,
                       int64_t now_ms = 0, std::string* note = nullptr);

}  // namespace server::persist
