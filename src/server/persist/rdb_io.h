// Byte-level RDB encoding: RdbWriter appends lengths, strings (integer and
// LZF forms as Redis chooses them), doubles and raw bytes to a buffer that
// is either kept (DUMP) or flushed to a file descriptor as it grows (SAVE),
// keeping a running CRC-64 of everything written. RdbReader is its bounded
// counterpart, over bytes in memory or pulled from a stream: every read
// checks the length it has and a failure leaves a message in error()
// instead of reading past the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace server::persist {

class RdbWriter {
 public:
  // Buffer-only writer (DUMP payloads): bytes accumulate in buffer().
  RdbWriter() = default;
  // File writer: flushes to fd whenever 64 KiB are buffered; with
  // fsync_every > 0 it also fsyncs after each fsync_every bytes
  // (rdb-save-incremental-fsync).
  RdbWriter(int fd, size_t fsync_every);

  void setCompression(bool on) { compress_ = on; }
  void setChecksum(bool on) { checksum_ = on; }

  void raw(const void* p, size_t n) {
    // The common case inline: room in the buffer and no flush due.
    if (len_ + n <= buf_.size() && (fd_ < 0 || len_ + n < kFlushAt)) {
      memcpy(&buf_[len_], p, n);
      len_ += n;
      total_ += n;
      return;
    }
    rawSlow(p, n);
  }
  void byte(uint8_t b) { raw(&b, 1); }
  void length(uint64_t n);
  // A string: int-encoded when it is a short canonical integer, LZF when
  // compression is on, it is longer than 20 bytes and compresses by at least
  // 4 bytes; else plain.
  void string(std::string_view s);
  // An integer value as Redis writes an int-encoded string object.
  void integer(int64_t v);
  void binaryDouble(double d);
  void millis(int64_t ms);  // 8 bytes little-endian

  // File mode: writes out what is buffered. False with errno set on error.
  bool flush();
  bool failed() const { return failed_; }
  // Running checksum of every byte written so far (0 when disabled).
  uint64_t crc() const { return crc_; }
  uint64_t written() const { return total_; }
  // Buffer mode: the bytes written so far (the caller may append to them).
  std::string& buffer() {
    buf_.resize(len_);
    return buf_;
  }

 private:
  // File mode writes out whenever this much is buffered.
  static constexpr size_t kFlushAt = 64 * 1024;
  void rawSlow(const void* p, size_t n);
  void writeAll(const char* p, size_t n);
  void syncWritten();
  void checksumBuffered();
  int fd_ = -1;
  size_t fsync_every_ = 0;
  size_t since_fsync_ = 0;
  int64_t file_off_ = 0;     // where the next write lands in fd_
  int64_t prev_start_ = -1;  // the chunk whose writeback is under way
  size_t prev_len_ = 0;
  std::unique_ptr<uint8_t[]> lzf_;  // compression output, reused
  size_t lzf_cap_ = 0;
  bool compress_ = true;
  bool checksum_ = true;
  bool failed_ = false;
  uint64_t crc_ = 0;
  uint64_t total_ = 0;
  size_t crc_done_ = 0;  // bytes of buf_ already in crc_
  // buf_'s size is its capacity; len_ bytes of it are written.
  std::string buf_;
  size_t len_ = 0;
};

class RdbReader {
 public:
  // The error of every read that ran out of input.
  static constexpr const char* kShortRead = "unexpected end of data";

  // Where a streaming reader's bytes come from (a replica loading the RDB
  // straight from its master's connection).
  class Source {
   public:
    virtual ~Source() = default;
    // Puts at least `min` and at most `cap` bytes at buf (waiting for them
    // as long as it takes; the event loop may run meanwhile) and sets *got.
    // False with *err set when the stream ended or failed first.
    virtual bool fill(uint8_t* buf, size_t min, size_t cap, size_t* got, std::string* err) = 0;
    // How many bytes are still to come, if the stream's length is known;
    // else -1.
    virtual int64_t left() const = 0;
  };

  // Over bytes in memory: the whole input is there from the start.
  RdbReader(const uint8_t* p, size_t n) : base_(p), p_(p), end_(p + n), crc_from_(p) {}
  // Over a stream: bytes are pulled from src as reads need them, into
  // buffers of the reader's own. Everything a read returned (raw(),
  // stringView()) stays valid until the next release().
  explicit RdbReader(Source* src) : src_(src) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // Records the first error (later ones are dropped); returns false.
  bool fail(const std::string& why);
  // Adds context to a recorded error (not to a short read, whose message
  // is fixed); returns false.
  bool annotate(const std::string& more) {
    if (!error_.empty() && error_ != kShortRead) error_ += more;
    return false;
  }
  // Bytes read since the start.
  size_t offset() const { return window_off_ + static_cast<size_t>(p_ - base_); }
  bool streaming() const { return src_ != nullptr; }

  // Where the bytes come from: the RDB version of the file or payload
  // (0: unknown), whether Valkey wrote it (type 22 means a different hash
  // there), and the time against which field expiry times are judged (0:
  // none is past). Set before the first value is read.
  void setOrigin(int version, bool valkey, int64_t now_ms) {
    version_ = version;
    valkey_ = valkey;
    now_ms_ = now_ms;
  }
  int version() const { return version_; }
  bool valkey() const { return valkey_; }
  int64_t nowMs() const { return now_ms_; }
  // Hash fields read with an expiry time (Redis 7.4, Valkey 9), which this
  // server does not keep: those still to come are kept without it, those
  // already past are dropped. Counted for the log.
  struct FieldTtlNotes {
    uint64_t kept_without_ttl = 0;
    uint64_t dropped_expired = 0;
  };
  FieldTtlNotes& fieldTtlNotes() { return field_ttls_; }
  // The most bytes the rest of the input can hold: a bound for counts
  // (each element takes at least a byte). A stream of unknown length has
  // none.
  size_t remaining() const {
    return src_ == nullptr ? static_cast<size_t>(end_ - p_) : streamRemaining();
  }
  // How many of n announced elements to reserve room for: n where the
  // input is all there (counts were checked against it), a bounded part of
  // n over a stream (the rest is grown into as elements arrive).
  uint64_t reserveHint(uint64_t n) const {
    return src_ == nullptr || n <= kStreamReserve ? n : kStreamReserve;
  }
  // The bytes buffered past the position (a stream's reader may hold
  // bytes that follow the RDB).
  std::string_view buffered() const {
    return std::string_view(reinterpret_cast<const char*>(p_), static_cast<size_t>(end_ - p_));
  }

  // Between values (nothing read before is in use): gives back what is
  // behind the position. Over a stream, the buffers left behind; in memory
  // with unmap, the whole pages behind (a mapped file). With the checksum
  // kept, the bytes given back are folded into it first.
  void release(bool unmap);
  // Keeps the CRC-64 of the bytes read (see checksum()).
  void keepChecksum() { crc_on_ = true; }
  // CRC-64 of every byte before the position.
  uint64_t checksum() const;

  bool byte(uint8_t* out);
  bool raw(size_t n, const uint8_t** out);
  // A length; *encoded is set when the byte says "special string
  // encoding" (then *out holds the encoding number).
  bool length(uint64_t* out, bool* encoded = nullptr);
  // A length that must be a plain length and at most limit (the bytes
  // left, or a fraction of them: each element needs at least one byte).
  bool count(uint64_t* out, uint64_t limit);
  // A string in any of its encodings, into *out.
  bool string(std::string* out);
  // The same without a copy where possible: *out points into the input for
  // a plain string, into *scratch for an integer or LZF one (valid until
  // scratch changes).
  bool stringView(std::string_view* out, std::string* scratch);
  bool binaryDouble(double* out);
  // A double in the old text form (RDB_TYPE_ZSET).
  bool textDouble(double* out);
  bool millis(int64_t* out);
  bool seconds(int32_t* out);

 private:
  // A stream's buffers are at least this big.
  static constexpr size_t kStreamChunk = 256 * 1024;
  static constexpr uint64_t kStreamReserve = 1 << 16;
  size_t streamRemaining() const;
  // Makes n bytes readable at p_ (pulling from the source); false with the
  // error recorded if they cannot be.
  bool refill(size_t n);
  // Folds [crc_from_, upto) into crc_ (when kept).
  void foldChecksum(const uint8_t* upto);

  const uint8_t* base_ = nullptr;  // the window's start (offset window_off_)
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  size_t window_off_ = 0;
  Source* src_ = nullptr;
  std::unique_ptr<uint8_t[]> window_;             // a stream's current buffer
  std::vector<std::unique_ptr<uint8_t[]>> kept_;  // earlier ones, until release()
  bool crc_on_ = false;
  uint64_t crc_ = 0;                   // of the bytes before crc_from_
  const uint8_t* crc_from_ = nullptr;  // in the current window
  std::string error_;
  int version_ = 0;
  bool valkey_ = false;
  int64_t now_ms_ = 0;
  FieldTtlNotes field_ttls_;
};

}  // namespace server::persist
