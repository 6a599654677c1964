// reduce.cpp - CUDA compute for the reductions the driver table has: sum, mean, prod, amax, amin,
// argmax, argmin, var, std, var_mean, std_mean, logsumexp, all, any, count_nonzero and
// linalg_vector_norm. The input is laid out as a contiguous
// [outer, reduce, inner] (reduce_layout: in place when the reduced dims already form one run of a
// contiguous input, else permuted and copied on the device), then one table call writes the
// contiguous [outer, inner] result, which is the output's own layout.
#include "core/error.h"
#include "cuda/driver_members.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "ops/reduce/reduce_common.h"

namespace ct::cuda {
namespace {

// Runs op over the reduced dims `mask` of a (already in the dtype the table should read); param
// is var's correction or the norm's order. all .. norm came with the table's scan member: a table
// without it is a version error, not an unknown op code.
void run_reduce(const char* name, int op, const TensorImpl& a, uint64_t mask, const TensorImpl& out, double param) {
  const ops::ReduceLayout l = ops::reduce_layout(a, mask);
  void* stream = stream_for(out);
  const ct_cuda_driver& d = op >= CT_CUDA_REDUCE_ALL ? CT_CUDA_DRIVER_WITH(name, scan) : driver();
  check(d.reduce(op, code(out.dtype()), code(l.data->dtype()), out.data(), nullptr, l.data->data(), l.outer, l.k,
                 l.inner, param, stream),
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
  if ((Op == CT_CUDA_REDUCE_SUM || Op == CT_CUDA_REDUCE_MEAN) && is_complex(a.dtype())) {
    // The sums of the real and of the imaginary parts, as on the cpu: the pair dim is never reduced.
    run_reduce(f.name(), Op, *pairs_of(a), mask, *pairs_of(out), 0.0);
    return;
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
  set_cuda_compute(r, "all", logical_cuda<CT_CUDA_REDUCE_ALL>);
  set_cuda_compute(r, "all.dim", logical_cuda<CT_CUDA_REDUCE_ALL>);
  set_cuda_compute(r, "any", logical_cuda<CT_CUDA_REDUCE_ANY>);
  set_cuda_compute(r, "any.dim", logical_cuda<CT_CUDA_REDUCE_ANY>);
  set_cuda_compute(r, "count_nonzero", logical_cuda<CT_CUDA_REDUCE_COUNT_NONZERO>);
  set_cuda_compute(r, "count_nonzero.dim_IntList", logical_cuda<CT_CUDA_REDUCE_COUNT_NONZERO>);
  set_cuda_compute(r, "linalg_vector_norm", vector_norm_cuda);
}

}  // namespace ct::cuda
