// Value: the 16-byte handle a keyspace entry holds. Strings of up to
// kInlineMax bytes live inside it (no allocation), integers are stored as
// int64 ("int" encoding), longer strings in one heap buffer; collections
// point to an object owned by the handle.
//
// Ownership: a Value owns what it points to; it is move-only. Moving leaves
// the source empty (kind kNone).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace server::db {

enum class Kind : uint8_t {
  kNone = 0,
  kStrInline,  // bytes in the handle
  kStrInt,     // int64 in the handle
  kStrHeap,    // heap buffer
  kList,
  kHash,
  kSet,
  kZSet,
  kStream,
};

// Redis's TYPE names. kNone answers "none".
const char* typeName(Kind k);

// Base of every collection a Value can own (lists, hashes, ...). Each type
// module derives from it.
class Collection {
 public:
  virtual ~Collection() = default;
  virtual Collection* clone() const = 0;
  // OBJECT ENCODING name ("listpack", "hashtable", ...).
  virtual const char* encodingName() const = 0;
  // Approximate bytes owned (MEMORY USAGE, INFO).
  virtual size_t memoryUsage() const = 0;
  // DEBUG HTSTATS-KEY: appends the statistics of the hash table the value
  // is kept in (common::Dict::appendStats); false, with nothing appended,
  // for an encoding without one (listpack, intset, quicklist, stream).
  virtual bool appendTableStats(std::string* out) const {
    (void)out;
    return false;
  }
};

class Value {
 public:
  static constexpr size_t kInlineMax = 14;
  // Strings up to this size report "embstr" until modified in place (Redis).
  static constexpr size_t kEmbstrMax = 44;

  Value() { clearBits(); }
  ~Value() { reset(); }
  Value(Value&& o) noexcept {
    memcpy(bytes_, o.bytes_, sizeof(bytes_));
    o.clearBits();
  }
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      reset();
      memcpy(bytes_, o.bytes_, sizeof(bytes_));
      o.clearBits();
    }
    return *this;
  }
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  // A string value, choosing the encoding as Redis would: an integer
  // ("int") when the bytes are a canonical int64 of at most 20 chars, else
  // inline or heap.
  static Value fromString(std::string_view s);
  // Always a byte string (never int-encoded), e.g. for APPEND results.
  static Value fromBytes(std::string_view s, bool raw);
  static Value fromInt(int64_t v);
  static Value fromCollection(Kind kind, Collection* c);
  Value clone() const;

  Kind kind() const { return static_cast<Kind>(bytes_[15] & 0x0f); }
  bool isString() const {
    Kind k = kind();
    return k == Kind::kStrInline || k == Kind::kStrInt || k == Kind::kStrHeap;
  }
  bool empty() const { return kind() == Kind::kNone; }

  // String access. For kStrInt the digits are written into scratch (>= 24
  // bytes) and the view points there.
  std::string_view str(char* scratch) const;
  size_t strLen() const;
  bool isInt() const { return kind() == Kind::kStrInt; }
  int64_t intValue() const {
    int64_t v;
    memcpy(&v, bytes_, 8);
    return v;
  }
  // Heap buffer for in-place edits (APPEND/SETRANGE): ensures a heap string
  // of at least `len` bytes, converting from any string encoding, marks the
  // value "raw", and returns its bytes; the length becomes `len`, new bytes
  // are zero-filled.
  char* mutableBytes(size_t len);

  Collection* collection() const {
    void* p;
    memcpy(&p, bytes_, 8);
    return static_cast<Collection*>(p);
  }
  // OBJECT ENCODING name.
  const char* encodingName() const;
  // Bytes owned outside the handle.
  size_t heapBytes() const;

  void reset();

 private:
  void clearBits() { memset(bytes_, 0, sizeof(bytes_)); }
  void setKind(Kind k, bool raw = false) {
    bytes_[15] = static_cast<uint8_t>(static_cast<uint8_t>(k) | (raw ? 0x10 : 0));
  }
  bool rawFlag() const { return (bytes_[15] & 0x10) != 0; }
  void* ptr() const {
    void* p;
    memcpy(&p, bytes_, 8);
    return p;
  }
  uint32_t heapLen() const {
    uint32_t n;
    memcpy(&n, bytes_ + 8, 4);
    return n;
  }

  // Layout: [0..7] int64 / pointer, [8..11] heap length, [14] inline
  // length, [15] kind (low 4 bits) | raw flag (0x10).
  alignas(8) uint8_t bytes_[16];
};

static_assert(sizeof(Value) == 16, "Value must stay a 16-byte handle");

}  // namespace server::db
