// engine.h - running the backward graph (see Note [The backward graph] in node.h).
#pragma once

#include <vector>

#include "autograd/node.h"

namespace ct::autograd {

struct BackwardOptions {
  bool retain_graph = false;  // keep saved tensors for another backward
  bool create_graph = false;  // record the backward computation (higher derivatives)
  bool allow_unused = false;  // grad(): an input the outputs do not depend on gets undefined
};

/// torch.autograd's anomaly mode: while on with check_nan, a backward node that returns a gradient
/// holding NaN fails naming itself. Process-wide, off at start.
void set_anomaly_mode(bool enabled, bool check_nan);
bool anomaly_enabled();
bool anomaly_check_nan();

/// Tensor.backward: runs from roots (each with its gradient) and accumulates into leaves' grad.
void backward(const std::vector<Tensor>& roots, std::vector<Tensor> root_grads, const BackwardOptions& opt,
              const char* fn);
/// autograd.grad: the gradients of roots with respect to inputs, without touching any grad field.
std::vector<Tensor> grad(const std::vector<Tensor>& roots, std::vector<Tensor> root_grads,
                         const std::vector<Tensor>& inputs, const BackwardOptions& opt, const char* fn);

}  // namespace ct::autograd
