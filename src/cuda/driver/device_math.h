// device_math.h - float and double overloads of the libm functions the kernels use, spelled out
// so a float never silently takes the double path (or the reverse) through an implicit conversion.
#pragma once

#include <type_traits>

namespace ct::cuda::dm {

#define CT_CUDA_MATH1(name, ffun, dfun)                                   \
  __device__ __forceinline__ float name(float x) { return ::ffun(x); }   \
  __device__ __forceinline__ double name(double x) { return ::dfun(x); }
#define CT_CUDA_MATH2(name, ffun, dfun)                                             \
  __device__ __forceinline__ float name(float x, float y) { return ::ffun(x, y); } \
  __device__ __forceinline__ double name(double x, double y) { return ::dfun(x, y); }

CT_CUDA_MATH1(exp, expf, exp)
CT_CUDA_MATH1(log, logf, log)
CT_CUDA_MATH1(sqrt, sqrtf, sqrt)
CT_CUDA_MATH1(sin, sinf, sin)
CT_CUDA_MATH1(cos, cosf, cos)
CT_CUDA_MATH1(tanh, tanhf, tanh)
CT_CUDA_MATH1(erf, erff, erf)
CT_CUDA_MATH1(log1p, log1pf, log1p)
CT_CUDA_MATH1(expm1, expm1f, expm1)
CT_CUDA_MATH1(floor, floorf, floor)
CT_CUDA_MATH1(ceil, ceilf, ceil)
CT_CUDA_MATH1(rint, rintf, rint)
CT_CUDA_MATH1(trunc, truncf, trunc)
CT_CUDA_MATH2(fmod, fmodf, fmod)
CT_CUDA_MATH2(pow, powf, pow)
CT_CUDA_MATH2(atan2, atan2f, atan2)
CT_CUDA_MATH2(copysign, copysignf, copysign)
CT_CUDA_MATH1(tan, tanf, tan)
CT_CUDA_MATH1(asin, asinf, asin)
CT_CUDA_MATH1(acos, acosf, acos)
CT_CUDA_MATH1(atan, atanf, atan)
CT_CUDA_MATH1(sinh, sinhf, sinh)
CT_CUDA_MATH1(cosh, coshf, cosh)
CT_CUDA_MATH1(asinh, asinhf, asinh)
CT_CUDA_MATH1(acosh, acoshf, acosh)
CT_CUDA_MATH1(atanh, atanhf, atanh)
CT_CUDA_MATH1(exp2, exp2f, exp2)
CT_CUDA_MATH1(log2, log2f, log2)
CT_CUDA_MATH1(log10, log10f, log10)
CT_CUDA_MATH1(erfc, erfcf, erfc)
CT_CUDA_MATH1(fabs, fabsf, fabs)
CT_CUDA_MATH2(hypot, hypotf, hypot)
#undef CT_CUDA_MATH1
#undef CT_CUDA_MATH2

template <typename T>
__device__ __forceinline__ bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return x != x;
  else return false;
}

}  // namespace ct::cuda::dm
