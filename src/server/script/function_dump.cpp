// FUNCTION DUMP / RESTORE payloads, byte for byte as Redis 7.0 writes
// them, so libraries move between the two servers:
//
//   { 0xF5 (RDB_OPCODE_FUNCTION2), <RDB string: the library's code> } ...
//   <RDB version, 2 bytes little endian: 10>
//   <CRC-64/Jones of everything before, 8 bytes little endian>
//
// RDB strings: a length (00xxxxxx: 6 bits; 01xxxxxx yyyyyyyy: 14 bits;
// 0x80 + 32 bits big endian; 0x81 + 64 bits big endian) and the bytes, or
// 0xC0/0xC1/0xC2 + an 8/16/32-bit little-endian integer, or 0xC3 + the
// compressed length, the plain length and an LZF block. Like Redis we
// write LZF for strings over 20 bytes when it saves at least 4 bytes.
#include <liblzf/lzf.h>

#include <cstring>
#include <string>

#include "common/crc64.h"
#include "server/script/functions.h"

namespace server::script {

namespace {

constexpr unsigned char kOpcodeFunction2 = 245;
constexpr unsigned char kOpcodeFunctionPreGa = 246;
constexpr uint16_t kRdbVersion = 10;

void putLength(std::string* out, uint64_t n) {
  if (n < 64) {
    out->push_back(static_cast<char>(n));
  } else if (n < 16384) {
    out->push_back(static_cast<char>(0x40 | (n >> 8)));
    out->push_back(static_cast<char>(n & 0xff));
  } else if (n <= UINT32_MAX) {
    out->push_back(static_cast<char>(0x80));
    for (int i = 3; i >= 0; i--) out->push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  } else {
    out->push_back(static_cast<char>(0x81));
    for (int i = 7; i >= 0; i--) out->push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  }
}

void putString(std::string* out, std::string_view s) {
  if (s.size() > 20) {
    std::string buf(s.size() - 4, '\0');
    unsigned clen = lzf_compress(s.data(), static_cast<unsigned>(s.size()), buf.data(),
                                 static_cast<unsigned>(buf.size()));
    if (clen > 0) {
      out->push_back(static_cast<char>(0xC3));
      putLength(out, clen);
      putLength(out, s.size());
      out->append(buf.data(), clen);
      return;
    }
  }
  putLength(out, s.size());
  out->append(s);
}

class Reader {
 public:
  Reader(const unsigned char* p, size_t n) : p_(p), n_(n) {}
  bool atEnd() const { return pos_ >= n_; }
  bool byte(unsigned char* b) {
    if (pos_ >= n_) return false;
    *b = p_[pos_++];
    return true;
  }
  // A length, or an encoding marker (*encoded true, *len the 0..3 type).
  bool length(uint64_t* len, bool* encoded) {
    unsigned char b;
    if (!byte(&b)) return false;
    *encoded = false;
    switch (b >> 6) {
      case 0:
        *len = b & 0x3f;
        return true;
      case 1: {
        unsigned char b2;
        if (!byte(&b2)) return false;
        *len = (static_cast<uint64_t>(b & 0x3f) << 8) | b2;
        return true;
      }
      case 2: {
        int bytes = b == 0x80 ? 4 : b == 0x81 ? 8 : 0;
        if (bytes == 0 || n_ - pos_ < static_cast<size_t>(bytes)) return false;
        uint64_t v = 0;
        for (int i = 0; i < bytes; i++) v = (v << 8) | p_[pos_++];
        *len = v;
        return true;
      }
      default:
        *encoded = true;
        *len = b & 0x3f;
        return true;
    }
  }
  bool string(std::string* out) {
    uint64_t len;
    bool encoded;
    if (!length(&len, &encoded)) return false;
    if (!encoded) {
      if (n_ - pos_ < len) return false;
      out->assign(reinterpret_cast<const char*>(p_ + pos_), len);
      pos_ += len;
      return true;
    }
    if (len <= 2) {
      size_t bytes = size_t{1} << len;
      if (n_ - pos_ < bytes) return false;
      int64_t v = 0;
      if (bytes == 1) {
        v = static_cast<int8_t>(p_[pos_]);
      } else if (bytes == 2) {
        v = static_cast<int16_t>(p_[pos_] | (p_[pos_ + 1] << 8));
      } else {
        v = static_cast<int32_t>(static_cast<uint32_t>(p_[pos_]) | (uint32_t(p_[pos_ + 1]) << 8) |
                                 (uint32_t(p_[pos_ + 2]) << 16) | (uint32_t(p_[pos_ + 3]) << 24));
      }
      pos_ += bytes;
      *out = std::to_string(v);
      return true;
    }
    if (len != 3) return false;
    uint64_t clen, plain;
    bool e1, e2;
    if (!length(&clen, &e1) || !length(&plain, &e2) || e1 || e2) return false;
    if (n_ - pos_ < clen || plain > (uint64_t{1} << 32)) return false;
    out->assign(plain, '\0');
    unsigned got = plain == 0 ? 0
                              : lzf_decompress(p_ + pos_, static_cast<unsigned>(clen), out->data(),
                                               static_cast<unsigned>(plain));
    if (got != plain) return false;
    pos_ += clen;
    return true;
  }

 private:
  const unsigned char* p_;
  size_t n_;
  size_t pos_ = 0;
};

}  // namespace

std::string dumpFunctionsPayload() {
  std::string out;
  for (const std::string& code : libraryCodes()) {
    out.push_back(static_cast<char>(kOpcodeFunction2));
    putString(&out, code);
  }
  out.push_back(static_cast<char>(kRdbVersion & 0xff));
  out.push_back(static_cast<char>(kRdbVersion >> 8));
  uint64_t crc = common::crc64(0, out.data(), out.size());
  for (int i = 0; i < 8; i++) out.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  return out;
}

bool restoreFunctionsPayload(std::string_view payload, RestorePolicy policy, std::string* err) {
  const auto* p = reinterpret_cast<const unsigned char*>(payload.data());
  size_t n = payload.size();
  bool ok = n >= 10;
  if (ok) {
    uint16_t version = static_cast<uint16_t>(p[n - 10] | (p[n - 9] << 8));
    uint64_t crc = 0;
    for (int i = 7; i >= 0; i--) crc = (crc << 8) | p[n - 8 + static_cast<size_t>(i)];
    ok = version <= kRdbVersion && crc == common::crc64(0, p, n - 8);
  }
  if (!ok) {
    *err = "DUMP payload version or checksum are wrong";
    return false;
  }
  LibraryStaging staging;
  Reader r(p, n - 10);
  while (!r.atEnd()) {
    unsigned char type;
    r.byte(&type);
    if (type == kOpcodeFunctionPreGa) {
      *err = "Pre-GA function format not supported";
      return false;
    }
    if (type != kOpcodeFunction2) {
      *err = "given type is not a function";
      return false;
    }
    std::string code;
    if (!r.string(&code)) {
      *err = "failed loading the given functions payload";
      return false;
    }
    if (!staging.add(code, err)) return false;
  }
  return staging.commit(policy, err);
}

}  // namespace server::script
