#include "resp/writer.h"

#include "common/strutil.h"

namespace resp {

void Writer::header(char type, int64_t n) {
  char* p = out_->reserve(24);
  p[0] = type;
  size_t len = 1 + common::strutil::formatInt64(n, p + 1);
  p[len++] = '\r';
  p[len++] = '\n';
  out_->commit(len);
}

void Writer::endDeferred(void* slot, char type, int64_t n) {
  char buf[ReplyBuffer::kDeferredSlot];
  buf[0] = type;
  size_t len = 1 + common::strutil::formatInt64(n, buf + 1);
  buf[len++] = '\r';
  buf[len++] = '\n';
  out_->setDeferred(slot, buf, len);
}

void Writer::status(std::string_view s) {
  char* p = out_->reserve(s.size() + 3);
  p[0] = '+';
  memcpy(p + 1, s.data(), s.size());
  p[s.size() + 1] = '\r';
  p[s.size() + 2] = '\n';
  out_->commit(s.size() + 3);
}

void Writer::error(std::string_view msg) {
  // Redis's rule: a message starting with '-' carries its own code
  // ("-WRONGTYPE ..."); anything else gets "ERR ".
  if (!msg.empty() && msg[0] == '-') {
    msg.remove_prefix(1);
    out_->append("-", 1);
  } else {
    out_->append("-ERR ", 5);
  }
  char* p = out_->reserve(msg.size() + 2);
  for (size_t i = 0; i < msg.size(); i++) {
    char c = msg[i];
    p[i] = (c == '\r' || c == '\n') ? ' ' : c;
  }
  p[msg.size()] = '\r';
  p[msg.size() + 1] = '\n';
  out_->commit(msg.size() + 2);
}

void Writer::integer(int64_t v) {
  header(':', v);
}

void Writer::bulk(const void* data, size_t n) {
  // Header, payload and trailer in one reservation when it fits a chunk, so
  // a small GET reply costs one bounds check.
  if (n <= 4096) {
    char* p = out_->reserve(n + 26);
    p[0] = '$';
    size_t len = 1 + common::strutil::formatInt64(static_cast<int64_t>(n), p + 1);
    p[len++] = '\r';
    p[len++] = '\n';
    if (n > 0) memcpy(p + len, data, n);  // an empty view may have no data pointer
    len += n;
    p[len++] = '\r';
    p[len++] = '\n';
    out_->commit(len);
    return;
  }
  header('$', static_cast<int64_t>(n));
  out_->append(data, n);
  out_->append("\r\n", 2);
}

void Writer::bulkInt(int64_t v) {
  char buf[24];
  size_t n = common::strutil::formatInt64(v, buf);
  bulk(buf, n);
}

void Writer::null() {
  if (proto_ >= 3)
    out_->append("_\r\n", 3);
  else
    out_->append("$-1\r\n", 5);
}

void Writer::nullArray() {
  if (proto_ >= 3)
    out_->append("_\r\n", 3);
  else
    out_->append("*-1\r\n", 5);
}

void Writer::arrayLen(int64_t n) {
  header('*', n);
}
void Writer::mapLen(int64_t n) {
  header(proto_ >= 3 ? '%' : '*', proto_ >= 3 ? n : n * 2);
}
void Writer::setLen(int64_t n) {
  header(proto_ >= 3 ? '~' : '*', n);
}
void Writer::pushLen(int64_t n) {
  header(proto_ >= 3 ? '>' : '*', n);
}

void Writer::doubleValue(double v) {
  char buf[128];
  size_t n = common::strutil::formatDouble(v, buf, sizeof(buf));
  if (proto_ >= 3) {
    out_->append(",", 1);
    out_->append(buf, n);
    out_->append("\r\n", 2);
  } else {
    bulk(buf, n);
  }
}

void Writer::boolean(bool v) {
  if (proto_ >= 3)
    out_->append(v ? "#t\r\n" : "#f\r\n", 4);
  else
    out_->append(v ? ":1\r\n" : ":0\r\n", 4);
}

void Writer::verbatim(std::string_view text, const char* ext) {
  if (proto_ < 3) {
    bulk(text);
    return;
  }
  header('=', static_cast<int64_t>(text.size() + 4));
  out_->append(ext, 3);
  out_->append(":", 1);
  out_->append(text.data(), text.size());
  out_->append("\r\n", 2);
}

void Writer::bigNumber(std::string_view digits) {
  if (proto_ < 3) {
    bulk(digits);
    return;
  }
  out_->append("(", 1);
  out_->append(digits.data(), digits.size());
  out_->append("\r\n", 2);
}

}  // namespace resp
