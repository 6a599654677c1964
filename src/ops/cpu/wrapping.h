// wrapping.h - the type integer arithmetic wraps around in.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/dtype.h"

namespace ct::cpu {

/// The type +, - and * on T compute in so that integers wrap around on overflow, as in PyTorch:
/// unsigned, where C++ defines wrapping (a signed overflow is undefined behaviour), and at least 32
/// bits wide, since narrower ones are promoted to int. opmath_t<T> for floats and bool.
template <typename T>
using wrapping_t = std::conditional_t<std::is_integral<opmath_t<T>>::value && !std::is_same<T, bool>::value,
                                      std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>, opmath_t<T>>;

}  // namespace ct::cpu
