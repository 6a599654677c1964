// binary.cpp - binary elementwise operators: add, sub, mul, div, pow, maximum, minimum, the
// comparisons, atan2, hypot, fmod, remainder, floor_divide, the bitwise and logical operators, each
// with its .Tensor and (where PyTorch has one) .Scalar overload; add/sub/mul/div also in place.
//
// One row per operator below (an Op struct): its name, how its result dtype follows from the
// promoted input dtype, which dtypes it accepts, and the element function. The meta function,
// compute function and registration are shared templates.
#include <atomic>
#include <cmath>
#include <optional>
#include <type_traits>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/complex_math.h"
#include "ops/cpu/int_div.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "ops/pointwise/element_fn.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

// Result dtype from the promoted dtype: itself (Promote), integers to the default float
// (TrueDivide: div, atan2), bool (Compare: comparisons and logical operators), or float64 whatever
// the inputs (Double: float_power).
enum class Rule { Promote, TrueDivide, Compare, Double };
constexpr unsigned kIntegerDTypes = kNumericDTypes & ~kFloatingDTypes;  // no bool
constexpr unsigned kBitDTypes = kIntegerDTypes | dtype_bit(DType::Bool);

template <typename T> using M = opmath_t<T>;
using autograd::GradCtx;
using autograd::scaled;

// t with zeros where mask holds.
Tensor zero_where(const Tensor& mask, const Tensor& t) {
  return ops::where(mask, ops::zeros({}, t->dtype(), t->device()), t);
}

// The typed calls a derivative picks among (ops::gt or ops::lt, ops::exp or ops::exp2).
using UnaryCall = Tensor (*)(const Tensor&);
using BinaryCall = Tensor (*)(const Tensor&, const Tensor&);

// d(base^e): e base^(e-1) and base^e log(base). As in PyTorch, a zero exponent contributes nothing
// to d/dbase (not 0 * inf), and a zero base with a non-negative exponent nothing to d/dexponent
// (not 0 * log 0). pow and float_power (which passes its operands in float64).
// The value of a wrapped number (a Python scalar operand) of int64 or float64, else nothing.
std::optional<double> wrapped_value(const TensorImpl& t) {
  if (!t.is_wrapped_number() || t.dtype() == DType::Bool) return std::nullopt;
  return t.dtype() == DType::Float64 ? *t.data_as<double>() : static_cast<double>(*t.data_as<int64_t>());
}

// For complex operands the factors are conjugated, and a complex exponent counts as non-negative
// where it is real and >= 0.
void pow_backward(GradCtx& c, const Tensor& base, const Tensor& e) {
  if (c.needs("self")) {
    // grad * (e * base^(e-1)), associated as torch does; a number e stays a number, so that
    // base^(e-1) takes pow's arithmetic (pow_by_arithmetic) as torch's does: torch's bits.
    const std::optional<double> ev = wrapped_value(*e);
    const Tensor d = ev ? ops::mul(c.grad(), conj_if_complex(ops::mul(ops::pow(base, Scalar(*ev - 1)), Scalar(*ev))))
                        : ops::mul(c.grad(), conj_if_complex(ops::mul(e, ops::pow(base, ops::sub(e, 1)))));
    c.set("self", zero_where(ops::eq(e, 0), d));
  }
  if (c.needs("other")) {
    const Tensor d = ops::mul(c.grad(), conj_if_complex(ops::mul(c.result(), ops::log(base))));
    const Tensor non_negative = is_complex(e->dtype()) ? ops::mul(ops::eq(ops::imag(e), 0), ops::ge(ops::real(e), 0))
                                                       : ops::ge(e, 0);
    c.set("other", zero_where(ops::mul(ops::eq(base, 0), non_negative), d));
  }
}

// maximum / minimum: the gradient goes to the winning input, split evenly on ties.
void extremum_backward(GradCtx& c, BinaryCall wins) {
  const Tensor a = c.saved("self"), b = c.saved("other");
  const DType d = c.grad()->dtype();
  const Tensor share = ops::add(ops::to(wins(a, b), d), ops::to(ops::eq(a, b), d), 0.5);
  const Tensor ga = ops::mul(c.grad(), share);
  c.set("self", ga);
  if (c.needs("other")) c.set("other", ops::sub(c.grad(), ga));
}

using cpu::textbook_product;

// Complex add and sub are torch's a + alpha b with alpha = 1 or -1 as a complex number, multiplied
// out: so an infinite part of b gives a NaN in the other part ((1 + 0i) + (inf + 0i) is inf + NaN i
// in torch, and b + a is inf + 0i), and ctorch's numbers are torch's.
struct Add {
  static constexpr unsigned dtypes = kAllDTypesAndComplex;
  static constexpr bool divides = false;
  static constexpr const char* name = "add";
  static constexpr Rule rule = Rule::Promote;
  static constexpr bool has_alpha = true;
  CT_ELEMENT_OF(Add)
  template <typename T> static T apply(T a, T b) {
    if constexpr (cpu::is_complex_t<T>::value) return a + textbook_product(T(1), b);
    else return T(Fn{}(M<T>(a), M<T>(b)));
  }
  template <typename T> static T apply_alpha(T a, T b, M<T> alpha) {
    if constexpr (cpu::is_complex_t<T>::value) return a + textbook_product(T(alpha), b);
    else return T(Fn{}(M<T>(a), M<T>(b), alpha));
  }
  static constexpr Saves saves{};
  static void backward(GradCtx& c) {
    c.set("self", c.grad());
    if (c.needs("other")) c.set("other", scaled(c.grad(), c.arg("alpha").to_scalar()));
  }
};
struct Sub {
  static constexpr unsigned dtypes = kAllDTypesAndComplex;
  static constexpr bool divides = false;
  static constexpr const char* name = "sub";
  static constexpr Rule rule = Rule::Promote;
  static constexpr bool has_alpha = true;
  CT_ELEMENT_OF(Sub)
  template <typename T> static T apply(T a, T b) {
    if constexpr (cpu::is_complex_t<T>::value) return a + textbook_product(T(-1), b);
    else return T(Fn{}(M<T>(a), M<T>(b)));
  }
  template <typename T> static T apply_alpha(T a, T b, M<T> alpha) {
    if constexpr (cpu::is_complex_t<T>::value) return a + textbook_product(T(-alpha), b);
    else return T(Fn{}(M<T>(a), M<T>(b), alpha));
  }
  static constexpr Saves saves{};
  static void backward(GradCtx& c) {
    c.set("self", c.grad());
    if (c.needs("other")) c.set("other", ops::neg(scaled(c.grad(), c.arg("alpha").to_scalar())));
  }
};
struct Mul {
  static constexpr unsigned dtypes = kAllDTypesAndComplex;
  static constexpr bool divides = false;
  static constexpr const char* name = "mul";
  static constexpr Rule rule = Rule::Promote;
  static constexpr bool has_alpha = false;
  CT_ELEMENT_OF(Mul)
  template <typename T> static T apply(T a, T b) {
    if constexpr (cpu::is_complex_t<T>::value) return textbook_product(a, b);
    else return T(Fn{}(M<T>(a), M<T>(b)));
  }
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) {  // with the conjugate for complex operands (Note [Complex tensors])
    if (c.needs("self")) c.set("self", ops::mul(c.grad(), conj_if_complex(c.saved("other"))));
    if (c.needs("other")) c.set("other", ops::mul(c.grad(), conj_if_complex(c.saved("self"))));
  }
};
struct Div {
  static constexpr unsigned dtypes = kAllDTypesAndComplex;
  static constexpr bool divides = false;
  static constexpr const char* name = "div";
  static constexpr Rule rule = Rule::TrueDivide;
  static constexpr bool has_alpha = false;
  CT_ELEMENT_OF(Div)
  template <typename T> static T apply(T a, T b) {
    if constexpr (cpu::is_complex_t<T>::value) return a / b;
    else return T(Fn{}(M<T>(a), M<T>(b)));
  }
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) {  // d(a/b) = da/b - (a/b) db/b, conjugated for complex operands
    const Tensor b = conj_if_complex(c.saved("other"));
    const Tensor ga = ops::div(c.grad(), b);
    c.set("self", ga);
    if (c.needs("other")) c.set("other", ops::neg(ops::mul(ga, ops::div(conj_if_complex(c.saved("self")), b))));
  }
};
struct Pow {
  static constexpr unsigned dtypes = kAllDTypesAndComplex;
  static constexpr bool divides = false;
  static constexpr const char* name = "pow";
  static constexpr Rule rule = Rule::Promote;
  static constexpr bool has_alpha = false;
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_floating_point<M<T>>::value || cpu::is_complex_t<T>::value) {
      return T(std::pow(M<T>(a), M<T>(b)));
    } else {  // exact integer power by squaring (bool is refused by the meta function); negative
              // exponents as PyTorch: 1, +-1 or 0
      int64_t base = a, e = b, r = 1;
      if (e < 0) return T(base == 1 ? 1 : base == -1 ? (e % 2 ? -1 : 1) : 0);
      while (e) {
        if (e & 1) r *= base;
        base *= base;
        e >>= 1;
      }
      return T(r);
    }
  }
  static constexpr Saves saves = save_result(save("self", "other"));
  static void backward(GradCtx& c) { pow_backward(c, c.saved("self"), c.saved("other")); }
};
struct Maximum {
  static constexpr unsigned dtypes = kAllDTypes;
  static constexpr bool divides = false;
  static constexpr const char* name = "maximum";
  static constexpr Rule rule = Rule::Promote;
  static constexpr bool has_alpha = false;
  CT_ELEMENT_OF(Maximum)
  template <typename T> static T apply(T a, T b) { return T(Fn{}(M<T>(a), M<T>(b))); }
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) { extremum_backward(c, ops::gt); }
};
struct Minimum {
  static constexpr unsigned dtypes = kAllDTypes;
  static constexpr bool divides = false;
  static constexpr const char* name = "minimum";
  static constexpr Rule rule = Rule::Promote;
  static constexpr bool has_alpha = false;
  CT_ELEMENT_OF(Minimum)
  template <typename T> static T apply(T a, T b) { return T(Fn{}(M<T>(a), M<T>(b))); }
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) { extremum_backward(c, ops::lt); }
};
#define CT_COMPARISON(Name, str, allowed, expr)                                     \
  struct Name {                                                                     \
    static constexpr const char* name = str;                                        \
    static constexpr unsigned dtypes = allowed;                                     \
    static constexpr bool divides = false;                                          \
    static constexpr Rule rule = Rule::Compare;                                     \
    static constexpr bool has_alpha = false;                                        \
    template <typename T> static bool apply(T a, T b) { return M<T>(a) expr M<T>(b); } \
    static constexpr BackwardFn backward = nullptr;                                 \
  };
// Complex numbers have equality but no order, as in torch.
CT_COMPARISON(Eq, "eq", kAllDTypesAndComplex, ==)
CT_COMPARISON(Ne, "ne", kAllDTypesAndComplex, !=)
CT_COMPARISON(Lt, "lt", kAllDTypes, <)
CT_COMPARISON(Le, "le", kAllDTypes, <=)
CT_COMPARISON(Gt, "gt", kAllDTypes, >)
CT_COMPARISON(Ge, "ge", kAllDTypes, >=)
#undef CT_COMPARISON

// Logical operators: nonzero is true, NaN included; the result is bool, as for comparisons.
#define CT_LOGICAL(Name, str, expr)                                                   \
  struct Name {                                                                       \
    static constexpr const char* name = str;                                          \
    static constexpr unsigned dtypes = kAllDTypes;                                    \
    static constexpr bool divides = false;                                            \
    static constexpr Rule rule = Rule::Compare;                                       \
    static constexpr bool has_alpha = false;                                          \
    template <typename T> static bool apply(T a, T b) {                               \
      const bool x = M<T>(a) != M<T>(0), y = M<T>(b) != M<T>(0);                      \
      return expr;                                                                    \
    }                                                                                 \
    static constexpr BackwardFn backward = nullptr;                                   \
  };
CT_LOGICAL(LogicalAnd, "logical_and", x && y)
CT_LOGICAL(LogicalOr, "logical_or", x || y)
CT_LOGICAL(LogicalXor, "logical_xor", x != y)
#undef CT_LOGICAL

template <typename T>
bool shift_out_of_range(T b) {
  if constexpr (std::is_signed<T>::value) return b < 0 || b >= T(sizeof(T) * 8);
  else return b >= T(sizeof(T) * 8);
}

// Bitwise operators: integers and bool only (PyTorch refuses floats).
#define CT_BITWISE(Name, str, allowed, expr)                                          \
  struct Name {                                                                       \
    static constexpr const char* name = str;                                          \
    static constexpr unsigned dtypes = allowed;                                       \
    static constexpr bool divides = false;                                            \
    static constexpr Rule rule = Rule::Promote;                                       \
    static constexpr bool has_alpha = false;                                          \
    template <typename T> static T apply(T a, T b) { return T(expr); }                \
    static constexpr BackwardFn backward = nullptr;                                   \
  };
CT_BITWISE(BitwiseAnd, "bitwise_and", kBitDTypes, a & b)
CT_BITWISE(BitwiseOr, "bitwise_or", kBitDTypes, a | b)
CT_BITWISE(BitwiseXor, "bitwise_xor", kBitDTypes, a ^ b)
// Shifts by a negative amount or by the width or more give what PyTorch gives: 0 to the left,
// the sign fill to the right. The left shift runs on the unsigned type (no overflow UB).
CT_BITWISE(LeftShift, "bitwise_left_shift", kIntegerDTypes,
           shift_out_of_range(b) ? T(0) : T(static_cast<std::make_unsigned_t<T>>(a) << b))
CT_BITWISE(RightShift, "bitwise_right_shift", kIntegerDTypes,
           shift_out_of_range(b) ? T(a >> (sizeof(T) * 8 - 1)) : T(a >> b))
#undef CT_BITWISE

struct Atan2 {
  static constexpr const char* name = "atan2";
  static constexpr unsigned dtypes = kFloatingDTypes;
  static constexpr bool divides = false;
  static constexpr Rule rule = Rule::TrueDivide;  // integers become float32
  static constexpr bool has_alpha = false;
  template <typename T> static T apply(T a, T b) { return T(std::atan2(M<T>(a), M<T>(b))); }
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) {  // (b, -a) / (a^2 + b^2)
    const Tensor a = c.saved("self"), b = c.saved("other");
    const Tensor r2 = ops::add(ops::mul(a, a), ops::mul(b, b));
    if (c.needs("self")) c.set("self", ops::mul(c.grad(), ops::div(b, r2)));
    if (c.needs("other")) c.set("other", ops::mul(c.grad(), ops::div(ops::neg(a), r2)));
  }
};
struct Hypot {
  static constexpr const char* name = "hypot";
  static constexpr unsigned dtypes = kFloatingDTypes;  // PyTorch refuses integers
  static constexpr bool divides = false;
  static constexpr Rule rule = Rule::Promote;
  static constexpr bool has_alpha = false;
  template <typename T> static T apply(T a, T b) { return T(std::hypot(M<T>(a), M<T>(b))); }
  static constexpr Saves saves = save_result(save("self", "other"));
  static void backward(GradCtx& c) {  // (a, b) / y
    const Tensor g_y = ops::div(c.grad(), c.result());
    if (c.needs("self")) c.set("self", ops::mul(g_y, c.saved("self")));
    if (c.needs("other")) c.set("other", ops::mul(g_y, c.saved("other")));
  }
};

// fmod, remainder and floor_divide. Integers: PyTorch raises on a zero divisor (the compute
// function checks, see `divides`), and x / -1 is negation: see Note [Integer division never traps].
struct Fmod {
  static constexpr const char* name = "fmod";
  static constexpr unsigned dtypes = kNumericDTypes;
  static constexpr bool divides = true;
  static constexpr Rule rule = Rule::Promote;
  static constexpr bool has_alpha = false;
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_floating_point<M<T>>::value) return T(std::fmod(M<T>(a), M<T>(b)));
    else return cpu::rem_toward_zero(a, b);
  }
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) {  // d/db = -trunc(a / b)
    c.set("self", c.grad());
    if (c.needs("other"))
      c.set("other", ops::neg(ops::mul(c.grad(), ops::trunc(ops::div(c.saved("self"), c.saved("other"))))));
  }
};
struct Remainder {  // Python's %: the sign of the divisor
  static constexpr const char* name = "remainder";
  static constexpr unsigned dtypes = kNumericDTypes;
  static constexpr bool divides = true;
  static constexpr Rule rule = Rule::Promote;
  static constexpr bool has_alpha = false;
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_floating_point<M<T>>::value) {
      M<T> mod = std::fmod(M<T>(a), M<T>(b));
      if (mod != M<T>(0) && ((M<T>(b) < M<T>(0)) != (mod < M<T>(0)))) mod += M<T>(b);
      return T(mod);
    } else {
      T mod = cpu::rem_toward_zero(a, b);
      if (mod != 0 && ((b < 0) != (mod < 0))) mod = T(mod + b);
      return mod;
    }
  }
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) {  // d/db = -floor(a / b)
    c.set("self", c.grad());
    if (c.needs("other"))
      c.set("other", ops::neg(ops::mul(c.grad(), ops::floor(ops::div(c.saved("self"), c.saved("other"))))));
  }
};
struct FloorDivide {  // Python's //
  static constexpr const char* name = "floor_divide";
  static constexpr unsigned dtypes = kNumericDTypes;
  static constexpr bool divides = true;
  static constexpr Rule rule = Rule::Promote;
  static constexpr bool has_alpha = false;
  template <typename T> static T apply(T a, T b) {
    if constexpr (std::is_floating_point<M<T>>::value) {
      // PyTorch's div_floor_floating: exact where floor(a / b) would round the quotient wrongly.
      const M<T> x = M<T>(a), y = M<T>(b);
      if (y == M<T>(0)) return T(x / y);
      const M<T> mod = std::fmod(x, y);
      M<T> div = (x - mod) / y;
      if (mod != M<T>(0) && ((y < M<T>(0)) != (mod < M<T>(0)))) div -= M<T>(1);
      if (div == M<T>(0)) return T(std::copysign(M<T>(0), x / y));
      M<T> fl = std::floor(div);
      if (div - fl > M<T>(0.5)) fl += M<T>(1);
      return T(fl);
    } else {
      const T q = cpu::div_toward_zero(a, b);
      return (a < 0) != (b < 0) && cpu::rem_toward_zero(a, b) ? T(q - 1) : q;
    }
  }
  static constexpr BackwardFn backward = nullptr;  // a step function (PyTorch defines none)
};

// The element-function operators added with fns.h: each declares its functor, and the engine
// below computes, fuses and (on CUDA) runs it from that one formula.
#define CT_BINARY_FN(Name, str, rule_, allowed)        \
  static constexpr const char* name = str;             \
  static constexpr unsigned dtypes = allowed;          \
  static constexpr bool divides = false;               \
  static constexpr Rule rule = rule_;                  \
  static constexpr bool has_alpha = false;             \
  CT_ELEMENT_OF(Name)                                  \
  template <typename T> static T apply(T a, T b) { return T(Fn{}(M<T>(a), M<T>(b))); }

struct Copysign {  // integers become the default float
  CT_BINARY_FN(Copysign, "copysign", Rule::TrueDivide, kFloatingDTypes)
  static constexpr Saves saves = save_result(save("self"));
  static void backward(GradCtx& c) {  // d/da = result / a (0 at a = 0); nothing flows to the sign
    const Tensor a = c.saved("self");
    c.set("self", ops::mul(c.grad(), zero_where(ops::eq(a, 0), ops::div(c.result(), a))));
    if (c.needs("other")) c.set("other", ops::zeros(c.grad()->sizes(), c.grad()->dtype(), c.grad()->device()));
  }
};
// d/da log(e^a + e^b) = 1 / (1 + e^(b - a)); base 2 the same with 2^(b - a).
template <UnaryCall Exp>
void log_add_exp_backward(GradCtx& c) {
  const Tensor a = c.saved("self"), b = c.saved("other");
  auto share = [&](const Tensor& x, const Tensor& y) {
    return ops::div(c.grad(), ops::add(Exp(ops::sub(y, x)), 1));
  };
  if (c.needs("self")) c.set("self", share(a, b));
  if (c.needs("other")) c.set("other", share(b, a));
}
struct Logaddexp {
  CT_BINARY_FN(Logaddexp, "logaddexp", Rule::Promote, kFloatingDTypes)
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) { log_add_exp_backward<ops::exp>(c); }
};
struct Logaddexp2 {
  CT_BINARY_FN(Logaddexp2, "logaddexp2", Rule::Promote, kFloatingDTypes)
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) { log_add_exp_backward<ops::exp2>(c); }
};
struct Xlogy {  // integers become the default float
  CT_BINARY_FN(Xlogy, "xlogy", Rule::TrueDivide, kFloatingDTypes)
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) {  // d/dx = xlogy(x != 0, y), d/dy = x / y
    const Tensor x = c.saved("self"), y = c.saved("other");
    if (c.needs("self")) c.set("self", ops::mul(c.grad(), ops::xlogy(ops::ne(x, 0), y)));
    if (c.needs("other")) c.set("other", ops::mul(c.grad(), ops::div(x, y)));
  }
};
// d/dx P(a, x) = x^(a - 1) e^-x / Gamma(a), and Q's the negation; PyTorch defines none for a.
template <bool Upper>
void incomplete_gamma_backward(GradCtx& c) {
  const char* op = Upper ? "igammac" : "igamma";
  CT_CHECK(!c.needs("self"), CT_ERROR_NOT_IMPLEMENTED, op, ": the derivative with respect to self (a) is not "
           "implemented, as in PyTorch; detach self or stop it from requiring grad");
  if (!c.needs("other")) return;
  const Tensor a = c.saved("self"), x = c.saved("other");
  const Tensor density = ops::exp(ops::sub(ops::sub(ops::xlogy(ops::sub(a, 1), x), x), ops::lgamma(a)));
  c.set("other", ops::mul(c.grad(), Upper ? ops::neg(density) : density));
}
struct Igamma {
  CT_BINARY_FN(Igamma, "igamma", Rule::Promote, kFloatingDTypes)
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) { incomplete_gamma_backward<false>(c); }
};
struct Igammac {
  CT_BINARY_FN(Igammac, "igammac", Rule::Promote, kFloatingDTypes)
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) { incomplete_gamma_backward<true>(c); }
};
struct Nextafter {  // a step function: PyTorch defines no derivative
  CT_BINARY_FN(Nextafter, "nextafter", Rule::Promote, kFloatingDTypes)
  static constexpr BackwardFn backward = nullptr;
};
struct Heaviside {
  CT_BINARY_FN(Heaviside, "heaviside", Rule::Promote, kAllDTypes)
  static constexpr bool same_dtypes = true;
  static constexpr BackwardFn backward = nullptr;
};
// fmax / fmin: the gradient goes to the operand chosen, self on ties and against a NaN other.
template <BinaryCall Wins>
void fmax_fmin_backward(GradCtx& c) {
  const Tensor a = c.saved("self"), b = c.saved("other");
  const Tensor self_wins = ops::logical_or(Wins(a, b), ops::isnan(b));
  if (c.needs("self")) c.set("self", zero_where(ops::logical_not(self_wins), c.grad()));
  if (c.needs("other")) c.set("other", zero_where(self_wins, c.grad()));
}
struct Fmax {
  CT_BINARY_FN(Fmax, "fmax", Rule::Promote, kAllDTypes)
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) { fmax_fmin_backward<ops::ge>(c); }
};
struct Fmin {
  CT_BINARY_FN(Fmin, "fmin", Rule::Promote, kAllDTypes)
  static constexpr Saves saves = save("self", "other");
  static void backward(GradCtx& c) { fmax_fmin_backward<ops::le>(c); }
};
struct Gcd {
  CT_BINARY_FN(Gcd, "gcd", Rule::Promote, kIntegerDTypes)
  static constexpr BackwardFn backward = nullptr;
};
struct Lcm {
  CT_BINARY_FN(Lcm, "lcm", Rule::Promote, kIntegerDTypes)
  static constexpr BackwardFn backward = nullptr;
};
struct FloatPower {  // computed in float64: Rule::Double
  CT_BINARY_FN(FloatPower, "float_power", Rule::Double, kFloatingDTypes)
  static constexpr Saves saves = save_result(save("self", "other"));
  static void backward(GradCtx& c) {  // pow's, in float64
    pow_backward(c, ops::to(c.saved("self"), DType::Float64), ops::to(c.saved("other"), DType::Float64));
  }
};
struct Ldexp {  // integers become the default float
  CT_BINARY_FN(Ldexp, "ldexp", Rule::TrueDivide, kFloatingDTypes)
  static constexpr bool float_other = true;
  static constexpr Saves saves = save_result(save("other"));
  static void backward(GradCtx& c) {  // d/dx = 2^e, d/de = result ln 2
    if (c.needs("self")) c.set("self", ops::mul(c.grad(), ops::exp2(c.saved("other"))));
    if (c.needs("other")) c.set("other", ops::mul(c.grad(), ops::mul(c.result(), Scalar(0.69314718055994530942))));
  }
};
#undef CT_BINARY_FN

// Arguments (both overloads, after the Scalar one is wrapped): self, other[, alpha].
// Operators that refuse inputs of two dtypes instead of promoting them (heaviside) declare
// `static constexpr bool same_dtypes = true`.
template <typename Op, typename = void> struct same_dtypes_t : std::false_type {};
template <typename Op> struct same_dtypes_t<Op, std::void_t<decltype(Op::same_dtypes)>> : std::bool_constant<Op::same_dtypes> {};

// Operators whose `other` promotes as a float tensor even when it holds integers (ldexp) declare
// `static constexpr bool float_other = true`.
template <typename Op, typename = void> struct float_other_t : std::false_type {};
template <typename Op> struct float_other_t<Op, std::void_t<decltype(Op::float_other)>> : std::bool_constant<Op::float_other> {};

template <typename Op>
void binary_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  const TensorImpl& b = f.tensor(1);
  // Same device, dtype and sizes (the common case) needs no promotion or broadcasting.
  const bool same = a.device() == b.device() && a.dtype() == b.dtype() && !a.is_wrapped_number() &&
                    !b.is_wrapped_number() && identical(a.sym_sizes(), b.sym_sizes());
  const Device dev = same ? a.device() : common_device(f);
  DType common = a.dtype();
  if (!same || float_other_t<Op>::value) {
    ResultType rt;
    rt.add(a);
    // ldexp(x, e) is x * 2^e, and 2^e of integers is a float tensor of the default dtype.
    if (float_other_t<Op>::value && !is_floating(b.dtype())) rt.add(b, runtime::default_dtype());
    else rt.add(b);
    common = rt.result();
  }
  // As in PyTorch: subtraction refuses any bool operand, and pow refuses bool results.
  CT_CHECK(!(std::is_same<Op, Sub>::value && (a.dtype() == DType::Bool || b.dtype() == DType::Bool)), CT_ERROR_DTYPE,
           "sub: subtraction with a bool tensor is not supported (", a.dtype(), ", ", b.dtype(),
           "). To invert a mask use logical operators, or convert with to() first");
  CT_CHECK(!(std::is_same<Op, Pow>::value && common == DType::Bool), CT_ERROR_DTYPE,
           "pow: not supported for bool tensors. Convert with to() first");
  // float_power_ writes its float64 result into self, which PyTorch allows for a float64 self only.
  CT_CHECK(!(Op::rule == Rule::Double && f.op.functional && a.dtype() != DType::Float64), CT_ERROR_DTYPE, Op::name,
           "_: the base is ", a.dtype(), " (", a.sym_sizes(), ") but the result is float64, which cannot be written "
           "into it. Use float_power (not in place), or convert the base to float64");
  if (Op::has_alpha && f.nargs > 2) {
    const Value& alpha = f.arg(2);
    CT_CHECK(is_floating(common) || is_complex(common) || alpha.kind() != Value::Kind::Double, CT_ERROR_DTYPE, Op::name,
             ": alpha ", alpha.to_double(), " is a float but the inputs are ", common,
             ". Pass an integer alpha, or convert the inputs to a floating dtype");
  }
  if (Op::rule == Rule::TrueDivide && !is_floating(common) && !is_complex(common)) common = runtime::default_dtype();
  if (Op::rule == Rule::Double) common = DType::Float64;
  CT_CHECK(!same_dtypes_t<Op>::value || a.dtype() == b.dtype(), CT_ERROR_DTYPE, Op::name, ": the inputs must have one dtype (",
           a.dtype(), " and ", b.dtype(), "), as in PyTorch. Convert one with to() first");
  CT_CHECK((Op::dtypes & dtype_bit(common)) != 0, CT_ERROR_DTYPE, Op::name, ": not supported for ", common,
           " (inputs ", a.dtype(), " and ", b.dtype(), ")",
           (Op::dtypes & kFloatingDTypes) ? ". Convert to a floating dtype with to() first"
                                         : ". It takes integer or bool tensors; convert with to() first");
  m.compute = common;
  const DType out = Op::rule == Rule::Compare ? DType::Bool : common;
  if (same) set_output(m, 0, a.sym_sizes(), out, dev);
  else set_output(m, 0, broadcast_shapes(Op::name, a.sym_sizes(), b.sym_sizes()), out, dev);
}

// pow(x, e) for a Python number e that torch computes by arithmetic instead of std::pow: x * x,
// x * x * x, 1 / (x * x), sqrt, 1 / sqrt, 1 / x (and x for 1, which pow's derivative at 2 asks
// for). Torch's numbers, and vectorized loops instead of a libm call per element (x ** 3 of 1M
// float32 took 8 ms, torch 0.3 ms). False when e is another value: std::pow then. Complex x too,
// with torch's textbook product.
template <typename T>
bool pow_by_arithmetic(const cpu::LoopPlan& plan, const cpu::LoopCasts& casts, const TensorImpl& exponent) {
  using A = M<T>;
  const std::optional<double> value = wrapped_value(exponent);
  if (!value) return false;
  const double e = *value;
  const auto run = [&](auto fn) { cpu::elementwise<T, T, T>(plan, [fn](T x, T) { return T(fn(A(x))); }, casts); };
  const auto times = [](A x, A y) {
    if constexpr (cpu::is_complex_t<A>::value) return textbook_product(x, y);
    else return x * y;
  };
  // torch rounds x * x to bfloat16 before the next step (float16 and the rest keep it in A).
  const auto square = [times](A x) { return std::is_same<T, BFloat16>::value ? A(T(x * x)) : times(x, x); };
  if (e == 1) run([](A x) { return x; });
  else if (e == 2) run([times](A x) { return times(x, x); });
  else if (e == 3) run([square, times](A x) { return times(square(x), x); });
  else if (e == -2) run([square](A x) { return A(1) / square(x); });
  else if (e == 0.5) run([](A x) { return std::sqrt(x); });
  else if (e == -0.5) run([](A x) { return A(1) / std::sqrt(x); });
  else if (e == -1) run([](A x) { return A(1) / x; });
  else return false;
  return true;
}

template <typename Op>
void binary_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const DType natural = Op::rule == Rule::Compare ? DType::Bool : m.compute;
  Tensor temp;
  const TensorImpl* in[2] = {&f.tensor(0), &f.tensor(1)};
  const cpu::LoopCasts casts = cpu::loop_casts(in, 2, m.compute);  // Note [Casting in the loop]
  // In place into a narrower dtype (float16 self += float32): compute, then convert into self.
  if (outs[0]->dtype() != natural) temp = empty(outs[0]->sizes(), natural, kCPU);
  const TensorImpl& out = temp.defined() ? *temp : *outs[0];
  const cpu::LoopPlan plan = cpu::make_plan(out, in, 2);
  visit_dtype<Op::dtypes>(m.compute, Op::name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = decltype(Op::apply(T(), T()));
    if constexpr (Op::divides && std::is_integral<T>::value) {
      // Checked in the loop rather than before it: one pass, and the flag is written only on error.
      std::atomic<bool> zero{false};
      cpu::elementwise<R, T, T>(
          plan,
          [&zero](T x, T y) {
            if (y == T(0)) {
              zero.store(true, std::memory_order_relaxed);
              return R(0);
            }
            return Op::apply(x, y);
          },
          casts);
      CT_CHECK(!zero.load(), CT_ERROR_INVALID_ARGUMENT, Op::name,
               ": ZeroDivisionError, an integer divisor is 0. Remove the zeros, or divide as floats");
      return;
    }
    if constexpr (std::is_same<Op, Pow>::value && (std::is_floating_point<M<T>>::value || cpu::is_complex_t<T>::value)) {
      if (pow_by_arithmetic<T>(plan, casts, *in[1])) return;
    }
    if constexpr (Op::has_alpha) {
      if (f.nargs > 2 && !f.arg(2).to_scalar().equals(1.0)) {
        const M<T> alpha = f.arg(2).to_scalar().template to<M<T>>();
        cpu::elementwise<R, T, T>(plan, [alpha](T x, T y) { return Op::apply_alpha(x, y, alpha); }, casts);
        return;
      }
    }
    cpu::elementwise<R, T, T>(plan, [](T x, T y) { return Op::apply(x, y); }, casts);
  });
  if (temp.defined()) copy_(outs[0], temp);
}

// name.Scalar(Tensor self, Scalar other[, Scalar alpha]) calls name.Tensor with other wrapped.
template <typename Op, bool InPlace>
void scalar_overload(void*, Frame& f) {
  static const OperatorDef& tensor_op =
      builtin_op((std::string(Op::name) + (InPlace ? "_" : "") + ".Tensor").c_str());
  Tensor other = wrap_scalar(f.arg(1).to_scalar());
  Value args[3] = {f.arg(0), other, f.nargs > 2 ? f.arg(2) : Value(1)};
  dispatch(tensor_op, args, Op::has_alpha ? 3 : 2, f.outs, 1);
}

// `scalar` names the tensor-scalar overload (PyTorch's name for it), or is null where PyTorch has
// none (atan2, hypot, logical_and: their Python functions take tensors only).
template <typename Op>
void define_binary(Registry& r, bool with_inplace, const char* scalar = "Scalar") {
  const std::string n = Op::name;
  const std::string alpha = Op::has_alpha ? ", *, Scalar alpha=1" : "";
  const std::string scalar_alpha = Op::has_alpha ? ", Scalar alpha=1" : "";
  // Differentiable operators define backward as a function; the others as a null constant.
  constexpr bool differentiable = std::is_function<decltype(Op::backward)>::value;
  OpBuilder b = r.def(n + ".Tensor(Tensor self, Tensor other" + alpha + ") -> Tensor");
  b.meta(binary_meta<Op>).compute(DispatchKey::CPU, binary_cpu<Op>, Determinism::Bitwise).tag(Tag::Pointwise);
  if constexpr ((Op::dtypes & kComplexDTypes) != 0) b.takes_complex();
  // The element function is compiled for float and double (the fused cpu lines): integer-only and
  // bool-valued operators keep their own kernels. Fused kernels compute in the inputs' dtype, so an
  // operator whose result dtype differs (float_power's float64) is elementwise but not fusible.
  constexpr bool elementwise = (Op::dtypes & kFloatingDTypes) != 0 && Op::rule != Rule::Compare;
  constexpr bool fuses = elementwise && Op::rule != Rule::Double;
  if constexpr (elementwise) declare_element_fn<Op>(b, false, fuses);
  if constexpr (differentiable) b.derivative(Op::backward, Op::saves);
  else b.not_differentiable();
  if (with_inplace) b.inplace(n + "_.Tensor(Tensor(a!) self, Tensor other" + alpha + ") -> Tensor(a!)");
  if (!scalar) return;
  OpBuilder s = r.def(n + "." + scalar + "(Tensor self, Scalar other" + scalar_alpha + ") -> Tensor");
  s.composite(scalar_overload<Op, false>).tag(Tag::Pointwise);
  if constexpr (elementwise) declare_element_fn<Op>(s, false, fuses);
  if (!differentiable) s.not_differentiable();
  if (!with_inplace) return;
  OpBuilder si = r.def(n + "_." + scalar + "(Tensor(a!) self, Scalar other" + scalar_alpha + ") -> Tensor(a!)");
  si.composite(scalar_overload<Op, true>);
  if (!differentiable) si.not_differentiable();
}

// name.Scalar_Self(Scalar self, Tensor other) calls name.Tensor with self wrapped (xlogy(2, t)).
template <typename Op>
void scalar_self_overload(void*, Frame& f) {
  static const OperatorDef& tensor_op = builtin_op((std::string(Op::name) + ".Tensor").c_str());
  Tensor self = wrap_scalar(f.arg(0).to_scalar());
  Value args[2] = {self, f.arg(1)};
  dispatch(tensor_op, args, 2, f.outs, 1);
}

// rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor: other - alpha * self, with other
// promoting as a number (Python's 2 - t).
void rsub_scalar(void*, Frame& f) {
  f.outs[0] = sub(wrap_scalar(f.arg(1).to_scalar()), Tensor::borrow(&f.tensor(0)), f.arg(2).to_scalar());
}

// An alias: calls the operator named Target with the same arguments.
constexpr char kDivTensor[] = "div.Tensor";
constexpr char kDivScalar[] = "div.Scalar";
template <const char* Target>
void redirect(void*, Frame& f) {
  static const OperatorDef& op = builtin_op(Target);
  dispatch(op, f.args, f.nargs, f.outs, f.nouts);
}

}  // namespace

void define_binary_ops(Registry& r) {
  define_binary<Add>(r, true);
  define_binary<Sub>(r, true);
  define_binary<Mul>(r, true);
  define_binary<Div>(r, true);
  define_binary<Pow>(r, false);
  define_binary<Maximum>(r, false);
  define_binary<Minimum>(r, false);
  define_binary<Eq>(r, false);
  define_binary<Ne>(r, false);
  define_binary<Lt>(r, false);
  define_binary<Le>(r, false);
  define_binary<Gt>(r, false);
  define_binary<Ge>(r, false);
  OpBuilder rsub = r.def("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
  rsub.composite(rsub_scalar);
  declare_element_fn<Sub>(rsub, /*reversed=*/true);
  define_binary<Atan2>(r, true, nullptr);
  define_binary<Hypot>(r, true, nullptr);
  define_binary<Fmod>(r, true);
  define_binary<Remainder>(r, true);
  define_binary<FloorDivide>(r, true);
  define_binary<BitwiseAnd>(r, true);
  define_binary<BitwiseOr>(r, true);
  define_binary<BitwiseXor>(r, true);
  define_binary<LeftShift>(r, true, "Tensor_Scalar");
  define_binary<RightShift>(r, true, "Tensor_Scalar");
  define_binary<LogicalAnd>(r, true, nullptr);
  define_binary<LogicalOr>(r, true, nullptr);
  define_binary<LogicalXor>(r, true, nullptr);
  define_binary<Copysign>(r, true);
  define_binary<Logaddexp>(r, false, nullptr);
  define_binary<Logaddexp2>(r, false, nullptr);
  define_binary<Xlogy>(r, true, "Scalar_Other");
  r.def("xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor").composite(scalar_self_overload<Xlogy>).tag(Tag::Pointwise);
  define_binary<Igamma>(r, true, nullptr);
  define_binary<Igammac>(r, true, nullptr);
  define_binary<Nextafter>(r, true, nullptr);
  define_binary<Heaviside>(r, true, nullptr);
  define_binary<Fmax>(r, false, nullptr);
  define_binary<Fmin>(r, false, nullptr);
  define_binary<Gcd>(r, true, nullptr);
  define_binary<Lcm>(r, true, nullptr);
  define_binary<FloatPower>(r, true, "Tensor_Scalar");
  define_binary<Ldexp>(r, true, nullptr);
  // true_divide is div's old name.
  r.def("true_divide.Tensor(Tensor self, Tensor other) -> Tensor").composite(redirect<kDivTensor>);
  r.def("true_divide.Scalar(Tensor self, Scalar other) -> Tensor").composite(redirect<kDivScalar>);
}

}  // namespace ct::ops
