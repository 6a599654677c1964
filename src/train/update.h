// update.h - one parameter's optimizer update, by the fused CPU loop or the dispatcher's operators.
#pragma once

#include "core/tensor.h"
#include "train/update_math.h"

namespace ct::train {

/// State slots per kind (see ct_optimizer_state_save): SGD {momentum_buffer}; Adam, AdamW {exp_avg,
/// exp_avg_sq, max_exp_avg_sq}; RMSprop {square_avg, momentum_buffer, grad_avg}; Adagrad {sum};
/// Adamax {exp_avg, exp_inf}; NAdam, RAdam {exp_avg, exp_avg_sq}; Adadelta {square_avg, acc_delta};
/// ASGD {ax}; Rprop {prev, step_size}.
constexpr int kSlots = 3;

/// What one step of one parameter reads and writes. INVARIANT: every defined slot has param's
/// sizes, dtype and device, is contiguous, and is one the kind and options use.
struct StepTensors {
  Tensor param, grad;
  Tensor slot[kSlots];
};

/// True when update_fused can run: a contiguous float32 or float64 param on the CPU.
bool fusable(const StepTensors& t);
/// The update as one loop over the elements (update_cpu.cpp); the grad must be contiguous too.
/// Bumps the written tensors' versions.
void update_fused(Kind kind, const StepCoefs& c, const StepTensors& t);
/// The update through the dispatcher's operators, for any device, layout and floating dtype
/// (update_ops.cpp); writes back with copy_, which bumps the versions.
void update_ops(Kind kind, const StepCoefs& c, const StepTensors& t);

}  // namespace ct::train
