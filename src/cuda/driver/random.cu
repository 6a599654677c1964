// random.cu - Philox uniform and normal fills giving exactly the CPU generator's bits.
//
// Element i of a fill with E values per block comes from word i % E of Philox block
// offset_block + i / E, mapped by the same source as the CPU (ops/random/philox.h, compiled for
// the device). This file is compiled with --fmad=false so no multiply-add is contracted, as the
// CPU build uses -ffp-contract=off; division and sqrt are IEEE-exact on both sides.
#include <cstdint>

#include "dtype.h"
#include "ops/random/philox.h"
#include "status.h"

namespace ct::cuda {
namespace {

namespace pr = ct::ops::random;

constexpr int kThreads = 256;

template <typename T>
__device__ __forceinline__ T from_float(float v) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(v);  // Half(float): nearest even
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(v);
  else return v;
}

template <typename T> constexpr int kBits = 24;  // significand bits, as kMantissaDigits<T> on the CPU
template <> constexpr int kBits<__half> = 11;
template <> constexpr int kBits<__nv_bfloat16> = 8;

// Mirrors fill_uniform<T> / fill_normal<T> in ops/random/random.cpp, one Philox block per thread.
template <typename T, bool Normal>
__global__ void __launch_bounds__(kThreads) philox_kernel(T* out, int64_t numel, uint64_t seed, uint64_t first,
                                                          double a, double b, float af, float bf) {
  constexpr int E = std::is_same_v<T, double> ? 2 : 4;
  const int64_t blocks = (numel + E - 1) / E;
  for (int64_t blk = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; blk < blocks;
       blk += static_cast<int64_t>(gridDim.x) * kThreads) {
    const pr::Words x = pr::philox(seed, first + static_cast<uint64_t>(blk));
    T v[E];
    if constexpr (std::is_same_v<T, double>) {
      if constexpr (Normal) {  // a = mean, b = std
        double z0, z1;
        pr::box_muller(1.0 - pr::uniform_double(x.w[0], x.w[1]), pr::uniform_double(x.w[2], x.w[3]), z0, z1);
        v[0] = a + b * z0;
        v[1] = a + b * z1;
      } else {  // a = low, b = high
        v[0] = a + (b - a) * pr::uniform_double(x.w[0], x.w[1]);
        v[1] = a + (b - a) * pr::uniform_double(x.w[2], x.w[3]);
      }
    } else {
      if constexpr (Normal) {  // af = mean, bf = std
        constexpr float k = 1.0f / 16777216.0f;
        float z[4];
        pr::box_muller(static_cast<float>((x.w[0] >> 8) + 1) * k, static_cast<float>(x.w[1] >> 8) * k, z[0], z[1]);
        pr::box_muller(static_cast<float>((x.w[2] >> 8) + 1) * k, static_cast<float>(x.w[3] >> 8) * k, z[2], z[3]);
#pragma unroll
        for (int j = 0; j < 4; ++j) v[j] = from_float<T>(af + bf * z[j]);
      } else {  // af = low, bf = high - low
#pragma unroll
        for (int j = 0; j < 4; ++j) v[j] = from_float<T>(af + bf * pr::uniform_float(x.w[j], kBits<T>));
      }
    }
    const int64_t base = blk * E;
#pragma unroll
    for (int j = 0; j < E; ++j)
      if (base + j < numel) out[base + j] = v[j];
  }
}

template <bool Normal>
int fill(const char* fn, int dtype, void* out, int64_t numel, uint64_t seed, uint64_t first, double a, double b,
         void* stream) {
  CT_CUDA_ARG(valid_dtype(dtype) && is_floating(dtype), "%s: draws floating-point numbers, dtype is %s. Pass "
              "float16, bfloat16, float32 or float64", fn, dtype_name(dtype));
  CT_CUDA_ARG(numel >= 0 && (out || numel == 0), "%s: numel %lld with out %p", fn, static_cast<long long>(numel),
              out);
  if (numel == 0) return 0;
  const int64_t blocks = (numel + 3) / 4 + 1, grid64 = (blocks + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(grid64 < (1 << 20) ? grid64 : (1 << 20));
  const cudaStream_t s = as_stream(stream);
  // The CPU's float parameters: (float)low and (float)(high - low), or (float)mean and (float)std.
  const float af = static_cast<float>(a), bf = static_cast<float>(Normal ? b : b - a);
  switch (dtype) {
    case kF16: philox_kernel<__half, Normal><<<grid, kThreads, 0, s>>>(static_cast<__half*>(out), numel, seed, first,
                                                                      a, b, af, bf); break;
    case kBF16: philox_kernel<__nv_bfloat16, Normal><<<grid, kThreads, 0, s>>>(static_cast<__nv_bfloat16*>(out),
                                                                               numel, seed, first, a, b, af, bf); break;
    case kF32: philox_kernel<float, Normal><<<grid, kThreads, 0, s>>>(static_cast<float*>(out), numel, seed, first,
                                                                     a, b, af, bf); break;
    default: philox_kernel<double, Normal><<<grid, kThreads, 0, s>>>(static_cast<double*>(out), numel, seed, first,
                                                                    a, b, af, bf); break;
  }
  return check_launch(fn);
}

}  // namespace

int philox_uniform(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, double low,
                   double high, void* stream) {
  return fill<false>("philox_uniform", dtype, out, numel, seed, offset_block, low, high, stream);
}

int philox_normal(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, double mean, double std,
                  void* stream) {
  return fill<true>("philox_normal", dtype, out, numel, seed, offset_block, mean, std, stream);
}

}  // namespace ct::cuda
