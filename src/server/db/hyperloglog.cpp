#include "server/db/hyperloglog.h"

#include <cmath>
#include <cstring>

namespace server::db::hll {
namespace {

constexpr uint64_t kHashSeed = 0xadc83b19ULL;
constexpr uint32_t kZeroMax = 64;      // registers one ZERO opcode covers
constexpr uint32_t kXZeroMax = 16384;  // registers one XZERO opcode covers
constexpr uint32_t kValRunMax = 4;     // registers one VAL opcode covers
// 1 / (2 ln 2): the estimator's constant for m -> infinity.
constexpr double kAlphaInf = 0.721347520444481703680;

// ---- sparse opcodes
bool isZero(uint8_t op) {
  return (op & 0xc0) == 0x00;
}
bool isXZero(uint8_t op) {
  return (op & 0xc0) == 0x40;
}
bool isVal(uint8_t op) {
  return (op & 0x80) != 0;
}
uint32_t zeroLen(uint8_t op) {
  return (op & 0x3fu) + 1;
}
uint32_t xzeroLen(uint8_t op, uint8_t next) {
  return ((static_cast<uint32_t>(op & 0x3f) << 8) | next) + 1;
}
uint8_t valValue(uint8_t op) {
  return static_cast<uint8_t>(((op >> 2) & 0x1f) + 1);
}
uint32_t valLen(uint8_t op) {
  return (op & 0x3u) + 1;
}
uint8_t valOp(uint32_t value, uint32_t len) {
  return static_cast<uint8_t>(0x80 | ((value - 1) << 2) | (len - 1));
}
// Appends the shortest opcode for a run of `len` zero registers.
void putZeros(uint8_t* seq, size_t* n, uint32_t len) {
  if (len > kZeroMax) {
    seq[(*n)++] = static_cast<uint8_t>(0x40 | ((len - 1) >> 8));
    seq[(*n)++] = static_cast<uint8_t>((len - 1) & 0xff);
  } else {
    seq[(*n)++] = static_cast<uint8_t>(len - 1);
  }
}

uint8_t* bytesOf(std::string* s) {
  return reinterpret_cast<uint8_t*>(s->data());
}
const uint8_t* bytesOf(std::string_view s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// Calls fn(value, run) for each opcode of a sparse body, in register
// order. False when the body is malformed: a truncated XZERO, or runs that
// do not add up to exactly kRegisters.
template <typename Fn>
bool walkSparse(std::string_view hll, Fn fn) {
  const uint8_t* p = bytesOf(hll) + kHeaderSize;
  const uint8_t* end = bytesOf(hll) + hll.size();
  uint64_t covered = 0;
  while (p < end) {
    uint32_t run;
    uint8_t value = 0;
    if (isZero(*p)) {
      run = zeroLen(*p);
      p++;
    } else if (isXZero(*p)) {
      if (p + 1 >= end) return false;
      run = xzeroLen(p[0], p[1]);
      p += 2;
    } else {
      run = valLen(*p);
      value = valValue(*p);
      p++;
    }
    // Checked before fn sees the run, so fn may index registers freely.
    if (covered + run > kRegisters) return false;
    fn(value, static_cast<uint32_t>(covered), run);
    covered += run;
  }
  return covered == kRegisters;
}

// The register a sparse body gives `index`, with the opcode holding it.
struct SparseHit {
  size_t pos;      // opcode offset in the body
  size_t prev;     // previous opcode's offset, or npos
  uint32_t first;  // first register the opcode covers
  uint32_t run;    // registers it covers
};

bool findSparse(const uint8_t* body, size_t n, uint32_t index, SparseHit* hit) {
  size_t pos = 0, prev = std::string::npos;
  uint64_t first = 0;
  while (pos < n) {
    uint32_t run;
    size_t oplen = 1;
    if (isZero(body[pos])) {
      run = zeroLen(body[pos]);
    } else if (isVal(body[pos])) {
      run = valLen(body[pos]);
    } else {
      if (pos + 1 >= n) return false;
      run = xzeroLen(body[pos], body[pos + 1]);
      oplen = 2;
    }
    if (index <= first + run - 1) {
      *hit = {pos, prev, static_cast<uint32_t>(first), run};
      return true;
    }
    prev = pos;
    pos += oplen;
    first += run;
  }
  return false;
}

// Joins neighbouring VAL opcodes of equal value (up to four registers per
// opcode), looking at a few opcodes from `from`: after one register update
// only those can have become joinable. Redis does the same, which keeps the
// bytes identical to what it would store.
void joinVals(std::string* hll, size_t from) {
  size_t p = from;
  int budget = 5;
  while (p < hll->size() - kHeaderSize && budget-- > 0) {
    uint8_t* body = bytesOf(hll) + kHeaderSize;
    size_t n = hll->size() - kHeaderSize;
    if (isXZero(body[p])) {
      p += 2;
      continue;
    }
    if (isZero(body[p])) {
      p++;
      continue;
    }
    if (p + 1 < n && isVal(body[p + 1]) && valValue(body[p]) == valValue(body[p + 1])) {
      uint32_t len = valLen(body[p]) + valLen(body[p + 1]);
      if (len <= kValRunMax) {
        body[p + 1] = valOp(valValue(body[p]), len);
        hll->erase(kHeaderSize + p, 1);
        continue;  // the joined opcode may join its right neighbour too
      }
    }
    p++;
  }
}

int sparseSet(std::string* hll, uint32_t index, uint8_t value, size_t sparse_max_bytes) {
  if (value > kSparseValMax) {
    if (!toDense(hll)) return -1;
    denseSet(bytesOf(hll) + kHeaderSize, index, value);
    return 1;
  }
  uint8_t* body = bytesOf(hll) + kHeaderSize;
  size_t n = hll->size() - kHeaderSize;
  SparseHit hit;
  if (!findSparse(body, n, index, &hit)) return -1;
  uint8_t op = body[hit.pos];
  // A single register changes in place.
  if (isVal(op)) {
    if (valValue(op) >= value) return 0;
    if (hit.run == 1) {
      body[hit.pos] = valOp(value, 1);
      joinVals(hll, hit.prev == std::string::npos ? 0 : hit.prev);
      return 1;
    }
  } else if (isZero(op) && hit.run == 1) {
    body[hit.pos] = valOp(value, 1);
    joinVals(hll, hit.prev == std::string::npos ? 0 : hit.prev);
    return 1;
  }
  // Otherwise the run splits into up to three opcodes: the registers before
  // `index`, `index` itself, and those after.
  uint8_t seq[5];
  size_t k = 0;
  uint32_t last = hit.first + hit.run - 1;
  if (isVal(op)) {
    uint8_t cur = valValue(op);
    if (index != hit.first) seq[k++] = valOp(cur, index - hit.first);
    seq[k++] = valOp(value, 1);
    if (index != last) seq[k++] = valOp(cur, last - index);
  } else {
    if (index != hit.first) putZeros(seq, &k, index - hit.first);
    seq[k++] = valOp(value, 1);
    if (index != last) putZeros(seq, &k, last - index);
  }
  size_t oldlen = isXZero(op) ? 2 : 1;
  if (k > oldlen && hll->size() + (k - oldlen) > sparse_max_bytes) {
    if (!toDense(hll)) return -1;
    denseSet(bytesOf(hll) + kHeaderSize, index, value);
    return 1;
  }
  hll->replace(kHeaderSize + hit.pos, oldlen, reinterpret_cast<const char*>(seq), k);
  joinVals(hll, hit.prev == std::string::npos ? 0 : hit.prev);
  return 1;
}

// Ertl's sigma and tau series (both converge when a term stops changing
// the sum).
double sigma(double x) {
  if (x == 1.0) return INFINITY;
  double y = 1.0, z = x, prev;
  do {
    x *= x;
    prev = z;
    z += x * y;
    y += y;
  } while (prev != z);
  return z;
}

double tau(double x) {
  if (x == 0.0 || x == 1.0) return 0.0;
  double y = 1.0, z = 1.0 - x, prev;
  do {
    x = std::sqrt(x);
    prev = z;
    y *= 0.5;
    z -= std::pow(1.0 - x, 2) * y;
  } while (prev != z);
  return z / 3.0;
}

}  // namespace

uint64_t murmurHash64A(const void* key, size_t len, uint64_t seed) {
  const uint64_t m = 0xc6a4a7935bd1e995ULL;
  const int r = 47;
  const auto* data = static_cast<const uint8_t*>(key);
  uint64_t h = seed ^ (len * m);
  const uint8_t* blocks_end = data + (len & ~size_t{7});
  for (; data != blocks_end; data += 8) {
    uint64_t k;
    memcpy(&k, data, 8);  // little-endian hosts only, as the format assumes
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  size_t tail = len & 7;
  if (tail > 0) {
    for (size_t i = tail; i-- > 0;) h ^= static_cast<uint64_t>(data[i]) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

uint8_t hashElement(std::string_view ele, uint32_t* index) {
  uint64_t hash = murmurHash64A(ele.data(), ele.size(), kHashSeed);
  *index = static_cast<uint32_t>(hash & (kRegisters - 1));
  // Bit kQ is forced on so the run is at most kQ+1.
  uint64_t rest = (hash >> kP) | (uint64_t{1} << kQ);
  return static_cast<uint8_t>(__builtin_ctzll(rest) + 1);
}

std::string createEmpty() {
  std::string s(kHeaderSize, '\0');
  memcpy(s.data(), "HYLL", 4);
  s[4] = static_cast<char>(kSparse);
  size_t n = 0;
  uint8_t seq[2];
  putZeros(seq, &n, kXZeroMax);
  s.append(reinterpret_cast<const char*>(seq), n);
  return s;
}

bool looksValid(std::string_view s) {
  if (s.size() < kHeaderSize || memcmp(s.data(), "HYLL", 4) != 0) return false;
  uint8_t enc = encodingOf(s);
  if (enc > kSparse) return false;
  return enc != kDense || s.size() == kDenseSize;
}

bool cacheValid(std::string_view s) {
  return (static_cast<uint8_t>(s[15]) & 0x80) == 0;
}

uint64_t cachedCount(std::string_view s) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | static_cast<uint8_t>(s[8 + i]);
  return v;
}

void setCachedCount(uint8_t* hll, uint64_t count) {
  for (int i = 0; i < 8; i++) hll[8 + i] = static_cast<uint8_t>(count >> (8 * i));
}

void invalidateCache(uint8_t* hll) {
  hll[15] |= 0x80;
}

uint8_t denseGet(const uint8_t* regs, uint32_t index) {
  uint32_t bit = index * kRegisterBits;
  uint32_t byte = bit / 8, shift = bit & 7;
  unsigned v = regs[byte] >> shift;
  // A register starting in the top two bits spills into the next byte
  // (never the case for the last register, so no read past the end).
  if (shift > 2) v |= static_cast<unsigned>(regs[byte + 1]) << (8 - shift);
  return static_cast<uint8_t>(v & 63);
}

void denseSet(uint8_t* regs, uint32_t index, uint8_t value) {
  uint32_t bit = index * kRegisterBits;
  uint32_t byte = bit / 8, shift = bit & 7;
  regs[byte] = static_cast<uint8_t>((regs[byte] & ~(63u << shift)) | (value << shift));
  if (shift > 2) {
    unsigned spill = 8 - shift;
    regs[byte + 1] = static_cast<uint8_t>((regs[byte + 1] & ~(63u >> spill)) | (value >> spill));
  }
}

int setRegister(std::string* hll, uint32_t index, uint8_t value, size_t sparse_max_bytes) {
  if (encodingOf(*hll) == kSparse) return sparseSet(hll, index, value, sparse_max_bytes);
  uint8_t* regs = bytesOf(hll) + kHeaderSize;
  if (denseGet(regs, index) >= value) return 0;
  denseSet(regs, index, value);
  return 1;
}

int add(std::string* hll, std::string_view ele, size_t sparse_max_bytes) {
  uint32_t index;
  uint8_t value = hashElement(ele, &index);
  return setRegister(hll, index, value, sparse_max_bytes);
}

int addDense(uint8_t* hll, std::string_view ele) {
  uint32_t index;
  uint8_t value = hashElement(ele, &index);
  uint8_t* regs = hll + kHeaderSize;
  if (denseGet(regs, index) >= value) return 0;
  denseSet(regs, index, value);
  return 1;
}

bool toDense(std::string* hll) {
  if (encodingOf(*hll) == kDense) return true;
  std::string dense(kDenseSize, '\0');
  memcpy(dense.data(), hll->data(), kHeaderSize);  // magic and cache
  dense[4] = static_cast<char>(kDense);
  uint8_t* regs = bytesOf(&dense) + kHeaderSize;
  bool ok = walkSparse(*hll, [&](uint8_t value, uint32_t first, uint32_t run) {
    if (value == 0) return;
    for (uint32_t i = 0; i < run; i++) denseSet(regs, first + i, value);
  });
  if (!ok) return false;
  hll->swap(dense);
  return true;
}

bool histogram(std::string_view hll, uint32_t hist[64]) {
  memset(hist, 0, 64 * sizeof(uint32_t));
  if (encodingOf(hll) == kSparse)
    return walkSparse(hll, [&](uint8_t value, uint32_t, uint32_t run) { hist[value] += run; });
  // Four registers in every three bytes.
  const uint8_t* r = bytesOf(hll) + kHeaderSize;
  for (uint32_t i = 0; i < kRegisters / 4; i++, r += 3) {
    hist[r[0] & 63]++;
    hist[((r[0] >> 6) | (r[1] << 2)) & 63]++;
    hist[((r[1] >> 4) | (r[2] << 4)) & 63]++;
    hist[(r[2] >> 2) & 63]++;
  }
  return true;
}

bool mergeInto(uint8_t* max, std::string_view hll) {
  if (encodingOf(hll) == kSparse) {
    return walkSparse(hll, [&](uint8_t value, uint32_t first, uint32_t run) {
      if (value == 0) return;
      for (uint32_t i = first; i < first + run; i++)
        if (value > max[i]) max[i] = value;
    });
  }
  const uint8_t* regs = bytesOf(hll) + kHeaderSize;
  for (uint32_t i = 0; i < kRegisters; i++) {
    uint8_t v = denseGet(regs, i);
    if (v > max[i]) max[i] = v;
  }
  return true;
}

uint64_t estimate(const uint32_t hist[64]) {
  const double m = kRegisters;
  double z = m * tau((m - hist[kQ + 1]) / m);
  for (int j = kQ; j >= 1; j--) {
    z += hist[j];
    z *= 0.5;
  }
  z += m * sigma(hist[0] / m);
  return static_cast<uint64_t>(llroundl(kAlphaInf * m * m / z));
}

uint64_t estimateRaw(const uint8_t* regs) {
  uint32_t hist[64] = {};
  for (uint32_t i = 0; i < kRegisters; i++) hist[regs[i] & 63]++;
  return estimate(hist);
}

bool count(std::string_view hll, uint64_t* out) {
  uint32_t hist[64];
  if (!histogram(hll, hist)) return false;
  *out = estimate(hist);
  return true;
}

std::string describeSparse(std::string_view hll) {
  std::string out;
  if (encodingOf(hll) != kSparse) return out;
  const uint8_t* p = bytesOf(hll) + kHeaderSize;
  const uint8_t* end = bytesOf(hll) + hll.size();
  while (p < end) {
    if (!out.empty()) out += ' ';
    if (isZero(*p)) {
      out += "z:" + std::to_string(zeroLen(*p));
      p++;
    } else if (isXZero(*p)) {
      if (p + 1 >= end) break;
      out += "Z:" + std::to_string(xzeroLen(p[0], p[1]));
      p += 2;
    } else {
      out += "v:" + std::to_string(valValue(*p)) + "," + std::to_string(valLen(*p));
      p++;
    }
  }
  return out;
}

}  // namespace server::db::hll
