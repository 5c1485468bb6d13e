// A log-linear latency histogram (HdrHistogram-like) for redis-benchmark.
//
// Values are non-negative integers (the benchmark records microseconds).
// Values below kExact (2048) each have their own bucket; above that every
// power-of-two range [2^k, 2^(k+1)) is split into kHalf (1024) equal buckets,
// so any recorded value is known to within 1/1024 (< 0.1%) of itself.
// Values above kMaxValue are clamped to it. min() and max() are exact.
//
// Header-only so that the unit-test binary (which does not link src/bench)
// can test it directly. Not thread-safe: one histogram per thread, merged.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

class Histogram {
 public:
  static constexpr int kSubBits = 11;
  static constexpr uint64_t kExact = uint64_t{1} << kSubBits;     // 2048
  static constexpr uint64_t kHalf = kExact / 2;                   // 1024
  static constexpr uint64_t kMaxValue = (uint64_t{1} << 40) - 1;  // ~12.7 days in us
  static_assert(kExact == 2 * kHalf);

  Histogram() : counts_(bucketIndex(kMaxValue) + 1, 0) {}

  void record(uint64_t v) { recordN(v, 1); }
  void recordN(uint64_t v, uint64_t n) {
    if (n == 0) return;
    v = std::min(v, kMaxValue);
    counts_[bucketIndex(v)] += n;
    if (total_ == 0 || v < min_) min_ = v;
    if (total_ == 0 || v > max_) max_ = v;
    total_ += n;
    sum_ += static_cast<double>(v) * static_cast<double>(n);
  }
  void merge(const Histogram& o) {
    if (o.total_ == 0) return;
    for (size_t i = 0; i < counts_.size(); i++) counts_[i] += o.counts_[i];
    if (total_ == 0 || o.min_ < min_) min_ = o.min_;
    if (total_ == 0 || o.max_ > max_) max_ = o.max_;
    total_ += o.total_;
    sum_ += o.sum_;
  }
  void reset() {
    std::fill(counts_.begin(), counts_.end(), 0);
    total_ = 0;
    sum_ = 0;
    min_ = max_ = 0;
  }

  uint64_t count() const { return total_; }
  uint64_t min() const { return min_; }  // 0 when empty
  uint64_t max() const { return max_; }  // 0 when empty
  double mean() const { return total_ == 0 ? 0.0 : sum_ / static_cast<double>(total_); }

  // The smallest bucket bound V such that at least p percent of the values
  // are <= V (p in [0, 100]); reported as the bucket's highest value,
  // clamped to [min(), max()]. 0 when empty.
  uint64_t valueAtPercentile(double p) const {
    if (total_ == 0) return 0;
    p = std::clamp(p, 0.0, 100.0);
    auto want = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total_)));
    want = std::max<uint64_t>(want, 1);
    uint64_t seen = 0;
    for (size_t i = 0; i < counts_.size(); i++) {
      seen += counts_[i];
      if (seen >= want) return std::clamp(highestInBucket(i), min_, max_);
    }
    return max_;
  }
  // How many recorded values are in buckets wholly <= v (exact below kExact).
  uint64_t countAtOrBelow(uint64_t v) const {
    if (total_ == 0) return 0;
    if (v >= max_) return total_;
    size_t last = bucketIndex(std::min(v, kMaxValue));
    // The bucket holding v counts only if all of it is <= v.
    if (highestInBucket(last) > v) {
      if (last == 0) return 0;
      last--;
    }
    uint64_t seen = 0;
    for (size_t i = 0; i <= last; i++) seen += counts_[i];
    return seen;
  }

  static size_t bucketIndex(uint64_t v) {
    if (v < kExact) return static_cast<size_t>(v);
    int shift = std::bit_width(v) - kSubBits;  // >= 1
    return static_cast<size_t>(shift) * kHalf + static_cast<size_t>(v >> shift);
  }
  static uint64_t lowestInBucket(size_t i) {
    if (i < kExact) return i;
    uint64_t shift = i / kHalf - 1;
    return (i - shift * kHalf) << shift;
  }
  static uint64_t highestInBucket(size_t i) {
    if (i < kExact) return i;
    uint64_t shift = i / kHalf - 1;
    return lowestInBucket(i) + (uint64_t{1} << shift) - 1;
  }

 private:
  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
  double sum_ = 0;
  uint64_t min_ = 0;
  uint64_t max_ = 0;
};

}  // namespace bench
