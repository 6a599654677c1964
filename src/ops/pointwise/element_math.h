// element_math.h - the math that element functions (fns.h) are written in, resolved per target:
// vec_math.h's vectorizable float32 functions and libm on the cpu, CUDA's libm on the device.
//
// Note [Element functions]
// An elementwise operator's formula is written once, as a functor in fns.h, over the names of this
// header (em::exp, em::is_nan...). Four compilers read that one text: the host compiler for the
// eager cpu kernels (src/ops/pointwise/) and the fused cpu executor (src/compile/fuse.cpp), nvcc for
// the eager CUDA kernels (src/cuda/driver/), and NVRTC for fused CUDA kernels, which receive this
// header and fns.h as a preamble (element_preamble.h, embedded at build time). So a fused kernel
// computes what the eager kernel computes, on either device, by construction.
//
// The CUDA library's own kernels use the device branch too (its dm:: is this namespace), so every
// kernel on the device calls libm through one list of float and double overloads: a float never
// takes the double path, or the reverse, through an implicit conversion.
//
// Where the cpu and the GPU must differ, the difference lives here and nowhere else: float32 exp,
// tanh, erf... are vec_math.h's straight-line versions on the cpu (Note [Vectorizable float32
// math]) and CUDA's expf, tanhf, erff on the device. The device branch uses no header at all, as
// NVRTC has none; a functor may use only em's names, its own arithmetic and em's traits.
//
// A functor is a struct in namespace ct::fn with a const call operator templated on the compute
// type T (float or double on the device; any opmath type on the cpu, integers and bool included),
// taking one or two operands, plus a third, alpha, for operators with a scaled form (add, sub).
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(CT_ELEMENT_DEVICE)
#define CT_ELEMENT __device__ __forceinline__
#define CT_ELEMENT_ON_DEVICE 1
#else
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ops/cpu/vec_math.h"
#define CT_ELEMENT [[gnu::always_inline]] inline
#define CT_ELEMENT_ON_DEVICE 0
#endif

namespace ct::em {

/// Whether T is a floating type (float or double); integers and bool are not. Spelled here, as
/// NVRTC has no <type_traits>.
template <typename T> struct is_float { static constexpr bool value = false; };
template <> struct is_float<float> { static constexpr bool value = true; };
template <> struct is_float<double> { static constexpr bool value = true; };

/// Machine epsilon, infinity and the quiet NaN of a floating T.
template <typename T> struct limits;
template <> struct limits<float> {
  static constexpr float epsilon = 1.1920928955078125e-07f;
};
template <> struct limits<double> {
  static constexpr double epsilon = 2.220446049250313e-16;
};

constexpr double kPi = 3.14159265358979323846;

template <typename T>
CT_ELEMENT bool is_nan(T x) {
  if constexpr (is_float<T>::value) return x != x;
  else return false;
}

/// a + b, a - b, a * b and -a for integers: computed unsigned, so overflow wraps (as PyTorch's
/// kernels do) instead of being undefined. Floats compute as written.
template <typename T>
CT_ELEMENT T wrap_add(T a, T b) {
  if constexpr (is_float<T>::value) return a + b;
  else return static_cast<T>(static_cast<unsigned long long>(a) + static_cast<unsigned long long>(b));
}
template <typename T>
CT_ELEMENT T wrap_sub(T a, T b) {
  if constexpr (is_float<T>::value) return a - b;
  else return static_cast<T>(static_cast<unsigned long long>(a) - static_cast<unsigned long long>(b));
}
/// |x|, wrapping for the most negative integer (which stays itself, as in two's complement).
template <typename T>
CT_ELEMENT T wrap_abs(T x) {
  if constexpr (T(-1) > T(0)) return x;  // unsigned
  else return x < T(0) ? wrap_sub(T(0), x) : x;
}
template <typename T>
CT_ELEMENT T wrap_mul(T a, T b) {
  if constexpr (is_float<T>::value) return a * b;
  else return static_cast<T>(static_cast<unsigned long long>(a) * static_cast<unsigned long long>(b));
}

#if CT_ELEMENT_ON_DEVICE
#define CT_EM_DEVICE1(name, ffun, dfun)                         \
  CT_ELEMENT float name(float x) { return ::ffun(x); }         \
  CT_ELEMENT double name(double x) { return ::dfun(x); }
CT_EM_DEVICE1(exp, expf, exp)
CT_EM_DEVICE1(exp2, exp2f, exp2)
CT_EM_DEVICE1(expm1, expm1f, expm1)
CT_EM_DEVICE1(log, logf, log)
CT_EM_DEVICE1(log1p, log1pf, log1p)
CT_EM_DEVICE1(sqrt, sqrtf, sqrt)
CT_EM_DEVICE1(sin, sinf, sin)
CT_EM_DEVICE1(cos, cosf, cos)
CT_EM_DEVICE1(tanh, tanhf, tanh)
CT_EM_DEVICE1(erf, erff, erf)
CT_EM_DEVICE1(fabs, fabsf, fabs)
CT_EM_DEVICE1(tan, tanf, tan)
CT_EM_DEVICE1(floor, floorf, floor)
CT_EM_DEVICE1(ceil, ceilf, ceil)
CT_EM_DEVICE1(rint, rintf, rint)
CT_EM_DEVICE1(trunc, truncf, trunc)
CT_EM_DEVICE1(lgamma, lgammaf, lgamma)
CT_EM_DEVICE1(asin, asinf, asin)
CT_EM_DEVICE1(acos, acosf, acos)
CT_EM_DEVICE1(atan, atanf, atan)
CT_EM_DEVICE1(sinh, sinhf, sinh)
CT_EM_DEVICE1(cosh, coshf, cosh)
CT_EM_DEVICE1(asinh, asinhf, asinh)
CT_EM_DEVICE1(acosh, acoshf, acosh)
CT_EM_DEVICE1(atanh, atanhf, atanh)
CT_EM_DEVICE1(log2, log2f, log2)
CT_EM_DEVICE1(log10, log10f, log10)
CT_EM_DEVICE1(erfc, erfcf, erfc)
#undef CT_EM_DEVICE1
#define CT_EM_DEVICE2(name, ffun, dfun)                                     \
  CT_ELEMENT float name(float x, float y) { return ::ffun(x, y); }         \
  CT_ELEMENT double name(double x, double y) { return ::dfun(x, y); }
CT_EM_DEVICE2(copysign, copysignf, copysign)
CT_EM_DEVICE2(nextafter, nextafterf, nextafter)
CT_EM_DEVICE2(pow, powf, pow)
CT_EM_DEVICE2(fmod, fmodf, fmod)
CT_EM_DEVICE2(atan2, atan2f, atan2)
CT_EM_DEVICE2(hypot, hypotf, hypot)
#undef CT_EM_DEVICE2
CT_ELEMENT float frexp(float x, int* e) { return ::frexpf(x, e); }
CT_ELEMENT double frexp(double x, int* e) { return ::frexp(x, e); }
CT_ELEMENT bool sign_bit(float x) { return __float_as_int(x) < 0; }
CT_ELEMENT bool sign_bit(double x) { return __double_as_longlong(x) < 0; }
CT_ELEMENT float infinity(float) { return __int_as_float(0x7f800000); }
CT_ELEMENT double infinity(double) { return __longlong_as_double(0x7ff0000000000000LL); }
CT_ELEMENT float quiet_nan(float) { return __int_as_float(0x7fc00000); }
CT_ELEMENT double quiet_nan(double) { return __longlong_as_double(0x7ff8000000000000LL); }
template <typename T> CT_ELEMENT T sigmoid(T x) { return T(1) / (T(1) + exp(-x)); }
// sinf and cosf are accurate at every argument.
template <typename T> CT_ELEMENT T sin_wide(T x) { return sin(x); }
template <typename T> CT_ELEMENT T cos_wide(T x) { return cos(x); }
#else
using cpu::vm::cos;
using cpu::vm::erf;
using cpu::vm::exp;
using cpu::vm::expm1;
using cpu::vm::log;
using cpu::vm::log1p;
using cpu::vm::sigmoid;
using cpu::vm::sin;
using cpu::vm::tanh;
using std::acos;
using std::acosh;
using std::asin;
using std::asinh;
using std::atan;
using std::atan2;
using std::atanh;
using std::ceil;
using std::copysign;
using std::cosh;
using std::erfc;
using std::exp2;
using std::fabs;
using std::floor;
using std::fmod;
using std::frexp;
using std::hypot;
using std::log10;
using std::log2;
using std::nextafter;
using std::pow;
using std::rint;
using std::sinh;
using std::sqrt;
using std::tan;
using std::trunc;
// The reentrant forms: std::lgamma writes the global signgam, a data race between threads.
CT_ELEMENT float lgamma(float x) {
  int sign;
  return ::lgammaf_r(x, &sign);
}
CT_ELEMENT double lgamma(double x) {
  int sign;
  return ::lgamma_r(x, &sign);
}
// From the bits, compared as a signed integer: GCC 12 fails (an internal error) to vectorize
// std::signbit of float.
CT_ELEMENT bool sign_bit(float x) {
  int32_t i;
  std::memcpy(&i, &x, sizeof i);
  return i < 0;
}
CT_ELEMENT bool sign_bit(double x) {
  int64_t i;
  std::memcpy(&i, &x, sizeof i);
  return i < 0;
}
CT_ELEMENT float infinity(float) { return __builtin_huge_valf(); }
CT_ELEMENT double infinity(double) { return __builtin_huge_val(); }
CT_ELEMENT float quiet_nan(float) { return __builtin_nanf(""); }
CT_ELEMENT double quiet_nan(double) { return __builtin_nan(""); }
// vm::sin and vm::cos are accurate below 2^22 only; the wide forms take libm's answer beyond
// (Note [sin and cos of large arguments]). Double is libm throughout.
CT_ELEMENT float sin_wide(float x) { return cpu::vm::sin_wide(x); }
CT_ELEMENT float cos_wide(float x) { return cpu::vm::cos_wide(x); }
CT_ELEMENT double sin_wide(double x) { return std::sin(x); }
CT_ELEMENT double cos_wide(double x) { return std::cos(x); }
#endif

}  // namespace ct::em
