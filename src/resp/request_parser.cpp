#include "resp/request_parser.h"

#include <climits>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "common/strutil.h"

namespace resp {

namespace {
constexpr int64_t kUnauthMaxArgs = 10;
constexpr int64_t kUnauthMaxBulk = 16384;
// Bulks at least this big make the parser report an exact size hint so the
// caller grows its buffer once (a 64 MiB value is not built by doubling).
constexpr int64_t kBigBulk = 32 * 1024;

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits an inline line with redis-cli/Redis quoting rules into `out`,
// recording each argument's (offset, length) in `args`. False on unbalanced
// quotes.
bool splitInline(std::string_view line, std::string* out, std::vector<ArgRef>* args) {
  size_t i = 0, n = line.size();
  out->clear();
  while (true) {
    while (i < n && isspace(static_cast<unsigned char>(line[i]))) i++;
    if (i >= n) return true;
    size_t start = out->size();
    bool inq = false, insq = false, done = false;
    while (!done) {
      if (inq) {
        if (i >= n) return false;
        if (line[i] == '\\' && i + 3 < n && line[i + 1] == 'x' && hexValue(line[i + 2]) >= 0 &&
            hexValue(line[i + 3]) >= 0) {
          out->push_back(static_cast<char>(hexValue(line[i + 2]) * 16 + hexValue(line[i + 3])));
          i += 3;
        } else if (line[i] == '\\' && i + 1 < n) {
          i++;
          char c = line[i];
          switch (c) {
            case 'n':
              c = '\n';
              break;
            case 'r':
              c = '\r';
              break;
            case 't':
              c = '\t';
              break;
            case 'b':
              c = '\b';
              break;
            case 'a':
              c = '\a';
              break;
            default:
              break;
          }
          out->push_back(c);
        } else if (line[i] == '"') {
          // The closing quote must be followed by a space or the end.
          if (i + 1 < n && !isspace(static_cast<unsigned char>(line[i + 1]))) return false;
          done = true;
        } else {
          out->push_back(line[i]);
        }
      } else if (insq) {
        if (i >= n) return false;
        if (line[i] == '\\' && i + 1 < n && line[i + 1] == '\'') {
          i++;
          out->push_back('\'');
        } else if (line[i] == '\'') {
          if (i + 1 < n && !isspace(static_cast<unsigned char>(line[i + 1]))) return false;
          done = true;
        } else {
          out->push_back(line[i]);
        }
      } else {
        if (i >= n) {
          done = true;
          break;
        }
        switch (line[i]) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
          case '\0':
            done = true;
            break;
          case '"':
            inq = true;
            break;
          case '\'':
            insq = true;
            break;
          default:
            out->push_back(line[i]);
            break;
        }
      }
      if (i < n) i++;
    }
    args->push_back({start, out->size() - start});
  }
}
// The lengths of a well-formed request: 1 to 18 digits, no sign, no
// leading zero, then '\r' and at least one more byte. Returns the '\r', or
// nullptr when the text is anything else (or incomplete): the caller then
// takes the general path, which decides exactly as before. Every request
// reads its lengths here, without memchr() and a parse call per length.
inline const char* fastLength(const char* p, const char* end, int64_t* out) {
  const char* q = p;
  uint64_t v = 0;
  while (q < end) {
    unsigned d = static_cast<unsigned>(static_cast<unsigned char>(*q)) - '0';
    if (d > 9) break;
    v = v * 10 + d;
    q++;
  }
  size_t digits = static_cast<size_t>(q - p);
  if (digits == 0 || digits > 18 || (digits > 1 && *p == '0') || end - q < 2 || *q != '\r')
    return nullptr;
  *out = static_cast<int64_t>(v);
  return q;
}
}  // namespace

bool splitArgs(std::string_view line, std::vector<std::string>* out) {
  std::string storage;
  std::vector<ArgRef> refs;
  out->clear();
  if (!splitInline(line, &storage, &refs)) return false;
  for (const ArgRef& r : refs) out->emplace_back(storage, r.off, r.len);
  return true;
}

void RequestParser::reset() {
  kind_ = Kind::kUnknown;
  pos_ = 0;
  remaining_ = 0;
  bulk_len_ = -1;
  hint_ = 0;
  args_.clear();
  error_ = nullptr;
}

RequestParser::Result RequestParser::fail(const char* msg) {
  error_ = msg;
  return kError;
}

RequestParser::Result RequestParser::feed(const char* base, size_t len,
                                          const ParserLimits& limits) {
  if (kind_ == Kind::kUnknown) {
    if (len == 0) return kNeedMore;
    kind_ = base[0] == '*' ? Kind::kMultibulk : Kind::kInline;
  }
  return kind_ == Kind::kMultibulk ? parseMultibulk(base, len, limits)
                                   : parseInline(base, len, limits);
}

RequestParser::Result RequestParser::parseInline(const char* base, size_t len,
                                                 const ParserLimits& limits) {
  const char* nl = static_cast<const char*>(memchr(base, '\n', len));
  // Redis looks for the newline with strchr(), which stops at a NUL: an
  // inline request with a NUL before its newline is never complete, and
  // the connection waits until the too-big error below. Matched here so
  // both servers treat such bytes alike.
  if (nl != nullptr && memchr(base, '\0', static_cast<size_t>(nl - base)) != nullptr) nl = nullptr;
  if (nl == nullptr) {
    if (len > limits.max_inline_len) return fail("Protocol error: too big inline request");
    return kNeedMore;
  }
  size_t line_len = static_cast<size_t>(nl - base);
  if (line_len > 0 && base[line_len - 1] == '\r') line_len--;
  args_.clear();
  if (!splitInline(std::string_view(base, line_len), &inline_buf_, &args_)) {
    return fail("Protocol error: unbalanced quotes in request");
  }
  pos_ = static_cast<size_t>(nl - base) + 1;
  return kDone;
}

RequestParser::Result RequestParser::parseMultibulk(const char* base, size_t len,
                                                    const ParserLimits& limits) {
  if (pos_ == 0) {
    int64_t count;
    bool ok = true;
    const char* cr = fastLength(base + 1, base + len, &count);
    if (cr == nullptr) {
      cr = static_cast<const char*>(memchr(base, '\r', len));
      if (cr == nullptr) {
        if (len > limits.max_inline_len) return fail("Protocol error: too big mbulk count string");
        return kNeedMore;
      }
      // Need the '\n' after '\r' too.
      if (static_cast<size_t>(cr - base) + 1 >= len) return kNeedMore;
      ok = common::strutil::parseInt64(
          std::string_view(base + 1, static_cast<size_t>(cr - base - 1)), &count);
    }
    if (!ok || count > INT_MAX || count > limits.max_multibulk_len) {
      return fail("Protocol error: invalid multibulk length");
    }
    if (count > kUnauthMaxArgs && !limits.authenticated) {
      return fail("Protocol error: unauthenticated multibulk length");
    }
    pos_ = static_cast<size_t>(cr - base) + 2;
    if (count <= 0) return kDone;  // "*0" / "*-1": an empty request, skipped
    remaining_ = count;
    args_.clear();
    // Never trust the count for allocation: a peer may announce millions.
    args_.reserve(static_cast<size_t>(count < 64 ? count : 64));
  }
  while (remaining_ > 0) {
    if (bulk_len_ == -1) {
      if (pos_ >= len) return kNeedMore;
      const char* p = base + pos_;
      int64_t blen;
      bool ok = true;
      const char* cr = p[0] == '$' ? fastLength(p + 1, base + len, &blen) : nullptr;
      if (cr == nullptr) {
        cr = static_cast<const char*>(memchr(p, '\r', len - pos_));
        if (cr == nullptr) {
          if (len - pos_ > limits.max_inline_len) {
            return fail("Protocol error: too big bulk count string");
          }
          return kNeedMore;
        }
        if (static_cast<size_t>(cr - base) + 1 >= len) return kNeedMore;
        if (p[0] != '$') {
          snprintf(errbuf_, sizeof(errbuf_), "Protocol error: expected '$', got '%c'", p[0]);
          return fail(errbuf_);
        }
        ok = common::strutil::parseInt64(std::string_view(p + 1, static_cast<size_t>(cr - p - 1)),
                                         &blen);
      }
      if (!ok || blen < 0 || blen > limits.max_bulk_len) {
        return fail("Protocol error: invalid bulk length");
      }
      if (blen > kUnauthMaxBulk && !limits.authenticated) {
        return fail("Protocol error: unauthenticated bulk length");
      }
      pos_ = static_cast<size_t>(cr - base) + 2;
      bulk_len_ = blen;
      if (blen >= kBigBulk) hint_ = pos_ + static_cast<size_t>(blen) + 2;
    }
    size_t need = static_cast<size_t>(bulk_len_) + 2;
    if (len - pos_ < need) return kNeedMore;
    args_.push_back({pos_, static_cast<size_t>(bulk_len_)});
    pos_ += need;
    bulk_len_ = -1;
    hint_ = 0;
    remaining_--;
  }
  return kDone;
}

}  // namespace resp
