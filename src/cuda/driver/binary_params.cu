// binary_params.cu - the binary ops with parameters, the binary_params member (hypot, fmod,
// logical_xor, the shifts, gcd, lcm) and the ternary member (lerp, addcmul, addcdiv). Compiled with
// --fmad=false so lerp and addcmul round as ctorch's CPU kernels (ops/pointwise/binary.cpp,
// ternary.cpp).
#include <cstdint>

#include "device_math.h"
#include "loop.h"
#include "members.h"
#include "ops/pointwise/fns.h"

namespace ct::cuda {
namespace {

struct Hypot {
  static constexpr unsigned computes = kCFloat;
  template <typename C> __device__ C operator()(C a, C b) const { return dm::hypot(a, b); }
};

// C's fmod: the sign of a. Integers: b == 0 gives 0 (a kernel cannot raise), b == -1 gives 0.
struct Fmod {
  static constexpr unsigned computes = kCFloat | kCInt;
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) return dm::fmod(a, b);
    else return b == 0 || b == -1 ? C(0) : static_cast<C>(a % b);
  }
};

struct LogicalXor {
  static constexpr unsigned computes = kCFloat | kCInt | kCBool;
  template <typename C> __device__ C operator()(C a, C b) const { return static_cast<C>((a != C(0)) != (b != C(0))); }
};

// The shifts of ops/pointwise/binary.cpp in the width w of the dtype ctorch computes in: both
// operands are first wrapped to that dtype (as the CPU's conversion to it), then shifted.
struct Shift {
  static constexpr unsigned computes = kCInt;
  bool left;
  int bits;
  bool is_unsigned;
  __device__ int64_t wrap(int64_t v) const {
    if (bits >= 64) return v;
    if (is_unsigned) return static_cast<int64_t>(static_cast<uint64_t>(v) & ((uint64_t(1) << bits) - 1));
    const int s = 64 - bits;
    return static_cast<int64_t>(static_cast<uint64_t>(v) << s) >> s;
  }
  template <typename C>
  __device__ C operator()(C a0, C b0) const {
    const int64_t a = wrap(a0), b = wrap(b0);
    const bool out_of_range = b < 0 || b >= bits;
    if (left) return out_of_range ? C(0) : static_cast<C>(static_cast<uint64_t>(a) << b);
    return out_of_range ? static_cast<C>(a >> (bits - 1)) : static_cast<C>(a >> b);
  }
};

// gcd and lcm: fns.h's functors (Note [Element functions]) run in the integer type ctorch computes
// in (bits wide, unsigned for uint8), as the CPU's loop does, so an lcm that overflows it wraps the
// same way; the table's int64 operands hold that type's values.
struct GcdLcm {
  static constexpr unsigned computes = kCInt;
  bool lcm;
  int bits;
  bool is_unsigned;
  template <typename F>
  __device__ int64_t at_width(F f, int64_t a, int64_t b) const {
    switch (bits) {
      case 8: return is_unsigned ? int64_t(f(uint8_t(a), uint8_t(b))) : int64_t(f(int8_t(a), int8_t(b)));
      case 16: return f(int16_t(a), int16_t(b));
      case 32: return f(int32_t(a), int32_t(b));
      default: return f(a, b);
    }
  }
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return static_cast<C>(lcm ? at_width(fn::Lcm{}, a, b) : at_width(fn::Gcd{}, a, b));
  }
};

// PyTorch's lerp: the form that is exact at the end the weight is nearer to.
template <typename C>
__device__ __forceinline__ C lerp(C a, C b, C w) {
  return (w < C(0) ? -w : w) < C(0.5) ? a + w * (b - a) : b - (b - a) * (C(1) - w);
}

struct LerpScalar {
  static constexpr unsigned computes = kCFloat;
  double w;
  template <typename C> __device__ C operator()(C a, C b) const { return lerp(a, b, static_cast<C>(w)); }
};

struct Ternary {
  static constexpr unsigned computes = kCFloat | kCInt;
  int op;
  double value;
  template <typename C>
  __device__ C operator()(C a, C b, C c) const {
    if constexpr (std::is_integral_v<C>) {  // ADDCMUL only (the others are float-only): wraps
      const uint64_t v = static_cast<uint64_t>(static_cast<C>(value));
      return static_cast<C>(static_cast<uint64_t>(a) + v * static_cast<uint64_t>(b) * static_cast<uint64_t>(c));
    } else {
      const C v = static_cast<C>(value);
      switch (op) {
        case CT_CUDA_TERNARY_LERP: return lerp(a, b, c);
        case CT_CUDA_TERNARY_ADDCMUL: return a + v * b * c;
        default: return a + v * (b / c);  // ADDCDIV
      }
    }
  }
};

constexpr int kFirstBinary = CT_CUDA_BINARY_HYPOT;
const char* const kBinaryNames[] = {"hypot", "fmod", "logical_xor", "bitwise_left_shift", "bitwise_right_shift",
                                    "gcd", "lcm"};
constexpr int kEndBinary = kFirstBinary + static_cast<int>(sizeof(kBinaryNames) / sizeof(kBinaryNames[0]));
static_assert(kEndBinary == CT_CUDA_BINARY_LCM + 1, "kBinaryNames follows ct_cuda_binary_op");
const char* const kTernaryNames[] = {"lerp", "lerp", "addcmul", "addcdiv"};

template <int NIN, typename F>
int run(const char* fn, const char* name, int compute, const LoopArgs& a, const F& f, void* stream) {
  return dispatch_compute<F::computes>(fn, name, compute, [&](auto c) {
    return launch_elementwise<NIN, decltype(c)>(fn, a, f, stream);
  });
}

}  // namespace

int binary_params(int op, int dtype_out, int dtype_a, int dtype_b, int compute, const double* params, void* out,
                  const void* a, const void* b, const ct_cuda_loop* loop, void* stream) {
  if (op >= 0 && op < kFirstBinary)
    return binary(op, dtype_out, dtype_a, dtype_b, compute, params ? params[0] : 1.0, out, a, b, loop, stream);
  CT_CUDA_ARG(op >= kFirstBinary && op < kEndBinary,
              "binary_params: unknown op code %d. Pass a ct_cuda_binary_op", op);
  void* ptrs[3] = {out, const_cast<void*>(a), const_cast<void*>(b)};
  const int dtypes[3] = {dtype_out, dtype_a, dtype_b};
  LoopArgs la;
  if (const int s = make_loop_args("binary_params", loop, 3, ptrs, dtypes, &la)) return s;
  const char* name = kBinaryNames[op - kFirstBinary];
  const char* fn = "binary_params";
  switch (op) {
    case CT_CUDA_BINARY_HYPOT: return run<2>(fn, name, compute, la, Hypot{}, stream);
    case CT_CUDA_BINARY_FMOD: return run<2>(fn, name, compute, la, Fmod{}, stream);
    case CT_CUDA_BINARY_LOGICAL_XOR: return run<2>(fn, name, compute, la, LogicalXor{}, stream);
    default: break;
  }
  const int bits = params && params[0] > 0 ? static_cast<int>(params[0]) : 64;
  CT_CUDA_ARG(bits == 8 || bits == 16 || bits == 32 || bits == 64,
              "binary_params: %s got bit width %d. Pass 8, 16, 32 or 64 (or 0 for 64)", name, bits);
  const bool is_unsigned = params && params[1] != 0;
  if (op == CT_CUDA_BINARY_GCD || op == CT_CUDA_BINARY_LCM)
    return run<2>(fn, name, compute, la, GcdLcm{op == CT_CUDA_BINARY_LCM, bits, is_unsigned}, stream);
  return run<2>(fn, name, compute, la, Shift{op == CT_CUDA_BINARY_LEFT_SHIFT, bits, is_unsigned}, stream);
}

int ternary(int op, int dtype_out, int dtype_a, int dtype_b, int dtype_c, int compute, const double* params,
            void* out, const void* a, const void* b, const void* c, const ct_cuda_loop* loop, void* stream) {
  CT_CUDA_ARG(op >= CT_CUDA_TERNARY_LERP && op <= CT_CUDA_TERNARY_ADDCDIV,
              "ternary: unknown op code %d. Pass a ct_cuda_ternary_op", op);
  const char* name = kTernaryNames[op];
  const double p0 = params ? params[0] : 0.0;
  void* ptrs[4] = {out, const_cast<void*>(a), const_cast<void*>(b), const_cast<void*>(c)};
  const int dtypes[4] = {dtype_out, dtype_a, dtype_b, dtype_c};
  LoopArgs la;
  if (op == CT_CUDA_TERNARY_LERP_SCALAR) {
    if (const int s = make_loop_args("ternary", loop, 3, ptrs, dtypes, &la)) return s;
    return run<2>("ternary", name, compute, la, LerpScalar{p0}, stream);
  }
  if (const int s = make_loop_args("ternary", loop, 4, ptrs, dtypes, &la)) return s;
  if (op != CT_CUDA_TERNARY_ADDCMUL && compute != kF32 && compute != kF64)
    return fail(CT_CUDA_ERR_UNSUPPORTED, "ternary: %s computes in float32 or float64, got compute dtype %s", name,
                dtype_name(compute));
  return run<3>("ternary", name, compute, la, Ternary{op, p0}, stream);
}

}  // namespace ct::cuda
