// clip_grad.h - torch.nn.utils.clip_grad_norm_ and clip_grad_value_ over parameters' grads.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace ct::train {

/// Scales the grads in place so that their total norm_type-norm is at most max_norm; returns the
/// total norm before clipping (0 when no parameter has a grad).
double clip_grad_norm(const std::vector<Tensor>& params, double max_norm, double norm_type);
/// Clamps every grad element into [-clip_value, clip_value] in place.
void clip_grad_value(const std::vector<Tensor>& params, double clip_value);

}  // namespace ct::train
