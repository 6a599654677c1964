// cast.h - converting one element between dtypes, with PyTorch's rules.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"

namespace ct::cpu {

/// The type a loop reads a T as: a bool as the byte it is (0 or 1), because g++ vectorizes no load
/// of a bool (loops over masks ran an element at a time: masked_fill 35x, logical_not 14x, a cast
/// to int64 2.6x slower than over bytes); any other T as itself.
template <typename T>
using loaded_t = std::conditional_t<std::is_same<T, bool>::value, uint8_t, T>;

template <typename T> struct is_complex_t : std::false_type {};
template <typename T> struct is_complex_t<std::complex<T>> : std::true_type {};

/// S to D: to bool tests != 0; 16-bit floats go through float; float to integer truncates
/// (float_to_integer). A real value becomes a complex one with imaginary part 0; a complex value
/// becomes a real one by its real part (torch's cast, which warns that it drops the imaginary
/// part), or a bool by whether either part is nonzero.
template <typename D, typename S>
inline D cast_value(S x) {
  using SM = opmath_t<S>;
  if constexpr (is_complex_t<S>::value) {
    if constexpr (is_complex_t<D>::value) {
      using P = typename D::value_type;
      return D(static_cast<P>(x.real()), static_cast<P>(x.imag()));
    } else if constexpr (std::is_same<D, bool>::value) {
      return x.real() != 0 || x.imag() != 0;
    } else {
      return cast_value<D>(x.real());
    }
  } else if constexpr (is_complex_t<D>::value) {
    return D(cast_value<typename D::value_type>(x), 0);
  } else if constexpr (std::is_same<D, bool>::value) {
    return static_cast<SM>(x) != SM(0);
  } else if constexpr (std::is_same<D, Half>::value || std::is_same<D, BFloat16>::value) {
    return D(static_cast<float>(static_cast<SM>(x)));
  } else if constexpr (std::is_integral<D>::value && std::is_floating_point<SM>::value) {
    return float_to_integer<D>(static_cast<SM>(x));
  } else {
    return static_cast<D>(static_cast<SM>(x));
  }
}

/// Converts n elements of one dtype, read stride bytes apart from src, into n dense elements of
/// another at dst, with cast_value's rules.
using CastLine = void (*)(const char* src, int64_t stride, char* dst, int64_t n);
/// The converter from `from` to `to`; nullptr when they are the same dtype.
CastLine cast_line(DType from, DType to);

}  // namespace ct::cpu
