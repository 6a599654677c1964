// pool_forms.cpp - the pools torch has beside the 2-D kernels of pool.cpp: max_pool1d, avg_pool1d
// and adaptive_avg_pool1d (the 2-D operators over a height of 1, as torch computes them on the
// CPU), adaptive max pooling in 1-D and 2-D, the 3-D pools and max_unpool2d/3d.
//
// A 3-D pool is a 2-D pool of each depth slice, then a pool along the depth of what it gave: a box
// window is the product of its ranges, so its maximum, its sum and (count_include_pad or not, with
// ceil_mode's clipped windows) its element count are taken one range at a time. A 3-D maximum's
// index is the depth the second pass chose times H * W plus the plane index the first pass found
// at that depth; both passes scan in order and keep the first NaN, so the winner is the one a
// depth-major scan finds, as torch's 3-D kernels.
//
// Composites, so derivatives, devices and the meta device come from the operators they call.
// Adaptive max pooling takes, for output cell (i, j), the maximum over rows
// [floor(i H / oh), ceil((i + 1) H / oh)) and the columns likewise (torch's windows), with the index
// of the first maximum (NaN counts as the maximum) in the flattened H x W plane.
#include "dispatch/dispatcher.h"
#include "ops/conv/conv_common.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// A pool's batch, channel and length dims: [C, L] or [N, C, L].
void check_1d(const char* op, const TensorImpl& x) {
  CT_CHECK(x.dim() == 2 || x.dim() == 3, CT_ERROR_SHAPE, op, ": input is ", x.sym_sizes(),
           "; it takes [C, L] or [N, C, L]");
}

int64_t one(const char* op, const char* what, IntArrayRef v, int64_t otherwise) {
  CT_CHECK(v.size() <= 1, CT_ERROR_INVALID_ARGUMENT, op, ": ", what, " has ", v.size(),
           " values; a 1-D pool takes one");
  return v.empty() ? otherwise : v[0];
}

// max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0,
//     int[1] dilation=1, bool ceil_mode=False) -> (Tensor values, Tensor indices)
std::array<Tensor, 2> max_pool_1d(const char* op, const Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  check_1d(op, *x);
  const int64_t k = one(op, "kernel_size", f.arg(1).int_list(), 0);
  CT_CHECK(!f.arg(1).int_list().empty(), CT_ERROR_INVALID_ARGUMENT, op, ": kernel_size is empty; pass one size");
  const int64_t kernel[2] = {1, k}, stride[2] = {1, one(op, "stride", f.arg(2).int_list(), k)};
  const int64_t padding[2] = {0, one(op, "padding", f.arg(3).int_list(), 0)};
  const int64_t dilation[2] = {1, one(op, "dilation", f.arg(4).int_list(), 1)};
  const std::array<Tensor, 2> r = max_pool2d_with_indices(unsqueeze(x, -2), IntArrayRef(kernel, 2),
                                                           IntArrayRef(stride, 2), IntArrayRef(padding, 2),
                                                           IntArrayRef(dilation, 2), f.arg(5).to_bool());
  return {squeeze(r[0], -2), squeeze(r[1], -2)};  // a height of 1: the flat index is the position
}

void max_pool1d_with_indices_kernel(void*, Frame& f) {
  const std::array<Tensor, 2> r = max_pool_1d("max_pool1d_with_indices", f);
  f.outs[0] = r[0];
  f.outs[1] = r[1];
}

void max_pool1d_kernel(void*, Frame& f) { f.outs[0] = max_pool_1d("max_pool1d", f)[0]; }

// avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0,
//     bool ceil_mode=False, bool count_include_pad=True) -> Tensor
void avg_pool1d_kernel(void*, Frame& f) {
  const char* op = "avg_pool1d";
  const Tensor x = Tensor::borrow(&f.tensor(0));
  check_1d(op, *x);
  CT_CHECK(!f.arg(1).int_list().empty(), CT_ERROR_INVALID_ARGUMENT, op, ": kernel_size is empty; pass one size");
  const int64_t k = one(op, "kernel_size", f.arg(1).int_list(), 0);
  const int64_t kernel[2] = {1, k}, stride[2] = {1, one(op, "stride", f.arg(2).int_list(), k)};
  const int64_t padding[2] = {0, one(op, "padding", f.arg(3).int_list(), 0)};
  f.outs[0] = squeeze(avg_pool2d(unsqueeze(x, -2), IntArrayRef(kernel, 2), IntArrayRef(stride, 2),
                                 IntArrayRef(padding, 2), f.arg(4).to_bool(), f.arg(5).to_bool()),
                      -2);
}

// adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor
void adaptive_avg_pool1d_kernel(void*, Frame& f) {
  const char* op = "adaptive_avg_pool1d";
  const Tensor x = Tensor::borrow(&f.tensor(0));
  check_1d(op, *x);
  const IntArrayRef size = f.arg(1).int_list();
  CT_CHECK(size.size() == 1, CT_ERROR_INVALID_ARGUMENT, op, ": output_size has ", size.size(),
           " values; a 1-D pool takes one");
  const int64_t out[2] = {1, size[0]};
  f.outs[0] = squeeze(adaptive_avg_pool2d(unsqueeze(x, -2), IntArrayRef(out, 2)), -2);
}

// Adaptive max pooling of the last two dims of x [..., H, W] into [..., oh, ow]: values and the
// indices of the maxima in the H x W plane.
std::array<Tensor, 2> adaptive_max(const char* op, const Tensor& x, int64_t oh, int64_t ow) {
  const size_t nd = x->dim();
  const int64_t H = x->sym_size(nd - 2).guard_int(), W = x->sym_size(nd - 1).guard_int();  // windows need them
  CT_CHECK(oh >= 0 && ow >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": output_size [", oh, ", ", ow,
           "] has a negative size");
  conv::check_window_value(op, "output_size", oh);  // so that oh * ow and the window bounds fit int64
  conv::check_window_value(op, "output_size", ow);
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, op, ": input is ", x->dtype(),
           "; it takes floating values. Convert them with to(float32)");
  for (size_t d = nd == 4 ? 1 : 0; d + 2 < nd; ++d) {  // of [N, C, H, W] the batch may be empty
    CT_CHECK(x->sym_size(d) != 0, CT_ERROR_SHAPE, op, ": input ", x->sym_sizes(), " has an empty dim ", d,
             "; only the batch may be empty");
  }
  CT_CHECK(H > 0 && W > 0, CT_ERROR_SHAPE, op, ": input ", x->sym_sizes(), " has no elements to pool");
  SymDimVector out_sizes(x->sym_sizes());
  out_sizes[nd - 2] = oh;
  out_sizes[nd - 1] = ow;
  // The result first: one window at a time below, so a result too large must fail before the loop
  // (and an empty batch needs no window at all).
  Tensor result = empty_symint(out_sizes, x->dtype(), x->device());
  if (x->sym_numel() == 0 || oh * ow == 0)
    return {result, empty_symint(out_sizes, DType::Int64, x->device())};
  std::vector<Tensor> values, indices;
  for (int64_t i = 0; i < oh; ++i) {
    const int64_t h0 = i * H / oh, h1 = ((i + 1) * H + oh - 1) / oh;
    for (int64_t j = 0; j < ow; ++j) {
      const int64_t w0 = j * W / ow, w1 = ((j + 1) * W + ow - 1) / ow;
      const Tensor window = flatten(narrow(narrow(x, -2, h0, h1 - h0), -1, w0, w1 - w0), -2, -1);
      const std::array<Tensor, 2> m = max(window, -1, false);
      const int64_t wl = w1 - w0;
      // window position p is (h0 + p / wl, w0 + p % wl) in the plane: (h0 + p / wl) * W + w0 + p % wl.
      const Tensor row = add(floor_divide(m[1], Scalar(wl)), Scalar(h0));
      indices.push_back(add(add(mul(row, Scalar(W)), remainder(m[1], Scalar(wl))), Scalar(w0)));
      values.push_back(m[0]);
    }
  }
  std::vector<const TensorImpl*> vp, ip;
  for (const Tensor& t : values) vp.push_back(t.impl());
  for (const Tensor& t : indices) ip.push_back(t.impl());
  return {reshape_symint(stack(vp, -1), out_sizes), reshape_symint(stack(ip, -1), out_sizes)};
}

// adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)
void adaptive_max_pool2d_kernel(void*, Frame& f) {
  const char* op = "adaptive_max_pool2d";
  const Tensor x = Tensor::borrow(&f.tensor(0));
  CT_CHECK(x->dim() == 3 || x->dim() == 4, CT_ERROR_SHAPE, op, ": input is ", x->sym_sizes(),
           "; it takes [C, H, W] or [N, C, H, W]");
  const IntArrayRef size = f.arg(1).int_list();
  CT_CHECK(size.size() == 2, CT_ERROR_INVALID_ARGUMENT, op, ": output_size has ", size.size(),
           " values; it takes [oh, ow]");
  const std::array<Tensor, 2> r = adaptive_max(op, x, size[0], size[1]);
  f.outs[0] = r[0];
  f.outs[1] = r[1];
}

// adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)
void adaptive_max_pool1d_kernel(void*, Frame& f) {
  const char* op = "adaptive_max_pool1d";
  const Tensor x = Tensor::borrow(&f.tensor(0));
  check_1d(op, *x);
  const IntArrayRef size = f.arg(1).int_list();
  CT_CHECK(size.size() == 1, CT_ERROR_INVALID_ARGUMENT, op, ": output_size has ", size.size(),
           " values; a 1-D pool takes one");
  const std::array<Tensor, 2> r = adaptive_max(op, unsqueeze(x, -2), 1, size[0]);
  f.outs[0] = squeeze(r[0], -2);
  f.outs[1] = squeeze(r[1], -2);
}


// ---- 3-D pools over [N, C, D, H, W] or [C, D, H, W]

struct Volume {
  Tensor x;  // [N, C, D, H, W]
  bool unbatched = false;
  int64_t n = 0, c = 0, d = 0, h = 0, w = 0;
};

Volume volume_of(const char* op, const Tensor& x) {
  CT_CHECK(x->dim() == 4 || x->dim() == 5, CT_ERROR_SHAPE, op, ": input is ", x->sym_sizes(),
           "; it takes [C, D, H, W] or [N, C, D, H, W]");
  Volume v;
  v.unbatched = x->dim() == 4;
  v.x = v.unbatched ? unsqueeze(x, 0) : x;
  for (size_t i = 1; i < 5; ++i)
    CT_CHECK(v.x->sym_size(i) != 0, CT_ERROR_SHAPE, op, ": input ", x->sym_sizes(),
             " has an empty channel or spatial dim; only the batch may be empty");
  v.n = v.x->sym_size(0).guard_int(), v.c = v.x->sym_size(1).guard_int(), v.d = v.x->sym_size(2).guard_int();
  v.h = v.x->sym_size(3).guard_int(), v.w = v.x->sym_size(4).guard_int();
  // An empty batch leaves the other sizes unbounded by memory: their products (C * D planes,
  // H * W positions) must still fit int64.
  const int64_t per_sample[] = {v.c, v.d, v.h, v.w};
  checked_numel(IntArrayRef(per_sample, 4), op);
  return v;
}

// The first pass's input: every depth slice a plane, [N, C * D, H, W].
Tensor planes_of(const Volume& v) { return reshape(v.x, {v.n, v.c * v.d, v.h, v.w}); }

// The second pass's input: the planes' pooled positions in one row per depth, [N, C, D, oh * ow].
Tensor depth_rows(const Volume& v, const Tensor& pooled) {
  return reshape(pooled, {v.n, v.c, v.d, pooled->sym_size(2).guard_int() * pooled->sym_size(3).guard_int()});
}

// [N, C, oD, oh * ow] back to [N, C, oD, oh, ow] (without the batch for an unbatched input).
Tensor volume_result(const Volume& v, const Tensor& t, int64_t oh, int64_t ow) {
  const Tensor r = reshape(t, {v.n, v.c, t->sym_size(2).guard_int(), oh, ow});
  return v.unbatched ? squeeze(r, 0) : r;
}

struct Window3 {
  DimVector k, s, p, d;
};

Window3 window3(const char* op, const Frame& f, bool has_dilation) {
  Window3 w;
  CT_CHECK(!f.arg(1).int_list().empty(), CT_ERROR_INVALID_ARGUMENT, op, ": kernel_size is empty; pass one size or three");
  w.k = conv::triple_arg(op, "kernel_size", f.arg(1).int_list());
  w.s = f.arg(2).int_list().empty() ? w.k : conv::triple_arg(op, "stride", f.arg(2).int_list());
  w.p = conv::triple_arg(op, "padding", f.arg(3).int_list());
  w.d = has_dilation ? conv::triple_arg(op, "dilation", f.arg(4).int_list()) : DimVector{1, 1, 1};
  for (int i = 0; i < 3; ++i) {
    CT_CHECK(w.k[i] > 0 && w.s[i] > 0 && w.d[i] > 0, CT_ERROR_INVALID_ARGUMENT, op, ": kernel_size ", w.k.ref(),
             ", stride ", w.s.ref(), " and dilation ", w.d.ref(), " must be positive");
    CT_CHECK(w.p[i] >= 0 && w.p[i] <= w.k[i] / 2, CT_ERROR_INVALID_ARGUMENT, op, ": padding ", w.p.ref(),
             " must be at least 0 and at most half of kernel_size ", w.k.ref());
  }
  return w;
}

// max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
//     int[3] dilation=1, bool ceil_mode=False) -> (Tensor values, Tensor indices)
std::array<Tensor, 2> max_pool_3d(const char* op, const Frame& f) {
  const Tensor input = Tensor::borrow(&f.tensor(0));
  CT_CHECK(is_floating(input->dtype()), CT_ERROR_DTYPE, op, ": input must be floating, got ", input->dtype());
  const Volume v = volume_of(op, input);
  const Window3 w = window3(op, f, true);
  const bool ceil = f.arg(5).to_bool();
  const std::array<Tensor, 2> planes = max_pool2d_with_indices(planes_of(v), {w.k[1], w.k[2]}, {w.s[1], w.s[2]},
                                                               {w.p[1], w.p[2]}, {w.d[1], w.d[2]}, ceil);
  const int64_t oh = planes[0]->sym_size(2).guard_int(), ow = planes[0]->sym_size(3).guard_int();
  const std::array<Tensor, 2> depth = max_pool2d_with_indices(depth_rows(v, planes[0]), {w.k[0], 1}, {w.s[0], 1},
                                                              {w.p[0], 0}, {w.d[0], 1}, ceil);
  const Tensor at = floor_divide(depth[1], Scalar(oh * ow));  // the depth each maximum came from
  const Tensor in_plane = gather(depth_rows(v, planes[1]), 2, at);
  const Tensor index = add(mul(at, Scalar(v.h * v.w)), in_plane);
  return {volume_result(v, depth[0], oh, ow), volume_result(v, index, oh, ow)};
}

void max_pool3d_with_indices_kernel(void*, Frame& f) {
  const std::array<Tensor, 2> r = max_pool_3d("max_pool3d_with_indices", f);
  f.outs[0] = r[0];
  f.outs[1] = r[1];
}

void max_pool3d_kernel(void*, Frame& f) { f.outs[0] = max_pool_3d("max_pool3d", f)[0]; }

// avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
//     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor
// The mean over depth of the plane means; with divisor_override, sums (a divisor of 1) divided once.
void avg_pool3d_kernel(void*, Frame& f) {
  const char* op = "avg_pool3d";
  const Volume v = volume_of(op, Tensor::borrow(&f.tensor(0)));
  const Window3 w = window3(op, f, false);
  const bool ceil = f.arg(4).to_bool(), include_pad = f.arg(5).to_bool();
  std::optional<int64_t> divisor;
  if (!f.arg(6).is_none()) {
    CT_CHECK(f.arg(6).to_int() != 0, CT_ERROR_INVALID_ARGUMENT, op, ": divisor_override must be non-zero");
    divisor = 1;
  }
  const Tensor planes = avg_pool2d(planes_of(v), {w.k[1], w.k[2]}, {w.s[1], w.s[2]}, {w.p[1], w.p[2]}, ceil,
                                   include_pad, divisor);
  const int64_t oh = planes->sym_size(2).guard_int(), ow = planes->sym_size(3).guard_int();
  Tensor pooled = avg_pool2d(depth_rows(v, planes), {w.k[0], 1}, {w.s[0], 1}, {w.p[0], 0}, ceil, include_pad, divisor);
  if (divisor) pooled = div(pooled, Scalar(f.arg(6).to_int()));
  f.outs[0] = volume_result(v, pooled, oh, ow);
}

DimVector output_size3(const char* op, const Frame& f) {
  const IntArrayRef size = f.arg(1).int_list();
  CT_CHECK(size.size() == 3, CT_ERROR_INVALID_ARGUMENT, op, ": output_size has ", size.size(),
           " values; it takes [od, oh, ow]");
  for (int64_t s : size) {
    CT_CHECK(s >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": output_size ", size, " has a negative size");
    conv::check_window_value(op, "output_size", s);  // so that oh * ow and the window bounds fit int64
  }
  return DimVector(size);
}

// adaptive_avg_pool3d(Tensor self, int[3] output_size) -> Tensor
void adaptive_avg_pool3d_kernel(void*, Frame& f) {
  const char* op = "adaptive_avg_pool3d";
  const Volume v = volume_of(op, Tensor::borrow(&f.tensor(0)));
  const DimVector size = output_size3(op, f);
  const Tensor planes = adaptive_avg_pool2d(planes_of(v), {size[1], size[2]});
  const Tensor pooled = adaptive_avg_pool2d(depth_rows(v, planes), {size[0], size[1] * size[2]});
  f.outs[0] = volume_result(v, pooled, size[1], size[2]);
}

// adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor values, Tensor indices)
void adaptive_max_pool3d_kernel(void*, Frame& f) {
  const char* op = "adaptive_max_pool3d";
  const Volume v = volume_of(op, Tensor::borrow(&f.tensor(0)));
  const DimVector size = output_size3(op, f);
  if (v.n == 0 || size[0] == 0) {  // no windows to take: the sizes alone
    f.outs[0] = volume_result(v, empty({v.n, v.c, size[0], size[1] * size[2]}, v.x->dtype(), v.x->device()),
                              size[1], size[2]);
    f.outs[1] = volume_result(v, empty({v.n, v.c, size[0], size[1] * size[2]}, DType::Int64, v.x->device()),
                              size[1], size[2]);
    return;
  }
  const std::array<Tensor, 2> planes = adaptive_max(op, planes_of(v), size[1], size[2]);
  const Tensor values = depth_rows(v, planes[0]), plane_index = depth_rows(v, planes[1]);
  std::vector<Tensor> best, index;
  for (int64_t i = 0; i < size[0]; ++i) {  // torch's windows: [floor(i D / od), ceil((i + 1) D / od))
    const int64_t d0 = i * v.d / size[0], d1 = ((i + 1) * v.d + size[0] - 1) / size[0];
    const std::array<Tensor, 2> m = max(narrow(values, 2, d0, d1 - d0), 2, true);
    const Tensor at = add(m[1], Scalar(d0));
    best.push_back(m[0]);
    index.push_back(add(mul(at, Scalar(v.h * v.w)), gather(plane_index, 2, at)));
  }
  std::vector<const TensorImpl*> bp, ip;
  for (const Tensor& t : best) bp.push_back(t.impl());
  for (const Tensor& t : index) ip.push_back(t.impl());
  f.outs[0] = volume_result(v, cat(bp, 2), size[1], size[2]);
  f.outs[1] = volume_result(v, cat(ip, 2), size[1], size[2]);
}

// ---- max_unpool: the values put back where max pooling's indices say, zeros elsewhere

// max_unpool2d(Tensor self, Tensor indices, int[2] output_size) -> Tensor and
// max_unpool3d(Tensor self, Tensor indices, int[3] output_size, int[3] stride, int[3] padding) -> Tensor
template <int kDims>
void max_unpool_kernel(void*, Frame& f) {
  const char* op = kDims == 2 ? "max_unpool2d" : "max_unpool3d";
  const Tensor x = Tensor::borrow(&f.tensor(0)), indices = Tensor::borrow(&f.tensor(1));
  CT_CHECK(x->dim() == kDims + 1 || x->dim() == kDims + 2, CT_ERROR_SHAPE, op, ": input is ", x->sym_sizes(),
           "; it takes ", kDims + 1, "-D (unbatched) or ", kDims + 2, "-D input");
  CT_CHECK(indices->dtype() == DType::Int64, CT_ERROR_DTYPE, op, ": indices are ", indices->dtype(),
           "; they must be int64, as max pooling returns them");
  CT_CHECK(identical(x->sym_sizes(), indices->sym_sizes()), CT_ERROR_SHAPE, op, ": input ", x->sym_sizes(),
           " and indices ", indices->sym_sizes(), " must have one shape");
  const IntArrayRef size = f.arg(2).int_list();
  CT_CHECK(size.size() == kDims, CT_ERROR_INVALID_ARGUMENT, op, ": output_size has ", size.size(), " values; it takes ",
           kDims);
  if (kDims == 3) {  // torch checks them, though the indices alone place the values
    for (int64_t v : f.arg(3).int_list())
      CT_CHECK(v > 0, CT_ERROR_INVALID_ARGUMENT, op, ": stride ", f.arg(3).int_list(), " must be positive");
    for (int64_t v : f.arg(4).int_list())
      CT_CHECK(v >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": padding ", f.arg(4).int_list(), " must not be negative");
  }
  for (int64_t s : size) {
    CT_CHECK(s > 0, CT_ERROR_INVALID_ARGUMENT, op, ": output_size ", size, " must be positive");
    conv::check_window_value(op, "output_size", s);
  }
  const int64_t plane = checked_numel(size, op);
  const bool unbatched = x->dim() == kDims + 1;
  const Tensor xb = unbatched ? unsqueeze(x, 0) : x, ib = unbatched ? unsqueeze(indices, 0) : indices;
  const int64_t n = xb->sym_size(0).guard_int(), c = xb->sym_size(1).guard_int();
  DimVector plane_sizes;  // of each input plane: -1 cannot be inferred for an empty batch
  for (size_t d = 2; d < ib->dim(); ++d) plane_sizes.push_back(ib->sym_size(d).guard_int());
  const int64_t positions = checked_numel(plane_sizes, op);
  const Tensor flat_index = reshape(ib, {n, c, positions});
  if (flat_index->device().is_cpu()) {  // elsewhere scatter's own check names the bad index
    const Tensor host = host_contiguous(flat_index);
    const int64_t* p = host->data_as<int64_t>();
    for (int64_t i = 0; i < host->numel(); ++i)
      CT_CHECK(p[i] >= 0 && p[i] < plane, CT_ERROR_INDEX, op, ": index ", p[i], " is outside the output plane of ",
               plane, " elements (output_size ", size, "). Pass the indices max pooling returned with this output_size");
  }
  DimVector out_sizes{n, c};
  const Tensor zeros = full({n, c, plane}, Scalar(0), x->dtype(), x->device());
  Tensor out = scatter(zeros, 2, flat_index, reshape(xb, {n, c, positions}));
  for (int64_t s : size) out_sizes.push_back(s);
  out = reshape(out, out_sizes);
  f.outs[0] = unbatched ? squeeze(out, 0) : out;
}

}  // namespace

void define_pool_forms(Registry& r) {
  const std::string window = "int[1] kernel_size, int[1] stride=[], int[1] padding=0, int[1] dilation=1, "
                             "bool ceil_mode=False";
  r.def("max_pool1d_with_indices(Tensor self, " + window + ") -> (Tensor values, Tensor indices)")
      .composite(max_pool1d_with_indices_kernel);
  r.def("max_pool1d(Tensor self, " + window + ") -> Tensor").composite(max_pool1d_kernel);
  r.def("avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, bool ceil_mode=False, "
        "bool count_include_pad=True) -> Tensor")
      .composite(avg_pool1d_kernel);
  r.def("adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor").composite(adaptive_avg_pool1d_kernel);
  r.def("adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor values, Tensor indices)")
      .composite(adaptive_max_pool2d_kernel);
  r.def("adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor values, Tensor indices)")
      .composite(adaptive_max_pool1d_kernel);
  const std::string window3 = "int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, "
                              "bool ceil_mode=False";
  r.def("max_pool3d_with_indices(Tensor self, " + window3 + ") -> (Tensor values, Tensor indices)")
      .composite(max_pool3d_with_indices_kernel);
  r.def("max_pool3d(Tensor self, " + window3 + ") -> Tensor").composite(max_pool3d_kernel);
  r.def("avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, "
        "bool count_include_pad=True, int? divisor_override=None) -> Tensor")
      .composite(avg_pool3d_kernel);
  r.def("adaptive_avg_pool3d(Tensor self, int[3] output_size) -> Tensor").composite(adaptive_avg_pool3d_kernel);
  r.def("adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor values, Tensor indices)")
      .composite(adaptive_max_pool3d_kernel);
  r.def("max_unpool2d(Tensor self, Tensor indices, int[2] output_size) -> Tensor").composite(max_unpool_kernel<2>);
  r.def("max_unpool3d(Tensor self, Tensor indices, int[3] output_size, int[3] stride, int[3] padding) -> Tensor")
      .composite(max_unpool_kernel<3>);
}

}  // namespace ct::ops
