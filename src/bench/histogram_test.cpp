// Unit tests of the benchmark's latency histogram (header-only, so the
// unit-test binary needs no src/bench objects).
#include "bench/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace bench {
namespace {

TEST(BenchHistogram, EmptyReportsZeros) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.valueAtPercentile(50), 0u);
  EXPECT_EQ(h.countAtOrBelow(1000), 0u);
}

TEST(BenchHistogram, SmallValuesAreExact) {
  Histogram h;
  for (uint64_t v = 1; v <= 100; v++) h.record(v);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.min(), 1u);
  EXPECT_EQ(h.max(), 100u);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
  EXPECT_EQ(h.valueAtPercentile(50), 50u);
  EXPECT_EQ(h.valueAtPercentile(95), 95u);
  EXPECT_EQ(h.valueAtPercentile(99), 99u);
  EXPECT_EQ(h.valueAtPercentile(100), 100u);
  EXPECT_EQ(h.valueAtPercentile(0), 1u);
  EXPECT_EQ(h.countAtOrBelow(10), 10u);
  EXPECT_EQ(h.countAtOrBelow(0), 0u);
  EXPECT_EQ(h.countAtOrBelow(1000), 100u);
}

TEST(BenchHistogram, BucketsAreContiguousAndBounded) {
  // Every value lands in a bucket whose bounds contain it, bucket indexes
  // never go backwards, and a bucket is at most 1/1024 of its values wide.
  size_t prev = 0;
  for (uint64_t v = 0; v < (uint64_t{1} << 20); v += (v < 5000 ? 1 : 37)) {
    size_t i = Histogram::bucketIndex(v);
    EXPECT_GE(i, prev);
    prev = i;
    ASSERT_LE(Histogram::lowestInBucket(i), v);
    ASSERT_GE(Histogram::highestInBucket(i), v);
    uint64_t width = Histogram::highestInBucket(i) - Histogram::lowestInBucket(i) + 1;
    ASSERT_LE(width * 1024, std::max<uint64_t>(v, 1024)) << v;
  }
  EXPECT_EQ(Histogram::bucketIndex(Histogram::kExact - 1) + 1,
            Histogram::bucketIndex(Histogram::kExact));
}

TEST(BenchHistogram, PercentilesMatchSortedDataWithinPrecision) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(6.0, 1.5);  // ~400 us median, long tail
  std::vector<uint64_t> values;
  Histogram h;
  for (int i = 0; i < 100000; i++) {
    auto v = static_cast<uint64_t>(dist(rng));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {1.0, 50.0, 90.0, 95.0, 99.0, 99.9}) {
    auto idx = static_cast<size_t>(std::ceil(p / 100.0 * values.size())) - 1;
    double exact = static_cast<double>(values[idx]);
    double got = static_cast<double>(h.valueAtPercentile(p));
    EXPECT_GE(got, exact) << "p" << p;
    EXPECT_LE(got, exact * 1.001 + 1) << "p" << p;
  }
  EXPECT_EQ(h.min(), values.front());
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.valueAtPercentile(100), values.back());
}

TEST(BenchHistogram, MergeEqualsRecordingEverythingInOne) {
  Histogram a, b, all;
  for (uint64_t v = 0; v < 5000; v++) {
    uint64_t x = v * 977 % 40000;
    (v % 3 == 0 ? a : b).record(x);
    all.record(x);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  for (double p : {10.0, 50.0, 99.0}) EXPECT_EQ(a.valueAtPercentile(p), all.valueAtPercentile(p));
  a.reset();
  EXPECT_EQ(a.count(), 0u);
  EXPECT_EQ(a.valueAtPercentile(50), 0u);
}

TEST(BenchHistogram, HugeValuesAreClamped) {
  Histogram h;
  h.record(UINT64_MAX);
  h.record(5);
  EXPECT_EQ(h.max(), Histogram::kMaxValue);
  EXPECT_EQ(h.valueAtPercentile(100), Histogram::kMaxValue);
  EXPECT_EQ(h.countAtOrBelow(5), 1u);
  EXPECT_EQ(h.countAtOrBelow(Histogram::kMaxValue), 2u);
}

}  // namespace
}  // namespace bench
