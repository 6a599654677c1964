// loop.h - the one elementwise engine: a grid-stride loop over a ct_cuda_loop, reading inputs of
// any dtype as the compute type C, applying a functor, and writing the output dtype. Contiguous
// operands take a 4-element vector path (16-byte loads for float32) when every pointer is aligned;
// everything else computes per-operand offsets from the row-major element number.
#pragma once

#include "ct_cuda_driver.h"
#include "dtype.h"
#include "status.h"

namespace ct::cuda {

constexpr int kElementwiseThreads = 256;

/// A ct_cuda_loop prepared for the kernel: byte strides, item sizes, and which path applies.
struct LoopArgs {
  char* ptr[CT_CUDA_MAX_OPERANDS];
  int32_t dtype[CT_CUDA_MAX_OPERANDS];
  int32_t isz[CT_CUDA_MAX_OPERANDS];
  int32_t ndim;  // >= 1
  int32_t nops;
  bool contiguous;  // ndim 1 and every operand's stride is 1
  bool vec4;        // contiguous, and every pointer aligned to 4 items
  int64_t numel;
  int64_t sizes[CT_CUDA_MAX_DIMS];
  int64_t strides[CT_CUDA_MAX_OPERANDS][CT_CUDA_MAX_DIMS];  // bytes
};

/// Validates loop against the call (nops operands, pointers, dtypes) and fills args.
/// CT_CUDA_ERR_INVALID_ARGUMENT naming fn when the descriptor is inconsistent.
int make_loop_args(const char* fn, const ct_cuda_loop* loop, int nops, void* const* ptrs, const int* dtypes,
                   LoopArgs* args);

namespace detail {

template <typename C, typename T>
__device__ __forceinline__ C from_raw(T x) {
  if constexpr (std::is_same_v<T, __half>) return convert<C>(__half2float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return convert<C>(__bfloat162float(x));
  else return convert<C>(x);
}

template <typename T>
struct alignas(4 * sizeof(T)) Vec4 {
  T v[4];
};

template <typename C, typename T>
__device__ __forceinline__ void load4_as(const char* p, C (&out)[4]) {
  const Vec4<T> x = *reinterpret_cast<const Vec4<T>*>(p);
#pragma unroll
  for (int k = 0; k < 4; ++k) out[k] = from_raw<C>(x.v[k]);
}

template <typename C>
__device__ __forceinline__ void load4(const char* p, int dt, C (&out)[4]) {
  switch (dt) {
    case kBool: {
      uint8_t b[4];
      load4_as<uint8_t, uint8_t>(p, b);
#pragma unroll
      for (int k = 0; k < 4; ++k) out[k] = convert<C>(static_cast<uint8_t>(b[k] != 0));
      break;
    }
    case kU8: load4_as<C, uint8_t>(p, out); break;
    case kI8: load4_as<C, int8_t>(p, out); break;
    case kI16: load4_as<C, int16_t>(p, out); break;
    case kI32: load4_as<C, int32_t>(p, out); break;
    case kI64: load4_as<C, int64_t>(p, out); break;
    case kF16: load4_as<C, __half>(p, out); break;
    case kBF16: load4_as<C, __nv_bfloat16>(p, out); break;
    case kF32: load4_as<C, float>(p, out); break;
    default: load4_as<C, double>(p, out); break;
  }
}

template <typename T, typename C>
__device__ __forceinline__ void store4_as(char* p, const C (&v)[4]) {
  Vec4<T> x;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if constexpr (std::is_same_v<T, __half>) x.v[k] = __float2half_rn(static_cast<float>(v[k]));
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) x.v[k] = __float2bfloat16_rn(static_cast<float>(v[k]));
    else if constexpr (std::is_same_v<T, bool>) x.v[k] = v[k] != C(0);
    else x.v[k] = static_cast<T>(v[k]);
  }
  *reinterpret_cast<Vec4<T>*>(p) = x;
}

template <typename C>
__device__ __forceinline__ void store4(char* p, int dt, const C (&v)[4]) {
  switch (dt) {
    case kBool: store4_as<bool>(p, v); break;
    case kU8: store4_as<uint8_t>(p, v); break;
    case kI8: store4_as<int8_t>(p, v); break;
    case kI16: store4_as<int16_t>(p, v); break;
    case kI32: store4_as<int32_t>(p, v); break;
    case kI64: store4_as<int64_t>(p, v); break;
    case kF16: store4_as<__half>(p, v); break;
    case kBF16: store4_as<__nv_bfloat16>(p, v); break;
    case kF32: store4_as<float>(p, v); break;
    default: store4_as<double>(p, v); break;
  }
}

template <int NIN, typename C, typename F>
__device__ __forceinline__ C apply(const F& f, const C* in) {
  if constexpr (NIN == 0) return f();
  else if constexpr (NIN == 1) return f(in[0]);
  else if constexpr (NIN == 2) return f(in[0], in[1]);
  else return f(in[0], in[1], in[2]);
}

}  // namespace detail

/// out = f(inputs...) for every element of a; NIN inputs (operands 1..NIN), compute type C.
template <int NIN, typename C, typename F>
__global__ void __launch_bounds__(kElementwiseThreads) elementwise_kernel(LoopArgs a, F f) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t scalar_begin = 0;
  if (a.vec4) {
    const int64_t nvec = a.numel / 4;
    for (int64_t v = first; v < nvec; v += step) {
      C in[NIN > 0 ? NIN : 1][4];
#pragma unroll
      for (int j = 0; j < NIN; ++j) detail::load4<C>(a.ptr[1 + j] + v * 4 * a.isz[1 + j], a.dtype[1 + j], in[j]);
      C out[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        C x[NIN > 0 ? NIN : 1];
#pragma unroll
        for (int j = 0; j < NIN; ++j) x[j] = in[j][k];
        out[k] = detail::apply<NIN, C>(f, x);
      }
      detail::store4<C>(a.ptr[0] + v * 4 * a.isz[0], a.dtype[0], out);
    }
    scalar_begin = nvec * 4;  // the tail, below
  }
  for (int64_t i = scalar_begin + first; i < a.numel; i += step) {
    int64_t off[NIN + 1];
    if (a.ndim == 1) {
#pragma unroll
      for (int j = 0; j <= NIN; ++j) off[j] = i * a.strides[j][0];
    } else {
#pragma unroll
      for (int j = 0; j <= NIN; ++j) off[j] = 0;
      int64_t rem = i;
      for (int d = a.ndim - 1; d >= 0; --d) {
        const int64_t idx = rem % a.sizes[d];
        rem /= a.sizes[d];
#pragma unroll
        for (int j = 0; j <= NIN; ++j) off[j] += idx * a.strides[j][d];
      }
    }
    C x[NIN > 0 ? NIN : 1];
#pragma unroll
    for (int j = 0; j < NIN; ++j) x[j] = load<C>(a.ptr[1 + j] + off[1 + j], a.dtype[1 + j]);
    store<C>(a.ptr[0] + off[0], a.dtype[0], detail::apply<NIN, C>(f, x));
  }
}

/// Launches elementwise_kernel for a on stream; the grid does not affect results.
template <int NIN, typename C, typename F>
int launch_elementwise(const char* fn, const LoopArgs& a, const F& f, void* stream) {
  if (a.numel == 0) return 0;
  const int64_t work = a.vec4 ? (a.numel + 3) / 4 : a.numel;
  const int64_t blocks = (work + kElementwiseThreads - 1) / kElementwiseThreads;
  const unsigned grid = static_cast<unsigned>(blocks < (1 << 20) ? blocks : (1 << 20));
  elementwise_kernel<NIN, C><<<grid, kElementwiseThreads, 0, as_stream(stream)>>>(a, f);
  return check_launch(fn);
}

/// Compute types a functor accepts (bit set).
enum ComputeSet : unsigned { kCFloat = 1, kCInt = 2, kCBool = 4 };

/// Calls launch<C>() for the compute dtype when Computes allows it; else UNSUPPORTED naming fn/op.
template <unsigned Computes, typename Launch>
int dispatch_compute(const char* fn, const char* op, int compute, const Launch& launch) {
  switch (compute) {
    case kF32: if constexpr ((Computes & kCFloat) != 0) return launch(float{}); break;
    case kF64: if constexpr ((Computes & kCFloat) != 0) return launch(double{}); break;
    case kI64: if constexpr ((Computes & kCInt) != 0) return launch(int64_t{}); break;
    case kBool: if constexpr ((Computes & kCBool) != 0) return launch(bool{}); break;
    default: break;
  }
  return fail(CT_CUDA_ERR_UNSUPPORTED, "%s: %s has no kernel computing in %s (compute dtype code %d). Compute in "
              "float32/float64 for floating ops, int64 for integer ops, bool for logical ones",
              fn, op, dtype_name(compute), compute);
}

}  // namespace ct::cuda
