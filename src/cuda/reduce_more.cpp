// reduce_more.cpp - CUDA compute for the scans (cumsum, cumprod, cummax, cummin: the table's scan
// member) and for all, any, count_nonzero and linalg_vector_norm (reduce ops appended to
// ct_cuda_reduce_op). Inputs are laid out contiguous first ([outer, n, inner] for a scan, the
// reduce_layout of reduce.cpp for a reduction); the outputs are fresh and contiguous.
#include <cmath>

#include "core/error.h"
#include "cuda/appended.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "ops/reduce/reduce_common.h"

namespace ct::cuda {
namespace {

// out itself when contiguous, else a contiguous temporary copied into out by finish().
struct ContiguousOut {
  const TensorImpl& out;
  Tensor temp;
  explicit ContiguousOut(const TensorImpl& o) : out(o) {
    if (!o.is_contiguous()) temp = empty_on(o.sizes(), o.dtype(), o.device());
  }
  const TensorImpl& get() const { return temp.defined() ? *temp : out; }
  void finish(const char* op, void* stream) const {
    if (temp.defined()) copy_into(op, out, *temp, stream);
  }
};

// cumsum / cumprod(Tensor self, int dim, *, ScalarType? dtype=None): the input converted to the
// result dtype first, then folded in the CPU's accumulation type (see ct_cuda_scan_op).
template <int Op>
void cum_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (outs[0]->numel() == 0) return;
  const int64_t dim = ops::wrap_dim(f.name(), f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  const Tensor in = contiguous_as(a, m.compute);
  const ops::Lines l = ops::lines_of(a.sizes(), dim);
  void* stream = stream_for(*outs[0]);
  const ContiguousOut out(*outs[0]);
  check(appended_driver(f.name()).scan(Op, code(out.get().dtype()), code(in->dtype()), out.get().data(), nullptr,
                                       in->data(), l.outer, l.n, l.inner, stream),
        f.name());
  out.finish(f.name(), stream);
}

// cummax / cummin(Tensor self, int dim) -> (values, indices)
template <int Op>
void cumext_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (outs[0]->numel() == 0) return;
  const int64_t dim = ops::wrap_dim(f.name(), f.arg(1).to_int(), static_cast<int64_t>(a.dim()));
  const Tensor in = contiguous_as(a, a.dtype());
  const ops::Lines l = ops::lines_of(a.sizes(), dim);
  void* stream = stream_for(*outs[0]);
  const ContiguousOut values(*outs[0]), indices(*outs[1]);
  check(appended_driver(f.name()).scan(Op, code(in->dtype()), code(in->dtype()), values.get().data(),
                                       indices.get().data(), in->data(), l.outer, l.n, l.inner, stream),
        f.name());
  values.finish(f.name(), stream);
  indices.finish(f.name(), stream);
}

// Runs reduce op over the dims `mask` of a into the contiguous out (as reduce.cpp's run_reduce).
void run_reduce(const char* name, int op, const TensorImpl& a, uint64_t mask, const TensorImpl& out, double param) {
  const ops::ReduceLayout l = ops::reduce_layout(a, mask);
  void* stream = stream_for(out);
  check(appended_driver(name).reduce(op, code(out.dtype()), code(l.data->dtype()), out.data(), nullptr,
                                     l.data->data(), l.outer, l.k, l.inner, param, stream),
        name);
}

// all(self), all.dim(self, int dim, keepdim), any likewise, count_nonzero(self, int? dim),
// count_nonzero.dim_IntList(self, int[] dim): one int, an int list, or every dim (as the CPU's
// logical_mask in ops/reduce/stats.cpp).
template <int Op>
void logical_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  if (outs[0]->numel() == 0) return;
  const TensorImpl& a = f.tensor(0);
  const int64_t nd = static_cast<int64_t>(a.dim());
  bool all = false;
  uint64_t mask;
  if (f.nargs < 2 || f.arg(1).is_none()) mask = ops::reduced_mask(f.name(), Value(), nd, &all);
  else if (f.arg(1).kind() == Value::Kind::Int) mask = uint64_t(1) << ops::wrap_dim(f.name(), f.arg(1).to_int(), nd);
  else mask = ops::reduced_mask(f.name(), f.arg(1), nd, &all);
  run_reduce(f.name(), Op, a, mask, *outs[0], 0.0);
}

// linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *,
// ScalarType? dtype=None): one NORM reduction of the input in the result dtype (float16/bfloat16
// accumulate in float32 and round once, as the CPU composite does).
void vector_norm_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  if (outs[0]->numel() == 0) return;
  const TensorImpl& a = f.tensor(0);
  const Tensor x = a.dtype() == m.compute ? Tensor::borrow(&a) : contiguous_as(a, m.compute);
  bool all = false;
  const uint64_t mask = ops::reduced_mask("linalg_vector_norm", f.arg(2), static_cast<int64_t>(x->dim()), &all);
  run_reduce("linalg_vector_norm", CT_CUDA_REDUCE_NORM, *x, mask, *outs[0], f.arg(1).to_double());
}

}  // namespace

void register_reduce_more_kernels(Registry& r) {
  set_cuda_compute(r, "cumsum", cum_cuda<CT_CUDA_SCAN_CUMSUM>);
  set_cuda_compute(r, "cumprod", cum_cuda<CT_CUDA_SCAN_CUMPROD>);
  set_cuda_compute(r, "cummax", cumext_cuda<CT_CUDA_SCAN_CUMMAX>);
  set_cuda_compute(r, "cummin", cumext_cuda<CT_CUDA_SCAN_CUMMIN>);
  set_cuda_compute(r, "all", logical_cuda<CT_CUDA_REDUCE_ALL>);
  set_cuda_compute(r, "all.dim", logical_cuda<CT_CUDA_REDUCE_ALL>);
  set_cuda_compute(r, "any", logical_cuda<CT_CUDA_REDUCE_ANY>);
  set_cuda_compute(r, "any.dim", logical_cuda<CT_CUDA_REDUCE_ANY>);
  set_cuda_compute(r, "count_nonzero", logical_cuda<CT_CUDA_REDUCE_COUNT_NONZERO>);
  set_cuda_compute(r, "count_nonzero.dim_IntList", logical_cuda<CT_CUDA_REDUCE_COUNT_NONZERO>);
  set_cuda_compute(r, "linalg_vector_norm", vector_norm_cuda);
}

}  // namespace ct::cuda
