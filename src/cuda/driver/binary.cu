// binary.cu - the binary table entry: arithmetic, division family, pow, extrema, comparisons,
// logical and bitwise ops over the elementwise engine. Those with an element function in
// ops/pointwise/fns.h call it (Note [Element functions]).
#include <cstdint>

#include "device_math.h"
#include "loop.h"
#include "members.h"
#include "ops/pointwise/fns.h"

namespace ct::cuda {
namespace {

template <typename C>
__device__ __forceinline__ C wrap_neg(C x) {  // -x without signed-overflow UB
  return static_cast<C>(0ull - static_cast<uint64_t>(x));
}

// a + alpha * b and a - alpha * b (the plain form when alpha is 1); integers wrap.
template <typename F>
struct Scaled {
  static constexpr unsigned computes = kCFloat | kCInt;
  double alpha;
  template <typename C>
  __device__ C operator()(C a, C b) const {
    return alpha == 1.0 ? F{}(a, b) : F{}(a, b, static_cast<C>(alpha));
  }
};

// An element function of fns.h, for the compute types in Computes.
template <typename F, unsigned Computes>
struct Element {
  static constexpr unsigned computes = Computes;
  template <typename C> __device__ C operator()(C a, C b) const { return F{}(a, b); }
};

struct Atan2 {
  static constexpr unsigned computes = kCFloat;
  template <typename C> __device__ C operator()(C a, C b) const { return dm::atan2(a, b); }
};

// Python's // and %, as the CPU kernels in ops/pointwise/binary.cpp. Integer division by zero
// cannot raise in a kernel: it gives 0 (documented in ct_cuda_driver.h).
struct DivMod {
  static constexpr unsigned computes = kCFloat | kCInt;
  bool floor_divide;
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (!floor_divide) {
        C mod = dm::fmod(a, b);
        if (mod != C(0) && ((b < C(0)) != (mod < C(0)))) mod += b;
        return mod;
      }
      if (b == C(0)) return a / b;  // PyTorch's div_floor_floating
      const C mod = dm::fmod(a, b);
      C div = (a - mod) / b;
      if (mod != C(0) && ((b < C(0)) != (mod < C(0)))) div -= C(1);
      if (div == C(0)) return dm::copysign(C(0), a / b);
      C fl = dm::floor(div);
      if (div - fl > C(0.5)) fl += C(1);
      return fl;
    } else {
      if (b == 0) return 0;
      if (b == -1) return floor_divide ? wrap_neg(a) : C(0);  // INT64_MIN / -1 must not trap
      const C q = a / b, r = a % b;
      if (floor_divide) return (r != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
      return (r != 0 && ((b < 0) != (r < 0))) ? r + b : r;
    }
  }
};

struct Pow {
  static constexpr unsigned computes = kCFloat | kCInt;
  template <typename C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return dm::pow(a, b);
    } else {
      if (b < 0) return a == 1 ? C(1) : a == -1 ? ((b & 1) ? C(-1) : C(1)) : C(0);
      uint64_t result = 1, base = static_cast<uint64_t>(a);  // unsigned: overflow wraps as in PyTorch
      for (C e = b; e != 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      return static_cast<C>(result);
    }
  }
};

// Comparisons, logical and bitwise ops: one cheap operation chosen at run time.
struct Compare {
  static constexpr unsigned computes = kCFloat | kCInt | kCBool;
  int op;
  template <typename C>
  __device__ C operator()(C a, C b) const {
    bool r;
    switch (op) {
      case CT_CUDA_BINARY_EQ: r = a == b; break;
      case CT_CUDA_BINARY_NE: r = a != b; break;
      case CT_CUDA_BINARY_LT: r = a < b; break;
      case CT_CUDA_BINARY_LE: r = a <= b; break;
      case CT_CUDA_BINARY_GT: r = a > b; break;
      case CT_CUDA_BINARY_GE: r = a >= b; break;
      case CT_CUDA_BINARY_LOGICAL_AND: r = a != C(0) && b != C(0); break;
      default: r = a != C(0) || b != C(0); break;
    }
    return static_cast<C>(r);
  }
};

struct Bitwise {
  static constexpr unsigned computes = kCInt | kCBool;
  int op;
  template <typename C>
  __device__ C operator()(C a, C b) const {
    switch (op) {
      case CT_CUDA_BINARY_BITWISE_AND: return static_cast<C>(a & b);
      case CT_CUDA_BINARY_BITWISE_OR: return static_cast<C>(a | b);
      default: return static_cast<C>(a ^ b);
    }
  }
};

const char* const kBinaryNames[] = {"add", "sub", "mul", "div", "floor_divide", "remainder", "pow",
                                    "maximum", "minimum", "atan2", "eq", "ne", "lt", "le", "gt", "ge",
                                    "logical_and", "logical_or", "bitwise_and", "bitwise_or", "bitwise_xor"};
constexpr int kNumBinary = sizeof(kBinaryNames) / sizeof(kBinaryNames[0]);

template <typename F>
int run(const char* name, int compute, const LoopArgs& a, const F& f, void* stream) {
  return dispatch_compute<F::computes>("binary", name, compute, [&](auto c) {
    return launch_elementwise<2, decltype(c)>("binary kernel launch", a, f, stream);
  });
}

}  // namespace

int binary(int op, int dtype_out, int dtype_a, int dtype_b, int compute, double alpha, void* out, const void* a,
           const void* b, const ct_cuda_loop* loop, void* stream) {
  // The ops with parameters live in binary_params.cu (their parameters all 0 through this member).
  if (op >= kNumBinary) return binary_params(op, dtype_out, dtype_a, dtype_b, compute, nullptr, out, a, b, loop, stream);
  CT_CUDA_ARG(op >= 0, "binary: unknown op code %d. Pass a ct_cuda_binary_op", op);
  void* ptrs[3] = {out, const_cast<void*>(a), const_cast<void*>(b)};
  const int dtypes[3] = {dtype_out, dtype_a, dtype_b};
  LoopArgs la;
  if (const int s = make_loop_args("binary", loop, 3, ptrs, dtypes, &la)) return s;
  const char* name = kBinaryNames[op];
  switch (op) {
    case CT_CUDA_BINARY_ADD: return run(name, compute, la, Scaled<fn::Add>{alpha}, stream);
    case CT_CUDA_BINARY_SUB: return run(name, compute, la, Scaled<fn::Sub>{alpha}, stream);
    case CT_CUDA_BINARY_MUL: return run(name, compute, la, Element<fn::Mul, kCFloat | kCInt | kCBool>{}, stream);
    case CT_CUDA_BINARY_DIV: return run(name, compute, la, Element<fn::Div, kCFloat>{}, stream);
    case CT_CUDA_BINARY_FLOOR_DIVIDE: case CT_CUDA_BINARY_REMAINDER:
      return run(name, compute, la, DivMod{op == CT_CUDA_BINARY_FLOOR_DIVIDE}, stream);
    case CT_CUDA_BINARY_POW: return run(name, compute, la, Pow{}, stream);
    case CT_CUDA_BINARY_MAXIMUM: return run(name, compute, la, Element<fn::Maximum, kCFloat | kCInt | kCBool>{}, stream);
    case CT_CUDA_BINARY_MINIMUM: return run(name, compute, la, Element<fn::Minimum, kCFloat | kCInt | kCBool>{}, stream);
    case CT_CUDA_BINARY_ATAN2: return run(name, compute, la, Atan2{}, stream);
    case CT_CUDA_BINARY_BITWISE_AND: case CT_CUDA_BINARY_BITWISE_OR: case CT_CUDA_BINARY_BITWISE_XOR:
      return run(name, compute, la, Bitwise{op}, stream);
    default: return run(name, compute, la, Compare{op}, stream);
  }
}

}  // namespace ct::cuda
