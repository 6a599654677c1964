// optimizer.h - Optimizer: parameters, hyperparameters and per-parameter state of torch.optim's
// SGD, Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam, RAdam and Adadelta (one parameter group).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "train/hyper.h"
#include "train/update.h"

namespace ct::train {

/// torch.optim's per-parameter state.
struct ParamState {
  Tensor param;
  double step = 0;         // steps this parameter took (torch's state["step"]); 0: no state yet
  double mu_product = 1;   // NAdam's product of momentum coefficients (torch's state["mu_product"])
  Tensor slot[kSlots];     // see kSlots; undefined until the kind and options need it
};

class Optimizer {
 public:
  /// Checks params (distinct floating leaves with data) and h; raises naming fn.
  Optimizer(std::vector<Tensor> params, const Hyper& h, const char* fn);

  /// optimizer.step(): every parameter with a grad, checked before any is written.
  void step();
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

  /// The bytes of ct_optimizer_state_save (state_io.cpp).
  std::string save() const;
  /// Replaces hyperparameters and state from save()'s bytes, all checked first (state_io.cpp).
  void load(const uint8_t* data, size_t size);

 private:
  mutable std::mutex mu_;  // serializes every call; see ct_optimizer_step's thread note
  Hyper h_;                // guarded by mu_
  std::vector<ParamState> params_;  // guarded by mu_ (the param tensors themselves never change)
};

}  // namespace ct::train
