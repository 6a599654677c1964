#include "cuda/loop_plan.h"

#include "core/error.h"
#include "ops/cpu/loop.h"

namespace ct::cuda {

// The cpu loop engine's plan (broadcasting, merging), with its byte strides turned into elements.
ct_cuda_loop plan_loop(const char* op, const TensorImpl& out, const TensorImpl* const* inputs, int ninputs) {
  static_assert(CT_CUDA_MAX_OPERANDS <= cpu::kMaxOperands, "a cuda loop's operands fit a cpu plan");
  CT_CHECK(ninputs >= 0 && ninputs + 1 <= CT_CUDA_MAX_OPERANDS, CT_ERROR_INTERNAL, op, ": ", ninputs,
           " inputs, but a cuda elementwise loop takes at most ", CT_CUDA_MAX_OPERANDS - 1);
  const cpu::LoopPlan plan = cpu::make_plan(out, inputs, ninputs);
  CT_CHECK(plan.ndim <= CT_CUDA_MAX_DIMS, CT_ERROR_NOT_IMPLEMENTED, op, ": on cuda an elementwise loop takes at most ",
           CT_CUDA_MAX_DIMS, " dims after merging, but output ", out.sizes(), " (strides ", out.strides(),
           ") needs ", plan.ndim, ". Make the operands contiguous first (contiguous()), or reshape to fewer dims");
  ct_cuda_loop p{};
  p.noperands = plan.nops;
  p.numel = plan.numel;
  p.ndim = plan.ndim;
  for (int d = 0; d < plan.ndim; ++d) p.sizes[d] = plan.shape[d];
  for (int o = 0; o < plan.nops; ++o) {
    const int64_t item = static_cast<int64_t>(itemsize((o == 0 ? out : *inputs[o - 1]).dtype()));
    for (int d = 0; d < plan.ndim; ++d) p.strides[o][d] = plan.strides[o][d] / item;
  }
  return p;
}

}  // namespace ct::cuda
