// complex_math.h - complex arithmetic as torch's kernels do it, where that differs from
// std::complex's.
#pragma once

namespace ct::cpu {

/// a * b as torch multiplies complex numbers, the textbook product. std::complex's operator* also
/// repairs infinite parts that came out NaN (C99 Annex G), with a library call per element that
/// kept the loop scalar, and its answers at infinities are not torch's.
template <typename C>
[[gnu::always_inline]] inline C textbook_product(C a, C b) {
  return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}

}  // namespace ct::cpu
