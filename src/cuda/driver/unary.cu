// unary.cu - the unary table entry: the element functions of ops/pointwise/fns.h (the functors the
// cpu and fused kernels call, Note [Element functions]) and the ops not written there yet,
// instantiated for the compute types the op allows.
#include "device_math.h"
#include "loop.h"
#include "members.h"
#include "ops/pointwise/fns.h"

namespace ct::cuda {
namespace {

// An element function of fns.h, for the compute types in Computes.
template <typename F, unsigned Computes = kCFloat>
struct Element {
  static constexpr unsigned computes = Computes;
  template <typename C> __device__ C operator()(C x) const { return F{}(x); }
};

// The activations with parameters on the cpu (activations.cpp). The constants are spelled in C so
// float compute stays in float.
template <int Op>
struct FloatMap {
  static constexpr unsigned computes = kCFloat;
  template <typename C>
  __device__ C operator()(C x) const {
    if constexpr (Op == CT_CUDA_UNARY_GELU) return C(0.5) * x * (C(1) + dm::erf(x * C(0.70710678118654752440)));
    else if constexpr (Op == CT_CUDA_UNARY_GELU_TANH) {
      const C inner = C(0.79788456080286535588) * (x + C(0.044715) * x * x * x);
      return C(0.5) * x * (C(1) + dm::tanh(inner));
    } else {
      return x / (C(1) + dm::exp(-x));  // SILU
    }
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
  // The ops with parameters live in unary_params.cu (their parameters all 0 through this member).
  if (op >= kNumUnary) return unary_params(op, dtype_out, dtype_in, compute, nullptr, out, in, loop, stream);
  CT_CUDA_ARG(op >= 0, "unary: unknown op code %d. Pass a ct_cuda_unary_op", op);
  void* ptrs[2] = {out, const_cast<void*>(in)};
  const int dtypes[2] = {dtype_out, dtype_in};
  LoopArgs a;
  if (const int s = make_loop_args("unary", loop, 2, ptrs, dtypes, &a)) return s;
  const char* name = kUnaryNames[op];
  switch (op) {
    case CT_CUDA_UNARY_COPY: return run(name, compute, a, Copy{}, stream);
    case CT_CUDA_UNARY_NEG: return run(name, compute, a, Element<fn::Neg, kCFloat | kCInt>{}, stream);
    case CT_CUDA_UNARY_ABS: return run(name, compute, a, Element<fn::Abs, kCFloat | kCInt>{}, stream);
    case CT_CUDA_UNARY_RELU: return run(name, compute, a, Element<fn::Relu, kCFloat | kCInt>{}, stream);
    case CT_CUDA_UNARY_FLOOR: case CT_CUDA_UNARY_CEIL: case CT_CUDA_UNARY_ROUND: case CT_CUDA_UNARY_TRUNC:
      return run(name, compute, a, Round{op}, stream);
    case CT_CUDA_UNARY_SIGN: return run(name, compute, a, Sign{}, stream);
    case CT_CUDA_UNARY_LOGICAL_NOT: return run(name, compute, a, LogicalNot{}, stream);
    case CT_CUDA_UNARY_BITWISE_NOT: return run(name, compute, a, BitwiseNot{}, stream);
    case CT_CUDA_UNARY_EXP: return run(name, compute, a, Element<fn::Exp>{}, stream);
    case CT_CUDA_UNARY_LOG: return run(name, compute, a, Element<fn::Log>{}, stream);
    case CT_CUDA_UNARY_SQRT: return run(name, compute, a, Element<fn::Sqrt>{}, stream);
    case CT_CUDA_UNARY_RSQRT: return run(name, compute, a, Element<fn::Rsqrt>{}, stream);
    case CT_CUDA_UNARY_SIN: return run(name, compute, a, Element<fn::Sin>{}, stream);
    case CT_CUDA_UNARY_COS: return run(name, compute, a, Element<fn::Cos>{}, stream);
    case CT_CUDA_UNARY_TANH: return run(name, compute, a, Element<fn::Tanh>{}, stream);
    case CT_CUDA_UNARY_SIGMOID: return run(name, compute, a, Element<fn::Sigmoid>{}, stream);
    case CT_CUDA_UNARY_GELU: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_GELU>{}, stream);
    case CT_CUDA_UNARY_GELU_TANH: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_GELU_TANH>{}, stream);
    case CT_CUDA_UNARY_SILU: return run(name, compute, a, FloatMap<CT_CUDA_UNARY_SILU>{}, stream);
    case CT_CUDA_UNARY_RECIPROCAL: return run(name, compute, a, Element<fn::Reciprocal>{}, stream);
    case CT_CUDA_UNARY_ERF: return run(name, compute, a, Element<fn::Erf>{}, stream);
    case CT_CUDA_UNARY_LOG1P: return run(name, compute, a, Element<fn::Log1p>{}, stream);
    default: return run(name, compute, a, Element<fn::Expm1>{}, stream);
  }
}

}  // namespace ct::cuda
