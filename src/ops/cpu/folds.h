// folds.h - the sum fold and the extremum folds (amax, amin: a NaN wins, as in PyTorch) over an
// accumulator type A. The eager reductions fold with them (reduce.cpp's SumOp and ExtremumOp add
// only the conversion of an element to A), and so do the fused ones: the compiler's tile loops
// (compile/fuse.cpp) and the C++ kernels it generates, which receive this file's text. One
// definition, so that a fused sum or extremum has the eager one's bits. Self-contained (standard
// headers only), as row_fold.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace ct::cpu {

template <typename A>
struct SumFold {
  using acc_t = A;
  static A identity() { return A(0); }
  static A merge(A a, A b) { return a + b; }
  static A step(A a, A x, int64_t) { return a + x; }
};

template <typename A, bool Max>
struct ExtremumFold {
  using acc_t = A;
  static A identity() {
    if constexpr (std::numeric_limits<A>::has_infinity)
      return Max ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else return Max ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
  }
  static A merge(A a, A b) {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return (Max ? b > a : b < a) ? b : a;
  }
  static A step(A a, A x, int64_t) { return merge(a, x); }

 private:
  static bool is_nan(A x) {
    if constexpr (std::is_floating_point<A>::value) return std::isnan(x);
    else return false;
  }
};

}  // namespace ct::cpu
