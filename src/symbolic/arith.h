// arith.h - integer arithmetic with Python's semantics and overflow checks, shared by the
// simplifier (constant folding) and the evaluator, so both give the same answer.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/error.h"

namespace ct::sym {

[[noreturn]] inline void overflow(const char* what) {
  fail(CT_ERROR_INVALID_ARGUMENT, str("symbolic ", what, ": the result overflows int64. Sizes this large "
                                      "cannot be represented; check the expression's inputs"));
}

inline int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflow("add");
  return r;
}
inline int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow("mul");
  return r;
}

inline void check_divisor(int64_t b, const char* op) {
  CT_CHECK(b != 0, CT_ERROR_INVALID_ARGUMENT, "symbolic ", op, ": division by zero");
}

/// a // b rounded toward negative infinity, as Python does for negative operands.
inline int64_t py_floordiv(int64_t a, int64_t b) {
  check_divisor(b, "floordiv");
  if (a == INT64_MIN && b == -1) overflow("floordiv");
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

/// a % b with the sign of b, as Python does.
inline int64_t py_mod(int64_t a, int64_t b) {
  check_divisor(b, "mod");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

inline double py_fmod(double a, double b) {
  CT_CHECK(b != 0, CT_ERROR_INVALID_ARGUMENT, "symbolic mod: division by zero");
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/// a ** e for e >= 0 by squaring.
inline int64_t int_pow(int64_t a, int64_t e) {
  CT_CHECK(e >= 0, CT_ERROR_INVALID_ARGUMENT, "symbolic pow: the int exponent ", e,
           " is negative, which gives a float. Convert with sym_float first");
  int64_t r = 1;
  while (e > 0) {
    if (e & 1) r = checked_mul(r, a);
    e >>= 1;
    if (e > 0) a = checked_mul(a, a);
  }
  return r;
}

/// The greatest common divisor of |a| and |b|, which is positive unless both are 0; 1 when it would
/// be 2^63 (a and b each INT64_MIN or 0), which int64 cannot hold: dividing by 1 is always exact.
inline int64_t gcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  uint64_t y = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  while (y) {
    const uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x > static_cast<uint64_t>(INT64_MAX) ? 1 : static_cast<int64_t>(x);
}

}  // namespace ct::sym
