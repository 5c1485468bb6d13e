// Fast seeded hashing for hash tables, and a cheap per-thread random source.
//
// The hash is a folded-multiply construction: each 16-byte block of input is
// XORed with secret words and multiplied 64x64->128; the two halves of the
// product are XORed together ("folded"). Without knowing the per-process
// secret an attacker cannot choose inputs that collide on purpose, which is
// what protects the keyspace from hash flooding; with it (tests) the results
// are deterministic.
//
// Contract:
// - hashBytes() is stable for the life of the process and differs between
//   processes (the secret comes from getrandom() at first use).
// - hashBytesNoCase() equals hashBytes() of the ASCII-lowercased input; bytes
//   outside 'A'..'Z' are left as they are (command-name lookup).
// - hashBytesSeeded() is a pure function of (data, seed): tests and callers
//   that need reproducible hashes use it.
// - hashU64() mixes an integer with the process secret (integer-keyed sets).
// - randomU64() is a fast, non-cryptographic generator, one stream per thread,
//   seeded differently in every process. Not for secrets.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace common {

// The four secret words every hash mixes in. Two secrets made from different
// seeds give unrelated hash functions.
struct HashSecret {
  uint64_t k[4];
};

// Expands a 64-bit seed into a secret (deterministic).
HashSecret makeHashSecret(uint64_t seed);
namespace hash_detail {
// The process secret once made (zero before: constant-initialised, so any
// static initialiser may hash), and whether it is made yet.
extern HashSecret g_secret;
extern std::atomic<bool> g_secret_ready;
const HashSecret& makeProcessHashSecret();
}  // namespace hash_detail

// The process-wide secret, made from getrandom() on first use. Inline: every
// key hash reads it, and after the first use it is one load and a branch.
inline const HashSecret& processHashSecret() {
  if (hash_detail::g_secret_ready.load(std::memory_order_acquire)) [[likely]]
    return hash_detail::g_secret;
  return hash_detail::makeProcessHashSecret();
}

namespace hash_detail {

// Odd constants with well spread bits (golden ratio and two arbitrary primes
// of 64 bits); they only stop an all-zero secret from degenerating.
inline constexpr uint64_t kC0 = 0x9E3779B97F4A7C15ull;
inline constexpr uint64_t kC1 = 0xD1B54A32D192ED03ull;
inline constexpr uint64_t kC2 = 0xAF251AF3B0F025B5ull;

// 64x64->128 multiply, halves XORed: every input bit reaches many output bits.
inline uint64_t foldMul(uint64_t a, uint64_t b) {
  __uint128_t r = static_cast<__uint128_t>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

// Sets 0x20 in every byte that holds 'A'..'Z' (SWAR: all 8 bytes at once).
inline uint64_t lowerAscii8(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  uint64_t low7 = w & ~kHigh;
  uint64_t ge_a = low7 + (0x80 - 'A') * kOnes;      // high bit set where byte >= 'A'
  uint64_t gt_z = low7 + (0x80 - 'Z' - 1) * kOnes;  // high bit set where byte > 'Z'
  uint64_t upper = ge_a & ~gt_z & ~w & kHigh;       // ...and the byte is ASCII
  return w | (upper >> 2);
}

// Input loaders; the case-folding one applies lowerAscii8 to every load.
struct RawLoad {
  static uint64_t r8(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static uint64_t r4(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  static uint64_t r1(const uint8_t* p) { return *p; }
};
struct LowerLoad {
  static uint64_t r8(const uint8_t* p) { return lowerAscii8(RawLoad::r8(p)); }
  static uint64_t r4(const uint8_t* p) { return lowerAscii8(RawLoad::r4(p)); }
  static uint64_t r1(const uint8_t* p) { return lowerAscii8(*p); }
};

template <class Load>
inline uint64_t hashCore(const void* data, size_t len, const HashSecret& s) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint64_t state = s.k[0] ^ foldMul(len ^ s.k[1], kC0);
  uint64_t a, b;
  if (len <= 16) {
    // Short keys (the common case) read at most two overlapping words and do
    // two multiplies in total. The length is already in `state`, so the
    // overlapping reads cannot make two lengths collide.
    if (len >= 8) {
      a = Load::r8(p);
      b = Load::r8(p + len - 8);
    } else if (len >= 4) {
      a = Load::r4(p);
      b = Load::r4(p + len - 4);
    } else if (len > 0) {
      a = (Load::r1(p) << 16) | (Load::r1(p + len / 2) << 8) | Load::r1(p + len - 1);
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    const uint8_t* end = p + len;
    if (len > 48) {
      // Three independent lanes keep the multiplier busy on long values.
      uint64_t lane1 = state, lane2 = state;
      do {
        state = foldMul(Load::r8(p) ^ s.k[1], Load::r8(p + 8) ^ state);
        lane1 = foldMul(Load::r8(p + 16) ^ s.k[2], Load::r8(p + 24) ^ lane1);
        lane2 = foldMul(Load::r8(p + 32) ^ s.k[3], Load::r8(p + 40) ^ lane2);
        p += 48;
      } while (end - p > 48);
      state ^= lane1 ^ lane2;
    }
    while (end - p > 16) {
      state = foldMul(Load::r8(p) ^ s.k[1], Load::r8(p + 8) ^ state);
      p += 16;
    }
    a = Load::r8(end - 16);
    b = Load::r8(end - 8);
  }
  uint64_t mixed = foldMul(a ^ s.k[1], b ^ state);
  return foldMul(mixed ^ s.k[2], (len ^ kC1) ^ s.k[3]);
}

}  // namespace hash_detail

inline uint64_t hashBytesSeeded(const void* data, size_t len, const HashSecret& secret) {
  return hash_detail::hashCore<hash_detail::RawLoad>(data, len, secret);
}

inline uint64_t hashBytes(const void* data, size_t len) {
  return hash_detail::hashCore<hash_detail::RawLoad>(data, len, processHashSecret());
}

inline uint64_t hashBytesNoCase(const void* data, size_t len) {
  return hash_detail::hashCore<hash_detail::LowerLoad>(data, len, processHashSecret());
}

inline uint64_t hashU64(uint64_t v) {
  const HashSecret& s = processHashSecret();
  return hash_detail::foldMul(hash_detail::foldMul(v ^ s.k[0], s.k[1] ^ hash_detail::kC0),
                              s.k[2] ^ hash_detail::kC2);
}

// Per-thread generator: a Weyl sequence (add an odd constant) finished with
// one folded multiply. Period 2^64, passes the usual statistical smoke tests.
uint64_t randomSeedForThread();
inline uint64_t randomU64() {
  thread_local uint64_t state = randomSeedForThread();
  state += hash_detail::kC0;
  return hash_detail::foldMul(state ^ hash_detail::kC1, state ^ hash_detail::kC2);
}

}  // namespace common
