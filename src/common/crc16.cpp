#include "common/crc16.h"

#include <array>

namespace common {

namespace {

constexpr uint16_t kPoly = 0x1021;

// table[b] is the CRC of the single byte b: the input is folded in a byte at
// a time, most significant bit first. Built by the compiler.
constexpr std::array<uint16_t, 256> makeTable() {
  std::array<uint16_t, 256> t{};
  for (uint32_t b = 0; b < 256; b++) {
    uint16_t c = static_cast<uint16_t>(b << 8);
    for (int i = 0; i < 8; i++) {
      c = (c & 0x8000) ? static_cast<uint16_t>((c << 1) ^ kPoly) : static_cast<uint16_t>(c << 1);
    }
    t[b] = c;
  }
  return t;
}

constexpr std::array<uint16_t, 256> kTable = makeTable();

static_assert(kTable[1] == kPoly, "one byte of value 1 leaves the polynomial");
static_assert(kTable[0xff] == 0x1ef0, "spot check of the XMODEM table");

}  // namespace

uint16_t crc16(const char* buf, size_t len) {
  uint16_t crc = 0;
  for (size_t i = 0; i < len; i++) {
    uint8_t idx = static_cast<uint8_t>((crc >> 8) ^ static_cast<uint8_t>(buf[i]));
    crc = static_cast<uint16_t>((crc << 8) ^ kTable[idx]);
  }
  return crc;
}

}  // namespace common
