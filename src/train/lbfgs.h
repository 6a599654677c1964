// lbfgs.h - torch.optim.LBFGS: limited-memory BFGS over all parameters as one flat vector, with an
// optional strong-Wolfe line search. Unlike the elementwise kinds it re-evaluates the model (a
// closure) several times per step, and its state is the whole run's, not per parameter.
#pragma once

#include <functional>
#include <vector>

#include "core/tensor.h"
#include "train/hyper.h"

namespace ct::train {

/// Runs the model and its backward (setting the parameters' grads) and returns the loss.
using Closure = std::function<double()>;

/// torch's LBFGS state (optimizer.state[params[0]]): the counters, the last direction d and step t,
/// the curvature history (y, s pairs and 1 / y.s) and the previous flat gradient and loss.
struct LbfgsState {
  double func_evals = 0, n_iter = 0;
  double t = 0, h_diag = 1, prev_loss = 0;
  Tensor d, prev_flat_grad;  // undefined before the first iteration
  std::vector<Tensor> old_dirs, old_stps;
  std::vector<double> ro;
};

/// One optimizer.step(closure): up to max_iter iterations. Returns the loss of the first closure
/// call. state is advanced; on a closure's failure the caller restores parameters and state.
double lbfgs_step(const Hyper& h, const std::vector<Tensor>& params, LbfgsState& state, const Closure& closure);

/// Raises (naming fn) unless the parameters can form one flat vector: one dtype, one device.
void check_lbfgs_params(const std::vector<Tensor>& params, const char* fn);

}  // namespace ct::train
