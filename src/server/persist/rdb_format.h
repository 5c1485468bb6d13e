// Constants of the RDB format as Redis 7.0 writes it (RDB version 10):
// value type bytes, opcodes and the special string encodings. Facts about
// the format, shared by the writer and the loader.
#pragma once

#include <cstdint>

namespace server::persist {

constexpr int kRdbVersion = 10;
// Versions the loader accepts. Files say "REDIS" and four digits: 1 to 10
// (Redis 2.x to 7.0), 11 (Redis 7.2, Valkey 7.2/8.x: listpack sets), 12
// (Redis 7.4/8.0: hashes with field expiry). Valkey 9 says "VALKEY" and three
// digits, 80 (9.0) and up; its type 22 is its own hash with field expiry.
// DUMP payloads carry only the number, with the same meaning.
constexpr int kRdbMaxRedisVersion = 12;
constexpr int kRdbMinValkeyVersion = 80;
constexpr int kRdbMaxValkeyVersion = 81;
inline bool rdbVersionKnown(int v) {
  return (v >= 1 && v <= kRdbMaxRedisVersion) ||
         (v >= kRdbMinValkeyVersion && v <= kRdbMaxValkeyVersion);
}
inline bool rdbVersionIsValkey(int v) {
  return v >= kRdbMinValkeyVersion;
}

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
  kTypeStreamListpacks3 = 21,
  // Redis 7.4 (RDB 12) hashes with field expiry; in Valkey's files 22 is
  // its hash with field expiry and 23 its path hash (RDB 81).
  kTypeHashMetadataPreGa = 22,
  kTypeHashListpackExPreGa = 23,
  kTypeHashMetadata = 24,
  kTypeHashListpackEx = 25,
  kTypeValkeyHash2 = 22,
  kTypeValkeyPathHash = 23,
};

// Opcodes (in place of a type byte).
enum RdbOpcode : uint8_t {
  kOpSlotImport = 243,  // Valkey 9 cluster: slot import state
  kOpSlotInfo = 244,    // Redis 7.4 cluster: per-slot size hints
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

// Hash field expiry times above this are corrupt (Redis 7.4: 2^48 - 1).
constexpr uint64_t kMaxFieldExpire = (uint64_t{1} << 48) - 1;

// Quicklist 2 node containers.
constexpr uint64_t kQuicklistPlain = 1;
constexpr uint64_t kQuicklistPacked = 2;

}  // namespace server::persist
