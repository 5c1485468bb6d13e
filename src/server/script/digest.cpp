#include "server/script/digest.h"

#include <cstring>

namespace server::script {

namespace {

inline uint32_t rol(uint32_t v, int n) {
  return (v << n) | (v >> (32 - n));
}

// One 64-byte block of FIPS 180-4 SHA-1.
void sha1Block(uint32_t h[5], const unsigned char* p) {
  uint32_t w[80];
  for (int i = 0; i < 16; i++) {
    w[i] = (uint32_t(p[4 * i]) << 24) | (uint32_t(p[4 * i + 1]) << 16) |
           (uint32_t(p[4 * i + 2]) << 8) | uint32_t(p[4 * i + 3]);
  }
  for (int i = 16; i < 80; i++) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int i = 0; i < 80; i++) {
    uint32_t f, k;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    uint32_t t = rol(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = rol(b, 30);
    b = a;
    a = t;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

// Table for the reflected Jones polynomial (0xad93d23594c935a9 reversed).
struct Crc64Table {
  uint64_t t[256];
  Crc64Table() {
    constexpr uint64_t kPoly = 0x95ac9329ac4bc9b5ULL;
    for (uint64_t i = 0; i < 256; i++) {
      uint64_t c = i;
      for (int j = 0; j < 8; j++) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
      t[i] = c;
    }
  }
};

}  // namespace

void sha1Hex(const void* data, size_t len, char out[41]) {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  const auto* p = static_cast<const unsigned char*>(data);
  size_t full = len / 64;
  for (size_t i = 0; i < full; i++) sha1Block(h, p + 64 * i);
  unsigned char tail[128] = {};
  size_t rest = len % 64;
  memcpy(tail, p + 64 * full, rest);
  tail[rest] = 0x80;
  size_t tail_len = rest + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bits = static_cast<uint64_t>(len) * 8;
  for (int i = 0; i < 8; i++) tail[tail_len - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  for (size_t off = 0; off < tail_len; off += 64) sha1Block(h, tail + off);
  static const char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 20; i++) {
    unsigned byte = (h[i / 4] >> (24 - 8 * (i % 4))) & 0xff;
    out[2 * i] = kHex[byte >> 4];
    out[2 * i + 1] = kHex[byte & 15];
  }
  out[40] = '\0';
}

uint64_t crc64(uint64_t crc, const void* data, size_t len) {
  static const Crc64Table table;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < len; i++) crc = table.t[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace server::script
