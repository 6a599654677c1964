// loop_plan.h - the iteration space of one CUDA elementwise call (ct_cuda_loop), planned from
// tensor metadata the way the CPU loop engine plans its loops (ops/cpu/loop.h).
//
// The planner is a pure function of sizes and strides (it reads no data and touches no device), so
// it is tested on cpu tensors. Strides are in ELEMENTS of each operand, as the table wants.
#pragma once

#include "core/tensor.h"
#include "cuda/driver/ct_cuda_driver.h"

namespace ct::cuda {

/// Lays out (sizes equal the broadcast shape) and up to three inputs that broadcast to it over one
/// loop: stride 0 where an input broadcasts, dims merged wherever every operand steps across them
/// as one (a contiguous call is ndim 1 with unit strides; one element is ndim 1, size 1, strides 0).
/// Raises CT_ERROR_NOT_IMPLEMENTED naming op when more than CT_CUDA_MAX_DIMS dims remain after
/// merging, and CT_ERROR_INTERNAL for more than CT_CUDA_MAX_OPERANDS operands.
ct_cuda_loop plan_loop(const char* op, const TensorImpl& out, const TensorImpl* const* inputs, int ninputs);

}  // namespace ct::cuda
