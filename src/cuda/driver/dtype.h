// dtype.h - ctorch dtype codes on the device: reading any dtype as a compute type and writing a
// compute value as any dtype, chosen at run time. One kernel per (op, compute type) then serves
// every input/output dtype combination: the switch is uniform across a launch, so it costs a
// predictable branch, not a template instantiation per dtype pair.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace ct::cuda {

enum DType : int32_t { kBool = 0, kU8, kI8, kI16, kI32, kI64, kF16, kBF16, kF32, kF64, kNumDTypes };

__host__ __device__ inline int itemsize(int dt) {
  switch (dt) {
    case kBool: case kU8: case kI8: return 1;
    case kI16: case kF16: case kBF16: return 2;
    case kI32: case kF32: return 4;
    default: return 8;
  }
}
inline bool valid_dtype(int dt) { return dt >= 0 && dt < kNumDTypes; }
inline bool is_floating(int dt) { return dt >= kF16; }
const char* dtype_name(int dt);  // "float32"; "unknown" outside the codes (elementwise.cu)

/// x as the compute type C: to bool tests != 0, float to integer truncates (the device's
/// conversion saturates, and NaN gives 0).
template <typename C, typename S>
__device__ __forceinline__ C convert(S x) {
  if constexpr (std::is_same_v<C, bool>) return x != S(0);
  else return static_cast<C>(x);
}

template <typename C>
__device__ __forceinline__ C load(const char* p, int dt) {
  switch (dt) {
    case kBool: return convert<C>(static_cast<uint8_t>(*p != 0));
    case kU8: return convert<C>(*reinterpret_cast<const uint8_t*>(p));
    case kI8: return convert<C>(*reinterpret_cast<const int8_t*>(p));
    case kI16: return convert<C>(*reinterpret_cast<const int16_t*>(p));
    case kI32: return convert<C>(*reinterpret_cast<const int32_t*>(p));
    case kI64: return convert<C>(*reinterpret_cast<const int64_t*>(p));
    case kF16: return convert<C>(__half2float(*reinterpret_cast<const __half*>(p)));
    case kBF16: return convert<C>(__bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p)));
    case kF32: return convert<C>(*reinterpret_cast<const float*>(p));
    default: return convert<C>(*reinterpret_cast<const double*>(p));
  }
}

/// Writes v as dtype dt. 16-bit floats go through float32 (round to nearest even), as ctorch's
/// CPU cast does.
template <typename C>
__device__ __forceinline__ void store(char* p, int dt, C v) {
  switch (dt) {
    case kBool: *reinterpret_cast<uint8_t*>(p) = v != C(0); break;
    case kU8: *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v); break;
    case kI8: *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(v); break;
    case kI16: *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(v); break;
    case kI32: *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(v); break;
    case kI64: *reinterpret_cast<int64_t*>(p) = static_cast<int64_t>(v); break;
    case kF16: *reinterpret_cast<__half*>(p) = __float2half_rn(static_cast<float>(v)); break;
    case kBF16: *reinterpret_cast<__nv_bfloat16*>(p) = __float2bfloat16_rn(static_cast<float>(v)); break;
    case kF32: *reinterpret_cast<float*>(p) = static_cast<float>(v); break;
    default: *reinterpret_cast<double*>(p) = static_cast<double>(v); break;
  }
}

/// The accumulation type of a floating input: float32 for the 16- and 32-bit floats.
template <typename T> struct AccOf { using type = T; };
template <> struct AccOf<__half> { using type = float; };
template <> struct AccOf<__nv_bfloat16> { using type = float; };

}  // namespace ct::cuda
