// The float32 functions of vec_math.h against double-precision libm, in float32 ulps of the
// correctly rounded result, and their special values. See Note [Vectorizable float32 math].
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/cpu/vec_math.h"

namespace vm = ct::cpu::vm;

namespace {

float from_bits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// |y - ref| in units of the float32 ulp at ref (2^-149 at the bottom); infinite when y is NaN or
// infinite and the rounded ref is not the same.
double ulp_error(float y, double ref) {
  const float rf = static_cast<float>(ref);
  if (std::isnan(rf) || std::isinf(rf) || std::isinf(y) || std::isnan(y)) {
    const bool same = (std::isnan(rf) && std::isnan(y)) || rf == y;
    return same ? 0.0 : std::numeric_limits<double>::infinity();
  }
  int e = 0;
  std::frexp(ref, &e);
  const double ulp = std::ldexp(1.0, std::max(e - 24, -149));
  return std::fabs(static_cast<double>(y) - ref) / ulp;
}

struct Worst {
  double err = 0;
  float at = 0;
};

template <typename F, typename R>
void sweep(std::vector<float> const& xs, F f, R ref, Worst& w) {
  for (float x : xs) {
    const double e = ulp_error(f(x), ref(static_cast<double>(x)));
    if (!(e <= w.err)) {
      w.err = e;
      w.at = x;
    }
  }
}

// Every float32 bit pattern with a stride (all magnitudes, both signs), plus every k-th float in
// [lo, hi] densely (about n of them).
std::vector<float> inputs(float lo, float hi, int64_t n) {
  std::vector<float> xs;
  for (uint64_t u = 0; u < (1ull << 32); u += 4093) xs.push_back(from_bits(static_cast<uint32_t>(u)));
  const double step = (static_cast<double>(hi) - lo) / static_cast<double>(n);
  for (int64_t i = 0; i <= n; ++i) xs.push_back(static_cast<float>(lo + step * static_cast<double>(i)));
  // All floats just around 0, the range reductions' boundaries and where the formulas switch.
  for (float c : {0.0f, 0.34657359f, 0.5f, 1.0f, 2.0f, 9.0f, 3.92f, 88.72f, -87.33f, -103.5f, -1.0f})
    for (float s : {c, -c}) {
      float x = s;
      for (int i = 0; i < 2000; ++i) x = std::nextafter(x, INFINITY);
      for (int i = 0; i < 4000; ++i, x = std::nextafter(x, -INFINITY)) xs.push_back(x);
    }
  return xs;
}

template <typename F, typename R>
double max_ulp_over(const char* name, std::vector<float> const& xs, F f, R ref) {
  Worst w;
  sweep(xs, f, ref, w);
  std::printf("vec_math %-8s max %.3f ulp at %.9g\n", name, w.err, w.at);
  return w.err;
}

template <typename F, typename R>
double max_ulp(const char* name, float lo, float hi, F f, R ref) {
  return max_ulp_over(name, inputs(lo, hi, 3000000), f, ref);
}

void add_evenly(std::vector<float>& xs, double lo, double hi, int64_t n) {
  const double step = (hi - lo) / static_cast<double>(n);
  for (int64_t i = 0; i <= n; ++i) xs.push_back(static_cast<float>(lo + step * static_cast<double>(i)));
}

// sin and cos below 2^22, where their reduction holds: every float32 with a stride (both signs),
// [-100, 100] densely (steps of 2e-5), [-1e5, 1e5] and (-2^22, 2^22) sampled, and all floats just
// around multiples of pi/4 (where the reduction cancels and where the quadrant changes), the
// floats closest to multiples of pi/2 (an exhaustive search over [1, 2^22) found these), and the
// top of the range.
std::vector<float> trig_inputs() {
  std::vector<float> xs;
  for (uint32_t u = 0; u < bits(0x1p22f); u += 4093)
    for (uint32_t sign : {0u, 0x80000000u}) xs.push_back(from_bits(u | sign));
  add_evenly(xs, -100, 100, 10000000);
  add_evenly(xs, -1e5, 1e5, 2000000);
  add_evenly(xs, -4194300, 4194300, 1000000);
  std::vector<float> centers = {252.898209f, 505.796417f, 4.71238899f, 52516.4336f, 1011.59283f, 2709675.5f,
                                9.42477798f, 105032.867f, 0x1p22f, 0.0f};
  for (double k : {1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 8.0, 63.0, 64.0, 101.0, 1000.0, 1001.0, 65535.0, 65536.0, 1e6})
    centers.push_back(static_cast<float>(k * 0.78539816339744830962));
  for (float c : centers)
    for (float s : {c, -c}) {
      const float away = std::signbit(s) ? -INFINITY : INFINITY;
      float x = s;
      for (int i = 0; i < 1000; ++i) x = std::nextafter(x, 0.0f);
      for (int i = 0; i < 2000 && std::fabs(x) < 0x1p22f; ++i, x = std::nextafter(x, away)) xs.push_back(x);
    }
  return xs;
}

}  // namespace

// The bounds are the measured maxima (printed) with some room for inputs the sweep skips;
// PyTorch's (Sleef) are 1 ulp.
TEST(VecMath, ExpWithin1p5Ulp) {
  EXPECT_LE(max_ulp("exp", -110, 90, [](float x) { return vm::exp(x); }, [](double x) { return std::exp(x); }), 1.5);
}
TEST(VecMath, Expm1Within2Ulp) {
  EXPECT_LE(max_ulp("expm1", -20, 90, [](float x) { return vm::expm1(x); }, [](double x) { return std::expm1(x); }),
            2.0);
}
TEST(VecMath, Log1pWithin1p5Ulp) {
  EXPECT_LE(max_ulp("log1p", -1, 20, [](float x) { return vm::log1p(x); }, [](double x) { return std::log1p(x); }),
            1.5);
}
// log: the strided sweep of every magnitude (subnormals, negatives, inf, NaN), [0, 100] densely,
// every float in [1/2, 2] (where log is near 0 and the reduction switches at sqrt(1/2), sqrt(2))
// and every 64th subnormal.
TEST(VecMath, LogWithin1Ulp) {
  std::vector<float> xs = inputs(0, 100, 3000000);
  for (uint32_t u = bits(0.5f); u <= bits(2.0f); ++u) xs.push_back(from_bits(u));
  for (uint32_t u = 0; u < 0x00800000u; u += 64) xs.push_back(from_bits(u));
  EXPECT_LE(max_ulp_over("log", xs, [](float x) { return vm::log(x); }, [](double x) { return std::log(x); }), 1.0);
}
TEST(VecMath, Log2AndLog10Within1Ulp) {
  std::vector<float> xs = inputs(0, 100, 3000000);
  for (uint32_t u = bits(0.5f); u <= bits(2.0f); ++u) xs.push_back(from_bits(u));
  for (uint32_t u = 0; u < 0x00800000u; u += 64) xs.push_back(from_bits(u));
  EXPECT_LE(max_ulp_over("log2", xs, [](float x) { return vm::log2(x); }, [](double x) { return std::log2(x); }), 1.0);
  EXPECT_LE(max_ulp_over("log10", xs, [](float x) { return vm::log10(x); }, [](double x) { return std::log10(x); }),
            1.0);
  for (int k = -149; k < 128; ++k) EXPECT_EQ(vm::log2(std::ldexp(1.0f, k)), static_cast<float>(k)) << k;
}
TEST(VecMath, TanhWithin3Ulp) {
  EXPECT_LE(max_ulp("tanh", -10, 10, [](float x) { return vm::tanh(x); }, [](double x) { return std::tanh(x); }), 3.0);
}
TEST(VecMath, ErfWithin1p5Ulp) {
  EXPECT_LE(max_ulp("erf", -5, 5, [](float x) { return vm::erf(x); }, [](double x) { return std::erf(x); }), 1.5);
}
TEST(VecMath, SigmoidWithin3Ulp) {
  EXPECT_LE(max_ulp("sigmoid", -110, 30, [](float x) { return vm::sigmoid(x); },
                    [](double x) {  // PyTorch's formula gives 0 where e^-x overflows float32
                      const double e = std::exp(-x);
                      return e > std::numeric_limits<float>::max() ? 0.0 : 1.0 / (1.0 + e);
                    }),
            3.0);
}

// sigmoid skips part of exp's work (see sigmoid) but gives exactly 1 / (1 + vm::exp(-x)); an
// exhaustive run over all 2^32 floats found no difference.
TEST(VecMath, SigmoidIsOneOverOnePlusExp) {
  for (float x : inputs(-110, 100, 3000000)) {
    const float want = 1.0f / (1.0f + vm::exp(-x));
    const float got = vm::sigmoid(x);
    ASSERT_TRUE((std::isnan(want) && std::isnan(got)) || bits(want) == bits(got)) << "sigmoid(" << x << ")";
  }
}

// Measured over every float32 below 2^22: sin 0.81, cos 0.84.
TEST(VecMath, SinWithin1Ulp) {
  EXPECT_LE(max_ulp_over("sin", trig_inputs(), [](float x) { return vm::sin(x); },
                         [](double x) { return std::sin(x); }),
            1.0);
}
TEST(VecMath, CosWithin1Ulp) {
  EXPECT_LE(max_ulp_over("cos", trig_inputs(), [](float x) { return vm::cos(x); },
                         [](double x) { return std::cos(x); }),
            1.0);
}

// sin is odd and cos even, bit for bit (the reduction rounds symmetrically).
TEST(VecMath, SinOddCosEven) {
  for (float x : trig_inputs()) {
    ASSERT_EQ(bits(vm::sin(-x)), bits(vm::sin(x)) ^ 0x80000000u) << "sin(" << x << ")";
    ASSERT_EQ(bits(vm::cos(-x)), bits(vm::cos(x))) << "cos(" << x << ")";
  }
}

// Zeros keep their sign in sin, tiny arguments are their own sine, infinities and NaN give NaN.
// From 2^22 on the reduction does not hold, and the arguments are taken as 0 (see sin_cos): the
// results are finite and in [-1, 1], not libm's.
TEST(VecMath, SinCosSpecialValues) {
  const float inf = INFINITY, nan = NAN;
  for (float x : {0.0f, -0.0f, 1e-40f, -1e-40f, 1e-30f, -1e-30f, 0x1p-13f, -0x1p-13f}) {
    EXPECT_EQ(bits(vm::sin(x)), bits(std::sin(x))) << "sin(" << x << ")";
    EXPECT_EQ(vm::cos(x), 1.0f) << "cos(" << x << ")";
  }
  for (float x : {inf, -inf, nan, -nan}) {
    EXPECT_TRUE(std::isnan(vm::sin(x))) << "sin(" << x << ")";
    EXPECT_TRUE(std::isnan(vm::cos(x))) << "cos(" << x << ")";
  }
  for (float x : {0x1p22f, 5e6f, 1e10f, 3e38f, std::numeric_limits<float>::max()})
    for (float s : {x, -x}) {
      EXPECT_TRUE(std::fabs(vm::sin(s)) <= 1.0f) << "sin(" << s << ")";
      EXPECT_TRUE(std::fabs(vm::cos(s)) <= 1.0f) << "cos(" << s << ")";
    }
  const float below = std::nextafter(0x1p22f, 0.0f);  // the largest argument reduced
  EXPECT_NEAR(vm::sin(below), std::sin(static_cast<double>(below)), 1e-7);
  EXPECT_NEAR(vm::cos(below), std::cos(static_cast<double>(below)), 1e-7);
}

// sin_wide and cos_wide are right for every float: the fast functions in range, libm beyond; and
// any_beyond_sin_cos_range finds the values that need them.
TEST(VecMath, SinCosWideAreRightBeyond2To22) {
  for (float x : {0x1p22f, 5e6f, 1e7f, 1e10f, 3e38f, std::numeric_limits<float>::max()})
    for (float s : {x, -x}) {
      EXPECT_EQ(vm::sin_wide(s), static_cast<float>(std::sin(static_cast<double>(s)))) << "sin(" << s << ")";
      EXPECT_EQ(vm::cos_wide(s), static_cast<float>(std::cos(static_cast<double>(s)))) << "cos(" << s << ")";
    }
  for (float x : {0.5f, -3.0f, std::nextafter(0x1p22f, 0.0f)}) {
    EXPECT_EQ(bits(vm::sin_wide(x)), bits(vm::sin(x)));
    EXPECT_EQ(bits(vm::cos_wide(x)), bits(vm::cos(x)));
  }
  EXPECT_TRUE(std::isnan(vm::sin_wide(INFINITY)) && std::isnan(vm::cos_wide(NAN)));
  std::vector<float> v(1000, 1.5f);
  EXPECT_FALSE(vm::any_beyond_sin_cos_range(v.data(), 1000));
  for (float bad : {0x1p22f, -1e9f, INFINITY, NAN}) {
    v[637] = bad;
    EXPECT_TRUE(vm::any_beyond_sin_cos_range(v.data(), 1000)) << bad;
  }
}

// Special values exactly as libm gives them (and PyTorch): NaN, infinities, signed zeros, the
// edges of the domain, subnormals.
TEST(VecMath, SpecialValuesMatchLibm) {
  const float inf = INFINITY, nan = NAN, den = 1e-40f, tiny = 1e-30f, big = 3e38f;
  const float xs[] = {0.0f, -0.0f, inf, -inf, nan, -nan, den, -den, tiny, -tiny, big, -big, -1.0f, -1.5f, 1.0f};
  auto same = [](float a, float b) {
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b)) ||
           (a != 0 && std::fabs(a - b) <= std::fabs(b) * 3e-7f);
  };
  for (float x : xs) {
    EXPECT_PRED2(same, vm::exp(x), std::exp(x)) << "exp(" << x << ")";
    EXPECT_PRED2(same, vm::expm1(x), std::expm1(x)) << "expm1(" << x << ")";
    EXPECT_PRED2(same, vm::log1p(x), std::log1p(x)) << "log1p(" << x << ")";
    EXPECT_PRED2(same, vm::log(x), std::log(x)) << "log(" << x << ")";
    EXPECT_PRED2(same, vm::log2(x), std::log2(x)) << "log2(" << x << ")";
    EXPECT_PRED2(same, vm::log10(x), std::log10(x)) << "log10(" << x << ")";
    EXPECT_PRED2(same, vm::tanh(x), std::tanh(x)) << "tanh(" << x << ")";
    EXPECT_PRED2(same, vm::erf(x), std::erf(x)) << "erf(" << x << ")";
  }
}
