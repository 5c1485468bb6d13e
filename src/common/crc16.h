// CRC-16/XMODEM (polynomial 0x1021, initial value 0, not reflected, no final
// xor): the checksum Redis Cluster maps keys to hash slots with
// (crc16("123456789") == 0x31c3). See server/db/slots.h for the slot rule.
#pragma once

#include <cstddef>
#include <cstdint>

namespace common {

// The checksum of len bytes at buf.
uint16_t crc16(const char* buf, size_t len);

}  // namespace common
