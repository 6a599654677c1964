// fns.h - the element functions of elementwise operators, each written once for every kernel that
// computes it: eager cpu, fused cpu, eager CUDA and fused CUDA (Note [Element functions] in
// element_math.h). An operator's definition names its functor (unary.cpp, binary.cpp); nothing
// else restates the formula.
//
// Floating results keep PyTorch's special values: NaN propagates through the extrema, abs(-0) is
// +0, relu(NaN) is NaN. Integer arithmetic wraps (em::wrap_*).
#pragma once

#include "ops/pointwise/element_math.h"

namespace ct::fn {

struct Neg {
  template <typename T> CT_ELEMENT T operator()(T x) const {
    if constexpr (em::is_float<T>::value) return -x;
    else return em::wrap_sub(T(0), x);
  }
};
struct Abs {
  template <typename T> CT_ELEMENT T operator()(T x) const {
    if constexpr (em::is_float<T>::value) return em::fabs(x);
    else return x < T(0) ? em::wrap_sub(T(0), x) : x;
  }
};
struct Relu {
  template <typename T> CT_ELEMENT T operator()(T x) const { return x < T(0) ? T(0) : x; }
};
struct Square {
  template <typename T> CT_ELEMENT T operator()(T x) const { return em::wrap_mul(x, x); }
};
struct Reciprocal {
  template <typename T> CT_ELEMENT T operator()(T x) const { return T(1) / x; }
};
// Functors that are one function of element_math.h.
#define CT_ONE_CALL(Name, f) \
  struct Name {              \
    template <typename T> CT_ELEMENT T operator()(T x) const { return em::f(x); } \
  };
CT_ONE_CALL(Exp, exp)
CT_ONE_CALL(Exp2, exp2)
CT_ONE_CALL(Expm1, expm1)
CT_ONE_CALL(Log, log)
CT_ONE_CALL(Log1p, log1p)
CT_ONE_CALL(Sqrt, sqrt)
// The exact square root, then a division (one rounding each, as PyTorch's cpu kernel).
struct Rsqrt {
  template <typename T> CT_ELEMENT T operator()(T x) const { return T(1) / em::sqrt(x); }
};
CT_ONE_CALL(Tanh, tanh)
CT_ONE_CALL(Sigmoid, sigmoid)
CT_ONE_CALL(Erf, erf)
// sin and cos have a wide form, exact for any argument, that a loop runs instead when some element
// of its input needs it (Note [sin and cos of large arguments]): the common loop stays vectorized.
struct Sin {
  static constexpr bool has_wide_form = true;
  template <typename T> CT_ELEMENT T operator()(T x) const { return em::sin(x); }
  template <typename T> CT_ELEMENT T wide(T x) const { return em::sin_wide(x); }
};
struct Cos {
  static constexpr bool has_wide_form = true;
  template <typename T> CT_ELEMENT T operator()(T x) const { return em::cos(x); }
  template <typename T> CT_ELEMENT T wide(T x) const { return em::cos_wide(x); }
};

struct Add {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const { return em::wrap_add(a, b); }
  template <typename T> CT_ELEMENT T operator()(T a, T b, T alpha) const { return em::wrap_add(a, em::wrap_mul(alpha, b)); }
};
struct Sub {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const { return em::wrap_sub(a, b); }
  template <typename T> CT_ELEMENT T operator()(T a, T b, T alpha) const { return em::wrap_sub(a, em::wrap_mul(alpha, b)); }
};
struct Mul {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const { return em::wrap_mul(a, b); }
};
struct Div {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const { return a / b; }
};
// A NaN in either operand wins (a's first), as PyTorch's maximum and minimum.
struct Maximum {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const {
    return em::is_nan(a) ? a : em::is_nan(b) ? b : a > b ? a : b;
  }
};
struct Minimum {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const {
    return em::is_nan(a) ? a : em::is_nan(b) ? b : a < b ? a : b;
  }
};

// ---- Angles, signs and rounding.

struct Deg2rad {
  template <typename T> CT_ELEMENT T operator()(T x) const { return x * T(em::kPi / 180.0); }
};
struct Rad2deg {
  template <typename T> CT_ELEMENT T operator()(T x) const { return x * T(180.0 / em::kPi); }
};
// sin(pi x) / (pi x), 1 at 0. The wide sin: pi x may be beyond the fast sin's range.
struct Sinc {
  template <typename T> CT_ELEMENT T operator()(T x) const {
    if (x == T(0)) return T(1);
    const T px = T(em::kPi) * x;
    return em::sin_wide(px) / px;
  }
};
// Whether the sign bit is set: true for -0.0 and a negative NaN; integers compare with 0.
struct Signbit {
  template <typename T> CT_ELEMENT bool operator()(T x) const {
    if constexpr (em::is_float<T>::value) return em::sign_bit(x);
    else return x < T(0);
  }
};
// log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps >= 0 (logit's None is eps < 0).
struct Logit {
  template <typename T> CT_ELEMENT T operator()(T x, T eps) const {
    if (eps >= T(0)) x = x < eps ? eps : x > T(1) - eps ? T(1) - eps : x;
    return em::log(x / (T(1) - x));
  }
};
// x = mantissa * 2^*e with |mantissa| in [0.5, 1); 0, infinities and NaN are their own mantissa,
// with *e = 0.
struct Frexp {
  template <typename T> CT_ELEMENT T operator()(T x, int* e) const {
    *e = 0;
    return em::frexp(x, e);
  }
};
struct Copysign {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const { return em::copysign(a, b); }
};
struct Nextafter {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const { return em::nextafter(a, b); }
};
// 0 where x < 0, 1 where x > 0, values where x == 0 (NaN gives 0, as PyTorch).
struct Heaviside {
  template <typename T> CT_ELEMENT T operator()(T x, T values) const {
    return x == T(0) ? values : T(x > T(0));
  }
};
// The larger (smaller) operand, a NaN losing to a number (C's fmax; maximum propagates NaN).
struct Fmax {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const {
    return em::is_nan(a) ? b : em::is_nan(b) ? a : a >= b ? a : b;
  }
};
struct Fmin {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const {
    return em::is_nan(a) ? b : em::is_nan(b) ? a : a <= b ? a : b;
  }
};
// Integers only: Euclid's algorithm on the magnitudes; gcd(0, 0) = 0, lcm(x, 0) = 0. As in PyTorch,
// the most negative value keeps its sign through abs, so a gcd may come out -1; a remainder or a
// quotient by -1 (which for that value overflows: undefined, a trap on x86) is taken as negation.
template <typename T>
CT_ELEMENT T rem_or_zero(T a, T b) {
  if constexpr (T(-1) < T(0)) {
    if (b == T(-1)) return T(0);
  }
  return a % b;
}
template <typename T>
CT_ELEMENT T quotient(T a, T b) {
  if constexpr (T(-1) < T(0)) {
    if (b == T(-1)) return em::wrap_sub(T(0), a);
  }
  return T(a / b);
}
struct Gcd {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const {
    a = em::wrap_abs(a);
    b = em::wrap_abs(b);
    while (a != T(0)) {
      const T c = a;
      a = rem_or_zero(b, a);
      b = c;
    }
    return b;
  }
};
struct Lcm {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const {
    const T g = Gcd{}(a, b);
    if (g == T(0)) return T(0);
    return em::wrap_abs(em::wrap_mul(quotient(a, g), b));
  }
};

// ---- Exponentials and logarithms.

// log(exp(a) + exp(b)) without overflow: max + log1p(exp(-|a - b|)); equal infinities stay.
struct Logaddexp {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const {
    if (a == b && (a == em::infinity(a) || a == -em::infinity(a))) return a;
    const T m = a > b ? a : b;
    return m + em::log1p(em::exp(-em::fabs(a - b)));
  }
};
// The same in base 2.
struct Logaddexp2 {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const {
    if (a == b && (a == em::infinity(a) || a == -em::infinity(a))) return a;
    const T m = a > b ? a : b;
    return m + em::log1p(em::exp2(-em::fabs(a - b))) * T(1.0 / 0.69314718055994530942);
  }
};
// The regularized incomplete gamma functions P(a, x) = gamma(a, x) / Gamma(a) (igamma) and
// Q = 1 - P (igammac), in double whatever T: by the power series of P where x < a + 1 and by the
// continued fraction of Q (modified Lentz) beyond, each to the last bit (their terms grow as
// sqrt(a), hence the budget); for a >= 1e8, where that budget would be too large, by the leading
// terms of Temme's uniform expansion, accurate to about a^-1.5. The edges are PyTorch's, in its
// order: NaN for a < 0 or x < 0; P(0, x) = 1 for x > 0 (else NaN); P(a, 0) = 0; P(inf, x) = 0
// (NaN for x = inf); P(a, inf) = 1; otherwise a NaN stays NaN.
CT_ELEMENT double incomplete_gamma(double a, double x, bool upper) {
  const double nan = em::quiet_nan(a), inf = em::infinity(a);
  double p;
  if (x < 0 || a < 0) return nan;
  if (a == 0) {
    if (!(x > 0)) return nan;
    p = 1;
  } else if (x == 0) {
    p = 0;
  } else if (a == inf) {
    if (x == inf) return nan;
    p = 0;
  } else if (x == inf) {
    p = 1;
  } else if (em::is_nan(a) || em::is_nan(x)) {
    return nan;
  } else if (a >= 1e8) {
    const double u = x / a - 1, root = em::sqrt(2 * (u - em::log1p(u)));
    const double eta = u < 0 ? -root : root;
    const double c0 = em::fabs(u) < 1e-5 ? -1.0 / 3 + u / 12 : 1 / u - 1 / eta;
    const double tail = em::exp(-a * eta * eta / 2) / em::sqrt(2 * 3.14159265358979323846 * a) * c0;
    return upper ? 0.5 * em::erfc(eta * em::sqrt(a / 2)) + tail : 0.5 * em::erfc(-eta * em::sqrt(a / 2)) - tail;
  } else {
    // x^a e^-x / Gamma(a). For large a the logarithm is a sum of terms near a log a that cancel;
    // Stirling's form keeps it to the last bits: a (log1p(u) - u) + log(a) / 2 - log(2 pi) / 2 - the
    // series tail of lgamma, u = (x - a) / a.
    double log_scale;
    if (a < 10) {
      log_scale = a * em::log(x) - x - em::lgamma(a);
    } else {
      const double u = (x - a) / a, r = 1 / a, r2 = r * r;
      const double tail = r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 / 1680)));
      log_scale = a * (em::log1p(u) - u) + 0.5 * em::log(a) - 0.91893853320467274178 - tail;
    }
    const double scale = em::exp(log_scale);
    const double eps = 1e-16;
    const int budget = 2000 + static_cast<int>(50 * em::sqrt(a));
    if (x < a + 1) {
      double n = a, term = 1 / a, sum = term;
      for (int i = 0; i < budget && em::fabs(term) > em::fabs(sum) * eps; ++i) {
        n += 1;
        term *= x / n;
        sum += term;
      }
      p = sum * scale;
    } else {
      const double tiny = 1e-300;
      double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
      for (int i = 1; i <= budget; ++i) {
        const double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (em::fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (em::fabs(c) < tiny) c = tiny;
        d = 1 / d;
        const double delta = d * c;
        h *= delta;
        if (em::fabs(delta - 1) <= eps) break;
      }
      const double q = scale * h;
      return upper ? q : 1 - q;
    }
  }
  return upper ? 1 - p : p;
}
struct Igamma {
  template <typename T> CT_ELEMENT T operator()(T a, T x) const {
    return T(incomplete_gamma(static_cast<double>(a), static_cast<double>(x), false));
  }
};
struct Igammac {
  template <typename T> CT_ELEMENT T operator()(T a, T x) const {
    return T(incomplete_gamma(static_cast<double>(a), static_cast<double>(x), true));
  }
};
// x * log(y), 0 where x is 0 (unless y is NaN).
struct Xlogy {
  template <typename T> CT_ELEMENT T operator()(T x, T y) const {
    if (em::is_nan(y)) return y;
    if (x == T(0)) return T(0);
    return x * em::log(y);
  }
};
// x * 2^e.
struct Ldexp {
  template <typename T> CT_ELEMENT T operator()(T x, T e) const { return x * em::exp2(e); }
};
// pow computed in float64, whatever the inputs (float_power's result is float64).
struct FloatPower {
  template <typename T> CT_ELEMENT T operator()(T a, T b) const { return em::pow(a, b); }
};

// ---- Gamma and Bessel functions.

CT_ONE_CALL(Lgamma, lgamma)
// psi(x) = d/dx log gamma(x): reflection below 0, the recurrence psi(x) = psi(x + 1) - 1/x up to 10,
// then the asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k). psi(+-0) is -+inf, poles NaN.
struct Digamma {
  template <typename T> CT_ELEMENT T operator()(T x) const {
    if (x == T(0)) return em::copysign(em::infinity(x), -x);
    T result = T(0);
    if (x < T(0)) {
      if (x == em::floor(x)) return em::quiet_nan(x);
      // psi(x) = psi(1 - x) - pi / tan(pi x); tan has period pi, so the fraction of x suffices.
      result = -T(em::kPi) / em::tan(T(em::kPi) * (x - em::trunc(x)));
      x = T(1) - x;
    }
    while (x < T(10)) {
      result -= T(1) / x;
      x += T(1);
    }
    const T z = T(1) / (x * x);
    const T series =
        z * (T(1.0 / 12) - z * (T(1.0 / 120) - z * (T(1.0 / 252) - z * (T(1.0 / 240) - z * (T(1.0 / 132) -
                                                                         z * (T(691.0 / 32760) - z * T(1.0 / 12)))))));
    return result + em::log(x) - T(0.5) / x - series;
  }
};
// The Hurwitz zeta function sum_k (q + k)^-s for s > 1 by Euler-Maclaurin summation: terms
// while q + k <= 9 (at least 9), the integral of the rest and 12 Bernoulli corrections
// B_2j / (2j)! s (s + 1) ... (s + 2j - 2) w^(-s - 2j + 1). Poles (q a non-positive integer) give
// inf; below q = -2^20 the direct terms would take too long, and the result is NaN.
template <typename T>
CT_ELEMENT T hurwitz_zeta(T s, T q) {
  if (q <= T(0) && q == em::floor(q)) return em::infinity(q);
  if (!(q > T(-1048576))) return em::quiet_nan(q);
  T sum = T(0), w = q;
  for (int k = 0; k < 9 || w <= T(9); ++k, w += T(1)) sum += em::pow(w, -s);
  constexpr double kBernoulli[12] = {8.333333333333333e-02,  -1.388888888888889e-03, 3.306878306878307e-05,
                                     -8.267195767195768e-07, 2.08767569878681e-08,   -5.284190138687493e-10,
                                     1.3382536530684679e-11, -3.3896802963225827e-13, 8.586062056277845e-15,
                                     -2.174868698558062e-16, 5.5090028283602295e-18, -1.3954464685812522e-19};
  const T ws = em::pow(w, -s);
  sum += w * ws / (s - T(1)) + T(0.5) * ws;
  T rising = s, power = ws / w;  // s (s + 1) ... (s + 2j - 2) and w^(-s - 2j + 1)
  for (int j = 0; j < 12; ++j) {
    const T term = T(kBernoulli[j]) * rising * power;
    sum += term;
    if (em::fabs(term) <= em::fabs(sum) * em::limits<T>::epsilon) break;
    rising *= (s + T(2 * j + 1)) * (s + T(2 * j + 2));
    power /= w * w;
  }
  return sum;
}
// psi'(x): reflection below 1/2 (psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x)), six steps of the
// recurrence psi'(x) = psi'(x + 1) + 1/x^2, then the asymptotic series
// 1/x + 1/(2x^2) + 1/(6x^3) - 1/(30x^5) + 1/(42x^7). As PyTorch's, a negative integer gives the
// large finite value that sin(pi x) rounded away from 0 makes.
struct Trigamma {
  template <typename T> CT_ELEMENT T operator()(T x) const {
    T sign = T(1), result = T(0);
    if (x < T(0.5)) {
      sign = T(-1);
      const T s = em::sin_wide(T(em::kPi) * x);
      result -= T(em::kPi * em::kPi) / (s * s);
      x = T(1) - x;
    }
    for (int i = 0; i < 6; ++i) {
      result += T(1) / (x * x);
      x += T(1);
    }
    const T z = T(1) / (x * x);
    result += (T(1) + T(1) / (T(2) * x) + z * (T(1.0 / 6) - z * (T(1.0 / 30) - z * T(1.0 / 42)))) / x;
    return sign * result;
  }
};
// polygamma(n, x), the n-th derivative of digamma: (-1)^(n+1) n! zeta(n + 1, x) for n >= 2.
// n is the operator's int argument (the functor's second operand).
struct Polygamma {
  template <typename T> CT_ELEMENT T operator()(T x, T n) const {
    if (n == T(0)) return Digamma{}(x);
    if (n == T(1)) return Trigamma{}(x);
    const T sign = em::fabs(n - T(2) * em::floor(n / T(2))) == T(1) ? T(1) : T(-1);
    return sign * em::exp(em::lgamma(n + T(1))) * hurwitz_zeta(n + T(1), x);
  }
};
// The modified Bessel functions I0 and I1, in double whatever T: the power series up to 20, then
// the asymptotic expansion e^x / sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k. An infinite argument
// gives NaN, as PyTorch's (whose expansion multiplies inf by 0 there).
template <int Nu>
CT_ELEMENT double bessel_i(double x) {  // x >= 0
  if (x == em::infinity(x)) return em::quiet_nan(x);
  if (x <= 20.0) {
    const double q = 0.25 * x * x;
    double term = Nu == 0 ? 1.0 : 0.5 * x, sum = term;
    for (int k = 1; k < 200; ++k) {
      term *= q / (double(k) * double(k + Nu));
      sum += term;
      if (term <= sum * em::limits<double>::epsilon) break;
    }
    return sum;
  }
  const double mu = 4.0 * Nu * Nu;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 60; ++k) {
    term *= -(mu - double((2 * k - 1) * (2 * k - 1))) / (8.0 * double(k) * x);
    sum += term;
    if (em::fabs(term) <= em::fabs(sum) * em::limits<double>::epsilon) break;
  }
  return em::exp(x - 0.5 * em::log(2.0 * em::kPi * x)) * sum;
}
struct I0 {
  template <typename T> CT_ELEMENT T operator()(T x) const { return T(bessel_i<0>(em::fabs(double(x)))); }
};
struct I1 {  // odd: I1(-x) = -I1(x)
  template <typename T> CT_ELEMENT T operator()(T x) const {
    const T r = T(bessel_i<1>(em::fabs(double(x))));
    return x < T(0) ? -r : r;
  }
};

}  // namespace ct::fn

#undef CT_ONE_CALL
