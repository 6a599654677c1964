// hyper.h - an optimizer's kind and hyperparameters (torch's param_group entries), and their checks.
#pragma once

#include <cstdint>

#include "ctorch.h"

namespace ct::train {

// The ct_optimizer_kind values.
enum class Kind : uint32_t { SGD = 0, Adam = 1, AdamW = 2, RMSprop = 3, Adagrad = 4, Adamax = 5, NAdam = 6, RAdam = 7,
                             Adadelta = 8, ASGD = 9, Rprop = 10, LBFGS = 11 };

/// Number of kinds; a kind read from C or a file is valid when below it.
constexpr uint32_t kNumKinds = 12;

struct Hyper {
  Kind kind = Kind::SGD;
  double lr = 1e-3, momentum = 0, dampening = 0, weight_decay = 0;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, alpha = 0.99;
  double lr_decay = 0, initial_accumulator_value = 0, momentum_decay = 4e-3, rho = 0.9;
  double lambd = 1e-4, t0 = 1e6, etaminus = 0.5, etaplus = 1.2, step_size_min = 1e-6, step_size_max = 50;
  double tolerance_grad = 1e-7, tolerance_change = 1e-9;
  int64_t max_iter = 20, max_eval = 0, history_size = 100;  // max_eval 0: max_iter * 5 / 4, as torch's None
  bool strong_wolfe = false;  // LBFGS: line_search_fn="strong_wolfe"
  bool nesterov = false, amsgrad = false, centered = false, maximize = false, decoupled_weight_decay = false;
};

/// torch.optim's defaults for kind (see ct_optimizer_options_default).
Hyper default_hyper(Kind kind);
/// The kind's name as torch spells its class: "SGD", "Adam", "AdamW", "RMSprop", "Adagrad"...
const char* kind_name(Kind kind);
/// Raises status (naming fn, the field and its value) when a hyperparameter is out of range.
void check_hyper(const Hyper& h, const char* fn, ct_status status);

}  // namespace ct::train
