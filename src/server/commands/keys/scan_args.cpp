#include "server/commands/keys/scan_args.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/strutil.h"
#include "resp/writer.h"
#include "server/core/client.h"

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
    if (common::strutil::equalsIgnoreCase(opt, "COUNT") && has_next) {
      if (!c->argInt64(i + 1, &o->count)) return false;
      if (o->count < 1) {
        c->addSyntaxError();
        return false;
      }
    } else if (common::strutil::equalsIgnoreCase(opt, "MATCH") && has_next) {
      o->pattern = c->arg(i + 1);
      o->use_pattern = !patternMatchesAll(o->pattern);
    } else if (allow_type && common::strutil::equalsIgnoreCase(opt, "TYPE") && has_next) {
      o->type = c->arg(i + 1);
      o->use_type = true;
    } else {
      c->addSyntaxError();
      return false;
    }
  }
  return true;
}

bool parseCollectionScanCursor(Client* c, uint64_t* cursor) {
  if (parseScanCursor(c->arg(2), cursor)) return true;
  c->addError("invalid cursor");
  return false;
}

bool collectionScanOptions(Client* c, bool key_exists, ScanOptions* o) {
  if (key_exists) return parseScanOptions(c, 3, false, o);
  beginScanReply(c->reply(), 0);
  c->reply().arrayLen(0);
  return false;
}

bool patternMatchesAll(std::string_view pattern) {
  return pattern.size() == 1 && pattern[0] == '*';
}

bool scanMatches(const ScanOptions& o, std::string_view s) {
  return !o.use_pattern || common::strutil::globMatch(o.pattern, s);
}

int64_t scanStepBudget(int64_t count) {
  return count > INT64_MAX / 10 ? INT64_MAX : count * 10;
}

void beginScanReply(resp::Writer& w, uint64_t cursor) {
  w.arrayLen(2);
  char buf[24];
  int n = snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(cursor));
  w.bulk(buf, static_cast<size_t>(n));
}

}  // namespace server
