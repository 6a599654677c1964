// scan.cpp - CUDA compute for the scans, through the table's scan member: cumsum, cumprod, cummax,
// cummin. The input is laid out as a contiguous [outer, n, inner] first; the outputs are written
// directly when contiguous, else through a contiguous temporary.
#include "core/error.h"
#include "cuda/driver_members.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
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
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(f.name(), scan);
  check(d.scan(Op, code(out.get().dtype()), code(in->dtype()), out.get().data(), nullptr,
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
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(f.name(), scan);
  check(d.scan(Op, code(in->dtype()), code(in->dtype()), values.get().data(),
               indices.get().data(), in->data(), l.outer, l.n, l.inner, stream),
        f.name());
  values.finish(f.name(), stream);
  indices.finish(f.name(), stream);
}

}  // namespace

void register_scan_kernels(Registry& r) {
  set_cuda_compute(r, "cumsum", cum_cuda<CT_CUDA_SCAN_CUMSUM>);
  set_cuda_compute(r, "cumprod", cum_cuda<CT_CUDA_SCAN_CUMPROD>);
  set_cuda_compute(r, "cummax", cumext_cuda<CT_CUDA_SCAN_CUMMAX>);
  set_cuda_compute(r, "cummin", cumext_cuda<CT_CUDA_SCAN_CUMMIN>);
}

}  // namespace ct::cuda
