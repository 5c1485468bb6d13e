// Argument parsing shared by SCAN and the collection scans (ZSCAN, ...):
// the cursor and the MATCH / COUNT (/ TYPE) options, with Redis's errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace server {

class Client;

// The cursor as strtoul reads it (Redis's parser): optional sign, digits,
// nothing after them, no leading space, no overflow. False when invalid
// (callers reply "invalid cursor").
bool parseScanCursor(std::string_view s, uint64_t* out);

struct ScanOptions {
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false;  // false for a missing or lone "*" pattern
  std::string_view type;
  bool use_type = false;
};

// Options from argv[first] on; TYPE only where allow_type (SCAN). On error
// replies (syntax error, not an integer) and returns false.
bool parseScanOptions(Client* c, size_t first, bool allow_type, ScanOptions* o);

}  // namespace server
