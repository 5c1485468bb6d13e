// CRC-64 with the Jones polynomial, reflected, initial value 0 and no final
// xor: the checksum Redis puts after an RDB file and a DUMP payload
// (crc64("123456789") == 0xe9c6d914c4b8d9ca). Stored little-endian.
#pragma once

#include <cstddef>
#include <cstdint>

namespace common {

// Continues a checksum over len more bytes (start with crc = 0).
uint64_t crc64(uint64_t crc, const void* data, size_t len);

}  // namespace common
