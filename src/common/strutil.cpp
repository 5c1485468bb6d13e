#include "common/strutil.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace common::strutil {

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
  if (n - i <= 19) {
    // 19 digits cannot overflow uint64_t: no per-digit check (this parses
    // every RESP length the server reads).
    for (; i < n; i++) {
      unsigned d = static_cast<unsigned>(static_cast<unsigned char>(p[i]) - '0');
      if (d > 9) return false;
      v = v * 10 + d;
    }
  } else {
    for (; i < n; i++) {
      if (p[i] < '0' || p[i] > '9') return false;
      uint64_t d = static_cast<uint64_t>(p[i] - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
    }
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

namespace {
// Whole-string strtod/strtold with Redis's rules: no leading space, nothing
// left over, not NaN, and no overflow to +-inf or underflow to 0 (a literal
// "inf" is fine: it sets no ERANGE).
template <class T>
bool parseFloating(std::string_view s, T* out, T (*conv)(const char*, char**)) {
  if (s.empty() || s.size() > 5 * 1024) return false;
  if (isspace(static_cast<unsigned char>(s[0]))) return false;
  char buf[5 * 1024 + 1];
  memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  T v = conv(buf, &end);
  if (end != buf + s.size() || std::isnan(v)) return false;
  if (errno == ERANGE && (std::isinf(v) || v == 0)) return false;
  *out = v;
  return true;
}
}  // namespace

bool parseLongDouble(std::string_view s, long double* out) {
  return parseFloating<long double>(s, out, strtold);
}

bool parseDouble(std::string_view s, double* out) {
  return parseFloating<double>(s, out, strtod);
}

bool parseFloatOperand(std::string_view s, long double* out) {
  if (!parseLongDouble(s, out)) return false;
  return !std::isinf(*out) || s.find_first_of("iI") != std::string_view::npos;
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

namespace {

int foldCase(int c, bool nocase) {
  return nocase ? tolower(c) : c;
}

// Matches the single pattern element at p (a literal, '?', "\\x" or a
// "[...]" class) against c. Returns the element's length in the pattern, and
// sets *ok. Never called on '*'.
size_t matchElement(const char* p, size_t plen, unsigned char c, bool nocase, bool* ok) {
  if (p[0] == '?') {
    *ok = true;
    return 1;
  }
  if (p[0] == '\\' && plen >= 2) {
    *ok = foldCase(static_cast<unsigned char>(p[1]), nocase) == foldCase(c, nocase);
    return 2;
  }
  if (p[0] != '[') {
    *ok = foldCase(static_cast<unsigned char>(p[0]), nocase) == foldCase(c, nocase);
    return 1;
  }
  size_t i = 1;
  bool negate = i < plen && p[i] == '^';
  if (negate) i++;
  bool match = false;
  while (i < plen && p[i] != ']') {
    if (p[i] == '\\' && i + 1 < plen) {
      if (static_cast<unsigned char>(p[i + 1]) == c) match = true;
      i += 2;
    } else if (i + 2 < plen && p[i + 1] == '-') {
      int lo = foldCase(static_cast<unsigned char>(p[i]), nocase);
      int hi = foldCase(static_cast<unsigned char>(p[i + 2]), nocase);
      if (lo > hi) std::swap(lo, hi);
      int ch = foldCase(c, nocase);
      if (ch >= lo && ch <= hi) match = true;
      i += 3;
    } else {
      if (foldCase(static_cast<unsigned char>(p[i]), nocase) == foldCase(c, nocase)) match = true;
      i++;
    }
  }
  // An unterminated class ends with the pattern (as Redis treats it).
  *ok = negate ? !match : match;
  return i < plen ? i + 1 : plen;
}

}  // namespace

// Iterative matching with one backtrack point (the last '*'): each element
// other than '*' matches exactly one byte, so retrying from the last star is
// enough, and the cost is O(pattern * string) even for hostile patterns like
// "a*a*a*...b" (a recursive matcher takes exponential time there).
bool globMatch(std::string_view pattern, std::string_view str, bool nocase) {
  const char* p = pattern.data();
  size_t plen = pattern.size(), slen = str.size();
  size_t pi = 0, si = 0;
  size_t star_p = SIZE_MAX, star_s = 0;
  while (si < slen) {
    if (pi < plen && p[pi] == '*') {
      while (pi < plen && p[pi] == '*') pi++;
      if (pi == plen) return true;
      star_p = pi;
      star_s = si;
      continue;
    }
    if (pi < plen) {
      bool ok;
      size_t n = matchElement(p + pi, plen - pi, static_cast<unsigned char>(str[si]), nocase, &ok);
      if (ok) {
        pi += n;
        si++;
        continue;
      }
    }
    if (star_p == SIZE_MAX) return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < plen && p[pi] == '*') pi++;
  return pi == plen;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  // ASCII folding inline: this runs for every command name lookup, and
  // libc's tolower() is a call and a locale table per byte.
  auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c | 0x20) : c; };
  for (size_t i = 0; i < a.size(); i++) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace common::strutil
