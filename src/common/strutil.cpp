#include "common/strutil.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace strutil {

bool parseInt64(std::string_view s, int64_t* out) {
  size_t n = s.size();
  if (n == 0 || n > 20) return false;
  const char* p = s.data();
  if (n == 1 && p[0] == '0') {
    *out = 0;
    return true;
  }
  bool neg = false;
  size_t i = 0;
  if (p[0] == '-') {
    neg = true;
    i = 1;
    if (n == 1) return false;
  }
  if (p[i] < '1' || p[i] > '9') return false;
  uint64_t v = 0;
  for (; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return false;
    uint64_t d = static_cast<uint64_t>(p[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (neg) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

bool parseUint64(std::string_view s, uint64_t* out) {
  size_t n = s.size();
  if (n == 0 || n > 20) return false;
  if (n == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  if (s[0] < '1' || s[0] > '9') return false;
  uint64_t v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    uint64_t d = static_cast<uint64_t>(ch - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

int digits10(uint64_t v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    n++;
  }
  return n;
}

size_t formatInt64(int64_t v, char* buf) {
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  char tmp[24];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  size_t len = 0;
  if (v < 0) buf[len++] = '-';
  while (n > 0) buf[len++] = tmp[--n];
  return len;
}

std::string int64ToString(int64_t v) {
  char buf[24];
  return std::string(buf, formatInt64(v, buf));
}

bool parseLongDouble(std::string_view s, long double* out) {
  if (s.empty() || s.size() > 5 * 1024) return false;
  if (isspace(static_cast<unsigned char>(s[0]))) return false;
  char buf[5 * 1024 + 1];
  memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  long double v = strtold(buf, &end);
  if (end != buf + s.size() || std::isnan(v)) return false;
  if (errno == ERANGE && !std::isinf(v) && v != 0) return false;
  *out = v;
  return true;
}

bool parseDouble(std::string_view s, double* out) {
  if (s.empty() || s.size() > 5 * 1024) return false;
  if (isspace(static_cast<unsigned char>(s[0]))) return false;
  char buf[5 * 1024 + 1];
  memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  double v = strtod(buf, &end);
  if (end != buf + s.size() || std::isnan(v)) return false;
  if (errno == ERANGE && !std::isinf(v) && v != 0) return false;
  *out = v;
  return true;
}

std::string formatLongDouble(long double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[5 * 1024];
  // %.17Lf then trim: Redis avoids exponent notation for INCRBYFLOAT output.
  int len = snprintf(buf, sizeof(buf), "%.17Lf", v);
  if (len <= 0 || static_cast<size_t>(len) >= sizeof(buf)) return "0";
  if (strchr(buf, '.') != nullptr) {
    while (len > 0 && buf[len - 1] == '0') len--;
    if (len > 0 && buf[len - 1] == '.') len--;
  }
  if (len == 2 && buf[0] == '-' && buf[1] == '0') return "0";
  return std::string(buf, static_cast<size_t>(len));
}

size_t formatDouble(double v, char* buf, size_t cap) {
  if (std::isinf(v)) {
    const char* s = v > 0 ? "inf" : "-inf";
    size_t n = strlen(s);
    memcpy(buf, s, n);
    return n;
  }
  int n = snprintf(buf, cap, "%.17g", v);
  return n < 0 ? 0 : static_cast<size_t>(n);
}

static bool globMatchImpl(const char* p, size_t plen, const char* s, size_t slen, bool nocase,
                          int depth) {
  // Bounded recursion: a pattern like "*a*a*a*..." must not blow the stack.
  if (depth > 1000) return false;
  while (plen > 0 && slen > 0) {
    switch (p[0]) {
      case '*': {
        while (plen > 1 && p[1] == '*') {
          p++;
          plen--;
        }
        if (plen == 1) return true;
        while (slen > 0) {
          if (globMatchImpl(p + 1, plen - 1, s, slen, nocase, depth + 1)) return true;
          s++;
          slen--;
        }
        return globMatchImpl(p + 1, plen - 1, s, slen, nocase, depth + 1);
      }
      case '?':
        s++;
        slen--;
        break;
      case '[': {
        p++;
        plen--;
        bool negate = plen > 0 && p[0] == '^';
        if (negate) {
          p++;
          plen--;
        }
        bool match = false;
        while (plen > 0) {
          if (p[0] == '\\' && plen >= 2) {
            p++;
            plen--;
            if (p[0] == s[0]) match = true;
          } else if (p[0] == ']') {
            break;
          } else if (plen >= 3 && p[1] == '-') {
            int start = static_cast<unsigned char>(p[0]);
            int end = static_cast<unsigned char>(p[2]);
            int c = static_cast<unsigned char>(s[0]);
            if (start > end) std::swap(start, end);
            if (nocase) {
              start = tolower(start);
              end = tolower(end);
              c = tolower(c);
            }
            p += 2;
            plen -= 2;
            if (c >= start && c <= end) match = true;
          } else if (nocase ? tolower(static_cast<unsigned char>(p[0])) ==
                                  tolower(static_cast<unsigned char>(s[0]))
                            : p[0] == s[0]) {
            match = true;
          }
          p++;
          plen--;
        }
        if (plen == 0) {
          // Unterminated class: Redis treats the end of pattern as its end.
          p--;
          plen++;
        }
        if (negate) match = !match;
        if (!match) return false;
        s++;
        slen--;
        break;
      }
      case '\\':
        if (plen >= 2) {
          p++;
          plen--;
        }
        [[fallthrough]];
      default:
        if (nocase ? tolower(static_cast<unsigned char>(p[0])) !=
                         tolower(static_cast<unsigned char>(s[0]))
                   : p[0] != s[0])
          return false;
        s++;
        slen--;
        break;
    }
    p++;
    plen--;
    if (slen == 0) {
      while (plen > 0 && p[0] == '*') {
        p++;
        plen--;
      }
      break;
    }
  }
  return plen == 0 && slen == 0;
}

bool globMatch(std::string_view pattern, std::string_view str, bool nocase) {
  return globMatchImpl(pattern.data(), pattern.size(), str.data(), str.size(), nocase, 0);
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (tolower(static_cast<unsigned char>(a[i])) != tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

}  // namespace strutil
