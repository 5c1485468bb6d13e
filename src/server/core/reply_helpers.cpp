#include "server/core/reply_helpers.h"

#include <cstdarg>
#include <cstdio>

#include "server/core/client.h"

namespace server {

void replyHelp(Client* c, std::span<const char* const> lines) {
  c->addArrayLen(static_cast<int64_t>(lines.size()));
  for (const char* line : lines) c->addStatus(line);
}

void appendFormat(std::string* out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof(buf)) {
    out->append(buf, static_cast<size_t>(n));
    return;
  }
  // Long values (paths) take the slow road.
  std::string big(static_cast<size_t>(n) + 1, '\0');
  va_start(ap, fmt);
  vsnprintf(big.data(), big.size(), fmt, ap);
  va_end(ap);
  big.pop_back();
  out->append(big);
}

std::string bytesToHuman(uint64_t n) {
  char buf[64];
  const double d = static_cast<double>(n);
  if (n < 1024) {
    snprintf(buf, sizeof(buf), "%lluB", static_cast<unsigned long long>(n));
  } else if (n < (1ull << 20)) {
    snprintf(buf, sizeof(buf), "%.2fK", d / 1024);
  } else if (n < (1ull << 30)) {
    snprintf(buf, sizeof(buf), "%.2fM", d / (1 << 20));
  } else if (n < (1ull << 40)) {
    snprintf(buf, sizeof(buf), "%.2fG", d / (1ull << 30));
  } else if (n < (1ull << 50)) {
    snprintf(buf, sizeof(buf), "%.2fT", d / (1ull << 40));
  } else if (n < (1ull << 60)) {
    snprintf(buf, sizeof(buf), "%.2fP", d / (1ull << 50));
  } else {
    snprintf(buf, sizeof(buf), "%lluB", static_cast<unsigned long long>(n));
  }
  return buf;
}

}  // namespace server
