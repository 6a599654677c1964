// factories.cpp - CUDA compute for the factories the table's index_fill member fills: arange,
// linspace and eye (empty, zeros, ones and full are in pointwise.cpp). The output is fresh and
// contiguous; the values are the cpu's formulas, element by element.
#include "core/error.h"
#include "cuda/driver_members.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"

namespace ct::cuda {
namespace {

// The cpu refuses bool for arange and linspace.
template <int Op>
void index_fill_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& out = *outs[0];
  const char* name = Op == CT_CUDA_INDEX_FILL_ARANGE ? "arange" : Op == CT_CUDA_INDEX_FILL_LINSPACE ? "linspace" : "eye";
  if (Op != CT_CUDA_INDEX_FILL_EYE && out.dtype() == DType::Bool) unsupported(name, out.dtype());
  if (out.numel() == 0) return;
  double a = 0, b = 0;
  int64_t cols = 1;
  if (Op == CT_CUDA_INDEX_FILL_ARANGE) a = f.arg(0).to_double(), b = f.arg(2).to_double();
  else if (Op == CT_CUDA_INDEX_FILL_LINSPACE) a = f.arg(0).to_double(), b = f.arg(1).to_double();
  else cols = out.size(1);
  const ct_cuda_driver& d = CT_CUDA_DRIVER_WITH(name, index_fill);
  check(d.index_fill(Op, code(out.dtype()), a, b, cols, out.data(), out.numel(), stream_for(out)),
        name);
}

}  // namespace

void register_factory_kernels(Registry& r) {
  set_cuda_compute(r, "arange", index_fill_cuda<CT_CUDA_INDEX_FILL_ARANGE>);
  set_cuda_compute(r, "linspace", index_fill_cuda<CT_CUDA_INDEX_FILL_LINSPACE>);
  set_cuda_compute(r, "eye", index_fill_cuda<CT_CUDA_INDEX_FILL_EYE>);
}

}  // namespace ct::cuda
