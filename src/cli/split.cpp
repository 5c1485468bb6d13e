#include "cli/split.h"

#include <cctype>

namespace cli {

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool isBlank(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0';
}

}  // namespace

std::optional<std::vector<std::string>> splitArgs(std::string_view line) {
  std::vector<std::string> args;
  size_t i = 0;
  const size_t n = line.size();
  for (;;) {
    while (i < n && isBlank(line[i])) i++;
    if (i >= n) return args;
    std::string cur;
    enum { kPlain, kDouble, kSingle } mode = kPlain;
    bool done = false;
    while (!done) {
      if (mode == kDouble) {
        if (i >= n) return std::nullopt;  // unterminated
        char c = line[i];
        if (c == '\\' && i + 3 < n && line[i + 1] == 'x' && hexValue(line[i + 2]) >= 0 &&
            hexValue(line[i + 3]) >= 0) {
          cur.push_back(static_cast<char>(hexValue(line[i + 2]) * 16 + hexValue(line[i + 3])));
          i += 4;
        } else if (c == '\\' && i + 1 < n) {
          char e = line[i + 1];
          switch (e) {
            case 'n':
              cur.push_back('\n');
              break;
            case 'r':
              cur.push_back('\r');
              break;
            case 't':
              cur.push_back('\t');
              break;
            case 'b':
              cur.push_back('\b');
              break;
            case 'a':
              cur.push_back('\a');
              break;
            default:
              cur.push_back(e);
              break;
          }
          i += 2;
        } else if (c == '"') {
          // The closing quote must end the argument.
          if (i + 1 < n && !isBlank(line[i + 1])) return std::nullopt;
          i++;
          done = true;
        } else {
          cur.push_back(c);
          i++;
        }
      } else if (mode == kSingle) {
        if (i >= n) return std::nullopt;
        char c = line[i];
        if (c == '\\' && i + 1 < n && line[i + 1] == '\'') {
          cur.push_back('\'');
          i += 2;
        } else if (c == '\'') {
          if (i + 1 < n && !isBlank(line[i + 1])) return std::nullopt;
          i++;
          done = true;
        } else {
          cur.push_back(c);
          i++;
        }
      } else {
        if (i >= n || isBlank(line[i])) {
          done = true;
        } else if (line[i] == '"') {
          mode = kDouble;
          i++;
        } else if (line[i] == '\'') {
          mode = kSingle;
          i++;
        } else {
          cur.push_back(line[i]);
          i++;
        }
      }
    }
    args.push_back(std::move(cur));
  }
}

std::optional<std::string> unquoteArg(std::string_view s) {
  auto parts = splitArgs(s);
  if (!parts || parts->size() != 1) return std::nullopt;
  return (*parts)[0];
}

}  // namespace cli
