#include "server/db/intset.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace server::db {
namespace {

constexpr size_t kHeader = 8;

uint32_t readU32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
void writeU32(uint8_t* p, uint32_t v) {
  memcpy(p, &v, 4);
}

uint8_t* allocBuffer(size_t bytes) {
  void* p = malloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<uint8_t*>(p);
}

// Reads element i of an array of the given width.
int64_t readElem(const uint8_t* data, unsigned width, size_t i) {
  switch (width) {
    case 2: {
      int16_t v;
      memcpy(&v, data + i * 2, 2);
      return v;
    }
    case 4: {
      int32_t v;
      memcpy(&v, data + i * 4, 4);
      return v;
    }
    default: {
      int64_t v;
      memcpy(&v, data + i * 8, 8);
      return v;
    }
  }
}

void writeElem(uint8_t* data, unsigned width, size_t i, int64_t v) {
  switch (width) {
    case 2: {
      int16_t x = static_cast<int16_t>(v);
      memcpy(data + i * 2, &x, 2);
      break;
    }
    case 4: {
      int32_t x = static_cast<int32_t>(v);
      memcpy(data + i * 4, &x, 4);
      break;
    }
    default:
      memcpy(data + i * 8, &v, 8);
      break;
  }
}

}  // namespace

Intset::Intset() : buf_(allocBuffer(kHeader)) {
  writeU32(buf_, 2);
  writeU32(buf_ + 4, 0);
}

Intset::~Intset() {
  free(buf_);
}

Intset& Intset::operator=(Intset&& o) noexcept {
  if (this != &o) {
    free(buf_);
    buf_ = o.buf_;
    o.buf_ = nullptr;
  }
  return *this;
}

Intset Intset::fromBytes(const uint8_t* p, size_t n) {
  Intset out;
  out.buf_ = static_cast<uint8_t*>(realloc(out.buf_, n));
  if (out.buf_ == nullptr) throw std::bad_alloc();
  memcpy(out.buf_, p, n);
  return out;
}

Intset Intset::clone() const {
  Intset out;
  size_t n = bytes();
  out.buf_ = static_cast<uint8_t*>(realloc(out.buf_, n));
  if (out.buf_ == nullptr) throw std::bad_alloc();
  memcpy(out.buf_, buf_, n);
  return out;
}

size_t Intset::size() const {
  return readU32(buf_ + 4);
}
unsigned Intset::width() const {
  return readU32(buf_);
}
size_t Intset::bytes() const {
  return kHeader + size() * width();
}
void Intset::setCount(uint32_t n) {
  writeU32(buf_ + 4, n);
}

unsigned Intset::widthFor(int64_t v) {
  if (v >= INT16_MIN && v <= INT16_MAX) return 2;
  if (v >= INT32_MIN && v <= INT32_MAX) return 4;
  return 8;
}

int64_t Intset::at(size_t i) const {
  return readElem(buf_ + kHeader, width(), i);
}

void Intset::set(size_t i, int64_t v) {
  writeElem(buf_ + kHeader, width(), i, v);
}

bool Intset::search(int64_t v, size_t* pos) const {
  size_t lo = 0, hi = size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int64_t m = at(mid);
    if (m == v) {
      *pos = mid;
      return true;
    }
    if (m < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  *pos = lo;
  return false;
}

bool Intset::contains(int64_t v) const {
  size_t pos;
  return widthFor(v) <= width() && search(v, &pos);
}

// Re-encodes every element at the wider width, from the end backwards so
// that no element is overwritten before it is read.
void Intset::upgrade(unsigned w) {
  unsigned old = width();
  size_t n = size();
  buf_ = static_cast<uint8_t*>(realloc(buf_, kHeader + n * w));
  if (buf_ == nullptr) throw std::bad_alloc();
  uint8_t* data = buf_ + kHeader;
  for (size_t i = n; i-- > 0;) writeElem(data, w, i, readElem(data, old, i));
  writeU32(buf_, w);
}

bool Intset::add(int64_t v) {
  unsigned w = widthFor(v);
  size_t pos;
  if (w > width()) {
    // A value that needs a wider encoding lies outside the current range:
    // it goes at one end.
    upgrade(w);
    pos = v < 0 ? 0 : size();
  } else if (search(v, &pos)) {
    return false;
  }
  size_t n = size();
  w = width();
  buf_ = static_cast<uint8_t*>(realloc(buf_, kHeader + (n + 1) * w));
  if (buf_ == nullptr) throw std::bad_alloc();
  uint8_t* data = buf_ + kHeader;
  memmove(data + (pos + 1) * w, data + pos * w, (n - pos) * w);
  set(pos, v);
  setCount(static_cast<uint32_t>(n + 1));
  return true;
}

void Intset::removeAt(size_t i) {
  size_t n = size();
  unsigned w = width();
  uint8_t* data = buf_ + kHeader;
  memmove(data + i * w, data + (i + 1) * w, (n - i - 1) * w);
  setCount(static_cast<uint32_t>(n - 1));
  // Shrinking in place cannot fail to keep the old block; ignore a null.
  uint8_t* p = static_cast<uint8_t*>(realloc(buf_, kHeader + (n - 1) * w));
  if (p != nullptr) buf_ = p;
}

bool Intset::remove(int64_t v) {
  size_t pos;
  if (widthFor(v) > width() || !search(v, &pos)) return false;
  removeAt(pos);
  return true;
}

}  // namespace server::db
