#include "server/crash/safe_out.h"

#include <time.h>
#include <unistd.h>

#include <cstring>

#include "common/log.h"

namespace server::crash {

namespace {
long g_utc_offset_s = 0;

// Days since 1970-01-01 to a civil date (proleptic Gregorian), the
// era-based method: no tables, no library calls.
void civilFromDays(int64_t z, int* y, int* m, int* d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = static_cast<int>(yoe + era * 400 + (*m <= 2 ? 1 : 0));
}
}  // namespace

void rememberTimeZone() {
  time_t now = time(nullptr);
  struct tm tm;
  if (localtime_r(&now, &tm) != nullptr) g_utc_offset_s = tm.tm_gmtoff;
}

SafeOut& SafeOut::bytes(const char* p, size_t n) {
  while (n > 0) {
    if (len_ == sizeof(buf_)) flush();
    size_t take = sizeof(buf_) - len_;
    if (take > n) take = n;
    memcpy(buf_ + len_, p, take);
    len_ += take;
    p += take;
    n -= take;
  }
  return *this;
}

SafeOut& SafeOut::str(const char* s) {
  return bytes(s, strlen(s));
}

SafeOut& SafeOut::dec(int64_t v) {
  char tmp[24];
  int i = sizeof(tmp);
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  do {
    tmp[--i] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (v < 0) tmp[--i] = '-';
  return bytes(tmp + i, sizeof(tmp) - i);
}

SafeOut& SafeOut::hex(uint64_t v, int width) {
  static const char digits[] = "0123456789abcdef";
  char tmp[16];
  int i = sizeof(tmp);
  do {
    tmp[--i] = digits[v & 15];
    v >>= 4;
  } while (v != 0);
  while (static_cast<int>(sizeof(tmp)) - i < width && i > 0) tmp[--i] = '0';
  return bytes(tmp + i, sizeof(tmp) - i);
}

SafeOut& SafeOut::logPrefix() {
  static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t local = static_cast<int64_t>(ts.tv_sec) + g_utc_offset_s;
  int64_t days = local >= 0 ? local / 86400 : (local - 86399) / 86400;
  int64_t secs = local - days * 86400;
  int y, m, d;
  civilFromDays(days, &y, &m, &d);
  auto two = [this](int64_t v) {
    char t[2] = {static_cast<char>('0' + v / 10), static_cast<char>('0' + v % 10)};
    bytes(t, 2);
  };
  dec(getpid());
  char role[2] = {':', common::logging::role()};
  bytes(role, 2).str(" ");
  two(d);
  str(" ").str(months[m - 1]).str(" ").dec(y).str(" ");
  two(secs / 3600);
  str(":");
  two(secs / 60 % 60);
  str(":");
  two(secs % 60);
  int64_t ms = ts.tv_nsec / 1000000;
  char msbuf[4] = {'.', static_cast<char>('0' + ms / 100), static_cast<char>('0' + ms / 10 % 10),
                   static_cast<char>('0' + ms % 10)};
  return bytes(msbuf, 4).str(" # ");
}

SafeOut& SafeOut::quoted(const char* p, size_t n, size_t max_bytes) {
  size_t shown = n < max_bytes ? n : max_bytes;
  str("\"");
  for (size_t i = 0; i < shown; i++) {
    unsigned char ch = static_cast<unsigned char>(p[i]);
    switch (ch) {
      case '\\':
        str("\\\\");
        break;
      case '"':
        str("\\\"");
        break;
      case '\n':
        str("\\n");
        break;
      case '\r':
        str("\\r");
        break;
      case '\t':
        str("\\t");
        break;
      case '\a':
        str("\\a");
        break;
      case '\b':
        str("\\b");
        break;
      default:
        if (ch >= 0x20 && ch < 0x7f) {
          char c = static_cast<char>(ch);
          bytes(&c, 1);
        } else {
          str("\\x").hex(ch, 2);
        }
    }
  }
  str("\"");
  if (shown < n) str(" ... (").dec(static_cast<int64_t>(n - shown)).str(" more bytes)");
  return *this;
}

void SafeOut::flush() {
  size_t off = 0;
  while (off < len_) {
    ssize_t w = write(fd_, buf_ + off, len_ - off);
    if (w <= 0) break;  // nothing better to do from a signal handler
    off += static_cast<size_t>(w);
  }
  len_ = 0;
}

}  // namespace server::crash
