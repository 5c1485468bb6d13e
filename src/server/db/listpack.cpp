#include "server/db/listpack.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "common/strutil.h"

namespace server::db {

namespace {

constexpr uint8_t kStr6 = 0x80;   // 0x80..0xbf
constexpr uint8_t kInt13 = 0xc0;  // 0xc0..0xdf
constexpr uint8_t kInt16 = 0xe0;
constexpr uint8_t kInt32 = 0xe1;
constexpr uint8_t kInt64 = 0xe2;
constexpr uint8_t kStr16 = 0xe3;
constexpr uint8_t kStr32 = 0xe4;
constexpr uint8_t kInt24 = 0xe5;  // 3 bytes, as Redis's listpack has (saves a byte per value)

uint32_t load32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
void store32(uint8_t* p, uint32_t v) {
  memcpy(p, &v, 4);
}

size_t backlenSize(size_t n) {
  size_t k = 1;
  while (n >= 128) {
    n >>= 7;
    k++;
  }
  return k;
}

// Writes n's backlen so that its last byte is read first going backwards;
// every byte but the first in memory has the "more before" bit set.
void writeBacklen(uint8_t* out, size_t n, size_t k) {
  for (size_t i = 0; i < k; i++) {
    uint8_t b = static_cast<uint8_t>(n & 0x7f);
    n >>= 7;
    if (i + 1 < k) b |= 0x80;
    out[k - 1 - i] = b;
  }
}

// Reads the backlen that ends just before `end`; sets *k to its size.
size_t readBacklen(const uint8_t* end, size_t* k) {
  size_t n = 0;
  size_t shift = 0;
  size_t i = 0;
  for (;;) {
    uint8_t b = end[-1 - static_cast<ptrdiff_t>(i)];
    n |= static_cast<size_t>(b & 0x7f) << shift;
    shift += 7;
    i++;
    if (!(b & 0x80)) break;
  }
  *k = i;
  return n;
}

// The encoded form of one element, before it is copied in.
struct Encoded {
  uint8_t head[9];
  size_t head_len = 0;
  const char* payload = nullptr;  // string bytes (strings only)
  size_t payload_len = 0;
  size_t body() const { return head_len + payload_len; }
  size_t total() const { return body() + backlenSize(body()); }
};

void encodeInt(int64_t v, Encoded* e) {
  if (v >= 0 && v <= 127) {
    e->head[0] = static_cast<uint8_t>(v);
    e->head_len = 1;
  } else if (v >= -4096 && v <= 4095) {
    uint32_t u = static_cast<uint32_t>(v + 4096);
    e->head[0] = static_cast<uint8_t>(kInt13 | (u >> 8));
    e->head[1] = static_cast<uint8_t>(u & 0xff);
    e->head_len = 2;
  } else if (v >= INT16_MIN && v <= INT16_MAX) {
    int16_t x = static_cast<int16_t>(v);
    e->head[0] = kInt16;
    memcpy(e->head + 1, &x, 2);
    e->head_len = 3;
  } else if (v >= -8388608 && v <= 8388607) {
    uint32_t u = static_cast<uint32_t>(v);
    e->head[0] = kInt24;
    e->head[1] = static_cast<uint8_t>(u);
    e->head[2] = static_cast<uint8_t>(u >> 8);
    e->head[3] = static_cast<uint8_t>(u >> 16);
    e->head_len = 4;
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    int32_t x = static_cast<int32_t>(v);
    e->head[0] = kInt32;
    memcpy(e->head + 1, &x, 4);
    e->head_len = 5;
  } else {
    e->head[0] = kInt64;
    memcpy(e->head + 1, &v, 8);
    e->head_len = 9;
  }
}

void encode(std::string_view s, Encoded* e) {
  int64_t v;
  // Canonical integer text only: "012" or "+1" must come back as written.
  if (s.size() <= 20 && common::strutil::parseInt64(s, &v)) {
    encodeInt(v, e);
    return;
  }
  size_t n = s.size();
  if (n < 64) {
    e->head[0] = static_cast<uint8_t>(kStr6 | n);
    e->head_len = 1;
  } else if (n <= UINT16_MAX) {
    uint16_t x = static_cast<uint16_t>(n);
    e->head[0] = kStr16;
    memcpy(e->head + 1, &x, 2);
    e->head_len = 3;
  } else {
    uint32_t x = static_cast<uint32_t>(n);
    e->head[0] = kStr32;
    memcpy(e->head + 1, &x, 4);
    e->head_len = 5;
  }
  e->payload = s.data();
  e->payload_len = n;
}

// Size of tag + payload of the element starting at p.
size_t bodySize(const uint8_t* p) {
  uint8_t t = p[0];
  if (t < 0x80) return 1;
  if (t < 0xc0) return 1 + (t & 0x3f);
  if (t < 0xe0) return 2;
  switch (t) {
    case kInt16:
      return 3;
    case kInt24:
      return 4;
    case kInt32:
      return 5;
    case kInt64:
      return 9;
    case kStr16: {
      uint16_t n;
      memcpy(&n, p + 1, 2);
      return 3 + n;
    }
    default: {  // kStr32
      uint32_t n;
      memcpy(&n, p + 1, 4);
      return 5 + n;
    }
  }
}

void write(uint8_t* at, const Encoded& e) {
  memcpy(at, e.head, e.head_len);
  if (e.payload_len) memcpy(at + e.head_len, e.payload, e.payload_len);
  writeBacklen(at + e.body(), e.body(), backlenSize(e.body()));
}

uint8_t* xrealloc(uint8_t* p, size_t n) {
  void* q = realloc(p, n);
  if (q == nullptr) throw std::bad_alloc();
  return static_cast<uint8_t*>(q);
}

}  // namespace

std::string_view LpValue::view(char* scratch) const {
  if (!is_int) return str;
  auto r = std::to_chars(scratch, scratch + 21, ival);
  return std::string_view(scratch, static_cast<size_t>(r.ptr - scratch));
}

std::string LpValue::toString() const {
  char scratch[21];
  return std::string(view(scratch));
}

bool LpValue::equals(std::string_view s) const {
  if (!is_int) return str == s;
  char scratch[21];
  return view(scratch) == s;
}

size_t listpackEncodedSize(std::string_view s) {
  Encoded e;
  encode(s, &e);
  return e.total();
}

Listpack::Listpack() : buf_(nullptr) {}

Listpack::~Listpack() {
  free(buf_);
}

Listpack& Listpack::operator=(Listpack&& o) noexcept {
  if (this != &o) {
    free(buf_);
    buf_ = o.buf_;
    o.buf_ = nullptr;
  }
  return *this;
}

Listpack Listpack::clone() const {
  Listpack out;
  if (buf_ != nullptr) {
    size_t n = bytes();
    out.buf_ = xrealloc(nullptr, n);
    memcpy(out.buf_, buf_, n);
  }
  return out;
}

Listpack Listpack::fromBytes(const uint8_t* p, size_t n) {
  Listpack out;
  if (n != 0) {
    out.buf_ = xrealloc(nullptr, n);
    memcpy(out.buf_, p, n);
  }
  return out;
}

size_t Listpack::size() const {
  return buf_ ? load32(buf_ + 4) : 0;
}

size_t Listpack::bytes() const {
  return buf_ ? load32(buf_) : 0;
}

void Listpack::setBytes(uint32_t n) {
  store32(buf_, n);
}

void Listpack::setCount(uint32_t n) {
  store32(buf_ + 4, n);
}

Listpack::Pos Listpack::first() const {
  return size() ? static_cast<Pos>(kHeader) : kNone;
}

Listpack::Pos Listpack::last() const {
  if (size() == 0) return kNone;
  return prev(static_cast<Pos>(bytes()));
}

size_t Listpack::elementBytes(Pos p) const {
  size_t body = bodySize(buf_ + p);
  return body + backlenSize(body);
}

Listpack::Pos Listpack::nextSlow(Pos p) const {
  size_t n = p + elementBytes(p);
  return n >= bytes() ? kNone : static_cast<Pos>(n);
}

// Also called with p == bytes() (one past the end) by last().
Listpack::Pos Listpack::prev(Pos p) const {
  if (p <= kHeader) return kNone;
  size_t k;
  size_t body = readBacklen(buf_ + p, &k);
  return static_cast<Pos>(p - body - k);
}

Listpack::Pos Listpack::at(int64_t index) const {
  int64_t n = static_cast<int64_t>(size());
  if (index < 0) index += n;
  if (index < 0 || index >= n) return kNone;
  if (index <= n / 2) {
    Pos p = first();
    while (index-- > 0) p = next(p);
    return p;
  }
  Pos p = last();
  for (int64_t i = n - 1; i > index; i--) p = prev(p);
  return p;
}

LpValue Listpack::get(Pos p) const {
  const uint8_t* e = buf_ + p;
  uint8_t t = e[0];
  LpValue v;
  if (t < 0x80) {
    v.is_int = true;
    v.ival = t;
  } else if (t < 0xc0) {
    v.str = std::string_view(reinterpret_cast<const char*>(e + 1), t & 0x3f);
  } else if (t < 0xe0) {
    v.is_int = true;
    v.ival = static_cast<int64_t>(((t & 0x1f) << 8) | e[1]) - 4096;
  } else if (t == kInt16) {
    int16_t x;
    memcpy(&x, e + 1, 2);
    v.is_int = true;
    v.ival = x;
  } else if (t == kInt24) {
    uint32_t u = static_cast<uint32_t>(e[1]) | (static_cast<uint32_t>(e[2]) << 8) |
                 (static_cast<uint32_t>(e[3]) << 16);
    v.is_int = true;
    v.ival = static_cast<int32_t>(u << 8) >> 8;  // sign-extend the 24 bits
  } else if (t == kInt32) {
    int32_t x;
    memcpy(&x, e + 1, 4);
    v.is_int = true;
    v.ival = x;
  } else if (t == kInt64) {
    memcpy(&v.ival, e + 1, 8);
    v.is_int = true;
  } else if (t == kStr16) {
    uint16_t n;
    memcpy(&n, e + 1, 2);
    v.str = std::string_view(reinterpret_cast<const char*>(e + 3), n);
  } else {
    uint32_t n;
    memcpy(&n, e + 1, 4);
    v.str = std::string_view(reinterpret_cast<const char*>(e + 5), n);
  }
  return v;
}

Listpack::Pos Listpack::find(std::string_view s, uint32_t skip, Pos from) const {
  Pos p = from == kNone ? first() : from;
  if (p == kNone) return kNone;
  int64_t iv = 0;
  bool want_int = s.size() <= 20 && common::strutil::parseInt64(s, &iv);
  while (p != kNone) {
    LpValue v = get(p);
    if (want_int ? (v.is_int && v.ival == iv) : (!v.is_int && v.str == s)) return p;
    for (uint32_t i = 0; i <= skip && p != kNone; i++) p = next(p);
  }
  return kNone;
}

void Listpack::openGap(uint32_t at, uint32_t len) {
  if (buf_ == nullptr) {
    buf_ = xrealloc(nullptr, kHeader + len);
    setBytes(kHeader);
    setCount(0);
  } else {
    buf_ = xrealloc(buf_, bytes() + len);
  }
  uint32_t total = static_cast<uint32_t>(bytes());
  memmove(buf_ + at + len, buf_ + at, total - at);
  setBytes(total + len);
}

void Listpack::closeGap(uint32_t at, uint32_t len) {
  uint32_t total = static_cast<uint32_t>(bytes());
  memmove(buf_ + at, buf_ + at + len, total - at - len);
  setBytes(total - len);
  // Shrinking in place is cheap with size-class allocators and returns the
  // memory of big deletions.
  buf_ = xrealloc(buf_, total - len);
}

Listpack::Pos Listpack::insertBefore(Pos p, std::string_view s) {
  Encoded e;
  encode(s, &e);
  uint32_t at = p == kNone ? static_cast<uint32_t>(buf_ ? bytes() : kHeader) : p;
  openGap(at, static_cast<uint32_t>(e.total()));
  write(buf_ + at, e);
  setCount(static_cast<uint32_t>(size() + 1));
  return at;
}

void Listpack::append(std::string_view s) {
  insertBefore(kNone, s);
}

void Listpack::appendInt(int64_t v) {
  Encoded e;
  encodeInt(v, &e);
  uint32_t at = static_cast<uint32_t>(buf_ ? bytes() : kHeader);
  openGap(at, static_cast<uint32_t>(e.total()));
  write(buf_ + at, e);
  setCount(static_cast<uint32_t>(size() + 1));
}

void Listpack::appendBatch(const LpValue* vals, size_t n) {
  if (n == 0) return;
  Encoded local[16];
  std::vector<Encoded> big;
  Encoded* enc = local;
  if (n > 16) {
    big.resize(n);
    enc = big.data();
  }
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    if (vals[i].is_int)
      encodeInt(vals[i].ival, &enc[i]);
    else
      encode(vals[i].str, &enc[i]);
    total += enc[i].total();
  }
  uint32_t at = static_cast<uint32_t>(buf_ ? bytes() : kHeader);
  openGap(at, static_cast<uint32_t>(total));
  for (size_t i = 0; i < n; i++) {
    write(buf_ + at, enc[i]);
    at += static_cast<uint32_t>(enc[i].total());
  }
  setCount(static_cast<uint32_t>(size() + n));
}

void Listpack::appendAll(const Listpack& other) {
  if (other.empty()) return;
  // Elements carry their own lengths (backlen included), so the element
  // bytes of two listpacks simply follow each other.
  uint32_t len = static_cast<uint32_t>(other.bytes() - kHeader);
  uint32_t at = static_cast<uint32_t>(buf_ ? bytes() : kHeader);
  openGap(at, len);
  memcpy(buf_ + at, other.buf_ + kHeader, len);
  setCount(static_cast<uint32_t>(size() + other.size()));
}

void Listpack::prepend(std::string_view s) {
  insertBefore(first(), s);
}

Listpack::Pos Listpack::replace(Pos p, std::string_view s) {
  Encoded e;
  encode(s, &e);
  uint32_t old_len = static_cast<uint32_t>(elementBytes(p));
  uint32_t new_len = static_cast<uint32_t>(e.total());
  if (new_len > old_len)
    openGap(p + old_len, new_len - old_len);
  else if (new_len < old_len)
    closeGap(p + new_len, old_len - new_len);
  write(buf_ + p, e);
  return p;
}

Listpack::Pos Listpack::erase(Pos p, size_t count) {
  if (p == kNone || count == 0) return p;
  uint32_t end = p;
  uint32_t total = static_cast<uint32_t>(bytes());
  size_t removed = 0;
  while (removed < count && end < total) {
    end += static_cast<uint32_t>(elementBytes(end));
    removed++;
  }
  closeGap(p, end - p);
  setCount(static_cast<uint32_t>(size() - removed));
  return p < bytes() ? p : kNone;
}

void Listpack::clear() {
  free(buf_);
  buf_ = nullptr;
}

// ---------------------------------------------------------------- builder

ListpackBuilder::ListpackBuilder(size_t estimate_bytes)
    : len_(Listpack::kHeader), cap_(std::max<size_t>(estimate_bytes, Listpack::kHeader + 16)) {}

ListpackBuilder::~ListpackBuilder() {
  free(buf_);
}

uint8_t* ListpackBuilder::room(size_t n) {
  if (buf_ == nullptr || len_ + n > cap_) {
    if (buf_ != nullptr) cap_ = std::max(cap_ * 2, len_ + n);
    cap_ = std::max(cap_, len_ + n);
    buf_ = xrealloc(buf_, cap_);
  }
  uint8_t* at = buf_ + len_;
  len_ += n;
  count_++;
  return at;
}

void ListpackBuilder::append(std::string_view s) {
  Encoded e;
  encode(s, &e);
  write(room(e.total()), e);
}

void ListpackBuilder::appendInt(int64_t v) {
  Encoded e;
  encodeInt(v, &e);
  write(room(e.total()), e);
}

Listpack ListpackBuilder::finish() {
  Listpack out;
  if (count_ > 0) {
    // Cut to size: MEMORY USAGE and the allocator's figures see what a
    // listpack built by appends would hold.
    out.buf_ = len_ == cap_ ? buf_ : xrealloc(buf_, len_);
    store32(out.buf_, static_cast<uint32_t>(len_));
    store32(out.buf_ + 4, count_);
    buf_ = nullptr;
  }
  len_ = Listpack::kHeader;
  count_ = 0;
  return out;
}

}  // namespace server::db
