#include "server/commands/types/bit_algo.h"

#include <algorithm>
#include <cstring>

namespace server::bitalgo {
namespace {

uint64_t loadWord(const uint8_t* p) {
  uint64_t w;
  memcpy(&w, p, sizeof(w));
  return w;
}

void storeWord(uint8_t* p, uint64_t w) {
  memcpy(p, &w, sizeof(w));
}

// Bits of byte `i` of the range [first, last] that lie inside it, the rest
// cleared (only the range's first and last bytes are partial).
uint8_t maskEdges(uint8_t b, uint64_t i, uint64_t first, uint64_t last) {
  if (i == first >> 3) b &= static_cast<uint8_t>(0xff >> (first & 7));
  if (i == last >> 3) b &= static_cast<uint8_t>(0xff << (7 - (last & 7)));
  return b;
}

}  // namespace

// With the popcnt instruction this is several times faster than the
// portable bit-twiddling fallback; the clone is picked once at load time.
// Not under ThreadSanitizer: the loader runs the clone's resolver before
// the sanitizer's runtime is up, and its instrumented code crashes there.
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("popcnt", "default")))
#endif
uint64_t
popcount(const uint8_t* p, size_t n) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  size_t i = 0;
  // Four independent sums keep several popcounts in flight per cycle.
  for (; i + 32 <= n; i += 32) {
    a += static_cast<uint64_t>(__builtin_popcountll(loadWord(p + i)));
    b += static_cast<uint64_t>(__builtin_popcountll(loadWord(p + i + 8)));
    c += static_cast<uint64_t>(__builtin_popcountll(loadWord(p + i + 16)));
    d += static_cast<uint64_t>(__builtin_popcountll(loadWord(p + i + 24)));
  }
  for (; i + 8 <= n; i += 8) a += static_cast<uint64_t>(__builtin_popcountll(loadWord(p + i)));
  for (; i < n; i++) a += static_cast<uint64_t>(__builtin_popcount(p[i]));
  return a + b + c + d;
}

uint64_t countBits(const uint8_t* p, uint64_t first, uint64_t last) {
  uint64_t fb = first >> 3, lb = last >> 3;
  uint64_t total = popcount(p + fb, lb - fb + 1);
  // Take back the bits of the edge bytes that lie outside the range.
  uint8_t before = static_cast<uint8_t>(p[fb] & ~(0xff >> (first & 7)));
  uint8_t after = static_cast<uint8_t>(p[lb] & ((1u << (7 - (last & 7))) - 1));
  return total - static_cast<uint64_t>(__builtin_popcount(before) + __builtin_popcount(after));
}

int64_t findBit(const uint8_t* p, uint64_t first, uint64_t last, int bit) {
  // Looking for a 0 is looking for a 1 in the complement.
  const uint8_t flip = bit ? 0x00 : 0xff;
  const uint64_t word_flip = bit ? 0 : ~uint64_t{0};
  uint64_t fb = first >> 3, lb = last >> 3;
  uint64_t i = fb;
  while (i <= lb) {
    // Whole words strictly inside the range: skip those without a match.
    if (i != fb && i + 8 <= lb) {
      if ((loadWord(p + i) ^ word_flip) == 0) {
        i += 8;
        continue;
      }
    }
    uint8_t b = maskEdges(static_cast<uint8_t>(p[i] ^ flip), i, first, last);
    if (b != 0) return static_cast<int64_t>(i * 8 + static_cast<uint64_t>(__builtin_clz(b) - 24));
    i++;
  }
  return -1;
}

bool clampRange(int64_t start, int64_t end, int64_t units, int64_t* first, int64_t* last) {
  if (start < 0) start += units;
  if (end < 0) end += units;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= units) end = units - 1;
  if (start > end) return false;
  *first = start;
  *last = end;
  return true;
}

std::string bitop(BitOp op, const std::vector<std::string_view>& srcs) {
  size_t maxlen = 0;
  for (std::string_view s : srcs) maxlen = std::max(maxlen, s.size());
  std::string out(maxlen, '\0');
  if (maxlen == 0 || srcs.empty()) return out;
  auto* dst = reinterpret_cast<uint8_t*>(out.data());
  // A missing key is an empty view whose data() may be null: memcpy from
  // null is undefined even for 0 bytes.
  if (!srcs[0].empty()) memcpy(dst, srcs[0].data(), srcs[0].size());
  if (op == BitOp::kNot) {
    size_t i = 0;
    for (; i + 8 <= maxlen; i += 8) storeWord(dst + i, ~loadWord(dst + i));
    for (; i < maxlen; i++) dst[i] = static_cast<uint8_t>(~dst[i]);
    return out;
  }
  for (size_t k = 1; k < srcs.size(); k++) {
    const auto* src = reinterpret_cast<const uint8_t*>(srcs[k].data());
    size_t n = srcs[k].size();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t a = loadWord(dst + i), b = loadWord(src + i);
      storeWord(dst + i, op == BitOp::kAnd ? (a & b) : op == BitOp::kOr ? (a | b) : (a ^ b));
    }
    for (; i < n; i++) {
      uint8_t a = dst[i], b = src[i];
      dst[i] = static_cast<uint8_t>(op == BitOp::kAnd  ? (a & b)
                                    : op == BitOp::kOr ? (a | b)
                                                       : (a ^ b));
    }
    // Past a shorter source AND sees zero bytes; OR and XOR keep what is there.
    if (op == BitOp::kAnd && n < maxlen) memset(dst + n, 0, maxlen - n);
  }
  return out;
}

namespace {

// The bytes a field touches, read big-endian into one integer: the field
// then is a plain shift and mask. A field of up to 64 bits spans at most 9
// bytes.
struct FieldWindow {
  uint64_t byte;   // first byte
  unsigned count;  // bytes spanned
  unsigned shift;  // bits right of the field inside the window
};

FieldWindow windowOf(uint64_t offset, int bits) {
  unsigned lead = static_cast<unsigned>(offset & 7);
  unsigned count = (lead + static_cast<unsigned>(bits) + 7) / 8;
  return {offset >> 3, count, count * 8 - lead - static_cast<unsigned>(bits)};
}

uint64_t fieldMask(int bits) {
  return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

}  // namespace

uint64_t getField(const uint8_t* p, size_t len, uint64_t offset, int bits) {
  FieldWindow w = windowOf(offset, bits);
  unsigned __int128 acc = 0;
  for (unsigned i = 0; i < w.count; i++) {
    uint64_t at = w.byte + i;
    acc = (acc << 8) | (at < len ? p[at] : 0);
  }
  return static_cast<uint64_t>(acc >> w.shift) & fieldMask(bits);
}

int64_t getSignedField(const uint8_t* p, size_t len, uint64_t offset, int bits) {
  uint64_t v = getField(p, len, offset, bits);
  if (bits < 64 && (v >> (bits - 1)) & 1) v |= ~fieldMask(bits);
  return static_cast<int64_t>(v);
}

void setField(uint8_t* p, uint64_t offset, int bits, uint64_t value) {
  FieldWindow w = windowOf(offset, bits);
  unsigned __int128 acc = 0;
  for (unsigned i = 0; i < w.count; i++) acc = (acc << 8) | p[w.byte + i];
  unsigned __int128 mask = static_cast<unsigned __int128>(fieldMask(bits)) << w.shift;
  acc = (acc & ~mask) | ((static_cast<unsigned __int128>(value & fieldMask(bits)) << w.shift));
  for (unsigned i = w.count; i-- > 0;) {
    p[w.byte + i] = static_cast<uint8_t>(acc);
    acc >>= 8;
  }
}

bool signedAdd(int64_t value, int64_t incr, int bits, Overflow ow, int64_t* out) {
  const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  // Redis compares the increment with the room left (max - value, min -
  // value) computed in wrapping 64-bit arithmetic. For a SET value far below
  // a narrow field's range the room wraps negative and the value counts as
  // overflowing upwards (SAT stores the maximum); the comparisons are kept
  // as they are so that results match Redis bit for bit.
  const int64_t room_up =
      static_cast<int64_t>(static_cast<uint64_t>(max) - static_cast<uint64_t>(value));
  const int64_t room_down =
      static_cast<int64_t>(static_cast<uint64_t>(min) - static_cast<uint64_t>(value));
  bool up =
      value > max || (bits != 64 && incr > room_up) || (value >= 0 && incr > 0 && incr > room_up);
  bool down = !up && (value < min || (bits != 64 && incr < room_down) ||
                      (value < 0 && incr < 0 && incr < room_down));
  // Two's complement sum, sign-extended from the field's top bit: the
  // result itself when nothing overflowed, the wrapped one otherwise.
  uint64_t sum = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
  if (bits < 64) {
    sum &= fieldMask(bits);
    if ((sum >> (bits - 1)) & 1) sum |= ~fieldMask(bits);
  }
  if (up && ow == Overflow::kSat)
    *out = max;
  else if (down && ow == Overflow::kSat)
    *out = min;
  else
    *out = static_cast<int64_t>(sum);
  return up || down;
}

bool unsignedAdd(uint64_t value, int64_t incr, int bits, Overflow ow, uint64_t* out) {
  const uint64_t max = fieldMask(bits);
  bool up = value > max, down = false;
  if (!up) {
    __int128 r = static_cast<__int128>(value) + incr;
    up = r > static_cast<__int128>(max);
    down = r < 0;
  }
  if (!up && !down) {
    *out = value + static_cast<uint64_t>(incr);
    return false;
  }
  if (ow == Overflow::kSat)
    *out = up ? max : 0;
  else
    *out = (value + static_cast<uint64_t>(incr)) & max;
  return true;
}

}  // namespace server::bitalgo
