#include "server/persist/rdb_io.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <liblzf/lzf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>

#include "common/crc64.h"
#include "common/strutil.h"
#include "server/persist/rdb_format.h"

namespace server::persist {

namespace {
// Strings above this size are never LZF-compressed by Redis either:
// compressing happens in memory, a bounded buffer each time is enough.
constexpr size_t kLzfMin = 21;
// A string of at least kProbeFrom bytes whose first kProbe bytes LZF cannot
// shorten by a single byte (random, encrypted or already compressed data)
// is written plain without compressing the rest: the whole attempt would
// cost as much as writing the value out several times, to save nothing.
constexpr size_t kProbeFrom = 512;
constexpr size_t kProbe = 256;
}  // namespace

// ---------------------------------------------------------------- writer

RdbWriter::RdbWriter(int fd, size_t fsync_every) : fd_(fd), fsync_every_(fsync_every) {
  buf_.resize(kFlushAt);
  if (fsync_every_ > 0) {
    off_t at = lseek(fd_, 0, SEEK_CUR);
    file_off_ = at < 0 ? 0 : at;
  }
}

void RdbWriter::rawSlow(const void* p, size_t n) {
  if (fd_ >= 0) {
    // File mode: at most kFlushAt bytes stay buffered.
    if (len_ > 0) flush();
    if (n >= kFlushAt) {
      // A big piece goes out as it is, not through the buffer.
      if (checksum_) crc_ = common::crc64(crc_, p, n);
      writeAll(static_cast<const char*>(p), n);
      total_ += n;
      return;
    }
  }
  if (len_ + n > buf_.size()) buf_.resize(std::max({buf_.size() * 2, len_ + n, size_t{256}}));
  memcpy(&buf_[len_], p, n);
  len_ += n;
  total_ += n;
}

void RdbWriter::checksumBuffered() {
  if (checksum_ && crc_done_ < len_)
    crc_ = common::crc64(crc_, buf_.data() + crc_done_, len_ - crc_done_);
  crc_done_ = len_;
}

void RdbWriter::writeAll(const char* p, size_t n) {
  size_t off = 0;
  while (off < n && !failed_) {
    ssize_t w = ::write(fd_, p + off, n - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      failed_ = true;
      break;
    }
    off += static_cast<size_t>(w);
  }
  since_fsync_ += off;
  file_off_ += static_cast<int64_t>(off);
  if (!failed_ && fsync_every_ > 0 && since_fsync_ >= fsync_every_) syncWritten();
}

// rdb-save-incremental-fsync: spreads the writeback of a big file over the
// save instead of one long fsync at the end. The chunk just written starts
// going to disk and only the chunk before it is waited for, so the save
// never stops for its own latest writes (the final fsync covers the rest).
void RdbWriter::syncWritten() {
  int64_t start = file_off_ - static_cast<int64_t>(since_fsync_);
  int rc = sync_file_range(fd_, start, static_cast<off_t>(since_fsync_), SYNC_FILE_RANGE_WRITE);
  if (rc == 0 && prev_start_ >= 0) {
    rc = sync_file_range(
        fd_, prev_start_, static_cast<off_t>(prev_len_),
        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
  }
  // A file system without it (EINVAL, ESPIPE): a plain fdatasync.
  if (rc != 0 && (errno == EINVAL || errno == ESPIPE || errno == ENOSYS)) rc = fdatasync(fd_);
  if (rc != 0) failed_ = true;
  prev_start_ = start;
  prev_len_ = since_fsync_;
  since_fsync_ = 0;
}

bool RdbWriter::flush() {
  checksumBuffered();
  if (fd_ < 0) return !failed_;
  writeAll(buf_.data(), len_);
  len_ = 0;
  crc_done_ = 0;
  return !failed_;
}

void RdbWriter::length(uint64_t n) {
  uint8_t b[9];
  if (n < (1u << 6)) {
    b[0] = static_cast<uint8_t>(n);
    raw(b, 1);
  } else if (n < (1u << 14)) {
    b[0] = static_cast<uint8_t>((kLen14Bit << 6) | (n >> 8));
    b[1] = static_cast<uint8_t>(n & 0xff);
    raw(b, 2);
  } else if (n <= UINT32_MAX) {
    b[0] = kLen32Bit;
    for (int i = 0; i < 4; i++) b[1 + i] = static_cast<uint8_t>(n >> (24 - 8 * i));
    raw(b, 5);
  } else {
    b[0] = kLen64Bit;
    for (int i = 0; i < 8; i++) b[1 + i] = static_cast<uint8_t>(n >> (56 - 8 * i));
    raw(b, 9);
  }
}

void RdbWriter::integer(int64_t v) {
  uint8_t b[5];
  if (v >= INT8_MIN && v <= INT8_MAX) {
    b[0] = (kLenEncoded << 6) | kEncInt8;
    b[1] = static_cast<uint8_t>(v);
    raw(b, 2);
  } else if (v >= INT16_MIN && v <= INT16_MAX) {
    b[0] = (kLenEncoded << 6) | kEncInt16;
    b[1] = static_cast<uint8_t>(v);
    b[2] = static_cast<uint8_t>(v >> 8);
    raw(b, 3);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    b[0] = (kLenEncoded << 6) | kEncInt32;
    for (int i = 0; i < 4; i++) b[1 + i] = static_cast<uint8_t>(v >> (8 * i));
    raw(b, 5);
  } else {
    // Too wide for the integer forms: its digits as a plain string.
    char d[24];
    size_t n = common::strutil::formatInt64(v, d);
    length(n);
    raw(d, n);
  }
}

void RdbWriter::string(std::string_view s) {
  int64_t v;
  if (s.size() <= 11 && s.size() > 0 && common::strutil::parseInt64(s, &v) && v >= INT32_MIN &&
      v <= INT32_MAX) {
    integer(v);
    return;
  }
  if (compress_ && s.size() >= kLzfMin && s.size() <= UINT32_MAX) {
    // Worth it only when at least 4 bytes are saved, as Redis decides.
    size_t cap = s.size() - 4;
    if (lzf_cap_ < cap + 1) {
      lzf_cap_ = std::max(cap + 1, 2 * lzf_cap_);
      lzf_.reset(new uint8_t[lzf_cap_]);
    }
    bool hopeless =
        s.size() >= kProbeFrom && lzf_compress(s.data(), kProbe, lzf_.get(), kProbe - 1) == 0;
    unsigned c = hopeless ? 0
                          : lzf_compress(s.data(), static_cast<unsigned>(s.size()), lzf_.get(),
                                         static_cast<unsigned>(cap));
    if (c > 0) {
      byte((kLenEncoded << 6) | kEncLzf);
      length(c);
      length(s.size());
      raw(lzf_.get(), c);
    } else {
      length(s.size());
      raw(s.data(), s.size());
    }
    // A huge value's room is given back.
    if (lzf_cap_ > (1u << 20)) {
      lzf_.reset();
      lzf_cap_ = 0;
    }
    return;
  }
  length(s.size());
  raw(s.data(), s.size());
}

void RdbWriter::binaryDouble(double d) {
  uint8_t b[8];
  memcpy(b, &d, 8);  // little-endian host
  raw(b, 8);
}

void RdbWriter::millis(int64_t ms) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = static_cast<uint8_t>(static_cast<uint64_t>(ms) >> (8 * i));
  raw(b, 8);
}

// ---------------------------------------------------------------- reader

bool RdbReader::fail(const std::string& why) {
  if (error_.empty()) error_ = why;
  return false;
}

bool RdbReader::byte(uint8_t* out) {
  if (!ok()) return false;
  if (p_ >= end_ && !refill(1)) return false;
  *out = *p_++;
  return true;
}

bool RdbReader::raw(size_t n, const uint8_t** out) {
  if (!ok()) return false;
  if (static_cast<size_t>(end_ - p_) < n && !refill(n)) return false;
  *out = p_;
  p_ += n;
  return true;
}

size_t RdbReader::streamRemaining() const {
  int64_t left = src_->left();
  size_t have = static_cast<size_t>(end_ - p_);
  return left < 0 ? SIZE_MAX - have : have + static_cast<size_t>(left);
}

bool RdbReader::refill(size_t n) {
  if (src_ == nullptr) return fail(kShortRead);
  size_t have = static_cast<size_t>(end_ - p_);
  int64_t left = src_->left();
  if (left >= 0 && n - have > static_cast<uint64_t>(left)) return fail(kShortRead);
  size_t cap = std::max(n, kStreamChunk);
  if (left >= 0) cap = std::min<uint64_t>(cap, have + static_cast<uint64_t>(left));
  // A new buffer, so that what earlier reads returned stays where it is;
  // a length no allocation can hold fails here rather than throwing.
  std::unique_ptr<uint8_t[]> next(new (std::nothrow) uint8_t[cap]);
  if (next == nullptr)
    return fail("out of memory for " + std::to_string(n) + " bytes of one value");
  if (have > 0) memcpy(next.get(), p_, have);
  foldChecksum(p_);
  window_off_ += static_cast<size_t>(p_ - base_);
  if (window_ != nullptr) kept_.push_back(std::move(window_));
  window_ = std::move(next);
  base_ = p_ = crc_from_ = window_.get();
  end_ = base_ + have;
  size_t got = 0;
  std::string err;
  bool filled = src_->fill(window_.get() + have, n - have, cap - have, &got, &err);
  end_ += got;
  if (!filled) return fail(err.empty() ? kShortRead : err);
  return true;
}

void RdbReader::foldChecksum(const uint8_t* upto) {
  if (crc_on_ && upto > crc_from_)
    crc_ = common::crc64(crc_, crc_from_, static_cast<size_t>(upto - crc_from_));
  crc_from_ = upto;
}

uint64_t RdbReader::checksum() const {
  if (p_ <= crc_from_) return crc_;
  return common::crc64(crc_, crc_from_, static_cast<size_t>(p_ - crc_from_));
}

void RdbReader::release(bool unmap) {
  if (src_ != nullptr) {
    kept_.clear();
    return;
  }
  if (!unmap) return;
  // Whole pages, kReleaseChunk of them at a time.
  static const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  constexpr size_t kReleaseChunk = 8 << 20;
  const uint8_t* upto = base_ + (static_cast<size_t>(p_ - base_) / kPage * kPage);
  if (upto <= crc_from_ || static_cast<size_t>(upto - crc_from_) < kReleaseChunk) return;
  const uint8_t* from = crc_from_;
  foldChecksum(upto);
  madvise(const_cast<uint8_t*>(from), static_cast<size_t>(upto - from), MADV_DONTNEED);
}

bool RdbReader::length(uint64_t* out, bool* encoded) {
  if (encoded) *encoded = false;
  uint8_t b;
  if (!byte(&b)) return false;
  switch (b >> 6) {
    case kLen6Bit:
      *out = b & 0x3f;
      return true;
    case kLen14Bit: {
      uint8_t b2;
      if (!byte(&b2)) return false;
      *out = (static_cast<uint64_t>(b & 0x3f) << 8) | b2;
      return true;
    }
    case kLenEncoded:
      if (!encoded) return fail("unexpected string encoding in a length");
      *encoded = true;
      *out = b & 0x3f;
      return true;
    default:
      break;
  }
  const uint8_t* p;
  if (b == kLen32Bit) {
    if (!raw(4, &p)) return false;
    *out = (uint64_t{p[0]} << 24) | (uint64_t{p[1]} << 16) | (uint64_t{p[2]} << 8) | p[3];
    return true;
  }
  if (b == kLen64Bit) {
    if (!raw(8, &p)) return false;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    *out = v;
    return true;
  }
  return fail("unknown length encoding " + std::to_string(b));
}

bool RdbReader::count(uint64_t* out, uint64_t limit) {
  if (!length(out)) return false;
  // Each element takes at least one byte: a count the rest of the input
  // cannot hold means the data ends early (or is corrupt); either way no
  // memory is reserved for it.
  if (*out > limit) return fail(kShortRead);
  return true;
}

bool RdbReader::string(std::string* out) {
  std::string_view v;
  if (!stringView(&v, out)) return false;
  if (v.data() != out->data()) out->assign(v.data(), v.size());
  return true;
}

bool RdbReader::stringView(std::string_view* view, std::string* out) {
  uint64_t len;
  bool enc;
  if (!length(&len, &enc)) return false;
  if (!enc) {
    const uint8_t* p;
    if (!raw(len, &p)) return false;
    *view = std::string_view(reinterpret_cast<const char*>(p), len);
    return true;
  }
  const uint8_t* p;
  int64_t v;
  switch (len) {
    case kEncInt8:
      if (!raw(1, &p)) return false;
      v = static_cast<int8_t>(p[0]);
      break;
    case kEncInt16:
      if (!raw(2, &p)) return false;
      v = static_cast<int16_t>(p[0] | (p[1] << 8));
      break;
    case kEncInt32:
      if (!raw(4, &p)) return false;
      v = static_cast<int32_t>(uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) |
                               (uint32_t{p[3]} << 24));
      break;
    case kEncLzf: {
      uint64_t clen, ulen;
      if (!length(&clen) || !length(&ulen)) return false;
      if (clen == 0 || !raw(clen, &p)) return fail("bad LZF string");
      // LZF expands at most ~100x per byte of input; a claimed size far
      // beyond that is corruption, not a reason to allocate gigabytes.
      if (ulen == 0 || ulen > clen * 128 + 64 || ulen > UINT32_MAX)
        return fail("bad LZF string length");
      out->resize(ulen);
      unsigned got =
          lzf_decompress(p, static_cast<unsigned>(clen), out->data(), static_cast<unsigned>(ulen));
      if (got != ulen) return fail("LZF string does not decompress");
      *view = *out;
      return true;
    }
    default:
      return fail("unknown string encoding " + std::to_string(len));
  }
  char d[24];
  out->assign(d, common::strutil::formatInt64(v, d));
  *view = *out;
  return true;
}

bool RdbReader::binaryDouble(double* out) {
  const uint8_t* p;
  if (!raw(8, &p)) return false;
  memcpy(out, p, 8);
  return true;
}

bool RdbReader::textDouble(double* out) {
  uint8_t n;
  if (!byte(&n)) return false;
  if (n == 253) {
    *out = NAN;
    return true;
  }
  if (n == 254) {
    *out = INFINITY;
    return true;
  }
  if (n == 255) {
    *out = -INFINITY;
    return true;
  }
  const uint8_t* p;
  if (!raw(n, &p)) return false;
  std::string s(reinterpret_cast<const char*>(p), n);
  char* end;
  errno = 0;
  *out = strtod(s.c_str(), &end);
  if (s.empty() || *end != 0) return fail("bad double value");
  return true;
}

bool RdbReader::millis(int64_t* out) {
  const uint8_t* p;
  if (!raw(8, &p)) return false;
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  *out = static_cast<int64_t>(v);
  return true;
}

bool RdbReader::seconds(int32_t* out) {
  const uint8_t* p;
  if (!raw(4, &p)) return false;
  uint32_t v =
      uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
  *out = static_cast<int32_t>(v);
  return true;
}

}  // namespace server::persist
