// hyper.h - an optimizer's kind and hyperparameters (torch's param_group entries), and their checks.
#pragma once

#include <cstdint>

#include "ctorch.h"

namespace ct::train {

// The ct_optimizer_kind values.
enum class Kind : uint32_t { SGD = 0, Adam = 1, AdamW = 2, RMSprop = 3, Adagrad = 4, Adamax = 5, NAdam = 6, RAdam = 7,
                             Adadelta = 8 };

/// Number of kinds; a kind read from C or a file is valid when below it.
constexpr uint32_t kNumKinds = 9;

struct Hyper {
  Kind kind = Kind::SGD;
  double lr = 1e-3, momentum = 0, dampening = 0, weight_decay = 0;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, alpha = 0.99;
  double lr_decay = 0, initial_accumulator_value = 0, momentum_decay = 4e-3, rho = 0.9;
  bool nesterov = false, amsgrad = false, centered = false, maximize = false, decoupled_weight_decay = false;
};

/// torch.optim's defaults for kind (see ct_optimizer_options_default).
Hyper default_hyper(Kind kind);
/// The kind's name as torch spells its class: "SGD", "Adam", "AdamW", "RMSprop", "Adagrad"...
const char* kind_name(Kind kind);
/// Raises status (naming fn, the field and its value) when a hyperparameter is out of range.
void check_hyper(const Hyper& h, const char* fn, ct_status status);

}  // namespace ct::train
