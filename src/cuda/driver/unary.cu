// unary.cu - the unary table entry: one functor per op (a family functor where the ops differ by
// one comparison), instantiated for the compute types the op allows.
#include "device_math.h"
#include "loop.h"
#include "members.h"

namespace ct::cuda {
namespace {

// Float-only maps. The constants are spelled in C so float compute stays in float.
template <int Op>
struct FloatMap {
  static constexpr unsigned computes = kCFloat;
  template <typename C>
  __device__ C operator()(C x) const {
    if constexpr (Op == CT_CUDA_UNARY_EXP) return dm::exp(x);
    else if constexpr (Op == CT_CUDA_UNARY_LOG) return dm::log(x);
    else if constexpr (Op == CT_CUDA_UNARY_SQRT) return dm::sqrt(x);
    else if constexpr (Op == CT_CUDA_UNARY_RSQRT) return C(1) / dm::sqrt(x);  // as the CPU: exact sqrt, then divide
    else if constexpr (Op == CT_CUDA_UNARY_SIN) return dm::sin(x);
    else if constexpr (Op == CT_CUDA_UNARY_COS) return dm::cos(x);
    else if constexpr (Op == CT_CUDA_UNARY_TANH) return dm::tanh(x);
    else if constexpr (Op == CT_CUDA_UNARY_SIGMOID) return C(1) / (C(1) + dm::exp(-x));
    else if constexpr (Op == CT_CUDA_UNARY_GELU) return C(0.5) * x * (C(1) + dm::erf(x * C(0.70710678118654752440)));
    else if constexpr (Op == CT_CUDA_UNARY_GELU_TANH) {
      const C inner = C(0.79788456080286535588) * (x + C(0.044715) * x * x * x);
      return C(0.5) * x * (C(1) + dm::tanh(inner));
    } else if constexpr (Op == CT_CUDA_UNARY_SILU) return x / (C(1) + dm::exp(-x));
    else if constexpr (Op == CT_CUDA_UNARY_RECIPROCAL) return C(1) / x;
    else if constexpr (Op == CT_CUDA_UNARY_ERF) return dm::erf(x);
    else if constexpr (Op == CT_CUDA_UNARY_LOG1P) return dm::log1p(x);
    else return dm::expm1(x);
  }
};

// Rounding: integers pass through unchanged (exact for every int64).
struct Round {
  static constexpr unsigned computes = kCFloat | kCInt;
  int op;
  template <typename C>
  __device__ C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      switch (op) {
        case CT_CUDA_UNARY_FLOOR: return dm::floor(x);
        case CT_CUDA_UNARY_CEIL: return dm::ceil(x);
        case CT_CUDA_UNARY_ROUND: return dm::rint(x);  // half to even in the default rounding mode
        default: return dm::trunc(x);
      }
    } else {
      return x;
    }
  }
};

// Sign-type maps shared by floats and integers.
struct Signed {
  static constexpr unsigned computes = kCFloat | kCInt;
  int op;
  template <typename C>
  __device__ C operator()(C x) const {
    switch (op) {
      case CT_CUDA_UNARY_NEG:
        if constexpr (std::is_integral_v<C>) return static_cast<C>(0ull - static_cast<uint64_t>(x));  // wraps
        else return -x;
      case CT_CUDA_UNARY_ABS:
        if constexpr (std::is_integral_v<C>) return x < 0 ? static_cast<C>(0ull - static_cast<uint64_t>(x)) : x;
        else return x < C(0) ? -x : (x == C(0) ? C(0) : x);  // abs(-0) is +0
      default:  // RELU: NaN stays NaN
        return x < C(0) ? C(0) : x;
    }
  }
};

struct Copy {
  static constexpr unsigned computes = kCFloat | kCInt | kCBool;
  template <typename C> __device__ C operator()(C x) const { return x; }
};

struct Sign {
  static constexpr unsigned computes = kCFloat | kCInt | kCBool;
  template <typename C>
  __device__ C operator()(C x) const {
    if constexpr (std::is_same_v<C, bool>) return x;
    else return static_cast<C>(static_cast<int>(C(0) < x) - static_cast<int>(x < C(0)));
  }
};

struct LogicalNot {
  static constexpr unsigned computes = kCFloat | kCInt | kCBool;
  template <typename C> __device__ C operator()(C x) const { return static_cast<C>(x == C(0)); }
};

struct BitwiseNot {
  static constexpr unsigned computes = kCInt | kCBool;
  template <typename C>
  __device__ C operator()(C x) const {
    if constexpr (std::is_same_v<C, bool>) return !x;
    else return ~x;
  }
};

const char* const kUnaryNames[] = {"copy", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos",
                                   "tanh", "sigmoid", "relu", "gelu", "gelu_tanh", "silu", "reciprocal",
                                   "floor", "ceil", "round", "trunc", "sign", "erf", "log1p", "expm1",
                                   "logical_not", "bitwise_not"};
constexpr int kNumUnary = sizeof(kUnaryNames) / sizeof(kUnaryNames[0]);

template <typename F>
int run(const char* name, int compute, const LoopArgs& a, const F& f, void* stream) {
  return dispatch_compute<F::computes>("unary", name, compute, [&](auto c) {
    return launch_elementwise<1, decltype(c)>("unary kernel launch", a, f, stream);
  });
}

}  // namespace

int unary(int op, int dtype_out, int dtype_in, int compute, void* out, const void* in, const ct_cuda_loop* loop,
          void* stream) {
  // The ops appended later live in unary_more.cu (their parameters all 0 through this member).
  if (op >= kNumUnary) return unary_params(op, dtype_out, dtype_in, compute, nullptr, out, in, loop, stream);
  CT_CUDA_ARG(op >= 0, "unary: unknown op code %d. Pass a ct_cuda_unary_op", op);
  void* ptrs[2] = {out, const_cast<void*>(in)};
  const int dtypes[2] = {dtype_out, dtype_in};
  LoopArgs a;
  if (const int s = make_loop_args("unary", loop, 2, ptrs, dtypes, &a)) return s;
  const char* name = kUnaryNames[op];
  switch (op) {
    case CT_CUDA_UNARY_COPY: return run(name, compute, a, Copy{}, stream);
    case CT_CUDA_UNARY_NEG: case CT_CUDA_UNARY_ABS: case CT_CUDA_UNARY_RELU:
      return run(name, compute, a, Signed{op}, stream);
    case CT_CUDA_UNARY_FLOOR: case CT_CUDA_UNARY_CEIL: case CT_CUDA_UNARY_ROUND: case CT_CUDA_UNARY_TRUNC:
      return run(name, compute, a, Round{op}, stream);
    case CT_CUDA_UNARY_SIGN: return run(name, compute, a, Sign{}, stream);
    case CT_CUDA_UNARY_LOGICAL_NOT: return run(name, compute, a, LogicalNot{}, stream);
    case CT_CUDA_UNARY_BITWISE_NOT: return run(name, compute, a, BitwiseNot{}, stream);
    case CT_CUDA_UNARY_EXP: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_EXP>{}, stream);
    case CT_CUDA_UNARY_LOG: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_LOG>{}, stream);
    case CT_CUDA_UNARY_SQRT: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_SQRT>{}, stream);
    case CT_CUDA_UNARY_RSQRT: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_RSQRT>{}, stream);
    case CT_CUDA_UNARY_SIN: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_SIN>{}, stream);
    case CT_CUDA_UNARY_COS: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_COS>{}, stream);
    case CT_CUDA_UNARY_TANH: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_TANH>{}, stream);
    case CT_CUDA_UNARY_SIGMOID: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_SIGMOID>{}, stream);
    case CT_CUDA_UNARY_GELU: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_GELU>{}, stream);
    case CT_CUDA_UNARY_GELU_TANH: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_GELU_TANH>{}, stream);
    case CT_CUDA_UNARY_SILU: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_SILU>{}, stream);
    case CT_CUDA_UNARY_RECIPROCAL: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_RECIPROCAL>{}, stream);
    case CT_CUDA_UNARY_ERF: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_ERF>{}, stream);
    case CT_CUDA_UNARY_LOG1P: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_LOG1P>{}, stream);
    default: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_EXPM1>{}, stream);
  }
}

}  // namespace ct::cuda
