#include "resp/reply_parser.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace resp {

const char* replyTypeName(ReplyType t) {
  switch (t) {
    case ReplyType::kStatus:
      return "status";
    case ReplyType::kError:
      return "error";
    case ReplyType::kInteger:
      return "integer";
    case ReplyType::kBulk:
      return "bulk";
    case ReplyType::kNil:
      return "nil";
    case ReplyType::kArray:
      return "array";
    case ReplyType::kMap:
      return "map";
    case ReplyType::kSet:
      return "set";
    case ReplyType::kAttribute:
      return "attribute";
    case ReplyType::kPush:
      return "push";
    case ReplyType::kDouble:
      return "double";
    case ReplyType::kBool:
      return "bool";
    case ReplyType::kBigNumber:
      return "big number";
    case ReplyType::kVerbatim:
      return "verbatim";
  }
  return "unknown";
}

namespace {

constexpr size_t kMinReadRoom = 16 * 1024;
// Bulk payloads are stored with growth capped per step, so a peer announcing
// 512 MB and sending 10 bytes costs 10 bytes, not 512 MB.
constexpr size_t kMaxBulkReserve = 1024 * 1024;

// Strict signed decimal: optional '-', 1..19 digits, no overflow.
bool parseInt64(const char* p, size_t len, int64_t* out) {
  if (len == 0) return false;
  bool neg = p[0] == '-';
  size_t i = neg ? 1 : 0;
  if (i == len) return false;
  uint64_t v = 0;
  for (; i < len; i++) {
    if (p[i] < '0' || p[i] > '9') return false;
    uint64_t d = static_cast<uint64_t>(p[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  uint64_t limit = neg ? static_cast<uint64_t>(INT64_MAX) + 1 : static_cast<uint64_t>(INT64_MAX);
  if (v > limit) return false;
  *out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

bool parseDouble(const char* p, size_t len, double* out) {
  if (len == 0 || len > 512) return false;
  char tmp[513];
  memcpy(tmp, p, len);
  tmp[len] = '\0';
  if (strcasecmp(tmp, "inf") == 0 || strcasecmp(tmp, "+inf") == 0) {
    *out = INFINITY;
    return true;
  }
  if (strcasecmp(tmp, "-inf") == 0) {
    *out = -INFINITY;
    return true;
  }
  if (strcasecmp(tmp, "nan") == 0 || strcasecmp(tmp, "-nan") == 0) {
    *out = NAN;
    return true;
  }
  // strtod alone would also accept hex floats and leading blanks.
  for (size_t i = 0; i < len; i++) {
    char c = tmp[i];
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) {
      return false;
    }
  }
  char* end = nullptr;
  errno = 0;
  *out = strtod(tmp, &end);
  return end == tmp + len;
}

bool isBigNumber(const char* p, size_t len) {
  size_t i = (len > 0 && (p[0] == '-' || p[0] == '+')) ? 1 : 0;
  if (i == len) return false;
  for (; i < len; i++) {
    if (p[i] < '0' || p[i] > '9') return false;
  }
  return true;
}

std::string describeByte(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 32 && u < 127) return std::string(1, c);
  char tmp[8];
  snprintf(tmp, sizeof(tmp), "\\x%02x", u);
  return tmp;
}

}  // namespace

ReplyParser::ReplyParser(ReplyLimits limits) : limits_(limits) {}

void ReplyParser::reset() {
  buf_.clear();
  rpos_ = wpos_ = scanned_ = 0;
  stack_.clear();
  root_pending_attr_.reset();
  root_ = Reply();
  in_bulk_ = false;
  bulk_node_ = nullptr;
  error_.clear();
  failed_ = false;
}

size_t ReplyParser::takeRaw(std::string* out, size_t max) {
  if (!stack_.empty() || in_bulk_) return 0;  // a reply is half parsed
  size_t n = std::min(max, wpos_ - rpos_);
  out->append(buf_.data() + rpos_, n);
  rpos_ += n;
  scanned_ = 0;
  return n;
}

char* ReplyParser::prepare(size_t min, size_t* avail) {
  if (min < kMinReadRoom) min = kMinReadRoom;
  if (rpos_ == wpos_) {
    rpos_ = wpos_ = 0;
  } else if (buf_.size() - wpos_ < min && rpos_ > 0) {
    memmove(buf_.data(), buf_.data() + rpos_, wpos_ - rpos_);
    wpos_ -= rpos_;
    rpos_ = 0;
  }
  if (buf_.size() - wpos_ < min) {
    size_t want = buf_.size() * 2;
    if (want < wpos_ + min) want = wpos_ + min;
    buf_.resize(want);
  }
  *avail = buf_.size() - wpos_;
  return buf_.data() + wpos_;
}

void ReplyParser::commit(size_t n) {
  wpos_ += n;
}

void ReplyParser::feed(const void* data, size_t len) {
  size_t avail;
  char* p = prepare(len, &avail);
  memcpy(p, data, len);
  commit(len);
}

ReplyParser::Result ReplyParser::fail(std::string msg) {
  failed_ = true;
  error_ = "Protocol error, " + msg;
  return Result::kError;
}

ReplyParser::Result ReplyParser::next(Reply* out) {
  return parse(true, out, nullptr);
}

ReplyParser::Result ReplyParser::skim(ReplySummary* out) {
  return parse(false, nullptr, out);
}

Reply* ReplyParser::newNode(bool build, ReplyType type) {
  if (stack_.empty()) {
    top_type_ = type;
    skim_text_.clear();
  }
  if (!build) return nullptr;
  Reply* node;
  std::unique_ptr<Reply>* pending;
  if (stack_.empty()) {
    root_ = Reply();
    node = &root_;
    pending = &root_pending_attr_;
  } else {
    Frame& top = stack_.back();
    node = &top.node->elements.emplace_back();
    pending = &top.pending_attr;
  }
  node->type = type;
  if (*pending) node->attribute = std::move(*pending);
  return node;
}

bool ReplyParser::openAggregate(bool build, ReplyType type, int64_t n) {
  if (stack_.size() >= limits_.max_depth) return false;
  Frame f{type, type == ReplyType::kMap || type == ReplyType::kAttribute ? n * 2 : n, nullptr,
          nullptr, nullptr};
  if (type == ReplyType::kAttribute) {
    // Not a value of its own: it is parsed aside and attached to the value
    // that follows it at the same level.
    if (build) {
      f.owned = std::make_unique<Reply>();
      f.owned->type = type;
      f.node = f.owned.get();
    }
  } else {
    f.node = newNode(build, type);
    if (build) f.node->elements.reserve(static_cast<size_t>(n < 64 ? n : 64));
  }
  stack_.push_back(std::move(f));
  return true;
}

// Called after a value is complete. Pops finished aggregates; returns true
// when the top-level reply is complete.
bool ReplyParser::completeValue(bool build) {
  for (;;) {
    if (stack_.empty()) return true;
    Frame& top = stack_.back();
    if (top.remaining > 0) top.remaining--;
    if (top.remaining > 0) return false;
    Frame done = std::move(stack_.back());
    stack_.pop_back();
    if (done.type == ReplyType::kAttribute) {
      if (build) {
        if (stack_.empty()) {
          root_pending_attr_ = std::move(done.owned);
        } else {
          stack_.back().pending_attr = std::move(done.owned);
        }
      }
      return false;  // the value it describes is still to come
    }
  }
}

bool ReplyParser::finishBulk(bool build) {
  if (!build || bulk_node_ == nullptr) return true;
  Reply* n = bulk_node_;
  if (bulk_type_ == ReplyType::kVerbatim) {
    if (n->str.size() < 4 || n->str[3] != ':') return false;
    n->format = n->str.substr(0, 3);
    n->str.erase(0, 4);
  }
  return true;
}

ReplyParser::Result ReplyParser::parse(bool build, Reply* out, ReplySummary* sum) {
  if (failed_) return Result::kError;
  for (;;) {
    if (in_bulk_) {
      size_t avail = wpos_ - rpos_;
      if (bulk_left_ > 2) {
        size_t take = static_cast<size_t>(bulk_left_ - 2);
        if (take > avail) take = avail;
        // Skimming keeps a top-level error's message, and a short top-level
        // bulk's text (its total length is what is held plus what is left).
        bool keep = build ||
                    (stack_.empty() && (bulk_type_ == ReplyType::kError ||
                                        (bulk_type_ == ReplyType::kBulk &&
                                         static_cast<int64_t>(skim_text_.size()) + bulk_left_ - 2 <=
                                             static_cast<int64_t>(kSkimTextMax))));
        if (keep && take > 0) {
          std::string& dst = build ? bulk_node_->str : skim_text_;
          if (dst.capacity() < dst.size() + take) {
            size_t want = dst.size() + static_cast<size_t>(bulk_left_ - 2);
            size_t cap = dst.capacity() + kMaxBulkReserve;
            dst.reserve(want < cap ? want : cap);
          }
          dst.append(buf_.data() + rpos_, take);
        }
        rpos_ += take;
        bulk_left_ -= static_cast<int64_t>(take);
        if (bulk_left_ > 2) return Result::kIncomplete;
        avail = wpos_ - rpos_;
      }
      if (avail < 2) return Result::kIncomplete;
      if (buf_[rpos_] != '\r' || buf_[rpos_ + 1] != '\n') {
        return fail("bulk payload not followed by CRLF");
      }
      rpos_ += 2;
      in_bulk_ = false;
      if (!finishBulk(build)) return fail("verbatim string without a format prefix");
      bulk_node_ = nullptr;
      if (completeValue(build)) break;
      continue;
    }

    // Every other element starts with a line "<type><text>\r\n".
    const char* start = buf_.data() + rpos_;
    size_t avail = wpos_ - rpos_;
    const char* cr = nullptr;
    for (size_t i = scanned_; i + 1 < avail; i++) {
      const char* p = static_cast<const char*>(memchr(start + i, '\r', avail - 1 - i));
      if (p == nullptr) break;
      if (p[1] == '\n') {
        cr = p;
        break;
      }
      i = static_cast<size_t>(p - start);
    }
    if (cr == nullptr) {
      if (avail > limits_.max_line) return fail("line too long");
      scanned_ = avail > 0 ? avail - 1 : 0;
      return Result::kIncomplete;
    }
    scanned_ = 0;
    char kind = start[0];
    const char* text = start + 1;
    size_t len = static_cast<size_t>(cr - text);
    if (cr == start) return fail("empty line where a reply type byte was expected");
    rpos_ += static_cast<size_t>(cr - start) + 2;

    int64_t n = 0;
    switch (kind) {
      case '+':
      case '-': {
        ReplyType t = kind == '+' ? ReplyType::kStatus : ReplyType::kError;
        Reply* node = newNode(build, t);
        if (node) node->str.assign(text, len);
        if (!build && t == ReplyType::kError && stack_.empty()) skim_text_.assign(text, len);
        break;
      }
      case ':': {
        if (!parseInt64(text, len, &n)) return fail("bad integer value");
        Reply* node = newNode(build, ReplyType::kInteger);
        if (node) node->integer = n;
        break;
      }
      case ',': {
        double d;
        if (!parseDouble(text, len, &d)) return fail("bad double value");
        Reply* node = newNode(build, ReplyType::kDouble);
        if (node) {
          node->dval = d;
          node->str.assign(text, len);
        }
        break;
      }
      case '#': {
        if (len != 1 || (text[0] != 't' && text[0] != 'f')) return fail("bad bool value");
        Reply* node = newNode(build, ReplyType::kBool);
        if (node) node->integer = text[0] == 't';
        break;
      }
      case '_':
        if (len != 0) return fail("bad null value");
        newNode(build, ReplyType::kNil);
        break;
      case '(': {
        if (!isBigNumber(text, len)) return fail("bad big number value");
        Reply* node = newNode(build, ReplyType::kBigNumber);
        if (node) node->str.assign(text, len);
        break;
      }
      case '$':
      case '=':
      case '!': {
        if (!parseInt64(text, len, &n) || n < -1) return fail("bad bulk length");
        if (n > limits_.max_bulk) return fail("bulk length over the limit");
        if (n == -1) {
          if (kind != '$') return fail("bad bulk length");
          newNode(build, ReplyType::kNil);
          break;
        }
        bulk_type_ = kind == '$'   ? ReplyType::kBulk
                     : kind == '=' ? ReplyType::kVerbatim
                                   : ReplyType::kError;
        if (bulk_type_ == ReplyType::kVerbatim && n < 4) {
          return fail("verbatim string without a format prefix");
        }
        bulk_node_ = newNode(build, bulk_type_);
        in_bulk_ = true;
        bulk_left_ = n + 2;
        continue;
      }
      case '*':
      case '%':
      case '~':
      case '>':
      case '|': {
        if (!parseInt64(text, len, &n) || n < -1) return fail("bad aggregate length");
        if (n > limits_.max_elements) return fail("aggregate length over the limit");
        ReplyType t = kind == '*'   ? ReplyType::kArray
                      : kind == '%' ? ReplyType::kMap
                      : kind == '~' ? ReplyType::kSet
                      : kind == '>' ? ReplyType::kPush
                                    : ReplyType::kAttribute;
        if (n == -1) {
          if (t == ReplyType::kAttribute) return fail("bad aggregate length");
          Reply* node = newNode(build, ReplyType::kNil);
          if (node) node->null_array = true;
          break;
        }
        if (!openAggregate(build, t, n)) return fail("nesting too deep");
        if (n > 0) continue;
        // An empty aggregate is complete at once (an empty attribute is
        // dropped by completeValue() like any other).
        stack_.back().remaining = 1;
        break;
      }
      default:
        return fail("got \"" + describeByte(kind) + "\" as reply type byte");
    }
    if (completeValue(build)) break;
  }
  // A complete top-level reply.
  if (build) {
    *out = std::move(root_);
    root_ = Reply();
  } else {
    sum->type = top_type_;
    sum->error = top_type_ == ReplyType::kError ? std::string_view(skim_text_) : std::string_view();
    sum->text = top_type_ == ReplyType::kBulk ? std::string_view(skim_text_) : std::string_view();
  }
  return Result::kReply;
}

namespace {
template <typename Vec>
void appendCommandImpl(std::string* out, const Vec& argv) {
  char head[32];
  int n = snprintf(head, sizeof(head), "*%zu\r\n", argv.size());
  out->append(head, static_cast<size_t>(n));
  for (const auto& a : argv) {
    n = snprintf(head, sizeof(head), "$%zu\r\n", a.size());
    out->append(head, static_cast<size_t>(n));
    out->append(a.data(), a.size());
    out->append("\r\n", 2);
  }
}
}  // namespace

void appendCommand(std::string* out, const std::vector<std::string>& argv) {
  appendCommandImpl(out, argv);
}

void appendCommand(std::string* out, const std::vector<std::string_view>& argv) {
  appendCommandImpl(out, argv);
}

std::string encodeCommand(const std::vector<std::string>& argv) {
  std::string s;
  appendCommand(&s, argv);
  return s;
}

}  // namespace resp
