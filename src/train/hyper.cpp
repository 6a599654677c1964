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
           " is unknown. Use a CT_OPTIMIZER_ value (SGD to ADADELTA)");
  check_nonnegative(h.lr, "lr", fn, status);
  check_nonnegative(h.momentum, "momentum", fn, status);
  check_nonnegative(h.weight_decay, "weight_decay", fn, status);
  check_nonnegative(h.eps, "eps", fn, status);
  check_nonnegative(h.alpha, "alpha", fn, status);
  check_nonnegative(h.lr_decay, "lr_decay", fn, status);
  check_nonnegative(h.initial_accumulator_value, "initial_accumulator_value", fn, status);
  check_nonnegative(h.momentum_decay, "momentum_decay", fn, status);
  CT_CHECK(h.rho >= 0 && h.rho <= 1, status, fn, ": rho is ", h.rho, ". Pass a value in [0, 1]");
  CT_CHECK(std::isfinite(h.dampening), status, fn, ": dampening is ", h.dampening, ". Pass a finite value");
  check_beta(h.beta1, "beta1", fn, status);
  check_beta(h.beta2, "beta2", fn, status);
  // torch.optim.SGD's rule: Nesterov momentum is defined only for undamped, nonzero momentum.
  CT_CHECK(!h.nesterov || (h.momentum > 0 && h.dampening == 0), status, fn,
           ": nesterov needs momentum > 0 and dampening 0 (momentum ", h.momentum, ", dampening ", h.dampening,
           "). Set them, or turn nesterov off");
}

}  // namespace ct::train
