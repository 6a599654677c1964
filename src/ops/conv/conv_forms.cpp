// conv_forms.cpp - the convolutions torch has beside conv.cpp's 2-D kernels, composed from them:
// conv1d and conv_transpose1d (a height of 1), conv3d and conv_transpose3d (the depth folded into
// the 2-D operators' batch and channels), padding='same'|'valid' for every rank, torch.convolution
// (chosen by the weight's rank) and conv_tbc (time, batch, channels).
//
// Composites, so derivatives (second ones too), dtypes, autocast and the meta device come from
// conv2d and conv_transpose2d. The 3-D forms check their arguments first, so errors name them.
#include <vector>

#include "dispatch/dispatcher.h"
#include "ops/conv/conv_common.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// Dim d's size, specialized where it is symbolic (the 3-D forms slice and fold by concrete sizes).
int64_t size_at(const Tensor& t, int64_t d) { return t->sym_size(d).guard_int(); }

// ---- 1-D: the 2-D operators over a height of 1

// conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0,
//        int[1] dilation=1, int groups=1) -> Tensor
void conv1d_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0)), w = Tensor::borrow(&f.tensor(1));
  CT_CHECK(x->dim() == 2 || x->dim() == 3, CT_ERROR_SHAPE,
           "conv1d: expected a 2-D (unbatched) or 3-D input, got sizes ", x->sym_sizes(), ". Pass (N, C, L) or (C, L)");
  CT_CHECK(w->dim() == 3, CT_ERROR_SHAPE, "conv1d: expected a 3-D weight (out, in/groups, k), got sizes ", w->sym_sizes());
  const int64_t s = conv::single("conv1d", "stride", f.arg(3).int_list()),
                p = conv::single("conv1d", "padding", f.arg(4).int_list()),
                d = conv::single("conv1d", "dilation", f.arg(5).int_list());
  const Tensor y = conv2d(unsqueeze(x, -2), unsqueeze(w, -2), optional_tensor(f, 2), {1, s}, {0, p}, {1, d},
                          f.arg(6).to_int());
  f.outs[0] = squeeze(y, -2);
}

// conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0,
//                  int[1] output_padding=0, int groups=1, int[1] dilation=1) -> Tensor
void conv_transpose1d_kernel(void*, Frame& f) {
  const char* op = "conv_transpose1d";
  const Tensor x = Tensor::borrow(&f.tensor(0)), w = Tensor::borrow(&f.tensor(1));
  CT_CHECK(x->dim() == 2 || x->dim() == 3, CT_ERROR_SHAPE, op, ": expected a 2-D (unbatched) or 3-D input, got sizes ",
           x->sym_sizes(), ". Pass (N, C, L) or (C, L)");
  CT_CHECK(w->dim() == 3, CT_ERROR_SHAPE, op, ": expected a 3-D weight (in, out/groups, k), got sizes ", w->sym_sizes());
  const int64_t s = conv::single(op, "stride", f.arg(3).int_list()), p = conv::single(op, "padding", f.arg(4).int_list()),
                o = conv::single(op, "output_padding", f.arg(5).int_list()),
                d = conv::single(op, "dilation", f.arg(7).int_list());
  const Tensor y = conv_transpose2d(unsqueeze(x, -2), unsqueeze(w, -2), optional_tensor(f, 2), {1, s}, {0, p}, {0, o},
                                    f.arg(6).to_int(), {1, d});
  f.outs[0] = squeeze(y, -2);
}

// ---- 3-D

struct Volume {
  DimVector stride, padding, dilation, output_padding;
  int64_t groups = 1;
  bool unbatched = false;
  Tensor x;  // [N, C, D, H, W]
  int64_t depth = 0, out_depth = 0;
};

// The checks conv2d and conv_transpose2d make, over three spatial dims and in the 3-D operator's
// name: the 2-D operators below then see only arguments they accept.
Volume volume_args(const char* op, const Frame& f, bool transposed) {
  const Tensor x = Tensor::borrow(&f.tensor(0)), w = Tensor::borrow(&f.tensor(1));
  CT_CHECK(x->dim() == 4 || x->dim() == 5, CT_ERROR_SHAPE, op, ": expected a 4-D (unbatched) or 5-D input, got sizes ",
           x->sym_sizes(), ". Pass (N, C, D, H, W) or (C, D, H, W)");
  CT_CHECK(w->dim() == 5, CT_ERROR_SHAPE, op, ": expected a 5-D weight, got sizes ", w->sym_sizes());
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, op, ": input must be floating, got ", x->dtype(),
           ". Convert it with to(float32)");
  CT_CHECK(x->dtype() == w->dtype(), CT_ERROR_DTYPE, op, ": input (", x->dtype(), ") and weight (", w->dtype(),
           ") must have the same dtype");
  Volume v;
  v.unbatched = x->dim() == 4;
  v.x = v.unbatched ? unsqueeze(x, 0) : x;
  v.stride = conv::triple_arg(op, "stride", f.arg(3).int_list());
  v.padding = conv::triple_arg(op, "padding", f.arg(4).int_list());
  v.dilation = conv::triple_arg(op, "dilation", f.arg(transposed ? 7 : 5).int_list());
  v.output_padding = transposed ? conv::triple_arg(op, "output_padding", f.arg(5).int_list()) : DimVector{0, 0, 0};
  v.groups = f.arg(6).to_int();
  CT_CHECK(v.groups > 0, CT_ERROR_INVALID_ARGUMENT, op, ": groups must be positive, got ", v.groups);
  const int64_t channels = size_at(v.x, 1), w0 = size_at(w, 0), w1 = size_at(w, 1);
  DimVector kernel;
  for (int i = 0; i < 3; ++i) {
    CT_CHECK(v.stride[i] > 0 && v.dilation[i] > 0 && v.padding[i] >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": stride ",
             v.stride.ref(), " and dilation ", v.dilation.ref(), " must be positive and padding ", v.padding.ref(),
             " not negative");
    kernel.push_back(size_at(w, 2 + i));
    CT_CHECK(kernel[i] > 0, CT_ERROR_SHAPE, op, ": the kernel must be at least 1 x 1 x 1, got weight of sizes ",
             w->sym_sizes());
    conv::check_window_value(op, "the weight's kernel size", kernel[i]);
    CT_SYM_CHECK(v.x->sym_size(2 + i) > 0, CT_ERROR_SHAPE, op, ": input of sizes ", x->sym_sizes(),
                 " has an empty spatial dim; only its batch or its channels may be 0");
  }
  v.depth = size_at(v.x, 2);
  int64_t out_channels = 0;
  if (!transposed) {
    CT_CHECK(channels % v.groups == 0 && w1 * v.groups == channels, CT_ERROR_SHAPE, op, ": groups=", v.groups,
             " and weight of sizes ", w->sym_sizes(), " expect ", w1 * v.groups, " input channels, got input of sizes ",
             x->sym_sizes());
    out_channels = w0;
    CT_CHECK(out_channels % v.groups == 0, CT_ERROR_SHAPE, op, ": weight's ", out_channels,
             " output channels are not divisible by groups=", v.groups);
    for (int i = 0; i < 3; ++i) {
      const int64_t extent = v.dilation[i] * (kernel[i] - 1) + 1;
      CT_SYM_CHECK(v.x->sym_size(2 + i) + 2 * v.padding[i] >= extent, CT_ERROR_SHAPE, op, ": input of sizes ",
                   x->sym_sizes(), " padded by ", v.padding.ref(), " is smaller than the dilated kernel in dim ", 2 + i,
                   " (", extent, "). Pad more or use a smaller kernel");
    }
    v.out_depth = (v.depth + 2 * v.padding[0] - v.dilation[0] * (kernel[0] - 1) - 1) / v.stride[0] + 1;
  } else {
    CT_CHECK(w0 == channels, CT_ERROR_SHAPE, op, ": weight of sizes ", w->sym_sizes(), " expects ", w0,
             " input channels, got input of sizes ", x->sym_sizes());
    CT_CHECK(channels % v.groups == 0, CT_ERROR_SHAPE, op, ": ", channels, " input channels are not divisible by groups=",
             v.groups);
    out_channels = w1 * v.groups;
    for (int i = 0; i < 3; ++i) {
      const int64_t o = v.output_padding[i];
      CT_CHECK(o >= 0 && (o < v.stride[i] || o < v.dilation[i]), CT_ERROR_INVALID_ARGUMENT, op, ": output_padding ",
               v.output_padding.ref(), " must be smaller than either stride ", v.stride.ref(), " or dilation ",
               v.dilation.ref());
      const SymInt out = (v.x->sym_size(2 + i) - 1) * v.stride[i] +
                         (v.dilation[i] * (kernel[i] - 1) + o + 1 - 2 * v.padding[i]);
      CT_SYM_CHECK(out > 0, CT_ERROR_SHAPE, op, ": input of sizes ", x->sym_sizes(), " gives an output of size ", out,
                   " in dim ", 2 + i, "; reduce padding");
    }
    v.out_depth = (v.depth - 1) * v.stride[0] + v.dilation[0] * (kernel[0] - 1) + v.output_padding[0] + 1 -
                  2 * v.padding[0];
  }
  if (!f.arg(2).is_none()) {
    const TensorImpl& b = f.tensor(2);
    CT_CHECK(b.dtype() == x->dtype(), CT_ERROR_DTYPE, op, ": bias (", b.dtype(), ") must have the input's dtype (",
             x->dtype(), ")");
    CT_CHECK(b.dim() == 1 && b.sym_size(0) == out_channels, CT_ERROR_SHAPE, op, ": bias must have sizes (",
             out_channels, "), one per output channel, got ", b.sym_sizes());
  }
  return v;
}

SymDimVector sizes_of(const Tensor& t) { return SymDimVector(t->sym_sizes()); }

// conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0,
//        int[3] dilation=1, int groups=1) -> Tensor
// Output depth position od reads input depths od * sd - pd + kd * dd for the kernel's taps kd: those
// kD slices become channels (g, kd, c) of one image per (n, od), and the weight [O, C/g, kD, kH, kW]
// becomes [O, kD * C/g, kH, kW] in that order, so one conv2d over a batch of N * oD images is the
// 3-D convolution (each group's channels stay together, so groups carry over).
void conv3d_kernel(void*, Frame& f) {
  const Volume v = volume_args("conv3d", f, false);
  const Tensor w = Tensor::borrow(&f.tensor(1));
  const int64_t kd = size_at(w, 2), groups = v.groups, pd = v.padding[0];
  const Tensor padded = pd > 0 ? constant_pad_nd(v.x, {0, 0, 0, 0, pd, pd}) : v.x;
  std::vector<Tensor> taps;
  std::vector<const TensorImpl*> impls;
  for (int64_t k = 0; k < kd; ++k) {
    const int64_t first = k * v.dilation[0];
    taps.push_back(slice(padded, 2, first, first + v.stride[0] * (v.out_depth - 1) + 1, v.stride[0]));
    impls.push_back(taps.back().impl());
  }
  const SymInt n = v.x->sym_size(0);
  const int64_t c = size_at(v.x, 1), h = size_at(v.x, 3), wd = size_at(v.x, 4), cg = c / groups;
  const int64_t folded[] = {c, kd, v.out_depth, h, wd};  // an empty batch leaves these unbounded by memory
  checked_numel(IntArrayRef(folded, 5), "conv3d");
  const Tensor stacked = stack(impls, 2);  // [N, C, kD, oD, H, W]
  const Tensor grouped = view_symint(stacked, {n, groups, cg, kd, v.out_depth, h, wd});
  const Tensor images = reshape_symint(permute(grouped, {0, 4, 1, 3, 2, 5, 6}), {n * v.out_depth, groups * kd * cg, h, wd});
  const Tensor w2 = reshape(permute(w, {0, 2, 1, 3, 4}), {size_at(w, 0), kd * cg, size_at(w, 3), size_at(w, 4)});
  const Tensor y = conv2d(images, w2, optional_tensor(f, 2), {v.stride[1], v.stride[2]}, {v.padding[1], v.padding[2]},
                          {v.dilation[1], v.dilation[2]}, groups);  // [N * oD, O, oH, oW]
  const SymDimVector ys = sizes_of(y);
  const Tensor out = contiguous(permute(view_symint(y, {n, v.out_depth, ys[1], ys[2], ys[3]}), {0, 2, 1, 3, 4}));
  f.outs[0] = v.unbatched ? squeeze(out, 0) : out;
}

// conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1,
//     int[3] padding=0, int[3] output_padding=0, int groups=1, int[3] dilation=1) -> Tensor
// The adjoint of conv3d's folding: one conv_transpose2d over the N * D depth slices, with the
// kernel's depth taps as extra output channels, gives for each input depth id and tap kd the plane
// that lands at output depth id * sd + kd * dd; index_add sums them there (several (id, kd) meet at
// one depth when the stride is smaller than the kernel), then the padding is cut off.
void conv_transpose3d_kernel(void*, Frame& f) {
  const Volume v = volume_args("conv_transpose3d", f, true);
  const Tensor w = Tensor::borrow(&f.tensor(1));
  const int64_t kd = size_at(w, 2), groups = v.groups, og = size_at(w, 1), cin = size_at(v.x, 1);
  const SymInt n = v.x->sym_size(0);
  const int64_t folded[] = {v.depth, kd, groups, og};  // an empty batch leaves these unbounded by memory
  checked_numel(IntArrayRef(folded, 4), "conv_transpose3d");
  const Tensor slices =
      reshape_symint(permute(v.x, {0, 2, 1, 3, 4}), {n * v.depth, cin, size_at(v.x, 3), size_at(v.x, 4)});
  const Tensor w2 = reshape(permute(w, {0, 2, 1, 3, 4}), {cin, kd * og, size_at(w, 3), size_at(w, 4)});
  const Tensor y = conv_transpose2d(slices, w2, Tensor(), {v.stride[1], v.stride[2]}, {v.padding[1], v.padding[2]},
                                    {v.output_padding[1], v.output_padding[2]}, groups,
                                    {v.dilation[1], v.dilation[2]});  // [N * D, g * kD * og, oH, oW]
  const SymDimVector ys = sizes_of(y);
  const Tensor planes = reshape_symint(
      permute(view_symint(y, {n, v.depth, groups, kd, og, ys[2], ys[3]}), {0, 2, 4, 1, 3, 5, 6}),
      {n, groups * og, v.depth * kd, ys[2], ys[3]});
  // Depth id * sd + kd * dd for (id, kd) in planes' order.
  const Tensor starts = mul(arange(Scalar(0), Scalar(v.depth), Scalar(1), DType::Int64, v.x->device()),
                            Scalar(v.stride[0]));
  const Tensor taps = mul(arange(Scalar(0), Scalar(kd), Scalar(1), DType::Int64, v.x->device()), Scalar(v.dilation[0]));
  const Tensor depths = reshape(add(unsqueeze(starts, 1), unsqueeze(taps, 0)), {v.depth * kd});
  const int64_t spanned = (v.depth - 1) * v.stride[0] + v.dilation[0] * (kd - 1) + 1;
  const int64_t room = std::max(spanned, v.padding[0] + v.out_depth);  // output_padding may reach past the taps
  const Tensor zeros = full_symint({n, groups * og, room, ys[2], ys[3]}, Scalar(0), y->dtype(), y->device());
  Tensor out = narrow(index_add(zeros, 2, depths, planes), 2, v.padding[0], v.out_depth);
  if (!f.arg(2).is_none()) out = add(out, reshape(Tensor::borrow(&f.tensor(2)), {-1, 1, 1, 1}));
  f.outs[0] = v.unbatched ? squeeze(out, 0) : out;
}

// ---- padding='same' | 'valid'

// conv{1,2,3}d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[n] stride=1,
//     str padding="valid", int[n] dilation=1, int groups=1) -> Tensor
// 'same' pads each spatial dim by dilation * (kernel - 1) in all, half before; an odd total puts
// the extra zero after the input, as PyTorch does.
template <int kDims>
void conv_padding_kernel(void*, Frame& f) {
  static const char* const names[] = {"", "conv1d", "conv2d", "conv3d"};
  const char* op = names[kDims];
  const Tensor x = Tensor::borrow(&f.tensor(0)), w = Tensor::borrow(&f.tensor(1));
  const std::string mode = f.arg(4).str();
  CT_CHECK(mode == "valid" || mode == "same", CT_ERROR_INVALID_ARGUMENT, op,
           ": padding must be 'valid', 'same' or numbers, got '", mode, "'");
  CT_CHECK(w->dim() == kDims + 2 && (x->dim() == kDims + 1 || x->dim() == kDims + 2), CT_ERROR_SHAPE, op,
           ": expected a ", kDims + 2, "-D weight and a ", kDims + 1, "-D or ", kDims + 2, "-D input, got ",
           x->sym_sizes(), " and ", w->sym_sizes());
  const IntArrayRef stride = f.arg(3).int_list(), dilation = f.arg(5).int_list();
  const auto at = [](IntArrayRef v, int i) { return v.size() == 1 ? v[0] : v[static_cast<size_t>(i)]; };
  CT_CHECK(stride.size() == 1 || stride.size() == kDims, CT_ERROR_INVALID_ARGUMENT, op, ": stride must be one number or ",
           kDims, ", got ", stride);
  CT_CHECK(dilation.size() == 1 || dilation.size() == kDims, CT_ERROR_INVALID_ARGUMENT, op,
           ": dilation must be one number or ", kDims, ", got ", dilation);
  DimVector pad(kDims, 0);
  Tensor in = x;
  if (mode == "same") {
    for (int i = 0; i < kDims; ++i)
      CT_CHECK(at(stride, i) == 1, CT_ERROR_INVALID_ARGUMENT, op,
               ": padding='same' is not supported for strided convolutions (stride ", stride, ")");
    DimVector extra;  // constant_pad_nd's (before, after) pairs from the last dim
    bool odd = false;
    for (int i = kDims - 1; i >= 0; --i) {
      conv::check_window_value(op, "dilation", at(dilation, i));
      const int64_t total = at(dilation, i) * (size_at(w, 2 + i) - 1);
      pad[i] = total / 2;
      extra.push_back(0);
      extra.push_back(total % 2);
      odd = odd || total % 2;
    }
    if (odd) in = constant_pad_nd(in, extra);
  }
  const Tensor b = optional_tensor(f, 2);
  const int64_t groups = f.arg(6).to_int();
  if (kDims == 1) f.outs[0] = conv1d(in, w, b, stride, pad, dilation, groups);
  if (kDims == 2) f.outs[0] = conv2d(in, w, b, stride, pad, dilation, groups);
  if (kDims == 3) f.outs[0] = conv3d(in, w, b, stride, pad, dilation, groups);
}

// ---- torch.convolution and conv_tbc

// convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation,
//             bool transposed, int[] output_padding, int groups) -> Tensor
void convolution_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0)), w = Tensor::borrow(&f.tensor(1)), b = optional_tensor(f, 2);
  const IntArrayRef stride = f.arg(3).int_list(), padding = f.arg(4).int_list(), dilation = f.arg(5).int_list(),
                    output_padding = f.arg(7).int_list();
  const bool transposed = f.arg(6).to_bool();
  const int64_t groups = f.arg(8).to_int();
  const size_t dims = w->dim();
  CT_CHECK(dims >= 3 && dims <= 5, CT_ERROR_SHAPE, "convolution: the weight has sizes ", w->sym_sizes(),
           "; it takes a 3-D, 4-D or 5-D weight (1, 2 or 3 spatial dims)");
  CT_CHECK(x->dim() == dims, CT_ERROR_SHAPE, "convolution: input ", x->sym_sizes(), " and weight ", w->sym_sizes(),
           " differ in rank; torch.convolution takes a batched input [N, C, *spatial] of the weight's rank");
  if (!transposed) {
    for (int64_t o : output_padding)
      CT_CHECK(o == 0, CT_ERROR_INVALID_ARGUMENT, "convolution: output_padding ", output_padding,
               " is for transposed convolutions; pass zeros or transposed=True");
    if (dims == 3) f.outs[0] = conv1d(x, w, b, stride, padding, dilation, groups);
    if (dims == 4) f.outs[0] = conv2d(x, w, b, stride, padding, dilation, groups);
    if (dims == 5) f.outs[0] = conv3d(x, w, b, stride, padding, dilation, groups);
    return;
  }
  if (dims == 3) f.outs[0] = conv_transpose1d(x, w, b, stride, padding, output_padding, groups, dilation);
  if (dims == 4) f.outs[0] = conv_transpose2d(x, w, b, stride, padding, output_padding, groups, dilation);
  if (dims == 5) f.outs[0] = conv_transpose3d(x, w, b, stride, padding, output_padding, groups, dilation);
}

// conv_tbc(Tensor self, Tensor weight, Tensor bias, int pad=0) -> Tensor: a 1-D convolution of
// [time, batch, in] by weight [k, in, out] into [time', batch, out].
void conv_tbc_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0)), w = Tensor::borrow(&f.tensor(1)), b = Tensor::borrow(&f.tensor(2));
  CT_CHECK(x->dim() == 3 && w->dim() == 3 && b->dim() == 1, CT_ERROR_SHAPE, "conv_tbc: input ", x->sym_sizes(),
           ", weight ", w->sym_sizes(), " and bias ", b->sym_sizes(),
           " must be 3-D (time, batch, in), 3-D (kernel, in, out) and 1-D (out)");
  const int64_t pad = f.arg(3).to_int();
  CT_CHECK(pad >= 0, CT_ERROR_INVALID_ARGUMENT, "conv_tbc: pad is ", pad, "; pass pad >= 0");
  const Tensor y = conv1d(permute(x, {1, 2, 0}), permute(w, {2, 1, 0}), b, {1}, {pad}, {1}, 1);
  f.outs[0] = contiguous(permute(y, {2, 0, 1}));
}

}  // namespace

void define_conv_forms(Registry& r) {
  r.def(
       "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, int[1] dilation=1, "
       "int groups=1) -> Tensor")
      .composite(conv1d_kernel);
  r.def(
       "conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, int[3] dilation=1, "
       "int groups=1) -> Tensor")
      .composite(conv3d_kernel);
  r.def(
       "conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, str padding='valid', "
       "int[1] dilation=1, int groups=1) -> Tensor")
      .composite(conv_padding_kernel<1>);
  r.def(
       "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, str padding='valid', "
       "int[2] dilation=1, int groups=1) -> Tensor")
      .composite(conv_padding_kernel<2>);
  r.def(
       "conv3d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, str padding='valid', "
       "int[3] dilation=1, int groups=1) -> Tensor")
      .composite(conv_padding_kernel<3>);
  r.def(
       "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, "
       "int[1] output_padding=0, int groups=1, int[1] dilation=1) -> Tensor")
      .composite(conv_transpose1d_kernel);
  r.def(
       "conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, "
       "int[3] output_padding=0, int groups=1, int[3] dilation=1) -> Tensor")
      .composite(conv_transpose3d_kernel);
  r.def(
       "convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, int[] dilation, "
       "bool transposed, int[] output_padding, int groups) -> Tensor")
      .composite(convolution_kernel);
  r.def("conv_tbc(Tensor self, Tensor weight, Tensor bias, int pad=0) -> Tensor").composite(conv_tbc_kernel);
}

}  // namespace ct::ops
