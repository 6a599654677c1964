#include <gtest/gtest.h>

#include <cmath>

#include "core/half.h"

using ct::BFloat16;
using ct::Half;

TEST(Half, RoundTripsEveryFiniteHalf) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    if ((h & 0x7c00u) == 0x7c00u) continue;  // inf and NaN checked below
    EXPECT_EQ(Half::from_float(Half::to_float(h)), h) << std::hex << bits;
  }
}

TEST(Half, EveryHalfConvertsToItsExactFloat) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    const float sign = (h & 0x8000u) ? -1.0f : 1.0f;
    const float got = Half::to_float(h);
    if (exp == 0x1f && mant != 0) {
      EXPECT_TRUE(std::isnan(got)) << std::hex << bits;
      continue;
    }
    const float want = exp == 0x1f ? sign * INFINITY
                       : exp == 0  ? sign * std::ldexp(static_cast<float>(mant), -24)
                                   : sign * std::ldexp(1.0f + static_cast<float>(mant) / 1024, exp - 15);
    EXPECT_EQ(got, want) << std::hex << bits;
    EXPECT_EQ(std::signbit(got), (h & 0x8000u) != 0) << std::hex << bits;
  }
}

TEST(Half, RoundsToNearestEvenAndOverflowsToInf) {
  EXPECT_EQ(float(Half(1.0f + 1.0f / 2048)), 1.0f);  // halfway: ties to even (1.0)
  EXPECT_EQ(float(Half(1.0f + 3.0f / 2048)), 1.0f + 2.0f / 1024);
  EXPECT_EQ(float(Half(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(float(Half(65536.0f))));
  EXPECT_TRUE(std::isnan(float(Half(NAN))));
  EXPECT_EQ(float(Half(5.9604645e-08f)), 5.9604645e-08f);  // smallest subnormal
}

TEST(BFloat16, KeepsTheTopBitsRoundedToNearestEven) {
  EXPECT_EQ(float(BFloat16(1.0f)), 1.0f);
  EXPECT_EQ(float(BFloat16(3.140625f)), 3.140625f);
  EXPECT_TRUE(std::isnan(float(BFloat16(NAN))));
}
