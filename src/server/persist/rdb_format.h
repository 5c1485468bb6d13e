// Constants of the RDB format as Redis 7.0 writes it (RDB version 10):
// value type bytes, opcodes and the special string encodings. Facts about
// the format, shared by the writer and the loader.
#pragma once

#include <cstdint>

namespace persist {

constexpr int kRdbVersion = 10;
// Highest version the loader accepts: 11 (Redis 7.2) differs from 10 only by
// the listpack set type, which the loader understands.
constexpr int kRdbMaxLoadVersion = 11;

// Value types (the byte before a key).
enum RdbType : uint8_t {
  kTypeString = 0,
  kTypeList = 1,
  kTypeSet = 2,
  kTypeZSet = 3,  // scores as text
  kTypeHash = 4,
  kTypeZSet2 = 5,  // scores as binary doubles
  kTypeModule = 6,
  kTypeModule2 = 7,
  kTypeHashZipmap = 9,
  kTypeListZiplist = 10,
  kTypeSetIntset = 11,
  kTypeZSetZiplist = 12,
  kTypeHashZiplist = 13,
  kTypeListQuicklist = 14,
  kTypeStreamListpacks = 15,
  kTypeHashListpack = 16,
  kTypeZSetListpack = 17,
  kTypeListQuicklist2 = 18,
  kTypeStreamListpacks2 = 19,
  kTypeSetListpack = 20,  // Redis 7.2 (RDB 11); never written here
};

// Opcodes (in place of a type byte).
enum RdbOpcode : uint8_t {
  kOpFunction2 = 245,
  kOpFunction = 246,
  kOpModuleAux = 247,
  kOpIdle = 248,
  kOpFreq = 249,
  kOpAux = 250,
  kOpResizeDb = 251,
  kOpExpireTimeMs = 252,
  kOpExpireTime = 253,
  kOpSelectDb = 254,
  kOpEof = 255,
};

// Length encoding: the top two bits of the first byte.
constexpr uint8_t kLen6Bit = 0;
constexpr uint8_t kLen14Bit = 1;
constexpr uint8_t kLen32Bit = 0x80;  // whole byte; 4 bytes big-endian follow
constexpr uint8_t kLen64Bit = 0x81;  // whole byte; 8 bytes big-endian follow
constexpr uint8_t kLenEncoded = 3;   // 11xxxxxx: a special string encoding
// Special string encodings (low 6 bits after 11).
constexpr uint8_t kEncInt8 = 0;
constexpr uint8_t kEncInt16 = 1;
constexpr uint8_t kEncInt32 = 2;
constexpr uint8_t kEncLzf = 3;

// Quicklist 2 node containers.
constexpr uint64_t kQuicklistPlain = 1;
constexpr uint64_t kQuicklistPacked = 2;

}  // namespace persist
