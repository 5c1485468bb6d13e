// Listpack: the compact encoding small lists, hashes, sets and sorted sets
// use. One heap buffer holds a sequence of elements; each element is either
// an integer or a byte string, stored in as few bytes as its value needs,
// and ends with its own length so the sequence walks in both directions.
//
// Layout of the buffer (all ours, little-endian):
//   [u32 total bytes][u32 element count] element* (no terminator)
//   element = tag [payload] backlen
// where tag (first byte):
//   0x00..0x7f  integer 0..127, no payload
//   0x80..0xbf  string of 0..63 bytes, payload follows
//   0xc0..0xdf  integer -4096..4095 in 13 bits: ((tag & 0x1f) << 8 | next) - 4096
//   0xe0/0xe1/0xe2  int16 / int32 / int64 payload
//   0xe3/0xe4  string with a u16 / u32 length, then the bytes
//   0xe5       int24 payload (-8388608..8388607)
// and backlen is the byte size of tag+payload as a varint read from the
// element's end backwards (7 bits per byte, high bit = more bytes before).
//
// Strings that are canonical int64 text ("12", "-7", not "012" or "+1")
// are stored as integers; get() gives them back as integers and
// LpValue::view() formats them, so callers see the bytes they stored.
//
// Positions (Pos) are byte offsets into the buffer. Any call that modifies
// the listpack invalidates positions after the modified point, except the
// position each modifying call returns.
//
// Costs: random access and search are O(n); inserting or deleting moves the
// tail (memmove). Callers bound n with the *-max-listpack-* options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace server::db {

// One element as read from a listpack.
struct LpValue {
  std::string_view str;  // when !is_int
  int64_t ival = 0;      // when is_int
  bool is_int = false;
  // The element's bytes; integers are formatted into scratch (>= 21 bytes).
  std::string_view view(char* scratch) const;
  std::string toString() const;
  bool equals(std::string_view s) const;
};

class ListpackBuilder;

class Listpack {
 public:
  using Pos = uint32_t;
  static constexpr Pos kNone = 0xffffffffu;  // "no element" (past either end)
  static constexpr size_t kHeader = 8;

  Listpack();
  ~Listpack();
  Listpack(Listpack&& o) noexcept : buf_(o.buf_) { o.buf_ = nullptr; }
  Listpack& operator=(Listpack&& o) noexcept;
  Listpack(const Listpack&) = delete;
  Listpack& operator=(const Listpack&) = delete;
  Listpack clone() const;
  // The whole buffer (bytes() long; nullptr when empty), and a listpack
  // made from such a buffer (list compression stores and restores it).
  const uint8_t* data() const { return buf_; }
  static Listpack fromBytes(const uint8_t* p, size_t n);

  size_t size() const;   // number of elements
  size_t bytes() const;  // bytes of the buffer (what MEMORY USAGE counts)
  bool empty() const { return size() == 0; }

  // ---- walking
  Pos first() const;
  Pos last() const;
  // kNone after the last. Small integers and short strings (the common
  // elements) are stepped over here, inline; the rest in nextSlow().
  Pos next(Pos p) const {
    uint8_t t = buf_[p];
    size_t n;
    if (t < 0x80)
      n = p + 2u;  // 7-bit integer, 1-byte backlen
    else if (t < 0xc0)
      n = p + 2u + (t & 0x3fu);  // string of 0..63 bytes, 1-byte backlen
    else if (t < 0xe0)
      n = p + 3u;  // 13-bit integer
    else
      return nextSlow(p);
    uint32_t total;
    memcpy(&total, buf_, 4);
    return n >= total ? kNone : static_cast<Pos>(n);
  }
  Pos prev(Pos p) const;  // kNone before the first
  // Element at index (negative counts from the end, -1 = last); kNone when
  // out of range. O(n) from the nearer end.
  Pos at(int64_t index) const;
  LpValue get(Pos p) const;
  // Byte size of the element at p as stored (tag + payload + backlen).
  size_t elementBytes(Pos p) const;

  // ---- searching
  // First element equal to s, starting at `from` (default: first) and
  // looking at every (skip+1)-th element: skip = 1 searches only the fields
  // of a field/value listpack. kNone if absent.
  Pos find(std::string_view s, uint32_t skip = 0, Pos from = kNone) const;

  // ---- modifying
  void append(std::string_view s);
  void appendInt(int64_t v);
  // Appends every element of other, in order (one copy of its bytes).
  void appendAll(const Listpack& other);
  // Appends n elements (integers where is_int, else strings, stored as
  // append()/appendInt() store them) with one reallocation.
  void appendBatch(const LpValue* vals, size_t n);
  void prepend(std::string_view s);
  // Inserts s before the element at p (p == kNone appends). Returns the
  // position of the new element.
  Pos insertBefore(Pos p, std::string_view s);
  // Replaces the element at p with s. Returns its position (unchanged).
  Pos replace(Pos p, std::string_view s);
  // Removes count elements starting at p (fewer if the end comes first).
  // Returns the position of the element that followed them, or kNone.
  Pos erase(Pos p, size_t count = 1);
  void clear();

  // Whether a string of this length may be stored without exceeding the
  // 4 GiB buffer limit (always true for values the options allow).
  static bool fits(size_t len) { return len < (1u << 31); }

 private:
  friend class ListpackBuilder;
  uint8_t* buf_;  // nullptr until the first insert (an empty listpack)
  Pos nextSlow(Pos p) const;
  void setBytes(uint32_t n);
  void setCount(uint32_t n);
  // Makes room for `len` bytes at offset `at` (moving the tail), allocating
  // the header when the buffer does not exist yet.
  void openGap(uint32_t at, uint32_t len);
  void closeGap(uint32_t at, uint32_t len);
};

// Encoded size of s (tag + payload + backlen) if it were stored; lets a
// caller check a size budget before inserting.
size_t listpackEncodedSize(std::string_view s);

// Builds a listpack whose elements are known in order (RDB loading): one
// buffer that grows geometrically from the caller's estimate, then is cut
// to size once, instead of a reallocation per append. Elements are encoded
// exactly as Listpack::append()/appendInt() would store them.
class ListpackBuilder {
 public:
  explicit ListpackBuilder(size_t estimate_bytes);
  ~ListpackBuilder();
  ListpackBuilder(const ListpackBuilder&) = delete;
  ListpackBuilder& operator=(const ListpackBuilder&) = delete;

  void append(std::string_view s);
  void appendInt(int64_t v);
  // Appends every element of other, in order (one copy of its bytes).
  void appendAll(const Listpack& other);
  void append(const LpValue& v) {
    if (v.is_int)
      appendInt(v.ival);
    else
      append(v.str);
  }
  size_t size() const { return count_; }
  size_t bytes() const { return len_; }
  // The listpack built so far (empty when nothing was added); the builder
  // starts over.
  Listpack finish();

 private:
  uint8_t* room(size_t n);  // n more bytes at the end
  uint8_t* buf_ = nullptr;
  size_t len_ = 0;
  size_t cap_ = 0;
  uint32_t count_ = 0;
};

}  // namespace server::db
