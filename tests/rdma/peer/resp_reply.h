// Finds where the first complete RESP2/RESP3 reply in a buffer ends, so the
// test peer knows when a reply has fully arrived. No I/O, no allocation.
#pragma once

#include <cstdlib>
#include <string>

namespace peer {

// Returns the offset just past the reply starting at `pos`, or 0 if the
// buffer does not yet hold all of it.
inline size_t replyEndAt(const std::string& b, size_t pos) {
  if (pos >= b.size()) return 0;
  size_t eol = b.find("\r\n", pos);
  if (eol == std::string::npos) return 0;
  char type = b[pos];
  long n = strtol(b.c_str() + pos + 1, nullptr, 10);
  size_t next = eol + 2;
  switch (type) {
    case '$':  // bulk string
    case '=':  // verbatim string
    case '!':  // bulk error
      if (n < 0) return next;
      return b.size() >= next + static_cast<size_t>(n) + 2 ? next + static_cast<size_t>(n) + 2 : 0;
    case '*':
    case '~':
    case '>':
    case '%':
      if (n < 0) return next;
      for (long i = 0; i < (type == '%' ? 2 * n : n); i++) {
        next = replyEndAt(b, next);
        if (next == 0) return 0;
      }
      return next;
    default:  // + - : _ # , ( : one line
      return next;
  }
}

inline size_t replyEnd(const std::string& b) {
  return replyEndAt(b, 0);
}

}  // namespace peer
