// pool_forms.cpp - the pools torch has beside the 2-D kernels of pool.cpp: max_pool1d, avg_pool1d
// and adaptive_avg_pool1d (the 2-D operators over a height of 1, as torch computes them on the
// CPU), and adaptive max pooling in 1-D and 2-D.
//
// Composites, so derivatives, devices and the meta device come from the operators they call.
// Adaptive max pooling takes, for output cell (i, j), the maximum over rows
// [floor(i H / oh), ceil((i + 1) H / oh)) and the columns likewise (torch's windows), with the index
// of the first maximum (NaN counts as the maximum) in the flattened H x W plane.
#include "dispatch/dispatcher.h"
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
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, op, ": input is ", x->dtype(),
           "; it takes floating values. Convert them with to(float32)");
  for (size_t d = nd == 4 ? 1 : 0; d + 2 < nd; ++d) {  // of [N, C, H, W] the batch may be empty
    CT_CHECK(x->sym_size(d) != 0, CT_ERROR_SHAPE, op, ": input ", x->sym_sizes(), " has an empty dim ", d,
             "; only the batch may be empty");
  }
  CT_CHECK(H > 0 && W > 0, CT_ERROR_SHAPE, op, ": input ", x->sym_sizes(), " has no elements to pool");
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
  SymDimVector sizes(x->sym_sizes());
  sizes[nd - 2] = oh;
  sizes[nd - 1] = ow;
  if (oh * ow == 0) {
    return {empty_symint(sizes, x->dtype(), x->device()), empty_symint(sizes, DType::Int64, x->device())};
  }
  std::vector<const TensorImpl*> vp, ip;
  for (const Tensor& t : values) vp.push_back(t.impl());
  for (const Tensor& t : indices) ip.push_back(t.impl());
  return {reshape_symint(stack(vp, -1), sizes), reshape_symint(stack(ip, -1), sizes)};
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
}

}  // namespace ct::ops
