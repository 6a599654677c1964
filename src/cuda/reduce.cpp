// reduce.cpp - CUDA compute for the reductions the driver table has: sum, mean, prod, amax, amin,
// argmax, argmin, var, std, var_mean, std_mean, logsumexp. The input is laid out as a contiguous
// [outer, reduce, inner] (reduce_layout: in place when the reduced dims already form one run of a
// contiguous input, else permuted and copied on the device), then one table call writes the
// contiguous [outer, inner] result, which is the output's own layout.
#include "core/error.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "ops/reduce/reduce_common.h"

namespace ct::cuda {
namespace {

// Runs op over the reduced dims `mask` of a (already in the dtype the table should read).
void run_reduce(const char* name, int op, const TensorImpl& a, uint64_t mask, const TensorImpl& out,
                double correction) {
  const ops::ReduceLayout l = ops::reduce_layout(a, mask);
  void* stream = stream_for(out);
  check(driver().reduce(op, code(out.dtype()), code(l.data->dtype()), out.data(), nullptr, l.data->data(), l.outer,
                        l.k, l.inner, correction, stream),
        name);
}

uint64_t arg_mask(const Frame& f, int64_t nd) {
  if (f.arg(1).is_none()) return nd >= 64 ? ~uint64_t(0) : (uint64_t(1) << nd) - 1;
  return uint64_t(1) << ops::wrap_dim(f.name(), f.arg(1).to_int(), nd);
}

// sum / mean / prod / amax / amin .dim_IntList(Tensor self, int[]? dim=None, bool keepdim=False),
// argmax / argmin (Tensor self, int? dim=None, bool keepdim=False).
template <int Op>
void reduce_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  if (out.numel() == 0) return;
  const TensorImpl& a = f.tensor(0);
  const int64_t nd = static_cast<int64_t>(a.dim());
  uint64_t mask;
  if (Op == CT_CUDA_REDUCE_ARGMAX || Op == CT_CUDA_REDUCE_ARGMIN) {
    mask = arg_mask(f, nd);
  } else {
    bool all = false;
    mask = ops::reduced_mask(f.name(), f.arg(1), nd, &all);
  }
  if (Op == CT_CUDA_REDUCE_MEAN && !is_floating(a.dtype())) unsupported(f.name(), a.dtype(), "mean needs a floating input");
  run_reduce(f.name(), Op, a, mask, out, 0.0);
}

// var / std / var_mean / std_mean .correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
// bool keepdim=False): the first output is the variance or deviation, the second (if any) the mean.
template <int Op>
void moment_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  if (outs[0]->numel() == 0) return;
  const TensorImpl& a = f.tensor(0);
  if (!is_floating(a.dtype())) unsupported(f.name(), a.dtype());
  bool all = false;
  const uint64_t mask = ops::reduced_mask(f.name(), f.arg(1), static_cast<int64_t>(a.dim()), &all);
  const double correction = f.arg(2).is_none() ? 1.0 : f.arg(2).to_double();
  run_reduce(f.name(), Op, a, mask, *outs[0], correction);
  if (m.n > 1) run_reduce(f.name(), CT_CUDA_REDUCE_WELFORD_MEAN, a, mask, *outs[1], 0.0);
}

// logsumexp(Tensor self, int[1] dim, bool keepdim=False): integers compute in the default float.
void logsumexp_cuda(const Frame& f, const MetaResult& m, Tensor* outs) {
  if (outs[0]->numel() == 0) return;
  const TensorImpl& a = f.tensor(0);
  bool all = false;
  const uint64_t mask = ops::reduced_mask("logsumexp", f.arg(1), static_cast<int64_t>(a.dim()), &all);
  const Tensor x = a.dtype() == m.compute ? Tensor::borrow(&a) : contiguous_as(a, m.compute);
  run_reduce("logsumexp", CT_CUDA_REDUCE_LOGSUMEXP, *x, mask, *outs[0], 0.0);
}

}  // namespace

void register_reduce_kernels(Registry& r) {
  set_cuda_compute(r, "sum.dim_IntList", reduce_cuda<CT_CUDA_REDUCE_SUM>);
  set_cuda_compute(r, "mean.dim_IntList", reduce_cuda<CT_CUDA_REDUCE_MEAN>);
  set_cuda_compute(r, "prod.dim_IntList", reduce_cuda<CT_CUDA_REDUCE_PROD>);
  set_cuda_compute(r, "amax.dim_IntList", reduce_cuda<CT_CUDA_REDUCE_AMAX>);
  set_cuda_compute(r, "amin.dim_IntList", reduce_cuda<CT_CUDA_REDUCE_AMIN>);
  set_cuda_compute(r, "argmax", reduce_cuda<CT_CUDA_REDUCE_ARGMAX>);
  set_cuda_compute(r, "argmin", reduce_cuda<CT_CUDA_REDUCE_ARGMIN>);
  set_cuda_compute(r, "var.correction", moment_cuda<CT_CUDA_REDUCE_VAR>);
  set_cuda_compute(r, "std.correction", moment_cuda<CT_CUDA_REDUCE_STD>);
  set_cuda_compute(r, "var_mean.correction", moment_cuda<CT_CUDA_REDUCE_VAR>);
  set_cuda_compute(r, "std_mean.correction", moment_cuda<CT_CUDA_REDUCE_STD>);
  set_cuda_compute(r, "logsumexp", logsumexp_cuda);
}

}  // namespace ct::cuda
