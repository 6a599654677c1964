// upsample.cpp - resizing the trailing spatial dims (torch.nn.functional.interpolate's modes
// 'nearest', 'nearest-exact', 'linear' and 'bilinear'): upsample_nearest1d/2d,
// _upsample_nearest_exact1d/2d, upsample_linear1d and upsample_bilinear2d, with aten's schemas.
//
// Each dim is resized on its own, the last first: nearest picks one source index per output
// position (index_select), linear blends the two neighbours with weights (index_select, mul, add),
// so the derivatives are implicit and exact (index_add of the gradient). Nearest computes the source
// positions as PyTorch's CPU kernels do (in float below float64), so the same pixels are picked;
// linear computes its weights in double and blends in the input's dtype (float32 for float16 and
// bfloat16, rounded once), grouping two dims as PyTorch does: h0 (w0 x00 + w1 x01) + h1 (...).
#include <algorithm>
#include <cmath>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

enum class Mode { Nearest, NearestExact, Linear };

struct Resize {
  const char* op;
  Mode mode;
  int dims;  // 1 or 2 spatial dims
};

constexpr Resize kResizes[] = {
    {"upsample_nearest1d", Mode::Nearest, 1},         {"upsample_nearest2d", Mode::Nearest, 2},
    {"_upsample_nearest_exact1d", Mode::NearestExact, 1}, {"_upsample_nearest_exact2d", Mode::NearestExact, 2},
    {"upsample_linear1d", Mode::Linear, 1},           {"upsample_bilinear2d", Mode::Linear, 2},
};

// PyTorch's compute_scales_value: 1 / scale when one is given and positive (0 stands for None),
// else in / out.
template <typename A> A source_scale(double scale, int64_t in, int64_t out) {
  return scale > 0 ? static_cast<A>(1.0 / scale) : static_cast<A>(in) / static_cast<A>(out);
}

// One spatial dim: the source index of every output position (nearest), or the two neighbours and
// their weights (linear). Host tensors, not std::vector: a plan too large for memory then raises
// CT_ERROR_OUT_OF_MEMORY from the allocator, even where the batch is empty and the result holds
// no elements.
struct Plan1d {
  Tensor i0, i1;  // int64 [out]
  Tensor w0, w1;  // float64 [out]
};

// A source position as an index in [0, in - 1], as PyTorch guards it: a given scale may place a
// position past the input, or at infinity (a scale near 0), which int64 cannot hold. v >= 0.
template <typename A>
int64_t clamped_index(A v, int64_t in) {
  return v < static_cast<A>(in - 1) ? static_cast<int64_t>(v) : in - 1;  // NaN: the last index too
}

template <typename A>
Plan1d plan_dim(Mode mode, int64_t in, int64_t out, bool align_corners, double scale) {
  Plan1d p;
  p.i0 = empty({out}, DType::Int64, kCPU);
  int64_t* i0s = p.i0->data_as<int64_t>();
  if (mode != Mode::Linear) {
    const A s = source_scale<A>(scale, in, out);
    for (int64_t o = 0; o < out; ++o) {
      int64_t src;
      if (mode == Mode::Nearest && out == in) src = o;  // PyTorch's shortcuts, same result
      else if (mode == Mode::Nearest && out == 2 * in) src = o >> 1;
      else if (mode == Mode::Nearest) src = clamped_index(std::floor(static_cast<A>(o) * s), in);
      else src = clamped_index(std::floor((static_cast<A>(o) + static_cast<A>(0.5)) * s), in);
      i0s[o] = std::min(src, in - 1);
    }
    return p;
  }
  A s;
  if (align_corners) s = out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
  else s = source_scale<A>(scale, in, out);
  p.i1 = empty({out}, DType::Int64, kCPU);
  p.w0 = empty({out}, DType::Float64, kCPU);
  p.w1 = empty({out}, DType::Float64, kCPU);
  int64_t* i1s = p.i1->data_as<int64_t>();
  double* w0s = p.w0->data_as<double>();
  double* w1s = p.w1->data_as<double>();
  for (int64_t o = 0; o < out; ++o) {
    A src = align_corners ? s * static_cast<A>(o) : s * (static_cast<A>(o) + static_cast<A>(0.5)) - static_cast<A>(0.5);
    if (!align_corners && src < 0) src = 0;
    const int64_t i0 = clamped_index(src, in);
    const A lambda1 = std::min(std::max(src - static_cast<A>(i0), A(0)), A(1));
    i0s[o] = i0;
    i1s[o] = i0 + (i0 < in - 1 ? 1 : 0);
    w0s[o] = static_cast<double>(static_cast<A>(1) - lambda1);
    w1s[o] = static_cast<double>(lambda1);
  }
  return p;
}

Tensor on_device(const Tensor& host, Device device) { return device == kCPU ? host : to(host, device, host->dtype()); }

// The weights along dim d of an ndim tensor: [n, 1, ...] so they broadcast over the later dims.
Tensor weight_column(const Tensor& w, DType dtype, Device device, int64_t d, int64_t ndim) {
  DimVector shape(static_cast<size_t>(ndim - d), 1);
  shape[0] = w->size(0);
  return reshape(to(w, device, dtype), shape);
}

// upsample_*(Tensor self, int[k] output_size, [bool align_corners,] float? scales...) -> Tensor
template <int Which>
void resize_kernel(void*, Frame& f) {
  const Resize& r = kResizes[Which];
  const Tensor x = Tensor::borrow(&f.tensor(0));
  const IntArrayRef out_size = f.arg(1).int_list();
  const bool linear = r.mode == Mode::Linear;
  const bool align_corners = linear && f.arg(2).to_bool();
  const size_t first_scale = linear ? 3 : 2;
  const int64_t nd = static_cast<int64_t>(x->dim());
  CT_CHECK(nd == r.dims + 2 || (r.dims == 1 && nd == 2) || (r.dims == 2 && nd == 3), CT_ERROR_SHAPE, r.op,
           ": self ", x->sym_sizes(), " has ", nd, " dims; it takes ", r.dims + 2, " (batch, channels, ",
           r.dims == 1 ? "width)" : "height, width)", " or ", r.dims + 1, " without the batch");
  CT_CHECK(out_size.size() == static_cast<size_t>(r.dims), CT_ERROR_INVALID_ARGUMENT, r.op, ": output_size ",
           out_size, " must have ", r.dims, " entries, one per spatial dim");
  const DType dt = x->dtype();
  if (linear) {
    CT_CHECK(is_floating(dt), CT_ERROR_DTYPE, r.op, ": self is ", dt, " ", x->sym_sizes(),
             "; linear interpolation needs a floating dtype. Convert it with to(float32)");
  } else {
    CT_CHECK(is_floating(dt) || dt == DType::UInt8, CT_ERROR_DTYPE, r.op, ": self is ", dt, " ", x->sym_sizes(),
             "; nearest interpolation takes floating or uint8 tensors. Convert it with to()");
  }
  for (int k = 0; k < r.dims; ++k) {
    const int64_t in = x->size(static_cast<size_t>(nd - r.dims + k)), out = out_size[static_cast<size_t>(k)];
    CT_CHECK(in > 0 && out > 0, CT_ERROR_SHAPE, r.op, ": input ", x->sym_sizes(), " and output_size ", out_size,
             " must have spatial sizes > 0");
  }
  const bool half = dt == DType::Float16 || dt == DType::BFloat16;
  Tensor y = half && linear ? to(x, DType::Float32) : x;
  const DType blend = y->dtype();
  for (int k = r.dims - 1; k >= 0; --k) {  // the last dim first: PyTorch's grouping of the blend
    const int64_t d = nd - r.dims + k;
    const int64_t in = x->size(static_cast<size_t>(d)), out = out_size[static_cast<size_t>(k)];
    const Value& sv = f.arg(first_scale + static_cast<size_t>(k));
    const double scale = sv.is_none() ? 0.0 : sv.to_double();
    // Nearest picks PyTorch's source pixels, found in float below float64 as its kernels find them;
    // linear weights are computed in double: the blend is then within rounding of the exact one
    // (PyTorch's float32 kernel lands a few ulps from it).
    const Plan1d p = dt == DType::Float64 || linear ? plan_dim<double>(r.mode, in, out, align_corners, scale)
                                                    : plan_dim<float>(r.mode, in, out, align_corners, scale);
    const Tensor a = index_select(y, d, on_device(p.i0, x->device()));
    if (!linear) {
      y = a;
      continue;
    }
    const Tensor b = index_select(y, d, on_device(p.i1, x->device()));
    y = add(mul(weight_column(p.w0, blend, x->device(), d, nd), a), mul(weight_column(p.w1, blend, x->device(), d, nd), b));
  }
  f.outs[0] = y->dtype() == dt ? contiguous(y) : to(y, dt);
}

}  // namespace

void define_upsample(Registry& r) {
  r.def("upsample_nearest1d(Tensor self, int[1] output_size, float? scales=None) -> Tensor")
      .composite(resize_kernel<0>);
  r.def("upsample_nearest2d(Tensor self, int[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor")
      .composite(resize_kernel<1>);
  r.def("_upsample_nearest_exact1d(Tensor self, int[1] output_size, float? scales=None) -> Tensor")
      .composite(resize_kernel<2>);
  r.def("_upsample_nearest_exact2d(Tensor self, int[2] output_size, float? scales_h=None, float? scales_w=None) "
        "-> Tensor")
      .composite(resize_kernel<3>);
  r.def("upsample_linear1d(Tensor self, int[1] output_size, bool align_corners, float? scales=None) -> Tensor")
      .composite(resize_kernel<4>);
  r.def("upsample_bilinear2d(Tensor self, int[2] output_size, bool align_corners, float? scales_h=None, "
        "float? scales_w=None) -> Tensor")
      .composite(resize_kernel<5>);
}

}  // namespace ct::ops
