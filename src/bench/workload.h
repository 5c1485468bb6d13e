// The benchmark's tests: which commands each one sends, and the request
// buffers with __rand_int__ placeholders filled in per request.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/options.h"

namespace bench {

// Every occurrence of this in an argument is replaced by a 12-digit random
// number when -r is given (same length, so buffers never change size).
inline constexpr std::string_view kRandPlaceholder = "__rand_int__";
inline constexpr size_t kRandDigits = 12;
static_assert(kRandPlaceholder.size() == kRandDigits);
// In cluster mode (--cluster) the three characters after the '{' of each
// "{tag}" become a hash tag of a slot the client's master owns.
inline constexpr std::string_view kTagPlaceholder = "{tag}";

struct Test {
  std::string title;    // printed: "SET", "MSET (10 keys)", "LRANGE_100 (first 100 elements)"
  std::string request;  // one request in RESP (inline for PING_INLINE)
};

// RESP multi-bulk encoding of argv.
std::string encodeCommand(const std::vector<std::string>& argv);

// The tests to run, in the order redis-benchmark 7.0 runs them: the
// command given after the options, or the -t selection, or the default set
// (ping_inline ping_mbulk set get incr mset).
std::vector<Test> selectTests(const Options& opt);

// xorshift64*: cheap per-thread randomness for key substitution.
class Random {
 public:
  explicit Random(uint64_t seed) : s_(seed == 0 ? 0x9e3779b97f4a7c15ULL : seed) {}
  uint64_t next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545f4914f6cdd1dULL;
  }

 private:
  uint64_t s_;
};

// `copies` requests back to back, with the offsets of every placeholder.
class RequestBuffer {
 public:
  RequestBuffer(const std::string& request, int copies);
  size_t requestSize() const { return request_size_; }
  // The first n requests, each placeholder replaced by a number in
  // [0, keyspace) when keyspace > 0 (else left as is).
  std::string_view prepare(int n, long long keyspace, Random* rng);
  bool hasTags() const { return !tag_offsets_.empty(); }
  // Writes the 3 tag bytes (see kTagPlaceholder) into every copy.
  void setTag(std::string_view tag3);

 private:
  std::string bytes_;
  size_t request_size_;
  std::vector<size_t> rand_offsets_;  // sorted
  std::vector<size_t> tag_offsets_;
};

}  // namespace bench
