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
double max_ulp(const char* name, float lo, float hi, F f, R ref) {
  Worst w;
  sweep(inputs(lo, hi, 3000000), f, ref, w);
  std::printf("vec_math %-8s max %.3f ulp at %.9g\n", name, w.err, w.at);
  return w.err;
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
    EXPECT_PRED2(same, vm::tanh(x), std::tanh(x)) << "tanh(" << x << ")";
    EXPECT_PRED2(same, vm::erf(x), std::erf(x)) << "erf(" << x << ")";
  }
}
