// Pure bit algorithms behind the bitmap commands (BITCOUNT BITPOS BITOP
// BITFIELD), kept apart from the command code so they can be unit-tested
// without a server.
//
// Bit numbering is Redis's: bit 0 is the most significant bit of byte 0,
// bit 8 the most significant bit of byte 1, and so on. Bytes past the end of
// a string read as zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace server::bitalgo {

// Set bits in n bytes, a machine word at a time.
uint64_t popcount(const uint8_t* p, size_t n);

// Set bits in the inclusive bit range [first, last]; last must lie inside
// the buffer.
uint64_t countBits(const uint8_t* p, uint64_t first, uint64_t last);

// Position of the first bit equal to `bit` (0 or 1) in the inclusive bit
// range [first, last], or -1 when there is none. Skips whole words that
// cannot hold a match.
int64_t findBit(const uint8_t* p, uint64_t first, uint64_t last, int bit);

// The index rules BITCOUNT and BITPOS share: negative indexes count from
// the end of `units` (bytes or bits), both ends are inclusive and clamped to
// [0, units-1]. Returns false when the clamped range is empty.
bool clampRange(int64_t start, int64_t end, int64_t units, int64_t* first, int64_t* last);

enum class BitOp { kAnd, kOr, kXor, kNot };

// BITOP: the result is as long as the longest source; shorter sources
// (and missing keys, passed as empty views) read as zero bytes. kNot takes
// exactly one source.
std::string bitop(BitOp op, const std::vector<std::string_view>& srcs);

// ---- BITFIELD

// Unsigned value of the `bits`-wide field (1..64) at bit `offset` of a
// string of len bytes; bits past the end read as zero.
uint64_t getField(const uint8_t* p, size_t len, uint64_t offset, int bits);
// Same, sign-extended from the field's top bit.
int64_t getSignedField(const uint8_t* p, size_t len, uint64_t offset, int bits);
// Writes the low `bits` bits of value at bit `offset`; the buffer must
// cover the whole field.
void setField(uint8_t* p, uint64_t offset, int bits, uint64_t value);

enum class Overflow { kWrap, kSat, kFail };

// value + incr for a signed field of `bits` (1..64) bits. Returns true on
// overflow; *out is then the wrapped (two's complement, sign-extended) or
// saturated result, unspecified for kFail. SET is the case incr == 0 with
// the new value.
bool signedAdd(int64_t value, int64_t incr, int bits, Overflow ow, int64_t* out);
// Same for an unsigned field of 1..63 bits. value is taken as an unsigned
// 64-bit number (a negative SET argument is a huge value: it overflows
// upwards, as in Redis).
bool unsignedAdd(uint64_t value, int64_t incr, int bits, Overflow ow, uint64_t* out);

}  // namespace server::bitalgo
