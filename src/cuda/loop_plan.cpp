#include "cuda/loop_plan.h"

#include "core/error.h"

namespace ct::cuda {

ct_cuda_loop plan_loop(const char* op, const TensorImpl& out, const TensorImpl* const* inputs, int ninputs) {
  CT_CHECK(ninputs >= 0 && ninputs + 1 <= CT_CUDA_MAX_OPERANDS, CT_ERROR_INTERNAL, op, ": ", ninputs,
           " inputs, but a cuda elementwise loop takes at most ", CT_CUDA_MAX_OPERANDS - 1);
  ct_cuda_loop p{};
  p.noperands = ninputs + 1;
  const TensorImpl* ops[CT_CUDA_MAX_OPERANDS] = {&out};
  for (int i = 0; i < ninputs; ++i) ops[i + 1] = inputs[i];
  const IntArrayRef shape = out.sizes();
  const int nd = static_cast<int>(shape.size());
  p.numel = out.numel();

  // Fast path, as the cpu's: every operand dense with the output's sizes, or a single element.
  bool flat = out.is_contiguous();
  for (int i = 1; flat && i < p.noperands; ++i)
    flat = ops[i]->numel() == 1 || (ops[i]->is_contiguous() && ops[i]->sizes().equals(shape));
  if (flat) {
    p.ndim = 1;
    p.sizes[0] = p.numel;
    for (int o = 0; o < p.noperands; ++o) p.strides[o][0] = ops[o]->numel() == 1 && o > 0 ? 0 : 1;
    return p;
  }

  // Broadcast strides in elements, aligned from the last dim; merged into kept dims in order.
  int64_t sizes[kMaxDims];
  int64_t strides[CT_CUDA_MAX_OPERANDS][kMaxDims];
  int n = 0;
  for (int d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    int64_t st[CT_CUDA_MAX_OPERANDS];
    for (int o = 0; o < p.noperands; ++o) {
      const TensorImpl& t = *ops[o];
      const int td = d - (nd - static_cast<int>(t.dim()));
      st[o] = (td < 0 || t.size(static_cast<size_t>(td)) == 1) ? 0 : t.stride(static_cast<size_t>(td));
    }
    bool merge = n > 0;
    for (int o = 0; merge && o < p.noperands; ++o) merge = strides[o][n - 1] == st[o] * shape[d];
    if (merge) {
      sizes[n - 1] *= shape[d];
      for (int o = 0; o < p.noperands; ++o) strides[o][n - 1] = st[o];
    } else {
      sizes[n] = shape[d];
      for (int o = 0; o < p.noperands; ++o) strides[o][n] = st[o];
      ++n;
    }
  }
  if (n == 0) {  // 0-dim or all ones: one element
    p.ndim = 1;
    p.sizes[0] = 1;
    return p;  // strides stay 0
  }
  CT_CHECK(n <= CT_CUDA_MAX_DIMS, CT_ERROR_NOT_IMPLEMENTED, op, ": on cuda an elementwise loop takes at most ",
           CT_CUDA_MAX_DIMS, " dims after merging, but output ", out.sizes(), " (strides ", out.strides(),
           ") needs ", n, ". Make the operands contiguous first (contiguous()), or reshape to fewer dims");
  p.ndim = n;
  for (int d = 0; d < n; ++d) {
    p.sizes[d] = sizes[d];
    for (int o = 0; o < p.noperands; ++o) p.strides[o][d] = strides[o][d];
  }
  return p;
}

}  // namespace ct::cuda
