// transforms.h - what every device's kernels of the three transforms (_fft_c2c, _fft_r2c, _fft_c2r;
// transforms.cpp) read from a call the same way: its dims and its scale.
#pragma once

#include <cstdint>

#include "core/tensor_impl.h"
#include "dispatch/value.h"

namespace ct::ops::fft {

/// The dims of a transform, wrapped and checked: distinct, and at least one unless may_be_empty.
DimVector transform_dims(const char* op, const TensorImpl& a, IntArrayRef dims, bool may_be_empty);
/// The normalization argument, checked: 0 (none), 1 (by 1/sqrt(n)) or 2 (by 1/n).
int64_t normalization_of(const char* op, const Value& v);
/// The scale a normalization applies for n points in all.
double scale_of(int64_t normalization, double n);

}  // namespace ct::ops::fft
