#include "server/latency/histogram.h"

#include <algorithm>
#include <cmath>

namespace server::latency {

// Bucket layout: values below 2 * kSubBuckets have one bucket each; above,
// each power of two [2^k, 2^(k+1)) is split into kSubBuckets equal buckets.

size_t Histogram::indexOf(uint64_t v) {
  if (v < 2 * kSubBuckets) return static_cast<size_t>(v);
  int msb = 63 - __builtin_clzll(v);
  int shift = msb - kSubBits;                 // >= 1 here
  uint64_t sub = (v >> shift) - kSubBuckets;  // 0 .. kSubBuckets-1
  return static_cast<size_t>(2 * kSubBuckets + static_cast<uint64_t>(shift - 1) * kSubBuckets +
                             sub);
}

uint64_t Histogram::highestOf(size_t index) {
  if (index < 2 * kSubBuckets) return index;
  uint64_t rel = index - 2 * kSubBuckets;
  int shift = static_cast<int>(rel / kSubBuckets) + 1;
  uint64_t sub = rel % kSubBuckets + kSubBuckets;
  return ((sub + 1) << shift) - 1;
}

Histogram::Histogram() : counts_(indexOf(kMaxValue) + 1, 0) {}

void Histogram::record(uint64_t ns) {
  ns = std::clamp(ns, kMinValue, kMaxValue);
  counts_[indexOf(ns)]++;
  total_++;
}

uint64_t Histogram::valueAtPercentile(double p) const {
  if (total_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  uint64_t want = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total_)));
  if (want == 0) want = 1;
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); i++) {
    seen += counts_[i];
    if (seen >= want) return highestOf(i);
  }
  return kMaxValue;
}

uint64_t Histogram::countAtOrBelow(uint64_t ns) const {
  uint64_t n = 0;
  size_t last = indexOf(std::min(ns, kMaxValue));
  for (size_t i = 0; i <= last && i < counts_.size(); i++) {
    if (highestOf(i) <= ns) n += counts_[i];
  }
  return n;
}

}  // namespace server::latency
