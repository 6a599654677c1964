// unary_params.cu - the unary_params member of the table: the libm functions the first table did
// not have, the parametrized activations, clamp, the classification tests and nan_to_num. Each
// family is one functor choosing its op at run time (a uniform branch), so the file instantiates a handful
// of kernels rather than one per op and dtype. Compiled with --fmad=false: the formulas round
// operation by operation as ctorch's CPU kernels do (ops/pointwise/unary.cpp, activations.cpp,
// where_clamp.cpp).
#include "device_math.h"
#include "loop.h"
#include "members.h"
#include "ops/pointwise/fns.h"

namespace ct::cuda {
namespace {

// erfinv as PyTorch computes it (calc_erfinv), as ops/pointwise/unary.cpp's erfinv_impl.
template <typename C>
__device__ C erfinv(C y) {
  const C ay = dm::fabs(y);
  if (ay > C(1)) return C(NAN);
  if (ay == C(1)) return dm::copysign(C(INFINITY), y);
  C x;
  if (ay <= C(0.7)) {
    const C z = y * y;
    const C num = ((C(-0.140543331) * z + C(0.914624893)) * z + C(-1.645349621)) * z + C(0.886226899);
    const C dem = (((C(0.012229801) * z + C(-0.329097515)) * z + C(1.442710462)) * z + C(-2.118377725)) * z + C(1);
    x = y * num / dem;
  } else {
    const C z = dm::sqrt(-dm::log((C(1) - ay) / C(2)));
    const C num = ((C(1.641345311) * z + C(3.429567803)) * z + C(-1.624906493)) * z + C(-1.970840454);
    const C dem = (C(1.637067800) * z + C(3.543889200)) * z + C(1);
    x = dm::copysign(num, y) / dem;
  }
  const C k = C(2) / dm::sqrt(C(3.14159265358979323846));
  x = x - (dm::erf(x) - y) / (k * dm::exp(-x * x));
  x = x - (dm::erf(x) - y) / (k * dm::exp(-x * x));
  return x;
}

template <typename C>
__device__ __forceinline__ C relu6(C y) { return y < C(0) ? C(0) : (y > C(6) ? C(6) : y); }

// The parameterless libm maps.
struct Transcendental {
  static constexpr unsigned computes = kCFloat;
  int op;
  template <typename C>
  __device__ C operator()(C x) const {
    switch (op) {
      case CT_CUDA_UNARY_TAN: return dm::tan(x);
      case CT_CUDA_UNARY_ASIN: return dm::asin(x);
      case CT_CUDA_UNARY_ACOS: return dm::acos(x);
      case CT_CUDA_UNARY_ATAN: return dm::atan(x);
      case CT_CUDA_UNARY_SINH: return dm::sinh(x);
      case CT_CUDA_UNARY_COSH: return dm::cosh(x);
      case CT_CUDA_UNARY_ASINH: return dm::asinh(x);
      case CT_CUDA_UNARY_ACOSH: return dm::acosh(x);
      case CT_CUDA_UNARY_ATANH: return dm::atanh(x);
      case CT_CUDA_UNARY_EXP2: return dm::exp2(x);
      case CT_CUDA_UNARY_LOG2: return dm::log2(x);
      case CT_CUDA_UNARY_LOG10: return dm::log10(x);
      case CT_CUDA_UNARY_ERFC: return dm::erfc(x);
      default: return erfinv(x);
    }
  }
};

// Floating maps with up to three parameters (activations.cpp's rows, frac, round.decimals).
struct Activation {
  static constexpr unsigned computes = kCFloat;
  int op;
  double p0, p1, p2;
  template <typename C>
  __device__ C operator()(C x) const {
    const C a = static_cast<C>(p0), b = static_cast<C>(p1), c = static_cast<C>(p2);
    switch (op) {
      case CT_CUDA_UNARY_FRAC: return x - dm::trunc(x);
      case CT_CUDA_UNARY_HARDSIGMOID: return relu6(x + C(3)) / C(6);
      case CT_CUDA_UNARY_HARDSWISH: return x * relu6(x + C(3)) / C(6);
      case CT_CUDA_UNARY_MISH: return x * dm::tanh(dm::log1p(dm::exp(x)));
      case CT_CUDA_UNARY_ROUND_DECIMALS: return b != C(0) ? dm::rint(x / a) * a : dm::rint(x * a) / a;
      case CT_CUDA_UNARY_ELU: return x <= C(0) ? dm::expm1(x * c) * (a * b) : x * b;
      case CT_CUDA_UNARY_LEAKY_RELU: return x > C(0) ? x : x * a;
      default: return x * a > b ? x : dm::log1p(dm::exp(x * a)) / a;  // SOFTPLUS
    }
  }
};

// square, hardtanh and clamp: floats and integers.
struct Bounded {
  static constexpr unsigned computes = kCFloat | kCInt;
  int op;
  double p0, p1, p2;
  template <typename C>
  __device__ C operator()(C x) const {
    const C lo = static_cast<C>(p0), hi = static_cast<C>(p1);
    switch (op) {
      case CT_CUDA_UNARY_SQUARE:
        if constexpr (std::is_integral_v<C>) return static_cast<C>(static_cast<uint64_t>(x) * static_cast<uint64_t>(x));
        else return x * x;
      case CT_CUDA_UNARY_HARDTANH: return x < lo ? lo : (x > hi ? hi : x);
      default: {  // CLAMP: comparisons with NaN are false, so NaN passes through
        const int flags = static_cast<int>(p2);
        if ((flags & 1) && x < lo) x = lo;
        if ((flags & 2) && x > hi) x = hi;
        return x;
      }
    }
  }
};

// isnan / isinf / isfinite (a 0 or 1 in the compute type, stored as bool) and nan_to_num.
struct Classify {
  static constexpr unsigned computes = kCFloat | kCInt | kCBool;
  int op;
  double p0, p1, p2;
  template <typename C>
  __device__ C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      const bool nan = x != x, inf = x == C(INFINITY) || x == C(-INFINITY);
      switch (op) {
        case CT_CUDA_UNARY_ISNAN: return static_cast<C>(nan);
        case CT_CUDA_UNARY_ISINF: return static_cast<C>(inf);
        case CT_CUDA_UNARY_ISFINITE: return static_cast<C>(!nan && !inf);
        default:
          return nan ? static_cast<C>(p0) : x == C(INFINITY) ? static_cast<C>(p1)
                                         : x == C(-INFINITY) ? static_cast<C>(p2) : x;
      }
    } else {
      switch (op) {
        case CT_CUDA_UNARY_ISNAN: case CT_CUDA_UNARY_ISINF: return C(0);
        case CT_CUDA_UNARY_ISFINITE: return C(1);
        default: return x;
      }
    }
  }
};

// signbit, logit, polygamma and frexp's two results: fns.h's functors (Note [Element functions]); p0
// is logit's eps (< 0: none) or polygamma's order.
struct Signbit {
  static constexpr unsigned computes = kCFloat | kCInt | kCBool;
  template <typename C> __device__ C operator()(C x) const { return static_cast<C>(fn::Signbit{}(x)); }
};
struct Special {
  static constexpr unsigned computes = kCFloat;
  int op;
  double p0;
  template <typename C>
  __device__ C operator()(C x) const {
    int e;
    switch (op) {
      case CT_CUDA_UNARY_LOGIT: return fn::Logit{}(x, static_cast<C>(p0));
      case CT_CUDA_UNARY_POLYGAMMA: return fn::Polygamma{}(x, static_cast<C>(p0));
      case CT_CUDA_UNARY_FREXP_MANTISSA: return fn::Frexp{}(x, &e);
      default: fn::Frexp{}(x, &e); return static_cast<C>(e);  // FREXP_EXPONENT
    }
  }
};

const char* const kNames[] = {"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
                              "exp2", "log2", "log10", "erfc", "erfinv", "frac", "square", "isnan",
                              "isinf", "isfinite", "nan_to_num", "round_decimals", "elu", "leaky_relu",
                              "hardtanh", "hardsigmoid", "hardswish", "softplus", "mish", "clamp",
                              "signbit", "logit", "polygamma", "frexp", "frexp"};
constexpr int kFirst = CT_CUDA_UNARY_TAN;
constexpr int kEnd = kFirst + static_cast<int>(sizeof(kNames) / sizeof(kNames[0]));
static_assert(kEnd == CT_CUDA_UNARY_FREXP_EXPONENT + 1, "kNames follows ct_cuda_unary_op");

template <typename F>
int run(const char* name, int compute, const LoopArgs& a, const F& f, void* stream) {
  return dispatch_compute<F::computes>("unary_params", name, compute, [&](auto c) {
    return launch_elementwise<1, decltype(c)>("unary_params kernel launch", a, f, stream);
  });
}

}  // namespace

int unary_params(int op, int dtype_out, int dtype_in, int compute, const double* params, void* out, const void* in,
                 const ct_cuda_loop* loop, void* stream) {
  if (op >= 0 && op < kFirst) return unary(op, dtype_out, dtype_in, compute, out, in, loop, stream);
  CT_CUDA_ARG(op >= kFirst && op < kEnd, "unary_params: unknown op code %d. Pass a ct_cuda_unary_op", op);
  void* ptrs[2] = {out, const_cast<void*>(in)};
  const int dtypes[2] = {dtype_out, dtype_in};
  LoopArgs a;
  if (const int s = make_loop_args("unary_params", loop, 2, ptrs, dtypes, &a)) return s;
  const double p0 = params ? params[0] : 0.0, p1 = params ? params[1] : 0.0, p2 = params ? params[2] : 0.0;
  const char* name = kNames[op - kFirst];
  switch (op) {
    case CT_CUDA_UNARY_FRAC: case CT_CUDA_UNARY_HARDSIGMOID: case CT_CUDA_UNARY_HARDSWISH: case CT_CUDA_UNARY_MISH:
    case CT_CUDA_UNARY_ROUND_DECIMALS: case CT_CUDA_UNARY_ELU: case CT_CUDA_UNARY_LEAKY_RELU:
    case CT_CUDA_UNARY_SOFTPLUS:
      return run(name, compute, a, Activation{op, p0, p1, p2}, stream);
    case CT_CUDA_UNARY_SQUARE: case CT_CUDA_UNARY_HARDTANH: case CT_CUDA_UNARY_CLAMP:
      return run(name, compute, a, Bounded{op, p0, p1, p2}, stream);
    case CT_CUDA_UNARY_ISNAN: case CT_CUDA_UNARY_ISINF: case CT_CUDA_UNARY_ISFINITE: case CT_CUDA_UNARY_NAN_TO_NUM:
      return run(name, compute, a, Classify{op, p0, p1, p2}, stream);
    case CT_CUDA_UNARY_SIGNBIT: return run(name, compute, a, Signbit{}, stream);
    case CT_CUDA_UNARY_LOGIT: case CT_CUDA_UNARY_POLYGAMMA: case CT_CUDA_UNARY_FREXP_MANTISSA:
    case CT_CUDA_UNARY_FREXP_EXPONENT:
      return run(name, compute, a, Special{op, p0}, stream);
    default: return run(name, compute, a, Transcendental{op}, stream);
  }
}

}  // namespace ct::cuda
