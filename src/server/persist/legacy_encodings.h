// The compact encodings of RDB files written before Redis 7.0, parsed and
// validated into elements (db::LpValue) that the loader then turns into our
// encodings. Nothing here is ever written: the writer uses listpacks.
//
// Ziplist (hashes 13, lists 10, sorted sets 12, quicklist v1 nodes 14):
//   [u32 zlbytes][u32 zltail][u16 zllen, 65535 = "count it"] entry* 0xFF
//   entry = prevlen encoding payload
//   prevlen: 1 byte (< 254) or 0xFE + u32 LE: the previous entry's size
//   encoding: 00llllll str len6; 01llllll + 1 byte str len14 (big-endian);
//   10xxxxxx + u32 BE str len32; 0xC0 int16; 0xD0 int32; 0xE0 int64;
//   0xF0 int24; 0xFE int8; 0xF1..0xFD immediate 0..12 (all LE)
// Zipmap (hashes 9, Redis <= 2.4):
//   [u8 count, 254 = "count it"] (len field len free value pad)* 0xFF
//   len: 1 byte (< 254) or 0xFE + u32 LE; free: 1 byte of padding length
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/db/listpack.h"

namespace server::persist {

// Parses and fully validates a ziplist: the header's byte count and tail
// offset, every entry's bounds and encoding, each prevlen against the entry
// before it, the terminator and the count. Strings point into blob. False
// with *err set when anything is wrong.
bool parseZiplist(std::string_view blob, std::vector<db::LpValue>* out, std::string* err);

// Parses and validates a zipmap into field, value, field, value, ... (all
// strings pointing into blob). An empty zipmap is an error, as in Redis 7.0.
bool parseZipmap(std::string_view blob, std::vector<db::LpValue>* out, std::string* err);

}  // namespace server::persist
