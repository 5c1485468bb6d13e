#include "common/crc64.h"

#include <cstring>

namespace common {

namespace {

// Reflected form of the Jones polynomial 0xad93d23594c935a9.
constexpr uint64_t kPoly = 0x95ac9329ac4bc9b5ULL;

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero
// bytes, so eight input bytes fold in with eight lookups (the file writer
// checksums everything it writes, so this is on the SAVE path).
struct Tables {
  uint64_t t[8][256];
  Tables() {
    for (uint32_t b = 0; b < 256; b++) {
      uint64_t c = b;
      for (int i = 0; i < 8; i++) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
      t[0][b] = c;
    }
    for (int k = 1; k < 8; k++)
      for (uint32_t b = 0; b < 256; b++) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  }
};

const Tables& tables() {
  static const Tables tb;
  return tb;
}

}  // namespace

uint64_t crc64(uint64_t crc, const void* data, size_t len) {
  const auto& t = tables().t;
  const auto* p = static_cast<const uint8_t*>(data);
  while (len >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);  // little-endian hosts only (x86-64, aarch64)
    w ^= crc;
    crc = t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^ t[5][(w >> 16) & 0xff] ^ t[4][(w >> 24) & 0xff] ^
          t[3][(w >> 32) & 0xff] ^ t[2][(w >> 40) & 0xff] ^ t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
    p += 8;
    len -= 8;
  }
  while (len--) crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace common
