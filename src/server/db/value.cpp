#include "server/db/value.h"

#include <malloc.h>

#include <cstdlib>
#include <new>

#include "common/strutil.h"

namespace server::db {

const char* typeName(Kind k) {
  switch (k) {
    case Kind::kStrInline:
    case Kind::kStrInt:
    case Kind::kStrHeap:
      return "string";
    case Kind::kList:
      return "list";
    case Kind::kHash:
      return "hash";
    case Kind::kSet:
      return "set";
    case Kind::kZSet:
      return "zset";
    case Kind::kStream:
      return "stream";
    case Kind::kNone:
      break;
  }
  return "none";
}

static void* xmalloc(size_t n) {
  void* p = malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

Value Value::fromString(std::string_view s) {
  int64_t v;
  if (s.size() <= 20 && common::strutil::parseInt64(s, &v)) return fromInt(v);
  return fromBytes(s, false);
}

Value Value::fromBytes(std::string_view s, bool raw) {
  Value out;
  if (s.size() <= kInlineMax) {
    memcpy(out.bytes_, s.data(), s.size());
    out.bytes_[14] = static_cast<uint8_t>(s.size());
    out.setKind(Kind::kStrInline, raw);
    return out;
  }
  void* p = xmalloc(s.size());
  memcpy(p, s.data(), s.size());
  memcpy(out.bytes_, &p, 8);
  uint32_t n = static_cast<uint32_t>(s.size());
  memcpy(out.bytes_ + 8, &n, 4);
  out.setKind(Kind::kStrHeap, raw || s.size() > kEmbstrMax);
  return out;
}

Value Value::fromInt(int64_t v) {
  Value out;
  memcpy(out.bytes_, &v, 8);
  out.setKind(Kind::kStrInt);
  return out;
}

Value Value::fromCollection(Kind kind, Collection* c) {
  Value out;
  memcpy(out.bytes_, &c, 8);
  out.setKind(kind);
  return out;
}

Value Value::clone() const {
  Value out;
  switch (kind()) {
    case Kind::kNone:
    case Kind::kStrInline:
    case Kind::kStrInt:
      memcpy(out.bytes_, bytes_, sizeof(bytes_));
      break;
    case Kind::kStrHeap: {
      uint32_t n = heapLen();
      void* p = xmalloc(n);
      memcpy(p, ptr(), n);
      memcpy(out.bytes_, bytes_, sizeof(bytes_));
      memcpy(out.bytes_, &p, 8);
      break;
    }
    case Kind::kList:
    case Kind::kHash:
    case Kind::kSet:
    case Kind::kZSet:
    case Kind::kStream: {
      Collection* c = collection()->clone();
      out = fromCollection(kind(), c);
      break;
    }
  }
  return out;
}

std::string_view Value::str(char* scratch) const {
  switch (kind()) {
    case Kind::kStrInline:
      return std::string_view(reinterpret_cast<const char*>(bytes_), bytes_[14]);
    case Kind::kStrInt:
      return std::string_view(scratch, common::strutil::formatInt64(intValue(), scratch));
    case Kind::kStrHeap:
      return std::string_view(static_cast<const char*>(ptr()), heapLen());
    case Kind::kNone:
    case Kind::kList:
    case Kind::kHash:
    case Kind::kSet:
    case Kind::kZSet:
    case Kind::kStream:
      return std::string_view();
  }
  return std::string_view();  // not reached: the switch returns for every kind
}

size_t Value::strLen() const {
  switch (kind()) {
    case Kind::kStrInline:
      return bytes_[14];
    case Kind::kStrInt: {
      char buf[24];
      return common::strutil::formatInt64(intValue(), buf);
    }
    case Kind::kStrHeap:
      return heapLen();
    case Kind::kNone:
    case Kind::kList:
    case Kind::kHash:
    case Kind::kSet:
    case Kind::kZSet:
    case Kind::kStream:
      return 0;
  }
  return 0;  // not reached: the switch returns for every kind
}

char* Value::mutableBytes(size_t len) {
  if (kind() == Kind::kStrHeap) {
    void* p = ptr();
    if (malloc_usable_size(p) < len) {
      // Grow geometrically: APPEND in a loop must stay linear overall.
      size_t cap = len < 1024 * 1024 ? len * 2 : len + 1024 * 1024;
      void* np = realloc(p, cap);
      if (np == nullptr) throw std::bad_alloc();
      p = np;
      memcpy(bytes_, &p, 8);
    }
    uint32_t old = heapLen();
    if (len > old) memset(static_cast<char*>(p) + old, 0, len - old);
    uint32_t n = static_cast<uint32_t>(len);
    memcpy(bytes_ + 8, &n, 4);
    setKind(Kind::kStrHeap, true);
    return static_cast<char*>(p);
  }
  char scratch[24];
  std::string_view cur = str(scratch);
  size_t old = cur.size();
  void* p = xmalloc(len > old ? len : old);
  memcpy(p, cur.data(), old);
  if (len > old) memset(static_cast<char*>(p) + old, 0, len - old);
  memcpy(bytes_, &p, 8);
  uint32_t n = static_cast<uint32_t>(len);
  memcpy(bytes_ + 8, &n, 4);
  setKind(Kind::kStrHeap, true);
  return static_cast<char*>(p);
}

const char* Value::encodingName() const {
  switch (kind()) {
    case Kind::kStrInt:
      return "int";
    case Kind::kStrInline:
      return rawFlag() ? "raw" : "embstr";
    case Kind::kStrHeap:
      return rawFlag() ? "raw" : "embstr";
    case Kind::kNone:
      return "none";
    case Kind::kList:
    case Kind::kHash:
    case Kind::kSet:
    case Kind::kZSet:
    case Kind::kStream:
      return collection()->encodingName();
  }
  return "unknown";  // not reached: the switch returns for every kind
}

size_t Value::heapBytes() const {
  switch (kind()) {
    case Kind::kStrHeap:
      return malloc_usable_size(ptr());
    case Kind::kNone:
    case Kind::kStrInline:
    case Kind::kStrInt:
      return 0;
    default:  // every collection kind, through Collection (on SET's path: no case list)
      return collection()->memoryUsage();
  }
}

void Value::reset() {
  switch (kind()) {
    case Kind::kNone:
    case Kind::kStrInline:
    case Kind::kStrInt:
      break;
    case Kind::kStrHeap:
      free(ptr());
      break;
    default:  // every collection kind, through Collection (on SET's path: no case list)
      delete collection();
      break;
  }
  clearBits();
}

}  // namespace server::db
