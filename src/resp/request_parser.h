// Incremental parser of client requests (RESP multibulk and inline), in
// place: arguments are (offset, length) pairs into the caller's buffer, so
// parsing copies no argument bytes and allocates nothing once warm.
//
// Contract: the caller keeps the bytes of the request being parsed at a
// stable offset from `base` between calls (it may move the whole buffer, as
// long as the request's first byte stays at `base`). feed() is given the
// bytes [base, base+len) each time, len growing as data arrives. It returns:
//   kNeedMore - incomplete; call again when more bytes arrived;
//   kDone     - args() holds one request of consumed() bytes; call reset()
//               before parsing the next one (at base + consumed());
//   kError    - error() holds Redis's message ("Protocol error: ..."); the
//               connection must be closed after replying.
// An empty inline line yields kDone with zero args (skip it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace resp {

struct ArgRef {
  size_t off;  // relative to the request's first byte (or inlineStorage())
  size_t len;
};

struct ParserLimits {
  int64_t max_bulk_len = 512ll * 1024 * 1024;  // proto-max-bulk-len
  // Arguments per request: Redis 7.0 accepts up to INT_MAX (the query
  // buffer limit is what bounds a request in practice).
  int64_t max_multibulk_len = 2147483647;
  size_t max_inline_len = 64 * 1024;  // PROTO_INLINE_MAX_SIZE
  // Before AUTH, requests are limited to 10 args of 16 KiB (as Redis does),
  // so an unauthenticated peer cannot make the server buffer much.
  bool authenticated = true;
};

// Splits a line with Redis's quoting rules (config files, inline requests,
// redis-cli input): arguments separated by spaces; "double quotes" with
// \n \r \t \b \a \\ \" and \xHH escapes; 'single quotes' with \' only. A
// closing quote must be followed by a space or the end. Returns false on
// unbalanced quotes.
bool splitArgs(std::string_view line, std::vector<std::string>* out);

class RequestParser {
 public:
  enum Result { kNeedMore, kDone, kError };

  Result feed(const char* base, size_t len, const ParserLimits& limits);
  void reset();
  // Gives back the argument list's memory when a request of more than
  // `keep` arguments grew it (call between requests).
  void trim(size_t keep) {
    if (args_.capacity() > keep) std::vector<ArgRef>().swap(args_);
  }

  const std::vector<ArgRef>& args() const { return args_; }
  size_t consumed() const { return pos_; }
  const char* error() const { return error_; }
  // Bytes the request needs in total, when known (a bulk header was read):
  // lets the caller grow its buffer once instead of doubling. 0 if unknown.
  size_t bytesHint() const { return hint_; }
  bool isInline() const { return kind_ == Kind::kInline; }
  // Inline requests are unescaped into this storage and their args() point
  // into it instead of into the caller's buffer.
  const std::string& inlineStorage() const { return inline_buf_; }

 private:
  enum class Kind : uint8_t { kUnknown, kInline, kMultibulk };
  Result parseInline(const char* base, size_t len, const ParserLimits& limits);
  Result parseMultibulk(const char* base, size_t len, const ParserLimits& limits);
  Result fail(const char* msg);

  Kind kind_ = Kind::kUnknown;
  size_t pos_ = 0;         // next byte to look at, relative to base
  int64_t remaining_ = 0;  // multibulk args still to read
  int64_t bulk_len_ = -1;  // length of the bulk being read, -1 = header next
  size_t hint_ = 0;
  std::vector<ArgRef> args_;
  std::string inline_buf_;
  const char* error_ = nullptr;
  char errbuf_[64];
};

}  // namespace resp
