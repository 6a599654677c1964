// conv_common.h - what convolution and pooling share: the 2-D sliding-window geometry, argument
// checks with PyTorch's rules.
#pragma once

#include "core/tensor.h"
#include "dispatch/operator.h"

namespace ct {
class Registry;
}

namespace ct::ops {

namespace conv {

/// One sliding window over an h x w plane giving an oh x ow plane.
struct Geometry {
  int64_t h = 0, w = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

/// A 2-element list from an int[2] argument given as one or two numbers.
DimVector pair(IntArrayRef v);
/// The one number of an int[1] argument, at most kMaxWindowValue; CT_ERROR_INVALID_ARGUMENT names
/// op and what otherwise.
int64_t single(const char* op, const char* what, IntArrayRef v);
/// The largest kernel size, stride, padding or dilation: see Note [Window geometry stays in range].
constexpr int64_t kMaxWindowValue = (int64_t{1} << 31) - 1;
/// CT_ERROR_INVALID_ARGUMENT naming op and what when v is above kMaxWindowValue.
void check_window_value(const char* op, const char* what, int64_t v);
/// pair() with the length checked against 1 or 2 and each value against kMaxWindowValue
/// (CT_ERROR_INVALID_ARGUMENT naming op and what).
DimVector pair_arg(const char* op, const char* what, IntArrayRef v);
/// pair_arg for the 3-D operators: one number or three (depth, height, width).
DimVector triple_arg(const char* op, const char* what, IntArrayRef v);

/// A checked convolution call (conv2d, or conv_transpose2d when transposed).
struct Args {
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  bool has_bias = false, unbatched = false;
  // transposed: h, w are the output's and oh, ow the input's (the GEMM's view). With a symbolic
  // batch, height or width (a meta input) batch and geo's planes are 0: only out_sizes is read.
  Geometry geo;
  SymDimVector out_sizes;
  DType dtype = DType::Float32;
};
Args parse(const char* op, const Frame& f, bool transposed);

}  // namespace conv
}  // namespace ct::ops
