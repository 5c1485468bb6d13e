// HyperLogLog in Redis's string representation, so that a value made by
// Redis's PFADD is read here unchanged and the other way round.
//
// Layout (all facts of Redis's published format):
//   bytes 0..3   "HYLL"
//   byte  4      encoding: 0 dense, 1 sparse
//   bytes 5..7   unused (zero)
//   bytes 8..15  cached cardinality, little endian; the top bit of byte 15
//                set means "stale, recompute"
//   bytes 16..   registers: 16384 six-bit registers, dense or sparse
// Dense: register i occupies bits 6i..6i+5 counted from the least
// significant bit of the first register byte (12288 bytes in all).
// Sparse: a run-length code of opcodes
//   00xxxxxx           ZERO: xxxxxx+1 (1..64) registers at 0
//   01xxxxxx yyyyyyyy  XZERO: 14-bit length+1 (1..16384) registers at 0
//   1vvvvvxx           VAL: xx+1 (1..4) registers at vvvvv+1 (1..32)
// that must cover exactly 16384 registers. A register above 32, or a sparse
// string that would grow past hll-sparse-max-bytes, turns the value dense.
//
// Elements are hashed with MurmurHash64A (seed 0xadc83b19): the low 14 bits
// pick the register, the position of the lowest set bit of the remaining 50
// (plus one) is the value offered to it. The estimate is Ertl's improved
// raw estimator over the register histogram, as Redis 5+ computes it, so
// counts agree exactly with Redis for the same registers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace server::db::hll {

constexpr int kP = 14;                     // index bits
constexpr int kQ = 64 - kP;                // bits left for the run
constexpr uint32_t kRegisters = 1u << kP;  // 16384
constexpr int kRegisterBits = 6;           //
constexpr size_t kHeaderSize = 16;         //
constexpr size_t kDenseSize = kHeaderSize + (kRegisters * kRegisterBits + 7) / 8;
constexpr uint8_t kDense = 0;
constexpr uint8_t kSparse = 1;
constexpr int kSparseValMax = 32;  // largest register a VAL opcode holds
static_assert(kDenseSize == 12304, "dense HLL size is part of the format");

uint64_t murmurHash64A(const void* key, size_t len, uint64_t seed);

// The register an element maps to and the value (1..kQ+1) it offers.
uint8_t hashElement(std::string_view ele, uint32_t* index);

// An empty HLL (sparse, one XZERO opcode, cached cardinality 0).
std::string createEmpty();

// The checks PFADD/PFCOUNT/PFMERGE make before touching a string: at least
// a header, the magic, a known encoding, and the exact size when dense.
// (A sparse body is only checked as it is decoded: see Status.)
bool looksValid(std::string_view s);
inline uint8_t encodingOf(std::string_view s) {
  return static_cast<uint8_t>(s[4]);
}

// ---- cached cardinality (header bytes 8..15)
bool cacheValid(std::string_view s);
uint64_t cachedCount(std::string_view s);
void setCachedCount(uint8_t* hll, uint64_t count);  // marks it valid
void invalidateCache(uint8_t* hll);

// ---- dense registers (regs = the 12288 bytes after the header)
uint8_t denseGet(const uint8_t* regs, uint32_t index);
void denseSet(uint8_t* regs, uint32_t index, uint8_t value);

// ---- updates. Results: 1 a register grew, 0 nothing changed, -1 the
// sparse body is corrupt (the string is then left as it was).
// Offers `value` to register `index` of a valid HLL of either encoding;
// a sparse one may be rewritten as dense (see the header comment).
int setRegister(std::string* hll, uint32_t index, uint8_t value, size_t sparse_max_bytes);
// Adds an element (hash, then setRegister).
int add(std::string* hll, std::string_view ele, size_t sparse_max_bytes);
// In-place add for a dense HLL (never changes size); 1 or 0.
int addDense(uint8_t* hll, std::string_view ele);

// Rewrites a sparse HLL as dense, keeping the header (and its cache);
// no-op for dense. False when the sparse body is corrupt.
bool toDense(std::string* hll);

// ---- reading. False when the sparse body is corrupt.
// Histogram of register values (hist[v] = registers holding v).
bool histogram(std::string_view hll, uint32_t hist[64]);
// max[i] = max(max[i], register i) over kRegisters entries.
bool mergeInto(uint8_t* max, std::string_view hll);
// Cardinality estimate from a histogram.
uint64_t estimate(const uint32_t hist[64]);
// Estimate of kRegisters plain byte registers (a PFCOUNT union).
uint64_t estimateRaw(const uint8_t* regs);
// Estimate of a whole HLL string; false when corrupt.
bool count(std::string_view hll, uint64_t* out);

// PFDEBUG DECODE: "z:N" (ZERO), "Z:N" (XZERO), "v:V,N" (VAL) separated by
// spaces. Empty when not sparse.
std::string describeSparse(std::string_view hll);

}  // namespace server::db::hll
