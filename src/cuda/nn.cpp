// nn.cpp - CUDA compute for softmax / log_softmax over any dim and layer_norm's forward.
//
// softmax over a dim other than the last moves that dim last (a permuted copy on the device),
// runs the table's row kernel into a temporary, and copies the rows back through the same
// permutation of the output. layer_norm's derivative is a composite formula of other operators
// (layer_norm.cpp), so the table's layer_norm_backward has no operator to serve yet.
#include "core/error.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "ops/op_common.h"

namespace ct::cuda {
namespace {

// softmax.int / log_softmax.int (Tensor self, int dim, ScalarType? dtype=None): the input is first
// converted to dtype (m.compute), as on the cpu.
template <bool Log>
void softmax_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  const TensorImpl& a = f.tensor(0);
  const int64_t nd = static_cast<int64_t>(a.dim());
  const int64_t dim = ops::wrap_dim(f.name(), f.arg(1).to_int(), nd);
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < nd; ++d) inner *= a.size(static_cast<size_t>(d));
  const int64_t cols = nd ? a.size(static_cast<size_t>(dim)) : 1;
  const int64_t rows = out.numel() / cols;
  void* stream = stream_for(out);
  if (inner == 1) {  // rows already: the output is contiguous and laid out like the input
    const Tensor x = contiguous_as(a, m.compute);
    check(driver().softmax(Log, code(out.dtype()), code(x->dtype()), out.data(), x->data(), rows, cols, stream),
          f.name());
    return;
  }
  DimVector perm;
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) perm.push_back(d);
  perm.push_back(dim);
  const Tensor x = contiguous_as(*permuted(a, perm), m.compute);
  const Tensor tmp = empty_on(x->sizes(), out.dtype(), out.device());
  check(driver().softmax(Log, code(out.dtype()), code(x->dtype()), tmp->data(), x->data(), rows, cols, stream),
        f.name());
  copy_into(f.name(), *permuted(out, perm), *tmp, stream);
}

// layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None,
//            float eps=1e-05, bool cudnn_enable=True): the forward only (no saved mean / rstd).
void layer_norm_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  int64_t cols = 1;
  for (int64_t s : f.arg(1).int_list()) cols *= s;
  if (cols == 0) return;
  const TensorImpl& xin = f.tensor(0);
  const Tensor x = contiguous_as(xin, xin.dtype());
  Tensor w, b;
  if (!f.arg(2).is_none()) w = contiguous_as(f.tensor(2), xin.dtype());
  if (!f.arg(3).is_none()) b = contiguous_as(f.tensor(3), xin.dtype());
  void* stream = stream_for(out);
  check(driver().layer_norm(code(xin.dtype()), out.data(), nullptr, nullptr, x->data(), w.defined() ? w->data() : nullptr,
                            b.defined() ? b->data() : nullptr, out.numel() / cols, cols, f.arg(4).to_double(), stream),
        "layer_norm");
}

}  // namespace

void register_nn_kernels(Registry& r) {
  set_cuda_compute(r, "softmax.int", softmax_cuda<false>);
  set_cuda_compute(r, "log_softmax.int", softmax_cuda<true>);
  set_cuda_compute(r, "layer_norm", layer_norm_cuda);
}

}  // namespace ct::cuda
