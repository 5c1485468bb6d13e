// A log-linear latency histogram in the spirit of HDR histograms: values
// (nanoseconds) are counted in buckets whose width is 1/kSubBuckets of their
// power of two, so any percentile is known to within about 1.6% whatever
// the range, in constant memory (a few thousand counters) and O(1) per
// record. Used for the per-command latencies of INFO latencystats and
// LATENCY HISTOGRAM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace server::latency {

class Histogram {
 public:
  // Values outside [kMinValue, kMaxValue] are clamped into it, as Redis
  // tracks 1 microsecond to 1,000 seconds.
  static constexpr uint64_t kMinValue = 1000;
  static constexpr uint64_t kMaxValue = 1000000000000ull;

  Histogram();
  void record(uint64_t ns);
  uint64_t total() const { return total_; }
  // The value under which p percent of the recorded values fall (the top of
  // the bucket that holds it, as HDR's value_at_percentile). 0 if empty.
  uint64_t valueAtPercentile(double p) const;
  // Recorded values <= ns (an exact count at bucket boundaries).
  uint64_t countAtOrBelow(uint64_t ns) const;

 private:
  static constexpr int kSubBits = 6;
  static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBits;
  static size_t indexOf(uint64_t v);
  static uint64_t highestOf(size_t index);

  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
};

}  // namespace server::latency
