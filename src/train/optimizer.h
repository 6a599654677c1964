// optimizer.h - Optimizer: parameters, hyperparameters and per-parameter state of torch.optim's
// SGD, Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam, RAdam, Adadelta, ASGD, Rprop and LBFGS (one
// parameter group).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "train/hyper.h"
#include "train/lbfgs.h"
#include "train/update.h"

namespace ct::train {

/// torch.optim's per-parameter state.
struct ParamState {
  Tensor param;
  double step = 0;         // steps this parameter took (torch's state["step"]); 0: no state yet
  ScalarState scalars;     // torch's state["mu_product"] (NAdam), state["eta"] and state["mu"] (ASGD)
  Tensor slot[kSlots];     // see kSlots; undefined until the kind and options need it
};

/// The kind's state names (torch's optimizer.state[p] keys) in torch's order, scalars first, then
/// the buffers of the slots 0, 1, 2; a null pointer ends the list.
const char* const* state_names(Kind kind);

class Optimizer {
 public:
  /// Checks params (distinct floating leaves with data) and h; raises naming fn.
  Optimizer(std::vector<Tensor> params, const Hyper& h, const char* fn);

  /// optimizer.step(): every parameter with a grad, checked before any is written. Not LBFGS.
  void step();
  /// optimizer.step(closure): LBFGS's iterations, or closure() then step(). Returns the first
  /// closure call's loss. When the closure raises, parameters and state are restored first.
  double step(const Closure& closure);
  /// optimizer.zero_grad(set_to_none).
  void zero_grad(bool set_to_none);

  double lr() const;
  void set_lr(double lr, const char* fn);
  Hyper hyper() const;
  /// Replaces the hyperparameters (same kind), checked first.
  void set_hyper(const Hyper& h, const char* fn);
  size_t size() const;
  /// Parameter i (i < size()).
  Tensor param(size_t i) const;

  /// Parameter i's state entry called name (torch's optimizer.state[p][name]): a buffer itself, or
  /// a scalar as a new 0-dim float32 tensor; undefined while the parameter has none. Raises for a
  /// name the kind never has.
  Tensor state(size_t i, const char* name, const char* fn) const;

  /// The bytes of ct_optimizer_state_save (state_io.cpp).
  std::string save() const;
  /// Replaces hyperparameters and state from save()'s bytes, all checked first (state_io.cpp).
  void load(const uint8_t* data, size_t size);

 private:
  void step_locked();
  Tensor lbfgs_state(size_t i, int k) const;
  void check_not_in_closure(const char* fn) const;

  // Serializes every call (see ct_optimizer_step's thread note); recursive because a closure calls
  // zero_grad on its own thread while step(closure) holds it.
  mutable std::recursive_mutex mu_;
  Hyper h_;                         // guarded by mu_
  std::vector<ParamState> params_;  // guarded by mu_ (the param tensors themselves never change)
  LbfgsState lbfgs_;                // guarded by mu_; LBFGS only
  bool in_closure_ = false;         // guarded by mu_: step(closure) is running the closure
};

}  // namespace ct::train
