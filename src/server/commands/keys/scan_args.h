// Argument parsing shared by the SCAN family (SCAN, HSCAN, SSCAN, ZSCAN):
// the cursor and the MATCH / COUNT / TYPE options, with Redis's errors.
#pragma once

#include <cstdint>
#include <string_view>

namespace resp {
class Writer;
}

namespace server {

class Client;

// The cursor is read the way strtoul reads it (Redis's parser): an optional
// sign, digits, nothing after them, no leading space, no overflow. "-1" is
// thus the largest cursor and "" is 0. False when it does not parse (the
// caller replies "invalid cursor").
bool parseScanCursor(std::string_view s, uint64_t* out);

struct ScanOptions {
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false;  // false for a missing MATCH and for MATCH *
  std::string_view type;
  bool use_type = false;
};

// Parses the options from argument `first` on; TYPE only when allow_type
// (SCAN). On error replies (syntax error, COUNT not an integer) and
// returns false.
bool parseScanOptions(Client* c, size_t first, bool allow_type, ScanOptions* o);

// Redis skips matching for the lone "*" (so it also returns the empty
// string, which the glob matcher would not); KEYS too.
bool patternMatchesAll(std::string_view pattern);

// Whether an element passes the MATCH filter.
bool scanMatches(const ScanOptions& o, std::string_view s);

// The most dict-scan steps one call may take for COUNT count: 10 buckets
// per element asked for (Redis's bound), so a sparse table cannot stall the
// server.
int64_t scanStepBudget(int64_t count);

// The opening HSCAN, SSCAN and ZSCAN share, in Redis's order: first the
// cursor at argv[2] ("invalid cursor"), then the key (the caller's typed
// lookup, which replies WRONGTYPE itself), then the options from argv[3] —
// a missing key answers an empty scan whatever the options say.
bool parseCollectionScanCursor(Client* c, uint64_t* cursor);
// After the lookup: replies the empty scan for a missing key, or parses the
// options (replying their error). True when the scan should go on.
bool collectionScanOptions(Client* c, bool key_exists, ScanOptions* o);

// Starts the reply: a two-element array whose first element is the next
// cursor as a bulk string; the caller then writes the array of elements.
void beginScanReply(resp::Writer& w, uint64_t cursor);

}  // namespace server
