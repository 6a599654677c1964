#include "ops/conv/conv_common.h"

#include "ops/op_common.h"

namespace ct::ops::conv {

DimVector pair(IntArrayRef v) {
  if (v.size() == 1) return DimVector{v[0], v[0]};
  return DimVector(v);
}

// Note [Window geometry stays in range]
// Output sizes, dilated extents (d * (k - 1) + 1), padded sizes and window areas multiply these
// numbers in int64. Each is bounded by 2^31 - 1 (kernel sizes from a weight too), so no product
// of two and no sum of a few can overflow: a huge dilation wrapped into a plausible output size,
// and a window area of 2^64 into an avg_pool2d divisor of 0 (SIGFPE). Real windows are far smaller.
void check_window_value(const char* op, const char* what, int64_t v) {
  CT_CHECK(v <= kMaxWindowValue, CT_ERROR_INVALID_ARGUMENT, op, ": ", what, " ", v, " is larger than ",
           kMaxWindowValue, ", the most a kernel, stride, padding or dilation may be");
}

DimVector pair_arg(const char* op, const char* what, IntArrayRef v) {
  CT_CHECK(v.size() == 1 || v.size() == 2, CT_ERROR_INVALID_ARGUMENT, op, ": ", what,
           " must be one number or two (height, width), got ", v);
  for (int64_t x : v) check_window_value(op, what, x);
  return pair(v);
}

DimVector triple_arg(const char* op, const char* what, IntArrayRef v) {
  CT_CHECK(v.size() == 1 || v.size() == 3, CT_ERROR_INVALID_ARGUMENT, op, ": ", what,
           " must be one number or three (depth, height, width), got ", v);
  for (int64_t x : v) check_window_value(op, what, x);
  return v.size() == 1 ? DimVector{v[0], v[0], v[0]} : DimVector(v);
}

int64_t single(const char* op, const char* what, IntArrayRef v) {
  CT_CHECK(v.size() == 1, CT_ERROR_INVALID_ARGUMENT, op, ": ", what, " must be one number, got ", v);
  check_window_value(op, what, v[0]);
  return v[0];
}

Args parse(const char* op, const Frame& f, bool transposed) {
  const TensorImpl& x = f.tensor(0);
  const TensorImpl& w = f.tensor(1);
  Args a;
  a.has_bias = !f.arg(2).is_none();
  CT_CHECK(x.dim() == 3 || x.dim() == 4, CT_ERROR_SHAPE, op,
           ": expected a 3-D (unbatched) or 4-D (batched) input, got ", "sizes ", x.sym_sizes(),
           ". Pass (N, C, H, W) or (C, H, W)");
  CT_CHECK(w.dim() == 4, CT_ERROR_SHAPE, op, ": expected a 4-D weight, got sizes ", w.sym_sizes());
  CT_CHECK(is_floating(x.dtype()), CT_ERROR_DTYPE, op, ": input must be floating, got ", x.dtype(),
           ". Convert it with to(float32)");
  CT_CHECK(x.dtype() == w.dtype(), CT_ERROR_DTYPE, op, ": input (", x.dtype(), ") and weight (", w.dtype(),
           ") must have the same dtype");
  if (a.has_bias) {
    const TensorImpl& b = f.tensor(2);
    CT_CHECK(b.dtype() == x.dtype(), CT_ERROR_DTYPE, op, ": bias (", b.dtype(), ") must have the input's dtype (",
             x.dtype(), ")");
  }
  a.dtype = x.dtype();
  a.unbatched = x.dim() == 3;
  const size_t o = a.unbatched ? 0 : 1;
  // Channels and the kernel decide which weights fit, so symbolic ones are specialized (a guard);
  // batch, height and width may stay symbolic.
  const SymInt batch = a.unbatched ? SymInt(1) : x.sym_size(0);
  a.batch = batch.maybe_int().value_or(0);
  a.in_channels = x.sym_size(o).guard_int();
  const DimVector stride = pair_arg(op, "stride", f.arg(3).int_list());
  const DimVector padding = pair_arg(op, "padding", f.arg(4).int_list());
  const DimVector dilation = pair_arg(op, "dilation", f.arg(transposed ? 7 : 5).int_list());
  a.groups = f.arg(6).to_int();
  CT_CHECK(a.groups > 0, CT_ERROR_INVALID_ARGUMENT, op, ": groups must be positive, got ", a.groups);
  for (int i = 0; i < 2; ++i) {
    CT_CHECK(stride[i] > 0, CT_ERROR_INVALID_ARGUMENT, op, ": stride must be positive, got ", stride.ref());
    CT_CHECK(dilation[i] > 0, CT_ERROR_INVALID_ARGUMENT, op, ": dilation must be positive, got ", dilation.ref());
    CT_CHECK(padding[i] >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": padding must not be negative, got ", padding.ref());
  }
  Geometry& g = a.geo;
  g.kh = w.sym_size(2).guard_int(), g.kw = w.sym_size(3).guard_int();
  g.sh = stride[0], g.sw = stride[1], g.ph = padding[0], g.pw = padding[1], g.dh = dilation[0], g.dw = dilation[1];
  const SymInt ih = x.sym_size(o + 1), iw = x.sym_size(o + 2);
  // As in PyTorch: a 0 x k kernel has no output to define, and only the batch or the channels of
  // the input may be empty (an input without height would still have a full output).
  CT_CHECK(g.kh > 0 && g.kw > 0, CT_ERROR_SHAPE, op, ": the kernel must be at least 1 x 1, got weight of sizes ",
           w.sym_sizes());
  check_window_value(op, "the weight's kernel height", g.kh);
  check_window_value(op, "the weight's kernel width", g.kw);
  CT_SYM_CHECK(sym_all({ih > 0, iw > 0}), CT_ERROR_SHAPE, op, ": input of sizes ", x.sym_sizes(),
               " has no height or no width; only its batch or its channels may be 0");
  const int64_t w0 = w.sym_size(0).guard_int(), w1 = w.sym_size(1).guard_int();
  SymInt out_h, out_w;
  if (!transposed) {
    CT_CHECK(a.in_channels % a.groups == 0 && w1 * a.groups == a.in_channels, CT_ERROR_SHAPE, op,
             ": groups=", a.groups, " and weight of sizes ", w.sym_sizes(), " expect ", w1 * a.groups,
             " input channels, got input of sizes ", x.sym_sizes());
    a.out_channels = w0;
    CT_CHECK(a.out_channels % a.groups == 0, CT_ERROR_SHAPE, op, ": weight's ", a.out_channels,
             " output channels are not divisible by groups=", a.groups);
    const int64_t eh = g.dh * (g.kh - 1) + 1, ew = g.dw * (g.kw - 1) + 1;
    CT_SYM_CHECK(sym_all({ih + 2 * g.ph >= eh, iw + 2 * g.pw >= ew}), CT_ERROR_SHAPE, op, ": the padded input (",
                 ih + 2 * g.ph, ", ", iw + 2 * g.pw, ") is smaller than the dilated kernel (", eh, ", ", ew,
                 "). Pad more or use a smaller kernel");
    out_h = (ih + (2 * g.ph - eh)) / g.sh + 1;
    out_w = (iw + (2 * g.pw - ew)) / g.sw + 1;
    g.h = ih.maybe_int().value_or(0), g.w = iw.maybe_int().value_or(0);
    g.oh = out_h.maybe_int().value_or(0), g.ow = out_w.maybe_int().value_or(0);
  } else {
    CT_CHECK(w0 == a.in_channels, CT_ERROR_SHAPE, op, ": weight of sizes ", w.sym_sizes(), " expects ", w0,
             " input channels, got input of sizes ", x.sym_sizes());
    CT_CHECK(a.in_channels % a.groups == 0, CT_ERROR_SHAPE, op, ": ", a.in_channels,
             " input channels are not divisible by groups=", a.groups);
    a.out_channels = w1 * a.groups;
    const DimVector op_pad = pair_arg(op, "output_padding", f.arg(5).int_list());
    for (int i = 0; i < 2; ++i)
      CT_CHECK(op_pad[i] >= 0 && (op_pad[i] < stride[i] || op_pad[i] < dilation[i]), CT_ERROR_INVALID_ARGUMENT, op,
               ": output_padding ", op_pad.ref(), " must be smaller than either stride ", stride.ref(), " or dilation ",
               dilation.ref());
    out_h = (ih - 1) * g.sh + (g.dh * (g.kh - 1) + op_pad[0] + 1 - 2 * g.ph);
    out_w = (iw - 1) * g.sw + (g.dw * (g.kw - 1) + op_pad[1] + 1 - 2 * g.pw);
    CT_SYM_CHECK(sym_all({out_h > 0, out_w > 0}), CT_ERROR_SHAPE, op, ": the output would have sizes (", out_h, ", ", out_w,
                 "); reduce padding");
    g.oh = ih.maybe_int().value_or(0), g.ow = iw.maybe_int().value_or(0);
    g.h = out_h.maybe_int().value_or(0), g.w = out_w.maybe_int().value_or(0);
  }
  if (a.has_bias) {
    const TensorImpl& b = f.tensor(2);
    CT_CHECK(b.dim() == 1 && b.sym_size(0) == a.out_channels, CT_ERROR_SHAPE, op, ": bias must have sizes (",
             a.out_channels, "), one per output channel, got ", b.sym_sizes());
  }
  if (!a.unbatched) a.out_sizes.push_back(batch);
  a.out_sizes.push_back(a.out_channels);
  a.out_sizes.push_back(out_h);
  a.out_sizes.push_back(out_w);
  return a;
}

}  // namespace ct::ops::conv
