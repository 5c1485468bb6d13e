// Distinct random picks for SRANDMEMBER / HRANDFIELD / SPOP with a positive
// count smaller than the collection. Two strategies, as Redis uses:
//   - copy every element and shuffle the first `count` places (compact
//     encodings, whose random access is O(n), and counts that are a large
//     part of the collection);
//   - otherwise draw random elements and skip repeats (few picks from a big
//     hashtable, where a draw is O(1) and repeats are rare).
#pragma once

#include <cstddef>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common/hash.h"
#include "server/core/client.h"
#include "server/core/state.h"
#include "server/request/obuf_limits.h"

namespace server {

// Above this count/size ratio a draw would often repeat: copy instead.
inline constexpr size_t kSampleCopyRatio = 3;

// T is the element copy (std::string, a field/value pair ...).
//   copy_all: use the copy strategy regardless of the ratio
//   collect(std::vector<T>*): appends every element
//   draw(): one random element as a T
//   key(const T&): the part that identifies an element (for repeats)
template <class T, class Collect, class Draw, class Key>
std::vector<T> sampleDistinct(size_t size, size_t count, bool copy_all, Collect collect, Draw draw,
                              Key key) {
  std::vector<T> picked;
  if (copy_all || count * kSampleCopyRatio > size) {
    picked.reserve(size);
    collect(&picked);
    for (size_t i = 0; i < count; i++) {
      std::swap(picked[i], picked[i + common::randomU64() % (size - i)]);
    }
    picked.resize(count);
    return picked;
  }
  std::unordered_set<std::string> seen;
  while (picked.size() < count) {
    T t = draw();
    if (seen.emplace(key(t)).second) picked.push_back(std::move(t));
  }
  return picked;
}

// Bytes of one RESP bulk string of `len` bytes ("$<len>\r\n...\r\n").
inline size_t bulkReplyBytes(size_t len) {
  size_t digits = 1;
  for (size_t v = len; v >= 10; v /= 10) digits++;
  return len + digits + 5;
}

// A negative count (picks with repetitions: SRANDMEMBER, HRANDFIELD,
// ZRANDMEMBER) sizes the reply by what the caller asks, not by the key, and
// the reply is built whole before any of it is sent: -2^62 would exhaust
// memory (Redis 7.0 dies of it). Such a reply is refused when its expected
// size, n picks times the mean size of a few sampled picks, exceeds
// proto-max-bulk-len, unless the client's output hard limit is lower: that
// limit then stops the picks midway (repeatPicksStopped), as in Redis.
// sample_bytes() draws one pick and returns its reply bytes. Returns true
// after replying with the error.
template <class SampleBytes>
bool refuseOversizedRepeatReply(Client* c, uint64_t n, SampleBytes sample_bytes) {
  constexpr int kSamples = 8;
  double total = 0;
  for (int i = 0; i < kSamples; i++) total += static_cast<double>(sample_bytes());
  double expected = total / kSamples * static_cast<double>(n);
  int64_t limit = g_server->config.proto_max_bulk_len;
  if (expected <= static_cast<double>(limit)) return false;
  int64_t hard = outputHardLimit(c);
  if (hard > 0 && hard < limit) return false;
  c->addErrorFormat(
      "count is too large: the reply would take about %.0f bytes, more than proto-max-bulk-len "
      "(%lld)",
      expected, static_cast<long long>(limit));
  return true;
}

// Called after pick i of a repeating pick loop: every 1024 picks the output
// limits are applied, and true means the client was scheduled to close by
// them, so the loop stops (the rest of the reply would go nowhere).
inline bool repeatPicksStopped(Client* c, uint64_t i) {
  if ((i & 1023) != 1023) return false;
  enforceOutputBufferLimits(c);
  return (c->flags & kCloseAsap) != 0;
}

}  // namespace server
