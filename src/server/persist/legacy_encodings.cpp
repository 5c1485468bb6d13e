// Ziplist and zipmap parsing (layouts in legacy_encodings.h). Every offset
// is checked against the blob before it is read; the checks are those Redis
// 7.0 applies when it loads these encodings with deep validation, so what
// 7.0 refuses is refused here too.
#include "server/persist/legacy_encodings.h"

#include <cstdint>

#include "server/persist/redis_listpack.h"

namespace server::persist {

namespace {

constexpr size_t kZlHeader = 10;
constexpr uint8_t kZlEnd = 0xff;
constexpr uint8_t kZlBigPrevlen = 0xfe;
constexpr uint16_t kZlCountUnknown = 0xffff;

bool fail(std::string* err, const char* why) {
  *err = why;
  return false;
}

}  // namespace

bool parseZiplist(std::string_view blob, std::vector<db::LpValue>* out, std::string* err) {
  out->clear();
  const auto* base = reinterpret_cast<const uint8_t*>(blob.data());
  size_t n = blob.size();
  if (n < kZlHeader + 1) return fail(err, "ziplist shorter than its header");
  if (readLe(base, 4) != n) return fail(err, "ziplist size field does not match its length");
  if (base[n - 1] != kZlEnd) return fail(err, "ziplist has no terminator");
  uint64_t tail = readLe(base + 4, 4);
  if (tail > n - 1) return fail(err, "ziplist tail offset out of range");
  uint64_t declared = readLe(base + 8, 2);
  size_t end = n - 1;  // the terminator's offset
  size_t off = kZlHeader;
  size_t prev_size = 0;
  size_t last = SIZE_MAX;
  while (off < end) {
    const uint8_t* p = base + off;
    size_t avail = end - off;
    if (p[0] == kZlEnd) return fail(err, "ziplist terminator before its end");
    size_t psize = p[0] < kZlBigPrevlen ? 1 : 5;
    if (psize + 1 > avail) return fail(err, "ziplist entry runs past the end");
    uint64_t prevlen = psize == 1 ? p[0] : readLe(p + 1, 4);
    uint8_t enc = p[psize];
    size_t lsize = 1;
    uint64_t len = 0;
    db::LpValue v;
    if (enc < 0xc0) {
      v.is_int = false;
      if ((enc & 0xc0) == 0x00) {
        len = enc & 0x3f;
      } else if ((enc & 0xc0) == 0x40) {
        lsize = 2;
        if (psize + lsize > avail) return fail(err, "ziplist entry runs past the end");
        len = (uint64_t{enc & 0x3fu} << 8) | p[psize + 1];
      } else {
        lsize = 5;
        if (psize + lsize > avail) return fail(err, "ziplist entry runs past the end");
        const uint8_t* q = p + psize + 1;
        len = (uint64_t{q[0]} << 24) | (uint64_t{q[1]} << 16) | (uint64_t{q[2]} << 8) | q[3];
      }
    } else {
      v.is_int = true;
      switch (enc) {
        case 0xc0:
          len = 2;
          break;
        case 0xd0:
          len = 4;
          break;
        case 0xe0:
          len = 8;
          break;
        case 0xf0:
          len = 3;
          break;
        case 0xfe:
          len = 1;
          break;
        default:
          if (enc < 0xf1 || enc > 0xfd) return fail(err, "ziplist entry with an invalid encoding");
          len = 0;
          v.ival = (enc & 0x0f) - 1;
          break;
      }
    }
    size_t header = psize + lsize;
    if (len > avail - header) return fail(err, "ziplist entry runs past the end");
    if (prevlen != prev_size) return fail(err, "ziplist entry with a wrong prevlen");
    const uint8_t* payload = p + header;
    if (!v.is_int) {
      v.str = std::string_view(reinterpret_cast<const char*>(payload), len);
    } else if (len > 0) {
      v.ival = signExtend(readLe(payload, static_cast<int>(len)), static_cast<int>(len));
    }
    out->push_back(v);
    last = off;
    prev_size = header + len;
    off += prev_size;
  }
  if (off != end) return fail(err, "ziplist entry runs past the end");
  if (last != SIZE_MAX && last != tail)
    return fail(err, "ziplist tail offset does not point at its last entry");
  if (declared != kZlCountUnknown && declared != out->size())
    return fail(err, "ziplist count field does not match its entries");
  return true;
}

namespace {

constexpr uint8_t kZmBigLen = 254;
constexpr uint8_t kZmEnd = 255;

// A zipmap length at base[*off] (which is before the terminator); false when
// it does not fit before the terminator or is not in its canonical form.
bool zipmapLength(const uint8_t* base, size_t end, size_t* off, uint64_t* len) {
  uint8_t b = base[*off];
  if (b == kZmEnd) return false;
  if (b < kZmBigLen) {
    if (*off + 1 > end) return false;
    *len = b;
    *off += 1;
    return true;
  }
  if (*off + 5 > end) return false;
  *len = readLe(base + *off + 1, 4);
  if (*len < kZmBigLen) return false;  // Redis never writes a short length long
  *off += 5;
  return true;
}

}  // namespace

bool parseZipmap(std::string_view blob, std::vector<db::LpValue>* out, std::string* err) {
  out->clear();
  const auto* base = reinterpret_cast<const uint8_t*>(blob.data());
  size_t n = blob.size();
  if (n < 2) return fail(err, "zipmap shorter than its header");
  if (base[n - 1] != kZmEnd) return fail(err, "zipmap has no terminator");
  size_t end = n - 1;
  size_t off = 1;
  size_t pairs = 0;
  while (base[off] != kZmEnd) {
    uint64_t flen, vlen;
    if (!zipmapLength(base, end, &off, &flen) || flen > end - off)
      return fail(err, "zipmap field runs past the end");
    db::LpValue f;
    f.str = std::string_view(reinterpret_cast<const char*>(base + off), flen);
    off += flen;
    if (off >= end || !zipmapLength(base, end, &off, &vlen) || off >= end)
      return fail(err, "zipmap value runs past the end");
    uint64_t pad = base[off++];
    if (vlen > end - off || pad > end - off - vlen)
      return fail(err, "zipmap value runs past the end");
    db::LpValue v;
    v.str = std::string_view(reinterpret_cast<const char*>(base + off), vlen);
    off += vlen + pad;
    out->push_back(f);
    out->push_back(v);
    pairs++;
  }
  if (off != end) return fail(err, "zipmap terminator before its end");
  if (pairs == 0) return fail(err, "empty zipmap");
  if (base[0] != kZmBigLen && base[0] != pairs)
    return fail(err, "zipmap count field does not match its entries");
  return true;
}

}  // namespace server::persist
