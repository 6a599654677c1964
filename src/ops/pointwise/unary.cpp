// unary.cpp - unary elementwise math: one row per operator (name, result dtype rule, accepted
// dtypes, element function in opmath), with its derivative below. The engine is unary_engine.h.
// exp, expm1, log1p, tanh, sigmoid, erf, sin and cos use vec_math.h, which vectorizes for float32
// (and so for float16/bfloat16, computed in float32); see Note [Vectorizable float32 math].
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/cpu/parallel.h"
#include "ops/cpu/vec_math.h"
#include "ops/pointwise/unary_engine.h"

namespace ct::ops {
namespace {

using namespace unary_engine;
constexpr unsigned kIntegerDTypes = kNumericDTypes & ~kFloatingDTypes;  // no bool
constexpr unsigned kBitDTypes = kIntegerDTypes | dtype_bit(DType::Bool);
constexpr double kPi = 3.14159265358979323846;

// erfinv as PyTorch computes it (calc_erfinv): a rational first guess, then two Newton steps.
template <typename X>
X erfinv_impl(X y) {
  constexpr X a[4] = {X(0.886226899), X(-1.645349621), X(0.914624893), X(-0.140543331)};
  constexpr X b[4] = {X(-2.118377725), X(1.442710462), X(-0.329097515), X(0.012229801)};
  constexpr X c[4] = {X(-1.970840454), X(-1.624906493), X(3.429567803), X(1.641345311)};
  constexpr X d[2] = {X(3.543889200), X(1.637067800)};
  const X ay = std::fabs(y);
  if (ay > X(1)) return std::numeric_limits<X>::quiet_NaN();
  if (ay == X(1)) return std::copysign(std::numeric_limits<X>::infinity(), y);
  X x;
  if (ay <= X(0.7)) {
    const X z = y * y;
    const X num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    const X dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + X(1);
    x = y * num / dem;
  } else {
    const X z = std::sqrt(-std::log((X(1) - ay) / X(2)));
    const X num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const X dem = (d[1] * z + d[0]) * z + X(1);
    x = std::copysign(num, y) / dem;
  }
  const X k = X(2) / std::sqrt(X(kPi));
  x = x - (std::erf(x) - y) / (k * std::exp(-x * x));
  x = x - (std::erf(x) - y) / (k * std::exp(-x * x));
  return x;
}

// Integers pass through the rounding functions unchanged (exact for every int64).
#define CT_ROUNDING(expr) \
  if constexpr (is_float_v<T>) return T(expr); \
  else return t;

#define CT_UNARY(Name, str, rule, allowed, body)                   \
  struct Name : NoParams {                                         \
    static constexpr const char* name = str;                       \
    static constexpr Out out = rule;                               \
    static constexpr unsigned dtypes = allowed;                    \
    template <typename T> [[gnu::always_inline]] static auto apply(T t, const M<T>*) { \
      [[maybe_unused]] const M<T> x = M<T>(t);                     \
      body                                                         \
    }                                                              \
  };
#define CT_RET(expr) return T(expr);
CT_UNARY(Neg, "neg", Out::Same, kNumericDTypes, CT_RET(-x))
CT_UNARY(Abs, "abs", Out::Same, kAllDTypes, CT_RET(x < M<T>(0) ? -x : x))
CT_UNARY(Relu, "relu", Out::Same, kNumericDTypes, CT_RET(x < M<T>(0) ? M<T>(0) : x))  // NaN stays NaN
CT_UNARY(Exp, "exp", Out::Float, kFloatingDTypes, CT_RET(cpu::vm::exp(x)))
CT_UNARY(Log, "log", Out::Float, kFloatingDTypes, CT_RET(std::log(x)))
CT_UNARY(Sqrt, "sqrt", Out::Float, kFloatingDTypes, CT_RET(std::sqrt(x)))
CT_UNARY(Rsqrt, "rsqrt", Out::Float, kFloatingDTypes, CT_RET(M<T>(1) / std::sqrt(x)))
// sin and cos: float32 arguments beyond 2^22 need libm (Note [sin and cos of large arguments]).
// Whether the input holds one is found once per call; the usual call runs the vectorized loop.
bool beyond_sin_cos_range(const TensorImpl& t) {
  const DType d = t.dtype();
  // Values of these types all lie in range; float64 computes with libm throughout.
  if (d == DType::Bool || d == DType::UInt8 || d == DType::Int8 || d == DType::Int16 || d == DType::Float16 ||
      d == DType::Float64 || t.numel() == 0)
    return false;
  const Tensor c = contiguous(d == DType::Float32 ? Tensor::borrow(&t) : to(Tensor::borrow(&t), DType::Float32));
  const float* p = c->data_as<float>();
  std::atomic<bool> any{false};
  cpu::parallel_for(0, c->numel(), cpu::kElementwiseGrain, [&](int64_t b, int64_t e) {
    if (cpu::vm::any_beyond_sin_cos_range(p + b, e - b)) any.store(true, std::memory_order_relaxed);
  });
  return any.load();
}

template <bool Cos>
struct SinCos : NoParams {
  static constexpr const char* name = Cos ? "cos" : "sin";
  static constexpr Out out = Out::Float;
  static constexpr unsigned dtypes = kFloatingDTypes;
  static constexpr bool two_forms = true;
  template <typename T> static void load(const Frame& f, M<T>* p) {
    p[0] = std::is_same_v<M<T>, float> && beyond_sin_cos_range(f.tensor(0)) ? M<T>(1) : M<T>(0);
  }
  template <bool Wide, typename T> [[gnu::always_inline]] static T apply_form(T t, const M<T>*) {
    const M<T> x = M<T>(t);
    if constexpr (Wide && std::is_same_v<M<T>, float>) return T(Cos ? cpu::vm::cos_wide(x) : cpu::vm::sin_wide(x));
    else return T(Cos ? cpu::vm::cos(x) : cpu::vm::sin(x));
  }
  template <typename T> static T apply(T t, const M<T>* p) {  // the engine loops over apply_form
    return p[0] != M<T>(0) ? apply_form<true>(t, p) : apply_form<false>(t, p);
  }
};
using Sin = SinCos<false>;
using Cos = SinCos<true>;
CT_UNARY(Tanh, "tanh", Out::Float, kFloatingDTypes, CT_RET(cpu::vm::tanh(x)))
CT_UNARY(Sigmoid, "sigmoid", Out::Float, kFloatingDTypes, CT_RET(cpu::vm::sigmoid(x)))
CT_UNARY(Reciprocal, "reciprocal", Out::Float, kFloatingDTypes, CT_RET(M<T>(1) / x))
CT_UNARY(Exp2, "exp2", Out::Float, kFloatingDTypes, CT_RET(std::exp2(x)))
CT_UNARY(Expm1, "expm1", Out::Float, kFloatingDTypes, CT_RET(cpu::vm::expm1(x)))
CT_UNARY(Log1p, "log1p", Out::Float, kFloatingDTypes, CT_RET(cpu::vm::log1p(x)))
CT_UNARY(Log2, "log2", Out::Float, kFloatingDTypes, CT_RET(std::log2(x)))
CT_UNARY(Log10, "log10", Out::Float, kFloatingDTypes, CT_RET(std::log10(x)))
CT_UNARY(Tan, "tan", Out::Float, kFloatingDTypes, CT_RET(std::tan(x)))
CT_UNARY(Asin, "asin", Out::Float, kFloatingDTypes, CT_RET(std::asin(x)))
CT_UNARY(Acos, "acos", Out::Float, kFloatingDTypes, CT_RET(std::acos(x)))
CT_UNARY(Atan, "atan", Out::Float, kFloatingDTypes, CT_RET(std::atan(x)))
CT_UNARY(Sinh, "sinh", Out::Float, kFloatingDTypes, CT_RET(std::sinh(x)))
CT_UNARY(Cosh, "cosh", Out::Float, kFloatingDTypes, CT_RET(std::cosh(x)))
CT_UNARY(Asinh, "asinh", Out::Float, kFloatingDTypes, CT_RET(std::asinh(x)))
CT_UNARY(Acosh, "acosh", Out::Float, kFloatingDTypes, CT_RET(std::acosh(x)))
CT_UNARY(Atanh, "atanh", Out::Float, kFloatingDTypes, CT_RET(std::atanh(x)))
CT_UNARY(Erf, "erf", Out::Float, kFloatingDTypes, CT_RET(cpu::vm::erf(x)))
CT_UNARY(Erfc, "erfc", Out::Float, kFloatingDTypes, CT_RET(std::erfc(x)))
CT_UNARY(Erfinv, "erfinv", Out::Float, kFloatingDTypes, CT_RET(erfinv_impl(x)))
// As in PyTorch: the rounding functions refuse bool, keep integers, and round half to even.
CT_UNARY(Floor, "floor", Out::Same, kNumericDTypes, CT_ROUNDING(std::floor(x)))
CT_UNARY(Ceil, "ceil", Out::Same, kNumericDTypes, CT_ROUNDING(std::ceil(x)))
CT_UNARY(Round, "round", Out::Same, kNumericDTypes, CT_ROUNDING(std::nearbyint(x)))
CT_UNARY(Trunc, "trunc", Out::Same, kNumericDTypes, CT_ROUNDING(std::trunc(x)))
CT_UNARY(Frac, "frac", Out::Same, kFloatingDTypes, CT_RET(x - std::trunc(x)))
// (0 < x) - (x < 0): NaN gives 0, as PyTorch's kernel does; bool is its own sign.
CT_UNARY(Sign, "sign", Out::Same, kAllDTypes,
         if constexpr (std::is_same<T, bool>::value) return t; else return T(int(M<T>(0) < x) - int(x < M<T>(0)));)
// Integers wrap on overflow, as in PyTorch (multiplied unsigned: signed overflow is undefined).
CT_UNARY(Square, "square", Out::SameLongBool, kNumericDTypes,
         if constexpr (is_float_v<T>) return T(x * x);
         else return T(static_cast<std::make_unsigned_t<T>>(t) * static_cast<std::make_unsigned_t<T>>(t));)
CT_UNARY(BitwiseNot, "bitwise_not", Out::Same, kBitDTypes,
         if constexpr (std::is_same<T, bool>::value) return !t; else return T(~t);)
CT_UNARY(LogicalNot, "logical_not", Out::Bool, kAllDTypes, return !(x != M<T>(0));)
CT_UNARY(IsNan, "isnan", Out::Bool, kAllDTypes, if constexpr (is_float_v<T>) return std::isnan(x); else return false;)
CT_UNARY(IsInf, "isinf", Out::Bool, kAllDTypes, if constexpr (is_float_v<T>) return std::isinf(x); else return false;)
CT_UNARY(IsFinite, "isfinite", Out::Bool, kAllDTypes,
         if constexpr (is_float_v<T>) return std::isfinite(x); else return true;)
#undef CT_UNARY
#undef CT_RET

// round.decimals(Tensor self, *, int decimals) -> Tensor: PyTorch's formula, scaling by 10^|d|.
struct RoundDecimals {
  static constexpr const char* name = "round";
  static constexpr const char* overload = "decimals";
  static constexpr const char* args = "(Tensor self, *, int decimals)";
  static constexpr Out out = Out::Same;
  static constexpr unsigned dtypes = kFloatingDTypes;
  static constexpr int nparams = 2;
  static void check(const Frame&) {}
  template <typename T> static void load(const Frame& f, M<T>* p) {
    const int64_t d = f.arg(1).to_int();
    p[0] = static_cast<M<T>>(std::pow(10.0, static_cast<double>(d < 0 ? -d : d)));
    p[1] = d < 0 ? M<T>(1) : M<T>(0);
  }
  template <typename T> static T apply(T t, const M<T>* p) {
    const M<T> x = M<T>(t);
    return T(p[1] != M<T>(0) ? std::nearbyint(x / p[0]) * p[0] : std::nearbyint(x * p[0]) / p[0]);
  }
};

// nan_to_num(Tensor self, float? nan=None, float? posinf=None, neginf=None): None means 0 for NaN
// and the dtype's largest / lowest finite value for the infinities. Integers pass through.
struct NanToNum {
  static constexpr const char* name = "nan_to_num";
  static constexpr const char* overload = "";
  static constexpr const char* args = "(Tensor self, float? nan=None, float? posinf=None, float? neginf=None)";
  static constexpr Out out = Out::Same;
  static constexpr unsigned dtypes = kAllDTypes;
  static constexpr int nparams = 3;
  static void check(const Frame&) {}
  template <typename T> static void load(const Frame& f, M<T>* p) {
    if constexpr (is_float_v<T>) {
      // The largest finite T, in opmath (65504 for float16).
      M<T> big;
      if constexpr (std::is_same<T, Half>::value) big = 65504.0f;
      else if constexpr (std::is_same<T, BFloat16>::value) big = 3.38953139e38f;
      else big = std::numeric_limits<T>::max();
      p[0] = f.arg(1).is_none() ? M<T>(0) : M<T>(f.arg(1).to_double());
      p[1] = f.arg(2).is_none() ? big : M<T>(f.arg(2).to_double());
      p[2] = f.arg(3).is_none() ? -big : M<T>(f.arg(3).to_double());
    }
  }
  template <typename T> static T apply(T t, const M<T>* p) {
    if constexpr (is_float_v<T>) {
      const M<T> x = M<T>(t);
      return std::isnan(x) ? T(p[0]) : x == std::numeric_limits<M<T>>::infinity() ? T(p[1])
                                     : x == -std::numeric_limits<M<T>>::infinity() ? T(p[2]) : t;
    } else {
      return t;
    }
  }
};

// Derivatives, in terms of the input x, the result y and the incoming gradient g.
using autograd::GradCtx;

void neg_backward(GradCtx& c) { c.set(0, neg(c.grad())); }
void abs_backward(GradCtx& c) {  // g * sign(x), 0 at 0
  const Tensor x = c.saved(0);
  c.set(0, g_times(c, sub(mask_as(scal("gt", x, 0), x), mask_as(scal("lt", x, 0), x))));
}
void relu_backward(GradCtx& c) { c.set(0, g_times(c, scal("gt", c.result(), 0))); }
void exp_backward(GradCtx& c) { c.set(0, g_times(c, c.result())); }
void log_backward(GradCtx& c) { c.set(0, div(c.grad(), c.saved(0))); }
void sqrt_backward(GradCtx& c) { c.set(0, div(c.grad(), mul(c.result(), Scalar(2.0)))); }
void rsqrt_backward(GradCtx& c) {  // -y^3 / 2
  const Tensor y = c.result();
  c.set(0, g_times(c, mul(mul(y, mul(y, y)), Scalar(-0.5))));
}
void sin_backward(GradCtx& c) { c.set(0, g_times(c, unary("cos", c.saved(0)))); }
void cos_backward(GradCtx& c) { c.set(0, neg(g_times(c, unary("sin", c.saved(0))))); }
void tanh_backward(GradCtx& c) {  // 1 - y^2
  const Tensor y = c.result();
  c.set(0, g_times(c, rsub(mul(y, y), 1)));
}
void sigmoid_backward(GradCtx& c) {  // y (1 - y)
  const Tensor y = c.result();
  c.set(0, g_times(c, mul(y, rsub(y, 1))));
}
void reciprocal_backward(GradCtx& c) {  // -y^2
  const Tensor y = c.result();
  c.set(0, neg(g_times(c, mul(y, y))));
}
void exp2_backward(GradCtx& c) { c.set(0, g_times(c, mul(c.result(), Scalar(std::log(2.0))))); }
void expm1_backward(GradCtx& c) { c.set(0, g_times(c, scal("add", c.result(), 1))); }
void log1p_backward(GradCtx& c) { c.set(0, div(c.grad(), scal("add", c.saved(0), 1))); }
void log2_backward(GradCtx& c) { c.set(0, div(c.grad(), mul(c.saved(0), Scalar(std::log(2.0))))); }
void log10_backward(GradCtx& c) { c.set(0, div(c.grad(), mul(c.saved(0), Scalar(std::log(10.0))))); }
void tan_backward(GradCtx& c) {  // 1 + y^2
  const Tensor y = c.result();
  c.set(0, g_times(c, scal("add", mul(y, y), 1)));
}
void asin_backward(GradCtx& c) {  // 1 / sqrt(1 - x^2)
  const Tensor x = c.saved(0);
  c.set(0, g_times(c, unary("rsqrt", rsub(mul(x, x), 1))));
}
void acos_backward(GradCtx& c) {
  const Tensor x = c.saved(0);
  c.set(0, neg(g_times(c, unary("rsqrt", rsub(mul(x, x), 1)))));
}
void atan_backward(GradCtx& c) {  // 1 / (1 + x^2)
  const Tensor x = c.saved(0);
  c.set(0, div(c.grad(), scal("add", mul(x, x), 1)));
}
void sinh_backward(GradCtx& c) { c.set(0, g_times(c, unary("cosh", c.saved(0)))); }
void cosh_backward(GradCtx& c) { c.set(0, g_times(c, unary("sinh", c.saved(0)))); }
void asinh_backward(GradCtx& c) {  // 1 / sqrt(x^2 + 1)
  const Tensor x = c.saved(0);
  c.set(0, g_times(c, unary("rsqrt", scal("add", mul(x, x), 1))));
}
void acosh_backward(GradCtx& c) {  // 1 / sqrt(x^2 - 1)
  const Tensor x = c.saved(0);
  c.set(0, g_times(c, unary("rsqrt", scal("sub", mul(x, x), 1))));
}
void atanh_backward(GradCtx& c) {  // 1 / (1 - x^2)
  const Tensor x = c.saved(0);
  c.set(0, div(c.grad(), rsub(mul(x, x), 1)));
}
void erf_backward(GradCtx& c) {  // 2 / sqrt(pi) exp(-x^2)
  const Tensor x = c.saved(0);
  c.set(0, g_times(c, mul(unary("exp", neg(mul(x, x))), Scalar(2.0 / std::sqrt(kPi)))));
}
void erfc_backward(GradCtx& c) {
  const Tensor x = c.saved(0);
  c.set(0, g_times(c, mul(unary("exp", neg(mul(x, x))), Scalar(-2.0 / std::sqrt(kPi)))));
}
void erfinv_backward(GradCtx& c) {  // sqrt(pi) / 2 exp(y^2)
  const Tensor y = c.result();
  c.set(0, g_times(c, mul(unary("exp", mul(y, y)), Scalar(std::sqrt(kPi) / 2.0))));
}
void zero_backward(GradCtx& c) { c.set(0, zeros_like_grad(c)); }
void identity_backward(GradCtx& c) { c.set(0, c.grad()); }
void square_backward(GradCtx& c) { c.set(0, g_times(c, mul(c.saved(0), Scalar(2.0)))); }
void nan_to_num_backward(GradCtx& c) {  // passes where x is finite
  c.set(0, g_times(c, unary("isfinite", c.saved(0))));
}

}  // namespace

void define_unary_ops(Registry& r) {
  const Saves x = save_args(0), y = save_result();
  define_unary<Neg>(r, neg_backward, {});
  define_unary<Abs>(r, abs_backward, x);
  define_unary<Relu>(r, relu_backward, y);
  define_unary<Exp>(r, exp_backward, y);
  define_unary<Log>(r, log_backward, x);
  define_unary<Sqrt>(r, sqrt_backward, y);
  define_unary<Rsqrt>(r, rsqrt_backward, y);
  define_unary<Sin>(r, sin_backward, x);
  define_unary<Cos>(r, cos_backward, x);
  define_unary<Tanh>(r, tanh_backward, y);
  define_unary<Sigmoid>(r, sigmoid_backward, y);
  define_unary<Reciprocal>(r, reciprocal_backward, y);
  define_unary<Exp2>(r, exp2_backward, y);
  define_unary<Expm1>(r, expm1_backward, y);
  define_unary<Log1p>(r, log1p_backward, x);
  define_unary<Log2>(r, log2_backward, x);
  define_unary<Log10>(r, log10_backward, x);
  define_unary<Tan>(r, tan_backward, y);
  define_unary<Asin>(r, asin_backward, x);
  define_unary<Acos>(r, acos_backward, x);
  define_unary<Atan>(r, atan_backward, x);
  define_unary<Sinh>(r, sinh_backward, x);
  define_unary<Cosh>(r, cosh_backward, x);
  define_unary<Asinh>(r, asinh_backward, x);
  define_unary<Acosh>(r, acosh_backward, x);
  define_unary<Atanh>(r, atanh_backward, x);
  define_unary<Erf>(r, erf_backward, x);
  define_unary<Erfc>(r, erfc_backward, x);
  define_unary<Erfinv>(r, erfinv_backward, y);
  define_unary<Floor>(r, zero_backward, {});
  define_unary<Ceil>(r, zero_backward, {});
  define_unary<Round>(r, zero_backward, {});
  define_unary<RoundDecimals>(r, zero_backward, {});
  define_unary<Trunc>(r, zero_backward, {});
  define_unary<Frac>(r, identity_backward, {});
  define_unary<Sign>(r, zero_backward, {});
  define_unary<Square>(r, square_backward, x);
  define_unary<NanToNum>(r, nan_to_num_backward, x);
  define_unary<BitwiseNot>(r, nullptr, {});
  define_unary<LogicalNot>(r, nullptr, {});
  define_unary<IsNan>(r, nullptr, {});
  define_unary<IsInf>(r, nullptr, {});
  define_unary<IsFinite>(r, nullptr, {});
}

}  // namespace ct::ops
