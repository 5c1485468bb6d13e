// Digests the scripting module needs: SHA-1 names scripts (EVALSHA,
// redis.sha1hex) and CRC-64 (the Jones polynomial, reflected, as Redis's
// RDB and DUMP payloads use) closes FUNCTION DUMP payloads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace server::script {

// 40 lower-case hex digits written to out[0..39], out[40] = '\0'.
void sha1Hex(const void* data, size_t len, char out[41]);
inline std::string sha1Hex(std::string_view s) {
  char buf[41];
  sha1Hex(s.data(), s.size(), buf);
  return std::string(buf, 40);
}

// CRC-64/Jones over data, continuing from crc (0 to start).
uint64_t crc64(uint64_t crc, const void* data, size_t len);

}  // namespace server::script
