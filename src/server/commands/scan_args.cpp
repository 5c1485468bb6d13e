#include "server/commands/scan_args.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "common/strutil.h"
#include "server/client.h"

namespace server {

bool parseScanCursor(std::string_view s, uint64_t* out) {
  std::string buf(s);
  if (!buf.empty() && isspace(static_cast<unsigned char>(buf[0]))) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = strtoull(buf.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return false;
  *out = v;
  return true;
}

bool parseScanOptions(Client* c, size_t first, bool allow_type, ScanOptions* o) {
  for (size_t i = first; i < c->argc(); i += 2) {
    std::string_view opt = c->arg(i);
    bool has_next = i + 1 < c->argc();
    if (strutil::equalsIgnoreCase(opt, "COUNT") && has_next) {
      if (!c->argInt64(i + 1, &o->count)) return false;
      if (o->count < 1) {
        c->addSyntaxError();
        return false;
      }
    } else if (strutil::equalsIgnoreCase(opt, "MATCH") && has_next) {
      o->pattern = c->arg(i + 1);
      // Redis skips matching for the lone "*" (so it also returns the
      // empty string, which the glob matcher would not).
      o->use_pattern = !(o->pattern.size() == 1 && o->pattern[0] == '*');
    } else if (allow_type && strutil::equalsIgnoreCase(opt, "TYPE") && has_next) {
      o->type = c->arg(i + 1);
      o->use_type = true;
    } else {
      c->addSyntaxError();
      return false;
    }
  }
  return true;
}

bool scanMatches(const ScanOptions& o, std::string_view s) {
  return !o.use_pattern || strutil::globMatch(o.pattern, s);
}

}  // namespace server
