// compile_metrics_test.cpp - the compile-latency histogram: exact small values, bounded error,
// constant size whatever the number of compiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "compile/compiled.h"

namespace ct::compile {
namespace {

TEST(LatencyHistogram, IsZeroBeforeAnyValue) {
  LatencyHistogram h;
  EXPECT_EQ(h.percentile(50), 0);
  EXPECT_EQ(h.percentile(95), 0);
}

TEST(LatencyHistogram, ValuesBelowSixteenAreExact) {
  LatencyHistogram h;
  for (int64_t v : {3, 9, 1, 15, 7}) h.record(v);
  EXPECT_EQ(h.percentile(0), 1);
  EXPECT_EQ(h.percentile(50), 7);
  EXPECT_EQ(h.percentile(100), 15);
}

TEST(LatencyHistogram, PercentilesAreWithinAnEighthOfTheSortedValue) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(8.0, 2.0);
  LatencyHistogram h;
  std::vector<int64_t> all;
  for (int i = 0; i < 20000; ++i) {
    const auto v = static_cast<int64_t>(dist(rng));
    all.push_back(v);
    h.record(v);
  }
  std::sort(all.begin(), all.end());
  for (double p : {1.0, 25.0, 50.0, 90.0, 95.0, 99.0}) {
    const auto want = static_cast<double>(all[static_cast<size_t>(p / 100.0 * (all.size() - 1) + 0.5)]);
    EXPECT_LE(std::fabs(static_cast<double>(h.percentile(p)) - want), std::max(0.125 * want, 1.0)) << "p" << p;
  }
}

TEST(LatencyHistogram, HoldsExtremeValuesInFixedSpace) {
  LatencyHistogram h;
  const size_t size = sizeof h;
  for (int i = 0; i < 1000000; ++i) h.record(i % 3 == 0 ? INT64_MAX : i % 3 == 1 ? -5 : 123456);
  EXPECT_EQ(sizeof h, size);
  EXPECT_EQ(h.percentile(0), 0);  // a negative duration counts as 0
  EXPECT_GT(h.percentile(100), int64_t{1} << 61);
  const int64_t mid = h.percentile(50);
  EXPECT_LE(std::llabs(mid - 123456), 123456 / 8);
}

}  // namespace
}  // namespace ct::compile
