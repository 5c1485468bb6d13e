// Redis's listpack byte layout, as it appears inside RDB files and DUMP
// payloads (our in-memory db::Listpack uses a different layout of its own):
//   [u32 total bytes][u16 count, 65535 = "count it"] entry* 0xFF
//   entry = encoding [payload] backlen
// encodings: 0xxxxxxx uint7; 10xxxxxx str len6; 110xxxxx +1 byte int13;
// 1110xxxx +1 byte str len12; 0xF0 + u32 str len; 0xF1/F2/F3/F4 int16/24/
// 32/64; all little-endian. backlen = size of encoding+payload, 7 bits per
// byte read backwards from the entry's end (high bit: more bytes before).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/db/listpack.h"

namespace server::persist {

// The n-byte little-endian number at p (the packed encodings' integers and
// sizes: listpacks here, ziplists and zipmaps in legacy_encodings.cpp).
inline uint64_t readLe(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

// u's low `bytes` bytes as a signed number of that width.
inline int64_t signExtend(uint64_t u, int bytes) {
  int shift = 64 - 8 * bytes;
  return static_cast<int64_t>(u << shift) >> shift;
}

class RedisListpackBuilder {
 public:
  // estimate: bytes expected (the buffer grows past it when needed).
  explicit RedisListpackBuilder(size_t estimate = 64);
  void addInt(int64_t v);
  void addString(std::string_view s);
  void add(const db::LpValue& v) {
    if (v.is_int)
      addInt(v.ival);
    else
      addString(v.str);
  }
  // Every element of an in-memory listpack, in order (ours holds canonical
  // integers as integers, as Redis's does, so they carry over as they are).
  void addAll(const db::Listpack& lp);
  // Closes the listpack (header, terminator) and returns its bytes.
  std::string& finish();

 private:
  // n more bytes at the end; buf_'s size is the capacity, len_ is used.
  char* room(size_t n);
  std::string buf_;
  size_t len_ = 0;
  size_t count_ = 0;
};

// Parses and fully validates a listpack (every entry's bounds, encoding and
// backlen, the header's sizes, the terminator). Elements' strings point into
// blob. False with *err set when anything is wrong.
bool parseRedisListpack(std::string_view blob, std::vector<db::LpValue>* out, std::string* err);

}  // namespace server::persist
