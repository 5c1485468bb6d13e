// Output for signal handlers: formats into a fixed buffer and writes it with
// write(2), using only async-signal-safe calls (no stdio, no allocation, no
// locale or time-zone lookups). Lines in the log's format get their local
// time from an offset to UTC taken once at start (rememberTimeZone), since
// localtime() may lock.
#pragma once

#include <cstddef>
#include <cstdint>

namespace server::crash {

// Records the current UTC offset for SafeOut::logPrefix. Call at start.
void rememberTimeZone();

class SafeOut {
 public:
  explicit SafeOut(int fd) : fd_(fd) {}
  ~SafeOut() { flush(); }
  SafeOut(const SafeOut&) = delete;
  SafeOut& operator=(const SafeOut&) = delete;

  SafeOut& str(const char* s);
  SafeOut& bytes(const char* p, size_t n);
  SafeOut& dec(int64_t v);
  // Lower-case hex, zero-padded to `width` digits (0: no padding).
  SafeOut& hex(uint64_t v, int width = 0);
  // "<pid>:<role> dd Mon yyyy HH:MM:SS.mmm # " as logging writes a warning.
  SafeOut& logPrefix();
  // One argument as Redis quotes it in a crash report: "..." with \n, \r,
  // \t, \a, \b, \" and \\ escaped and other bytes outside printable ASCII
  // as \xHH; at most max_bytes of it, then the count of bytes left out.
  SafeOut& quoted(const char* p, size_t n, size_t max_bytes);
  void flush();

 private:
  int fd_;
  char buf_[512];
  size_t len_ = 0;
};

}  // namespace server::crash
