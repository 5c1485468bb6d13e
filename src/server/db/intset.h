// Intset: a sorted array of distinct integers, the "intset" encoding of
// sets whose members are all integers. Every element is stored with one
// width (2, 4 or 8 bytes), the smallest that holds the widest member;
// adding a wider member upgrades the whole array, removing never
// downgrades it.
//
// Layout: one heap buffer [u32 width][u32 count] element*, little-endian as
// the host stores it (the buffer never leaves the process). The object is a
// single pointer, so a set object that holds one stays at 16 bytes.
//
// Costs: lookup O(log n) (binary search), insert/remove O(n) (memmove).
// Callers bound n with set-max-intset-entries.
#pragma once

#include <cstddef>
#include <cstdint>

namespace server::db {

class Intset {
 public:
  Intset();
  ~Intset();
  Intset(Intset&& o) noexcept : buf_(o.buf_) { o.buf_ = nullptr; }
  Intset& operator=(Intset&& o) noexcept;
  Intset(const Intset&) = delete;
  Intset& operator=(const Intset&) = delete;
  Intset clone() const;
  // An intset from its bytes ([u32 width][u32 count] elements, the layout
  // above, which is also Redis's). The caller has checked them: width 2, 4
  // or 8, the length, elements strictly ascending.
  static Intset fromBytes(const uint8_t* p, size_t n);

  size_t size() const;
  // Bytes of the buffer (MEMORY USAGE).
  size_t bytes() const;
  // The buffer (bytes() long), in the layout above.
  const uint8_t* data() const { return buf_; }
  // Bytes per element: 2, 4 or 8.
  unsigned width() const;

  bool contains(int64_t v) const;
  // Element at index i (0 <= i < size()), in ascending order.
  int64_t at(size_t i) const;
  int64_t min() const { return at(0); }
  int64_t max() const { return at(size() - 1); }

  // Inserts v; false when it was already present.
  bool add(int64_t v);
  // Removes v; false when it was absent.
  bool remove(int64_t v);
  // Removes the element at index i.
  void removeAt(size_t i);

  // The width needed to store v.
  static unsigned widthFor(int64_t v);

 private:
  uint8_t* buf_;
  void setCount(uint32_t n);
  void set(size_t i, int64_t v);
  // Binary search: true with *pos = index if found, else false with *pos =
  // the insertion index.
  bool search(int64_t v, size_t* pos) const;
  void upgrade(unsigned width);
};

}  // namespace server::db
