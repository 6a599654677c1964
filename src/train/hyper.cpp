// hyper.cpp - torch.optim's defaults and the range checks of its constructors.
#include "train/hyper.h"

#include <cmath>

#include "core/error.h"

namespace ct::train {

Hyper default_hyper(Kind kind) {
  Hyper h;
  h.kind = kind;
  switch (kind) {
    case Kind::AdamW: h.weight_decay = 1e-2; break;
    case Kind::RMSprop: h.lr = 1e-2; break;
    case Kind::Adagrad:
      h.lr = 1e-2;
      h.eps = 1e-10;
      break;
    case Kind::Adamax:
    case Kind::NAdam: h.lr = 2e-3; break;
    case Kind::Adadelta:
      h.lr = 1.0;
      h.eps = 1e-6;
      break;
    case Kind::ASGD:
      h.lr = 1e-2;
      h.alpha = 0.75;
      break;
    case Kind::Rprop: h.lr = 1e-2; break;
    case Kind::LBFGS: h.lr = 1; break;
    default: break;
  }
  return h;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::SGD: return "SGD";
    case Kind::Adam: return "Adam";
    case Kind::AdamW: return "AdamW";
    case Kind::RMSprop: return "RMSprop";
    case Kind::Adagrad: return "Adagrad";
    case Kind::Adamax: return "Adamax";
    case Kind::NAdam: return "NAdam";
    case Kind::RAdam: return "RAdam";
    case Kind::Adadelta: return "Adadelta";
    case Kind::ASGD: return "ASGD";
    case Kind::Rprop: return "Rprop";
    case Kind::LBFGS: return "LBFGS";
  }
  return "unknown";
}

namespace {

void check_nonnegative(double v, const char* field, const char* fn, ct_status status) {
  CT_CHECK(std::isfinite(v) && v >= 0, status, fn, ": ", field, " is ", v, ". Pass a finite value >= 0");
}

void check_beta(double v, const char* field, const char* fn, ct_status status) {
  CT_CHECK(v >= 0 && v < 1, status, fn, ": ", field, " is ", v, ". Pass a value in [0, 1)");
}

}  // namespace

void check_hyper(const Hyper& h, const char* fn, ct_status status) {
  CT_CHECK(static_cast<uint32_t>(h.kind) < kNumKinds, status, fn, ": kind ", static_cast<uint32_t>(h.kind),
           " is unknown. Use a CT_OPTIMIZER_ value (SGD to LBFGS)");
  check_nonnegative(h.lr, "lr", fn, status);
  check_nonnegative(h.momentum, "momentum", fn, status);
  check_nonnegative(h.weight_decay, "weight_decay", fn, status);
  check_nonnegative(h.eps, "eps", fn, status);
  check_nonnegative(h.alpha, "alpha", fn, status);
  check_nonnegative(h.lr_decay, "lr_decay", fn, status);
  check_nonnegative(h.initial_accumulator_value, "initial_accumulator_value", fn, status);
  check_nonnegative(h.momentum_decay, "momentum_decay", fn, status);
  CT_CHECK(h.rho >= 0 && h.rho <= 1, status, fn, ": rho is ", h.rho, ". Pass a value in [0, 1]");
  check_nonnegative(h.lambd, "lambd", fn, status);
  check_nonnegative(h.t0, "t0", fn, status);
  // torch.optim.Rprop's rule: the step shrinks on a sign change and grows while the sign holds.
  CT_CHECK(0 < h.etaminus && h.etaminus < 1 && 1 < h.etaplus && std::isfinite(h.etaplus), status, fn,
           ": etas are (", h.etaminus, ", ", h.etaplus, "). Pass 0 < etaminus < 1 < etaplus (finite)");
  check_nonnegative(h.step_size_min, "step_size_min", fn, status);
  check_nonnegative(h.step_size_max, "step_size_max", fn, status);
  CT_CHECK(h.step_size_min <= h.step_size_max, status, fn, ": step_sizes are (", h.step_size_min, ", ",
           h.step_size_max, "). Pass step_size_min <= step_size_max");
  check_nonnegative(h.tolerance_grad, "tolerance_grad", fn, status);
  check_nonnegative(h.tolerance_change, "tolerance_change", fn, status);
  // Bounded so that max_iter * 5 / 4 and the history's memory stay meaningful.
  CT_CHECK(h.max_iter >= 1 && h.max_iter <= (int64_t{1} << 40), status, fn, ": max_iter is ", h.max_iter,
           ". Pass a value in [1, 2^40]");
  CT_CHECK(h.max_eval >= 0 && h.max_eval <= (int64_t{1} << 40), status, fn, ": max_eval is ", h.max_eval,
           ". Pass a value in [1, 2^40], or 0 for max_iter * 5 / 4");
  CT_CHECK(h.history_size >= 1 && h.history_size <= (int64_t{1} << 20), status, fn, ": history_size is ",
           h.history_size, ". Pass a value in [1, 2^20]");
  CT_CHECK(std::isfinite(h.dampening), status, fn, ": dampening is ", h.dampening, ". Pass a finite value");
  check_beta(h.beta1, "beta1", fn, status);
  check_beta(h.beta2, "beta2", fn, status);
  // torch.optim.SGD's rule: Nesterov momentum is defined only for undamped, nonzero momentum.
  CT_CHECK(!h.nesterov || (h.momentum > 0 && h.dampening == 0), status, fn,
           ": nesterov needs momentum > 0 and dampening 0 (momentum ", h.momentum, ", dampening ", h.dampening,
           "). Set them, or turn nesterov off");
}

}  // namespace ct::train
