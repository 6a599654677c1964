// unary.cpp - unary elementwise math: one row per operator (name, result dtype rule, accepted
// dtypes, element function in opmath), with its derivative below. The engine is unary_engine.h.
// exp, expm1, log1p, tanh, sigmoid, erf, sin and cos use vec_math.h, which vectorizes for float32
// (and so for float16/bfloat16, computed in float32); see Note [Vectorizable float32 math].
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/cpu/cast.h"
#include "ops/cpu/complex_math.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/vec_math.h"
#include "ops/pointwise/unary_engine.h"

namespace ct::ops {
namespace {

using namespace unary_engine;
constexpr unsigned kIntegerDTypes = kNumericDTypes & ~kFloatingDTypes;  // no bool
constexpr unsigned kBitDTypes = kIntegerDTypes | dtype_bit(DType::Bool);
constexpr double kPi = 3.14159265358979323846;
constexpr double kLn2 = 0.69314718055994530942;

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
// The complex form of an operator that takes complex tensors (complex in its dtypes): std::complex's
// function, which keeps C99's special values (Note [Complex tensors] in complex.cpp).
// Keyed also by the element type, so that the name is looked up where a kernel instantiates it,
// after the forms below.
template <typename Op, typename C> struct ComplexForm;

// An operator whose element function is fns.h's functor fn::Name: its eager kernel and the fused
// kernels (define_unary declares it elementwise) compute that one formula; complex elements, where
// the operator takes them, its ComplexForm.
#define CT_UNARY_FN(Name, str, rule, allowed)                                                    \
  struct Name : NoParams {                                                                       \
    static constexpr const char* name = str;                                                     \
    static constexpr Out out = rule;                                                             \
    static constexpr unsigned dtypes = allowed;                                                  \
    CT_ELEMENT_OF(Name)                                                                          \
    template <typename T> [[gnu::always_inline]] static auto apply(T t, const M<T>*) {          \
      if constexpr (cpu::is_complex_t<T>::value) return ComplexForm<Name, T>::apply(t);         \
      else return T(Fn{}(M<T>(t)));                                                              \
    }                                                                                            \
  };
#define CT_COMPLEX_FORM(Name, expr)                                          \
  template <typename C> struct ComplexForm<Name, C> {                        \
    static auto apply(C z) { return expr; }                                  \
  };
constexpr unsigned kFloatingAndComplex = kFloatingDTypes | kComplexDTypes;
CT_UNARY_FN(Neg, "neg", Out::Same, kNumericDTypes | kComplexDTypes)
CT_UNARY_FN(Abs, "abs", Out::SameOrReal, kAllDTypesAndComplex)
CT_UNARY_FN(Relu, "relu", Out::Same, kNumericDTypes)  // NaN stays NaN
CT_UNARY_FN(Exp, "exp", Out::Float, kFloatingAndComplex)
CT_UNARY_FN(Log, "log", Out::Float, kFloatingAndComplex)
CT_UNARY_FN(Sqrt, "sqrt", Out::Float, kFloatingAndComplex)
CT_COMPLEX_FORM(Neg, -z)
CT_COMPLEX_FORM(Abs, std::abs(z))
CT_COMPLEX_FORM(Exp, std::exp(z))
CT_COMPLEX_FORM(Log, std::log(z))
CT_COMPLEX_FORM(Sqrt, std::sqrt(z))
CT_UNARY_FN(Rsqrt, "rsqrt", Out::Float, kFloatingAndComplex)
CT_COMPLEX_FORM(Rsqrt, C(1) / std::sqrt(z))
// sin and cos: float32 arguments beyond 2^22 need libm (Note [sin and cos of large arguments]).
// Whether the input holds one is found once per call; the usual call runs the vectorized loop.
bool beyond_sin_cos_range(const TensorImpl& t) {
  const DType d = t.dtype();
  // Values of these types all lie in range; float64 computes with libm throughout.
  if (d == DType::Bool || d == DType::UInt8 || d == DType::Int8 || d == DType::Int16 || d == DType::Float16 ||
      d == DType::Float64 || t.numel() == 0)
    return false;
  const Tensor c = expect_contiguous(d == DType::Float32 ? Tensor::borrow(&t) : to(Tensor::borrow(&t), DType::Float32));
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
  static constexpr unsigned dtypes = kFloatingAndComplex;
  static constexpr bool two_forms = true;
  using Fn = std::conditional_t<Cos, fn::Cos, fn::Sin>;
  static constexpr const char* fn_name = Cos ? "Cos" : "Sin";
  template <typename T> static void load(const Frame& f, M<T>* p) {
    p[0] = std::is_same_v<M<T>, float> && beyond_sin_cos_range(f.tensor(0)) ? M<T>(1) : M<T>(0);
  }
  template <bool Wide, typename T> [[gnu::always_inline]] static T apply_form(T t, const M<T>*) {
    if constexpr (cpu::is_complex_t<T>::value) return Cos ? std::cos(t) : std::sin(t);
    else if constexpr (Wide) return T(Fn{}.wide(M<T>(t)));
    else return T(Fn{}(M<T>(t)));
  }
  template <typename T> static T apply(T t, const M<T>* p) {  // the engine loops over apply_form
    return p[0] != M<T>(0) ? apply_form<true>(t, p) : apply_form<false>(t, p);
  }
};
using Sin = SinCos<false>;
using Cos = SinCos<true>;
CT_UNARY_FN(Tanh, "tanh", Out::Float, kFloatingAndComplex)
CT_COMPLEX_FORM(Tanh, std::tanh(z))
CT_UNARY_FN(Sigmoid, "sigmoid", Out::Float, kFloatingAndComplex)
CT_COMPLEX_FORM(Sigmoid, C(1) / (C(1) + std::exp(-z)))
CT_UNARY_FN(Reciprocal, "reciprocal", Out::Float, kFloatingAndComplex)
CT_COMPLEX_FORM(Reciprocal, C(1) / z)
// 2^z = e^{z ln 2}, as torch computes it for complex z.
CT_UNARY_FN(Exp2, "exp2", Out::Float, kFloatingAndComplex)
CT_COMPLEX_FORM(Exp2, std::exp(z * typename C::value_type(0.693147180559945309417232121458176568)))
// e^z - 1 = (e^x cos y - 1) + i e^x sin y, its real part as expm1(x) cos y - 2 sin^2(y / 2) so that
// a small z keeps its digits (e^x cos y - 1 would cancel them).
CT_UNARY_FN(Expm1, "expm1", Out::Float, kFloatingAndComplex)
template <typename C>
C complex_expm1(C z) {
  using R = typename C::value_type;
  const R x = z.real(), y = z.imag(), half = std::sin(y / 2);
  return C(std::expm1(x) * std::cos(y) - 2 * half * half, std::exp(x) * std::sin(y));
}
CT_COMPLEX_FORM(Expm1, complex_expm1(z))
// log(1 + z) = log|1 + z| + i arg(1 + z); for |z| < 1/2, log|1 + z| = log1p(x (2 + x) + y^2) / 2,
// which keeps a small z's digits (|1 + z| would round them away).
CT_UNARY_FN(Log1p, "log1p", Out::Float, kFloatingAndComplex)
template <typename C>
C complex_log1p(C z) {
  using R = typename C::value_type;
  const R x = z.real(), y = z.imag(), arg = std::atan2(y, x + R(1));
  if (std::abs(z) >= R(0.5)) return C(std::log(std::hypot(x + R(1), y)), arg);
  const R r = x * (R(2) + x) + y * y;
  return C(r == R(0) ? x : R(0.5) * std::log1p(r), arg);
}
CT_COMPLEX_FORM(Log1p, complex_log1p(z))
// The complex forms of the functions below are std::complex's (C99's special values), log2 torch's
// log(z) / log(2).
#define CT_COMPLEX_OR(complex_expr, real_expr)                                 \
  if constexpr (cpu::is_complex_t<T>::value) return T(complex_expr);          \
  else return T(real_expr);
CT_UNARY(Log2, "log2", Out::Float, kFloatingAndComplex,
         CT_COMPLEX_OR(std::log(x) / typename T::value_type(kLn2), cpu::vm::log2(x)))
CT_UNARY(Log10, "log10", Out::Float, kFloatingAndComplex, CT_COMPLEX_OR(std::log10(x), cpu::vm::log10(x)))
#undef CT_COMPLEX_OR
CT_UNARY(Tan, "tan", Out::Float, kFloatingAndComplex, CT_RET(std::tan(x)))
CT_UNARY(Asin, "asin", Out::Float, kFloatingAndComplex, CT_RET(std::asin(x)))
CT_UNARY(Acos, "acos", Out::Float, kFloatingAndComplex, CT_RET(std::acos(x)))
CT_UNARY(Atan, "atan", Out::Float, kFloatingAndComplex, CT_RET(std::atan(x)))
CT_UNARY(Sinh, "sinh", Out::Float, kFloatingAndComplex, CT_RET(std::sinh(x)))
CT_UNARY(Cosh, "cosh", Out::Float, kFloatingAndComplex, CT_RET(std::cosh(x)))
CT_UNARY(Asinh, "asinh", Out::Float, kFloatingAndComplex, CT_RET(std::asinh(x)))
CT_UNARY(Acosh, "acosh", Out::Float, kFloatingAndComplex, CT_RET(std::acosh(x)))
CT_UNARY(Atanh, "atanh", Out::Float, kFloatingAndComplex, CT_RET(std::atanh(x)))
CT_UNARY_FN(Erf, "erf", Out::Float, kFloatingDTypes)
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
// Integers wrap on overflow, as in PyTorch.
CT_UNARY_FN(Square, "square", Out::SameLongBool, kNumericDTypes | kComplexDTypes)
CT_COMPLEX_FORM(Square, cpu::textbook_product(z, z))
CT_UNARY(BitwiseNot, "bitwise_not", Out::Same, kBitDTypes,
         if constexpr (std::is_same<T, bool>::value) return !t; else return T(~t);)
CT_UNARY(LogicalNot, "logical_not", Out::Bool, kAllDTypes, return !(x != M<T>(0));)
// A complex number is NaN or infinite when either part is, finite when both are.
CT_UNARY(IsNan, "isnan", Out::Bool, kAllDTypesAndComplex,
         if constexpr (cpu::is_complex_t<T>::value) return std::isnan(x.real()) || std::isnan(x.imag());
         else if constexpr (is_float_v<T>) return std::isnan(x); else return false;)
CT_UNARY(IsInf, "isinf", Out::Bool, kAllDTypesAndComplex,
         if constexpr (cpu::is_complex_t<T>::value) return std::isinf(x.real()) || std::isinf(x.imag());
         else if constexpr (is_float_v<T>) return std::isinf(x); else return false;)
CT_UNARY(IsFinite, "isfinite", Out::Bool, kAllDTypesAndComplex,
         if constexpr (cpu::is_complex_t<T>::value) return std::isfinite(x.real()) && std::isfinite(x.imag());
         else if constexpr (is_float_v<T>) return std::isfinite(x); else return true;)
CT_UNARY_FN(Deg2rad, "deg2rad", Out::Float, kFloatingDTypes)
CT_UNARY_FN(Rad2deg, "rad2deg", Out::Float, kFloatingDTypes)
CT_UNARY_FN(Sinc, "sinc", Out::Float, kFloatingDTypes)
CT_UNARY_FN(Lgamma, "lgamma", Out::Float, kFloatingDTypes)
CT_UNARY_FN(Digamma, "digamma", Out::Float, kFloatingDTypes)
CT_UNARY_FN(I0, "i0", Out::Float, kFloatingDTypes)
CT_UNARY_FN(I1, "special_i1", Out::Float, kFloatingDTypes)
CT_UNARY(Signbit, "signbit", Out::Bool, kAllDTypes, return fn::Signbit{}(x);)
#undef CT_UNARY_FN
#undef CT_UNARY
#undef CT_RET

// logit(Tensor self, float? eps=None): log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.
struct Logit {
  static constexpr const char* name = "logit";
  static constexpr const char* overload = "";
  static constexpr const char* args = "(Tensor self, float? eps=None)";
  static constexpr Out out = Out::Float;
  static constexpr unsigned dtypes = kFloatingDTypes;
  static constexpr int nparams = 1;
  static void check(const Frame&) {}
  template <typename T> static void load(const Frame& f, M<T>* p) {  // -1: no clamp
    p[0] = f.arg(1).is_none() ? M<T>(-1) : M<T>(f.arg(1).to_double());
  }
  template <typename T> static T apply(T t, const M<T>* p) { return T(fn::Logit{}(M<T>(t), p[0])); }
};

// polygamma(int n, Tensor self): the n-th derivative of digamma. Its tensor is argument 1, so it
// has its own meta and kernel around fns.h's Polygamma.
void polygamma_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(1);
  const int64_t n = f.arg(0).to_int();
  CT_CHECK(n >= 0, CT_ERROR_INVALID_ARGUMENT, "polygamma: n must be non-negative, got ", n);
  DType d = is_floating(a.dtype()) ? a.dtype() : runtime::default_dtype();
  m.compute = d;
  set_output(m, 0, a.sym_sizes(), d, a.device());
}
void polygamma_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl* in = &f.tensor(1);
  const cpu::LoopCasts casts = cpu::loop_casts(&in, 1, m.compute);
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], &in, 1);
  const int64_t n = f.arg(0).to_int();
  visit_dtype<kFloatingDTypes>(m.compute, "polygamma", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const M<T> order = M<T>(n);
    cpu::elementwise<T, T>(plan, [order](T x) { return T(fn::Polygamma{}(M<T>(x), order)); }, casts);
  });
}

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
// and the dtype's largest / lowest finite value for the infinities. Integers pass through; a
// complex number's real and imaginary parts are replaced each on its own (torch 2.x's rule).
struct NanToNum {
  static constexpr const char* name = "nan_to_num";
  static constexpr const char* overload = "";
  static constexpr const char* args = "(Tensor self, float? nan=None, float? posinf=None, float? neginf=None)";
  static constexpr Out out = Out::Same;
  static constexpr unsigned dtypes = kAllDTypesAndComplex;
  static constexpr int nparams = 3;
  static void check(const Frame&) {}
  template <typename T> static void load(const Frame& f, M<T>* p) {
    if constexpr (is_float_v<T> || cpu::is_complex_t<T>::value) {
      // The largest finite T (of a part, for complex T), in opmath (65504 for float16).
      M<T> big;
      if constexpr (std::is_same<T, Half>::value) big = 65504.0f;
      else if constexpr (std::is_same<T, BFloat16>::value) big = 3.38953139e38f;
      else if constexpr (cpu::is_complex_t<T>::value) big = M<T>(std::numeric_limits<typename T::value_type>::max());
      else big = std::numeric_limits<T>::max();
      p[0] = f.arg(1).is_none() ? M<T>(0) : M<T>(f.arg(1).to_double());
      p[1] = f.arg(2).is_none() ? big : M<T>(f.arg(2).to_double());
      p[2] = f.arg(3).is_none() ? -big : M<T>(f.arg(3).to_double());
    }
  }
  template <typename R> static R replaced(R x, R nan, R posinf, R neginf) {
    return std::isnan(x) ? nan : x == std::numeric_limits<R>::infinity() ? posinf
                               : x == -std::numeric_limits<R>::infinity() ? neginf : x;
  }
  template <typename T> static T apply(T t, const M<T>* p) {
    if constexpr (cpu::is_complex_t<T>::value) {
      using R = typename T::value_type;
      const auto part = [&](R x) {
        return replaced(x, R(p[0].real()), R(p[1].real()), R(p[2].real()));
      };
      return T(part(t.real()), part(t.imag()));
    } else if constexpr (is_float_v<T>) {
      const M<T> x = M<T>(t);
      return std::isfinite(x) ? t : T(replaced(x, p[0], p[1], p[2]));
    } else {
      return t;
    }
  }
};

// frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent): x = mantissa * 2^exponent with
// |mantissa| in [0.5, 1) (0, infinities and NaN have exponent 0 and are their own mantissa).
void frexp_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(is_floating(a.dtype()), CT_ERROR_DTYPE, "frexp: takes floating tensors, got ", a.dtype(), " (",
           a.sym_sizes(), "). Convert with to() first");
  m.compute = a.dtype();
  m.n = 2;
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
  set_output(m, 1, a.sym_sizes(), DType::Int32, a.device());
}
void frexp_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const Tensor in = expect_contiguous(Tensor::borrow(&f.tensor(0)));
  const bool direct = outs[0]->is_contiguous() && outs[1]->is_contiguous();
  Tensor mant = direct ? outs[0] : empty(outs[0]->sizes(), outs[0]->dtype(), kCPU);
  Tensor expo = direct ? outs[1] : empty(outs[1]->sizes(), DType::Int32, kCPU);
  visit_dtype<kFloatingDTypes>(m.compute, "frexp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = in->data_as<T>();
    T* pm = mant->template data_as<T>();
    int32_t* pe = expo->template data_as<int32_t>();
    cpu::parallel_for(0, in->numel(), cpu::kElementwiseGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int ex;
        pm[i] = T(fn::Frexp{}(M<T>(x[i]), &ex));
        pe[i] = ex;
      }
    });
  });
  if (!direct) {
    copy_(outs[0], mant);
    copy_(outs[1], expo);
  }
}

// Derivatives, in terms of the input x, the result y and the incoming gradient g.
using autograd::GradCtx;

void neg_backward(GradCtx& c) { c.set("self", neg(c.grad())); }
void abs_backward(GradCtx& c) {  // g * sign(x), 0 at 0; g z / |z| for complex z
  const Tensor x = c.saved("self");
  if (is_complex(x->dtype())) c.set("self", g_times(c, sgn(x)));
  else c.set("self", g_times(c, sub(mask_as(gt(x, 0), x), mask_as(lt(x, 0), x))));
}
// 0 where the result is <= 0, else the gradient as it came. A product with the mask would give -0
// for a negative gradient and NaN for an infinite one.
void relu_backward(GradCtx& c) { c.set("self", threshold_backward(c.grad(), c.result(), 0)); }
// For complex inputs the derivative's factor is conjugated (Note [Complex tensors] in complex.cpp).
void exp_backward(GradCtx& c) { c.set("self", g_times(c, conj_if_complex(c.result()))); }
void log_backward(GradCtx& c) { c.set("self", div(c.grad(), conj_if_complex(c.saved("self")))); }
void sqrt_backward(GradCtx& c) { c.set("self", div(c.grad(), mul(conj_if_complex(c.result()), Scalar(2.0)))); }
// The factors below are conjugated for complex inputs too (conj_if_complex is nothing for real ones).
void rsqrt_backward(GradCtx& c) {  // -y^3 / 2
  const Tensor y = c.result();
  c.set("self", g_times(c, conj_if_complex(mul(mul(y, mul(y, y)), Scalar(-0.5)))));
}
void sin_backward(GradCtx& c) { c.set("self", g_times(c, conj_if_complex(cos(c.saved("self"))))); }
void cos_backward(GradCtx& c) { c.set("self", neg(g_times(c, conj_if_complex(sin(c.saved("self")))))); }
void tanh_backward(GradCtx& c) {  // 1 - y^2
  const Tensor y = c.result();
  c.set("self", g_times(c, conj_if_complex(rsub(mul(y, y), 1))));
}
void sigmoid_backward(GradCtx& c) {  // y (1 - y)
  const Tensor y = c.result();
  c.set("self", g_times(c, conj_if_complex(mul(y, rsub(y, 1)))));
}
void reciprocal_backward(GradCtx& c) {  // -y^2
  const Tensor y = c.result();
  c.set("self", neg(g_times(c, conj_if_complex(mul(y, y)))));
}
void exp2_backward(GradCtx& c) {
  c.set("self", g_times(c, conj_if_complex(mul(c.result(), Scalar(std::log(2.0))))));
}
void expm1_backward(GradCtx& c) { c.set("self", g_times(c, conj_if_complex(add(c.result(), 1)))); }
void log1p_backward(GradCtx& c) { c.set("self", div(c.grad(), conj_if_complex(add(c.saved("self"), 1)))); }
void log2_backward(GradCtx& c) {
  c.set("self", div(c.grad(), conj_if_complex(mul(c.saved("self"), Scalar(std::log(2.0))))));
}
void log10_backward(GradCtx& c) {
  c.set("self", div(c.grad(), conj_if_complex(mul(c.saved("self"), Scalar(std::log(10.0))))));
}
void tan_backward(GradCtx& c) {  // 1 + y^2
  const Tensor y = c.result();
  c.set("self", g_times(c, conj_if_complex(add(mul(y, y), 1))));
}
void asin_backward(GradCtx& c) {  // 1 / sqrt(1 - x^2)
  const Tensor x = c.saved("self");
  c.set("self", g_times(c, conj_if_complex(rsqrt(rsub(mul(x, x), 1)))));
}
void acos_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  c.set("self", neg(g_times(c, conj_if_complex(rsqrt(rsub(mul(x, x), 1))))));
}
void atan_backward(GradCtx& c) {  // 1 / (1 + x^2)
  const Tensor x = c.saved("self");
  c.set("self", div(c.grad(), conj_if_complex(add(mul(x, x), 1))));
}
void sinh_backward(GradCtx& c) { c.set("self", g_times(c, conj_if_complex(cosh(c.saved("self"))))); }
void cosh_backward(GradCtx& c) { c.set("self", g_times(c, conj_if_complex(sinh(c.saved("self"))))); }
void asinh_backward(GradCtx& c) {  // 1 / sqrt(x^2 + 1)
  const Tensor x = c.saved("self");
  c.set("self", g_times(c, conj_if_complex(rsqrt(add(mul(x, x), 1)))));
}
// 1 / sqrt(x^2 - 1); for complex x 1 / (sqrt(x - 1) sqrt(x + 1)), which has acosh's branch cut
// (sqrt(x^2 - 1) flips sign across the imaginary axis, where acosh does not).
void acosh_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  const Tensor d = is_complex(x->dtype()) ? mul(rsqrt(sub(x, 1)), rsqrt(add(x, 1))) : rsqrt(sub(mul(x, x), 1));
  c.set("self", g_times(c, conj_if_complex(d)));
}
void atanh_backward(GradCtx& c) {  // 1 / (1 - x^2)
  const Tensor x = c.saved("self");
  c.set("self", div(c.grad(), conj_if_complex(rsub(mul(x, x), 1))));
}
void erf_backward(GradCtx& c) {  // 2 / sqrt(pi) exp(-x^2)
  const Tensor x = c.saved("self");
  c.set("self", g_times(c, mul(exp(neg(mul(x, x))), Scalar(2.0 / std::sqrt(kPi)))));
}
void erfc_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  c.set("self", g_times(c, mul(exp(neg(mul(x, x))), Scalar(-2.0 / std::sqrt(kPi)))));
}
void erfinv_backward(GradCtx& c) {  // sqrt(pi) / 2 exp(y^2)
  const Tensor y = c.result();
  c.set("self", g_times(c, mul(exp(mul(y, y)), Scalar(std::sqrt(kPi) / 2.0))));
}
void zero_backward(GradCtx& c) { c.set("self", zeros_like_grad(c)); }
void deg2rad_backward(GradCtx& c) { c.set("self", mul(c.grad(), Scalar(kPi / 180.0))); }
void rad2deg_backward(GradCtx& c) { c.set("self", mul(c.grad(), Scalar(180.0 / kPi))); }
void sinc_backward(GradCtx& c) {  // (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at 0
  const Tensor x = c.saved("self"), px = mul(x, Scalar(kPi));
  const Tensor d = div(sub(mul(px, cos(px)), sin(px)), mul(px, x));
  c.set("self", g_times(c, where(eq(x, 0), zeros({}, d->dtype(), d->device()), d)));
}
void lgamma_backward(GradCtx& c) { c.set("self", g_times(c, digamma(c.saved("self")))); }
void digamma_backward(GradCtx& c) { c.set("self", g_times(c, polygamma(1, c.saved("self")))); }
void polygamma_backward(GradCtx& c) { c.set("self", g_times(c, polygamma(c.arg("n").to_int() + 1, c.saved("self")))); }
void i0_backward(GradCtx& c) { c.set("self", g_times(c, special_i1(c.saved("self")))); }
void i1_backward(GradCtx& c) {  // I0(x) - I1(x) / x, 1/2 at 0
  const Tensor x = c.saved("self");
  const Tensor d = sub(i0(x), div(c.result(), x));
  c.set("self", g_times(c, where(eq(x, 0), full({}, Scalar(0.5), d->dtype(), d->device()), d)));
}
void logit_backward(GradCtx& c) {  // 1 / (x (1 - x)); 0 outside [eps, 1 - eps] when eps is given
  const Tensor x = c.saved("self");
  const Tensor d = div(c.grad(), mul(x, rsub(x, 1)));
  if (c.arg("eps").is_none()) return c.set("self", d);
  const double eps = c.arg("eps").to_double();
  const Tensor outside = logical_or(lt(x, eps), gt(x, 1.0 - eps));
  c.set("self", where(outside, zeros({}, d->dtype(), d->device()), d));
}
void frexp_backward(GradCtx& c) {  // d mantissa / dx = 2^-exponent; the exponent is a step
  const Tensor x = c.saved("self");
  const Tensor exponent = frexp(x)[1];
  c.set("self", mul(c.grad(0), exp2(neg(to(exponent, c.grad(0)->dtype())))));
}
void identity_backward(GradCtx& c) { c.set("self", c.grad()); }
void square_backward(GradCtx& c) { c.set("self", g_times(c, conj_if_complex(mul(c.saved("self"), Scalar(2.0))))); }
void nan_to_num_backward(GradCtx& c) {  // passes where x is finite
  c.set("self", g_times(c, isfinite(c.saved("self"))));
}

}  // namespace

void define_unary_ops(Registry& r) {
  const Saves x = save("self"), y = save_result();
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
  define_unary<Deg2rad>(r, deg2rad_backward, {});
  define_unary<Rad2deg>(r, rad2deg_backward, {});
  define_unary<Sinc>(r, sinc_backward, x);
  define_unary<Lgamma>(r, lgamma_backward, x);
  define_unary<Digamma>(r, digamma_backward, x);
  define_unary<I0>(r, i0_backward, x);
  define_unary<I1>(r, i1_backward, save_result(x));
  define_unary<Signbit>(r, nullptr, {});
  define_unary<Logit>(r, logit_backward, x);
  r.def("polygamma(int n, Tensor self) -> Tensor")
      .meta(polygamma_meta)
      .compute(DispatchKey::CPU, polygamma_cpu, Determinism::Bitwise)
      .tag(Tag::Pointwise)
      .derivative(polygamma_backward, save("self"));
  r.def("frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)")
      .meta(frexp_meta)
      .compute(DispatchKey::CPU, frexp_cpu, Determinism::Bitwise)
      .tag(Tag::Pointwise)
      .derivative(frexp_backward, x);
}

}  // namespace ct::ops
