// int_div.h - integer division and remainder that never trap.
//
// Note [Integer division never traps]
// x86 raises SIGFPE for an integer division by zero and for MIN / -1 (and MIN % -1), whose
// quotient does not fit: either kills the host. Operators refuse a zero divisor before dividing
// (floor_divide, remainder and fmod raise ZeroDivisionError, as PyTorch; avg_pool2d refuses
// divisor_override=0 and its window areas are at least 1). For -1 these give what two's
// complement arithmetic gives: MIN / -1 wraps to MIN, as PyTorch's int8 // -1 wraps, and the
// remainder is 0. Every kernel that divides integers it does not control divides through here.
#pragma once

#include <type_traits>

namespace ct::cpu {

/// a / b rounded toward zero; MIN / -1 is MIN. b must not be 0. Floating types divide plainly.
template <typename T>
T div_toward_zero(T a, T b) {
  if constexpr (std::is_integral<T>::value && std::is_signed<T>::value) {
    if (b == T(-1)) return T(static_cast<std::make_unsigned_t<T>>(0) - static_cast<std::make_unsigned_t<T>>(a));
  }
  return a / b;
}

/// a % b with the sign of a (C++'s and fmod's); anything % -1 is 0. b must not be 0.
template <typename T>
T rem_toward_zero(T a, T b) {
  static_assert(std::is_integral<T>::value, "floating remainders use std::fmod");
  if constexpr (std::is_signed<T>::value) {
    if (b == T(-1)) return T(0);
  }
  return T(a % b);
}

}  // namespace ct::cpu
