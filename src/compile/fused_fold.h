// fused_fold.h - the folds of the fused reductions (sum and mean, amax, amin over the last dim), as
// reduce.cpp's eager SumOp and ExtremumOp fold: a NaN wins an extremum. Self-contained: both the
// fused executor (fuse.cpp) and the C++ kernels it generates (fuse_cpp.cpp) fold with these.
#pragma once

#include <cmath>
#include <cstdint>

namespace ct::compile {

template <typename T>
struct SumFold {
  using acc_t = T;
  static T identity() { return T(0); }
  static T merge(T a, T b) { return a + b; }
  static T step(T a, T x, int64_t) { return a + x; }
};

template <typename T, bool Max>
struct ExtremumFold {
  using acc_t = T;
  static T identity() { return Max ? -HUGE_VAL : HUGE_VAL; }
  static T merge(T a, T b) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    return (Max ? b > a : b < a) ? b : a;
  }
  static T step(T a, T x, int64_t) { return merge(a, x); }
};

}  // namespace ct::compile
