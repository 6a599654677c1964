// vec_math.h - float32 exp, expm1, log, log2, log10, log1p, tanh, erf, sigmoid, sin and cos that the compiler
// vectorizes inside the loop engines, for the pointwise operators and softmax. double keeps libm (the
// overloads below).
//
// Note [Vectorizable float32 math]
// libm's expf, erff, tanhf... are calls, so a loop over them runs one element at a time (gelu on
// 4M floats: 33 ms against libtorch's 2.5 ms). These are straight-line code: range reduction, a
// polynomial, and special values (NaN, infinities, signed zeros, tiny and huge arguments) chosen
// with pick (a bit-mask select), never with branches or ?: (see pick for why), so every lane does
// the same work and the loop vectorizes. Every multiply-add is an explicit std::fma
// (one vfmadd in the AVX2 build, libm's correctly rounded fmaf in the baseline build), so both
// builds give the same bits; see Note [CPU capability dispatch] in isa.h.
//
// Accuracy against the correctly rounded result (tests/cpp/ops/cpu/vec_math_test.cpp checks it
// over dense sweeps): exp, log1p and erf within 1.5 ulp (measured 0.87, 0.79, 1.01), expm1 within 2
// (1.42), tanh and sigmoid within 3 (2.27, 2.37), sin and cos within 1 for |x| < 2^22 (0.81,
// 0.84 over every float there). Beyond 2^22 the fast reduction fails; sin_wide and cos_wide take
// libm's answer there, and callers run them only when any_beyond_sin_cos_range says a call needs
// them (see Note [sin and cos of large arguments]). PyTorch uses Sleef's 1-ulp functions, so
// results may differ from it in the last bit or two.
// Subnormal arguments and results are computed, not flushed.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ct::cpu::vm {

namespace detail {

[[gnu::always_inline]] inline uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
[[gnu::always_inline]] inline float from_bits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
/// 2^n for n in [-126, 127], built in the exponent bits.
[[gnu::always_inline]] inline float pow2i(int32_t n) { return from_bits(static_cast<uint32_t>(n + 127) << 23); }

constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer kept in the low bits
constexpr float kLog2e = 1.44269504088896341f;
// ln 2 in two parts; kLn2Hi has 9 significant bits, so n * kLn2Hi is exact for |n| < 2^15.
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;

/// x = n ln2 + r, |r| <= ln2 / 2 (Cody-Waite): returns r, and t whose low bits hold n (see n_of).
[[gnu::always_inline]] inline float reduce_ln2(float x, float& t) {
  t = std::fma(x, kLog2e, kMagic);
  const float n = t - kMagic;
  const float r = std::fma(n, -kLn2Hi, x);
  return std::fma(n, -kLn2Lo, r);
}
[[gnu::always_inline]] inline int32_t n_of(float t) { return static_cast<int32_t>(bits(t)) - 0x4B400000; }

/// exp(r) for |r| <= ln2 / 2: Cephes expf's degree-7 polynomial.
[[gnu::always_inline]] inline float exp_reduced(float r) {
  float p = 1.9875691500e-4f;
  p = std::fma(p, r, 1.3981999507e-3f);
  p = std::fma(p, r, 8.3334519073e-3f);
  p = std::fma(p, r, 4.1665795894e-2f);
  p = std::fma(p, r, 1.6666665459e-1f);
  p = std::fma(p, r, 5.0000001201e-1f);
  p = std::fma(p, r, 1.0f);
  return std::fma(p, r, 1.0f);
}

/// expm1(r) for |r| <= ln2 / 2 by its Taylor series to r^8 (truncation below 1e-9 relative).
[[gnu::always_inline]] inline float expm1_reduced(float r) {
  float q = 1.0f / 40320;
  q = std::fma(q, r, 1.0f / 5040);
  q = std::fma(q, r, 1.0f / 720);
  q = std::fma(q, r, 1.0f / 120);
  q = std::fma(q, r, 1.0f / 24);
  q = std::fma(q, r, 1.0f / 6);
  q = std::fma(q, r, 0.5f);
  return std::fma(r * r, q, r);
}

/// e^x for x in [-87, 88], where 2^n is a normal float: exp without its clamps, for callers whose
/// argument is known to be in range (erf's -x^2).
[[gnu::always_inline]] inline float exp_in_range(float x) {
  float t;
  const float r = reduce_ln2(x, t);
  return exp_reduced(r) * pow2i(n_of(t));
}

constexpr float k2OverPi = 0.636619747f;
// pi/2 in three parts of 24 bits (|pi/2 - A - B - C| < 1.1e-23), the largest part first.
constexpr float kPio2A = 1.57079637f;
constexpr float kPio2B = -4.37113883e-8f;
constexpr float kPio2C = -1.71512451e-15f;
// Up to here n (below 2^21.4) is exact in t's low bits and hi + lo keeps sin and cos within 1 ulp.
constexpr float kSinCosMax = 0x1p22f;

/// x = n pi/2 + hi + lo for |x| < 2^22 (Cody-Waite, the remainder kept in two floats): returns hi,
/// |hi| < 0.96, and t whose low bits hold n (see n_of). n may be one off the nearest integer
/// (2/pi is rounded), so hi can exceed pi/4; the polynomials cover |hi| <= 1.
[[gnu::always_inline]] inline float reduce_pio2(float x, float& t, float& lo) {
  t = std::fma(x, k2OverPi, kMagic);
  const float n = t - kMagic;
  // Exact: |x - n A| < 1.1, a multiple of 2^-23 when x >= 1 (as A is), of 2^-24 and below 1 when
  // x < 1 (n is 0 or 1 there).
  const float r1 = std::fma(n, -kPio2A, x);
  // r1 - n B has more than 24 bits: the product's rounding error by fma, the sum's by TwoSum.
  const float p = n * kPio2B, p_lo = std::fma(n, kPio2B, -p);
  const float hi = r1 - p, v = hi - r1;
  const float e = (r1 - (hi - v)) + (-p - v);
  lo = std::fma(n, -kPio2C, e - p_lo);
  return hi;
}

/// sin(hi + lo) for |hi| <= 1, |lo| <= ulp(hi): hi + hi^3 S(hi^2) + lo (1 - hi^2 / 2). S is a
/// least-squares fit near minimax on [0, 1] (relative error 4e-10), its coefficients rounded to
/// float one at a time with the rest refitted.
[[gnu::always_inline]] inline float sin_reduced(float hi, float lo) {
  const float z = hi * hi;
  float p = 2.72733541e-06f;
  p = std::fma(p, z, -0.000198425943f);
  p = std::fma(p, z, 0.00833335519f);
  p = std::fma(p, z, -0.166666672f);
  return hi + std::fma(hi * z, p, std::fma(-0.5f * z, lo, lo));
}

/// cos(hi + lo) for |hi| <= 1: 1 - hi^2 / 2 rounded once (w) with its error (e, exact), plus
/// hi^4 C(hi^2) - hi lo. C is fitted like sin's S (relative error 2e-9).
[[gnu::always_inline]] inline float cos_reduced(float hi, float lo) {
  const float z = hi * hi, h = 0.5f * hi;
  const float w = std::fma(-h, hi, 1.0f);
  const float e = std::fma(-h, hi, 1.0f - w);  // 1 - w is exact: w is in [1/2, 1]
  float p = 2.41921753e-05f;
  p = std::fma(p, z, -0.00138845737f);
  p = std::fma(p, z, 0.0416665711f);
  return w + std::fma(z * z, p, std::fma(-hi, lo, e));
}

/// R of 2 atanh(s) = 2s + s R, z = s^2 (log1p's and log's series, fdlibm's): R = 2z/3 + 2z^2/5 +
/// 2z^3/7 + 2z^4/9, cut where a term is below 1e-9.
[[gnu::always_inline]] inline float atanh_series(float z) {
  float R = 2.0f / 9;
  R = std::fma(R, z, 2.0f / 7);
  R = std::fma(R, z, 2.0f / 5);
  R = std::fma(R, z, 2.0f / 3);
  return R * z;
}

}  // namespace detail

/// c ? a : b for float32 loops that should vectorize: a plain ?: lets the compiler move the work
/// of the unchosen side into a branch, which it cannot turn back into a select (under trapping
/// math the moved float operations could trap), and the loop stops vectorizing. A bit mask keeps
/// both sides computed.
[[gnu::always_inline]] inline float pick(bool c, float a, float b) {
  const uint32_t m = 0u - static_cast<uint32_t>(c);
  return detail::from_bits((detail::bits(a) & m) | (detail::bits(b) & ~m));
}
[[gnu::always_inline]] inline double pick(bool c, double a, double b) { return c ? a : b; }

/// e^x. Below -104 the result is 0 even as a subnormal, above 89 it is infinite: clamping there
/// keeps 2^n in range, and NaN passes the clamps (its comparisons are false).
[[gnu::always_inline]] inline float exp(float x) {
  using namespace detail;
  const float xc = pick(x < -104.0f, -104.0f, pick(x > 89.0f, 89.0f, x));
  float t;
  const float r = reduce_ln2(xc, t);
  // n in [-150, 128] is split in two halves so that each power of two is a normal float and a
  // subnormal result is rounded once, by the last multiply.
  const int32_t n = n_of(t), n1 = n >> 1;
  return exp_reduced(r) * pow2i(n1) * pow2i(n - n1);
}

/// e^x - 1, accurate near 0: 2^n (expm1(r) + 1) - 1 = fma(2^n, expm1(r), 2^n - 1).
[[gnu::always_inline]] inline float expm1(float x) {
  using namespace detail;
  // Below -87 the result is -1 and 2^n stays normal; at 89 it overflows, like exp.
  const float xc = pick(x < -87.0f, -87.0f, pick(x > 89.0f, 89.0f, x));
  float t;
  const float em = expm1_reduced(reduce_ln2(xc, t));
  // n = 128 does not fit the exponent bits: scale by 2^127, then by 2.
  const int32_t n = n_of(t), k = n > 127 ? 127 : n, extra = n - k;
  const float s = pow2i(k);
  const float y = std::fma(s, em, s - pow2i(-extra)) * pow2i(extra);
  // Tiny arguments come out as themselves (n = 0, r = x, and r * r / 2 rounds away), but the
  // zero signs need help: fma(+0, q, -0) is +0.
  return pick(x == 0.0f, x, y);
}

/// log(1 + x) (musl/fdlibm log1pf): 1 + x = 2^k m with m in [sqrt(1/2), sqrt(2)), the rounding
/// error of 1 + x added back as c / (1 + x), log(m) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f/(2+f).
[[gnu::always_inline]] inline float log1p(float x) {
  using namespace detail;
  const float u = 1.0f + x;
  const uint32_t iu = bits(u) + (0x3f800000u - 0x3f3504f3u);
  const int32_t k = static_cast<int32_t>(iu >> 23) - 127;
  const float m = from_bits((iu & 0x007fffffu) + 0x3f3504f3u);
  const float f = m - 1.0f;
  // The part of 1 + x lost in rounding u; negligible (and possibly NaN) once k >= 25.
  const float lost = pick(k >= 2, 1.0f - (u - x), x - (u - 1.0f));
  const float c = pick(k < 25, lost / u, 0.0f);
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float R = detail::atanh_series(z);
  const float hfsq = 0.5f * f * f;
  const float kf = static_cast<float>(k);
  float y = std::fma(kf, kLn2Hi, f - (hfsq - std::fma(s, hfsq + R, std::fma(kf, kLn2Lo, c))));
  y = pick(x == INFINITY, x, y);
  y = pick(x == -1.0f, -INFINITY, y);
  y = pick(x < -1.0f, NAN, y);
  y = pick(x != x, x, y);
  return pick(std::fabs(x) < 0x1p-24f, x, y);  // tiny arguments and -0 are their own result
}

/// log(x) (musl/fdlibm logf, as log1p above without its rounding correction): x = 2^k m with m in
/// [sqrt(1/2), sqrt(2)), log(m) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f/(2+f), f = m - 1 exact.
/// Subnormal arguments are scaled by 2^23 first. 0 gives -inf, negatives NaN, inf inf, NaN itself.
[[gnu::always_inline]] inline float log(float x) {
  using namespace detail;
  const bool sub = x < 0x1p-126f;
  const float xs = pick(sub, x * 0x1p23f, x);
  const uint32_t ix = bits(xs) + (0x3f800000u - 0x3f3504f3u);
  const int32_t k = static_cast<int32_t>(ix >> 23) - 127 - 23 * static_cast<int32_t>(sub);
  const float m = from_bits((ix & 0x007fffffu) + 0x3f3504f3u);
  const float f = m - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float R = detail::atanh_series(z);
  const float hfsq = 0.5f * f * f;
  const float kf = static_cast<float>(k);
  float y = std::fma(kf, kLn2Hi, f - (hfsq - std::fma(s, hfsq + R, kf * kLn2Lo)));
  y = pick(x == INFINITY, x, y);
  y = pick(x == 0.0f, -INFINITY, y);
  y = pick(x < 0.0f, NAN, y);
  return pick(x != x, x, y);
}

namespace detail {
/// The reduction of log above for log2 and log10 (musl/fdlibm log2f, log10f): x = 2^k (1 + f), and
/// log(1 + f) = hi + lo with hi = f - f^2/2 cut to its top 12 bits, so hi times the constants'
/// high parts is exact. Special values are left to the caller.
[[gnu::always_inline]] inline void log_parts(float x, float& kf, float& hi, float& lo) {
  const bool sub = x < 0x1p-126f;
  const float xs = pick(sub, x * 0x1p23f, x);
  const uint32_t ix = bits(xs) + (0x3f800000u - 0x3f3504f3u);
  const int32_t k = static_cast<int32_t>(ix >> 23) - 127 - 23 * static_cast<int32_t>(sub);
  const float f = from_bits((ix & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s;
  float R = 2.0f / 9;
  R = std::fma(R, z, 2.0f / 7);
  R = std::fma(R, z, 2.0f / 5);
  R = std::fma(R, z, 2.0f / 3);
  R = R * z;
  const float hfsq = 0.5f * f * f;
  hi = from_bits(bits(f - hfsq) & 0xfffff000u);
  lo = ((f - hi) - hfsq) + s * (hfsq + R);
  kf = static_cast<float>(k);
}
[[gnu::always_inline]] inline float log_specials(float x, float y) {
  y = pick(x == INFINITY, x, y);
  y = pick(x == 0.0f, -INFINITY, y);
  y = pick(x < 0.0f, NAN, y);
  return pick(x != x, x, y);
}
}  // namespace detail

/// log2(x): exact k at x = 2^k.
[[gnu::always_inline]] inline float log2(float x) {
  using namespace detail;
  float kf, hi, lo;
  log_parts(x, kf, hi, lo);
  constexpr float kIvln2Hi = 1.4428710938e+00f, kIvln2Lo = -1.7605285393e-04f;
  return log_specials(x, (lo + hi) * kIvln2Lo + lo * kIvln2Hi + hi * kIvln2Hi + kf);
}

/// log10(x).
[[gnu::always_inline]] inline float log10(float x) {
  using namespace detail;
  float kf, hi, lo;
  log_parts(x, kf, hi, lo);
  constexpr float kIvln10Hi = 4.3432617188e-01f, kIvln10Lo = -3.1689971365e-05f;
  constexpr float kLog10_2Hi = 3.0102920532e-01f, kLog10_2Lo = 7.9034151668e-07f;
  return log_specials(
      x, kf * kLog10_2Lo + (lo + hi) * kIvln10Lo + lo * kIvln10Hi + hi * kIvln10Hi + kf * kLog10_2Hi);
}

/// tanh(x) = e / (e + 2), e = expm1(2|x|), with x's sign: accurate near 0 too. Above 9.1 the result
/// rounds to 1; clamping there keeps e finite.
[[gnu::always_inline]] inline float tanh(float x) {
  using namespace detail;
  float ax = std::fabs(x);
  ax = pick(ax > 9.1f, 9.1f, ax);
  // expm1(2 ax) for 2 ax in [0, 18.2]: no clamps, no overflow scaling, and no tiny case (n = 0,
  // r = 2 ax, and r * r underflows harmlessly).
  float t;
  const float em = expm1_reduced(reduce_ln2(2.0f * ax, t));
  const float s = pow2i(n_of(t));
  const float e = std::fma(s, em, s - 1.0f);
  return std::copysign(e / (e + 2.0f), x);
}

/// erf(x), odd: |x| < 1: |x| + |x| P(x^2); 1 <= |x|: 1 - exp(-x^2) Q(|x| - 1). P and Q are weighted
/// least-squares fits near minimax (relative 1.2e-9 for P, absolute 1.3e-8 for exp(-x^2) Q).
/// erf rounds to 1 above 3.92; clamping at 3.95 keeps Q on its interval.
[[gnu::always_inline]] inline float erf(float x) {
  using namespace detail;
  float ax = std::fabs(x);
  ax = pick(ax > 3.95f, 3.95f, ax);
  const float z = ax * ax;
  float p = 7.85401426e-05f;
  p = std::fma(p, z, -0.000801024435f);
  p = std::fma(p, z, 0.00518833427f);
  p = std::fma(p, z, -0.0268538166f);
  p = std::fma(p, z, 0.112835854f);
  p = std::fma(p, z, -0.37612626f);
  p = std::fma(p, z, 0.128379167f);  // 2 / sqrt(pi) - 1: the leading ax is added exactly
  const float small = std::fma(ax, p, ax);
  const float t = ax - 1.0f;
  float q = -0.000388884189f;
  q = std::fma(q, t, 0.00328293722f);
  q = std::fma(q, t, -0.0131339775f);
  q = std::fma(q, t, 0.0356087424f);
  q = std::fma(q, t, -0.0786351338f);
  q = std::fma(q, t, 0.154286474f);
  q = std::fma(q, t, -0.273207575f);
  q = std::fma(q, t, 0.427583545f);
  const float large = std::fma(-exp_in_range(-z), q, 1.0f);
  return std::copysign(pick(ax < 1.0f, small, large), x);
}

/// 1 / (1 + e^-x), bit for bit as written with vm::exp, with less of exp's work: e^-x is only
/// added to 1, so below -x = -80 (1 + e^-x rounds to 1 from -17 on) and subnormal results do not
/// matter, and 2^n (n up to 128) is built as 2^(n-1) times 2 in the fma that adds 1 (the product is
/// exact, or overflows exactly when e^-x does).
[[gnu::always_inline]] inline float sigmoid(float x) {
  using namespace detail;
  const float nx = -x;
  const float xc = pick(nx < -80.0f, -80.0f, pick(nx > 89.0f, 89.0f, nx));
  float t;
  const float half = exp_reduced(reduce_ln2(xc, t)) * pow2i(n_of(t) - 1);  // e^-x / 2
  return 1.0f / std::fma(half, 2.0f, 1.0f);
}

namespace detail {

/// sin(x + shift pi/2), shift 0 or 1: x = n pi/2 + r, then sin or cos of r by the quadrant
/// n + shift, negated in quadrants 2 and 3. From |x| = 2^22 on, three parts of pi/2 are too few
/// and n no longer fits t's low bits: those arguments are taken as 0 (x * 0, which also turns
/// infinities into NaN), so sin gives 0 and cos 1 there, finite and in [-1, 1] but not sin x.
[[gnu::always_inline]] inline float sin_cos(float x, uint32_t shift) {
  const float xr = pick(std::fabs(x) < kSinCosMax, x, x * 0.0f);
  float t, lo;
  const float hi = reduce_pio2(xr, t, lo);
  const uint32_t q = static_cast<uint32_t>(n_of(t)) + shift;
  const float y = pick((q & 1u) != 0, cos_reduced(hi, lo), sin_reduced(hi, lo));
  // A NaN argument (or x * 0 of an infinity) is returned itself: the NaN bits that reach q differ
  // between libm's fmaf and vfmadd, and so would the sign that q flips.
  return pick(xr != xr, xr, from_bits(bits(y) ^ ((q & 2u) << 30)));
}

}  // namespace detail

/// sin(x). The reduction turns -0 into +0 (-0 - -0 is +0), so zeros are returned as they came.
[[gnu::always_inline]] inline float sin(float x) {
  const float y = detail::sin_cos(x, 0);
  return pick(x == 0.0f, x, y);
}

/// cos(x) = sin(x + pi/2): one quadrant on.
[[gnu::always_inline]] inline float cos(float x) { return detail::sin_cos(x, 1); }

// Note [sin and cos of large arguments]
// sin and cos above are exact to 1 ulp for |x| < 2^22 only; a full reduction of larger arguments
// (Payne-Hanek) does not fit straight-line code. sin_wide and cos_wide are right for every float:
// the vectorized function below 2^22, libm in double from there (and for NaN and infinities).
// Their branch keeps a loop from vectorizing, so the operators and the fused kernels run the fast
// loop and use them only for a call (or tile) where any_beyond_sin_cos_range finds such a value.
// Each element's result depends only on that element, so both paths give the same bits.

/// Whether sin and cos above are accurate for x.
[[gnu::always_inline]] inline bool sin_cos_in_range(float x) { return std::fabs(x) < detail::kSinCosMax; }
/// True when some p[i], i < n, is beyond 2^22 in magnitude, NaN or infinite. It compares the bits
/// without the sign (NaN and infinities lie above every finite float there) and ORs integers, so
/// the loop vectorizes.
inline bool any_beyond_sin_cos_range(const float* p, int64_t n) {
  constexpr uint32_t kLimit = 0x4a800000u;  // the bits of 2^22
  uint32_t any = 0;
  for (int64_t i = 0; i < n; ++i) any |= (detail::bits(p[i]) & 0x7fffffffu) >= kLimit;
  return any != 0;
}
inline float sin_wide(float x) { return sin_cos_in_range(x) ? sin(x) : static_cast<float>(std::sin(double(x))); }
inline float cos_wide(float x) { return sin_cos_in_range(x) ? cos(x) : static_cast<float>(std::cos(double(x))); }

// double: libm (no vectorized double kernels; PyTorch's double paths are libm-accurate too).
inline double exp(double x) { return std::exp(x); }
inline double expm1(double x) { return std::expm1(x); }
inline double log(double x) { return std::log(x); }
inline double log1p(double x) { return std::log1p(x); }
inline double log2(double x) { return std::log2(x); }
inline double log10(double x) { return std::log10(x); }
inline double tanh(double x) { return std::tanh(x); }
inline double erf(double x) { return std::erf(x); }
inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline double sin(double x) { return std::sin(x); }
inline double cos(double x) { return std::cos(x); }

/// Folds f(0) ... f(n-1) with op into kLanes independent accumulators, then combines the lanes
/// pairwise: the loop vectorizes, and the order (so the bits) depends on n alone, for any ISA.
/// The row reductions of softmax and layer_norm use it. 64 lanes are four AVX-512 (eight AVX2)
/// registers: four chains of adds in flight hide the add's latency, where one 16-lane register
/// waited on it (a 2048-float row took twice as long to sum from cache).
constexpr int kLanes = 64;
template <typename C, typename F, typename Op>
[[gnu::always_inline]] inline C lane_reduce(int64_t n, C init, F f, Op op) {
  C l[kLanes];
  for (int j = 0; j < kLanes; ++j) l[j] = init;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) l[j] = op(l[j], f(i + j));
  for (int j = 0; i < n; ++i, ++j) l[j] = op(l[j], f(i));
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) l[j] = op(l[j], l[j + w]);
  return l[0];
}

}  // namespace ct::cpu::vm
