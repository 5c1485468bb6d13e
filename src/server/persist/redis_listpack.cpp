#include "server/persist/redis_listpack.h"

#include <algorithm>
#include <cstring>

namespace server::persist {

namespace {
constexpr size_t kHeader = 6;
constexpr uint8_t kEof = 0xff;

size_t backlenSize(size_t n) {
  if (n <= 127) return 1;
  if (n < 16383) return 2;
  if (n < 2097151) return 3;
  if (n < 268435455) return 4;
  return 5;
}
}  // namespace

RedisListpackBuilder::RedisListpackBuilder(size_t estimate) {
  buf_.resize(std::max<size_t>(estimate, kHeader + 16));
  len_ = kHeader;
}

char* RedisListpackBuilder::room(size_t n) {
  if (len_ + n > buf_.size()) buf_.resize(std::max(buf_.size() * 2, len_ + n));
  char* at = &buf_[len_];
  len_ += n;
  return at;
}

namespace {

// Writes the backlen of an entry of n bytes at out (backlenSize(n) bytes):
// most significant group first; every byte but the first carries the
// continuation bit, so a reader walking backwards stops at the first.
void putBacklen(char* out, size_t n, size_t k) {
  for (size_t i = 0; i < k; i++) {
    uint8_t b = static_cast<uint8_t>((n >> (7 * (k - 1 - i))) & 127);
    if (i > 0) b |= 128;
    out[i] = static_cast<char>(b);
  }
}

void putLeAt(char* out, uint64_t v, int n) {
  for (int i = 0; i < n; i++) out[i] = static_cast<char>(v >> (8 * i));
}

}  // namespace

void RedisListpackBuilder::addInt(int64_t v) {
  char e[9];
  size_t n;
  if (v >= 0 && v <= 127) {
    e[0] = static_cast<char>(v);
    n = 1;
  } else if (v >= -4096 && v <= 4095) {
    uint64_t u = static_cast<uint64_t>(v) & 0x1fff;
    e[0] = static_cast<char>(0xc0 | (u >> 8));
    e[1] = static_cast<char>(u & 0xff);
    n = 2;
  } else if (v >= INT16_MIN && v <= INT16_MAX) {
    e[0] = static_cast<char>(0xf1);
    putLeAt(e + 1, static_cast<uint64_t>(v), 2);
    n = 3;
  } else if (v >= -(1 << 23) && v < (1 << 23)) {
    e[0] = static_cast<char>(0xf2);
    putLeAt(e + 1, static_cast<uint64_t>(v), 3);
    n = 4;
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    e[0] = static_cast<char>(0xf3);
    putLeAt(e + 1, static_cast<uint64_t>(v), 4);
    n = 5;
  } else {
    e[0] = static_cast<char>(0xf4);
    putLeAt(e + 1, static_cast<uint64_t>(v), 8);
    n = 9;
  }
  size_t k = backlenSize(n);  // 1: n <= 9
  char* at = room(n + k);
  memcpy(at, e, n);
  putBacklen(at + n, n, k);
  count_++;
}

void RedisListpackBuilder::addString(std::string_view s) {
  size_t hdr = s.size() < 64 ? 1 : s.size() < 4096 ? 2 : 5;
  size_t body = hdr + s.size();
  size_t k = backlenSize(body);
  char* at = room(body + k);
  if (hdr == 1) {
    at[0] = static_cast<char>(0x80 | s.size());
  } else if (hdr == 2) {
    at[0] = static_cast<char>(0xe0 | (s.size() >> 8));
    at[1] = static_cast<char>(s.size() & 0xff);
  } else {
    at[0] = static_cast<char>(0xf0);
    putLeAt(at + 1, s.size(), 4);
  }
  memcpy(at + hdr, s.data(), s.size());
  putBacklen(at + body, body, k);
  count_++;
}

void RedisListpackBuilder::addAll(const db::Listpack& lp) {
  if (lp.empty()) return;
  for (db::Listpack::Pos p = lp.first(); p != db::Listpack::kNone; p = lp.next(p)) add(lp.get(p));
}

std::string& RedisListpackBuilder::finish() {
  *room(1) = static_cast<char>(kEof);
  buf_.resize(len_);
  uint32_t total = static_cast<uint32_t>(buf_.size());
  uint16_t count = count_ < 65535 ? static_cast<uint16_t>(count_) : 65535;
  memcpy(&buf_[0], &total, 4);
  memcpy(&buf_[4], &count, 2);
  return buf_;
}

bool parseRedisListpack(std::string_view blob, std::vector<db::LpValue>* out, std::string* err) {
  out->clear();
  const auto* base = reinterpret_cast<const uint8_t*>(blob.data());
  size_t n = blob.size();
  if (n < kHeader + 1) {
    *err = "listpack shorter than its header";
    return false;
  }
  if (readLe(base, 4) != n) {
    *err = "listpack size field does not match its length";
    return false;
  }
  if (base[n - 1] != kEof) {
    *err = "listpack has no terminator";
    return false;
  }
  uint64_t declared = readLe(base + 4, 2);
  size_t off = kHeader;
  size_t end = n - 1;
  while (off < end) {
    const uint8_t* p = base + off;
    size_t avail = end - off;
    uint8_t b = p[0];
    size_t hdr = 1, payload = 0;
    db::LpValue v;
    auto need = [&](size_t k) { return k <= avail; };
    if (b < 0x80) {
      v.is_int = true;
      v.ival = b;
    } else if ((b & 0xc0) == 0x80) {
      payload = b & 0x3f;
    } else if ((b & 0xe0) == 0xc0) {
      hdr = 2;
      if (!need(2)) break;
      uint64_t u = (uint64_t{b & 0x1fu} << 8) | p[1];
      v.is_int = true;
      v.ival = u >= 4096 ? static_cast<int64_t>(u) - 8192 : static_cast<int64_t>(u);
    } else if ((b & 0xf0) == 0xe0) {
      hdr = 2;
      if (!need(2)) break;
      payload = (size_t{b & 0x0fu} << 8) | p[1];
    } else if (b == 0xf0) {
      hdr = 5;
      if (!need(5)) break;
      payload = readLe(p + 1, 4);
    } else if (b >= 0xf1 && b <= 0xf4) {
      static const int kWidth[] = {2, 3, 4, 8};
      int w = kWidth[b - 0xf1];
      hdr = 1 + static_cast<size_t>(w);
      if (!need(hdr)) break;
      v.is_int = true;
      v.ival = signExtend(readLe(p + 1, w), w);
    } else {
      *err = "listpack entry with an invalid encoding byte";
      return false;
    }
    if (payload > avail || hdr > avail - payload) break;
    if (!v.is_int) v.str = std::string_view(reinterpret_cast<const char*>(p + hdr), payload);
    size_t elen = hdr + payload;
    size_t bl = backlenSize(elen);
    if (bl > avail - elen) break;
    // The backlen must decode to the entry's size.
    size_t got = 0;
    const uint8_t* q = p + elen + bl - 1;
    for (size_t i = 0; i < bl; i++, q--) {
      got |= size_t{*q & 127u} << (7 * i);
      bool more = (*q & 128) != 0;
      if (more != (i + 1 < bl)) {
        got = SIZE_MAX;
        break;
      }
    }
    if (got != elen) {
      *err = "listpack entry with a wrong back-length";
      return false;
    }
    out->push_back(v);
    off += elen + bl;
  }
  if (off != end) {
    *err = "listpack entry runs past the end";
    return false;
  }
  if (declared != 65535 && declared != out->size()) {
    *err = "listpack count field does not match its entries";
    return false;
  }
  return true;
}

}  // namespace server::persist
