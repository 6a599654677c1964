// optimizer.cpp - Optimizer: checks, the step loop over parameters, zero_grad, hyperparameters.
#include "train/optimizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include "autograd/meta.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "train/no_record.h"

namespace ct::train {
namespace {

// Which state slots the kind and options use (see kSlots).
bool slot_used(const Hyper& h, int i) {
  switch (h.kind) {
    case Kind::SGD: return i == 0 && h.momentum != 0;
    case Kind::Adam:
    case Kind::AdamW: return i < 2 || (i == 2 && h.amsgrad);
    case Kind::RMSprop: return i == 0 || (i == 1 && h.momentum > 0) || (i == 2 && h.centered);
    case Kind::Adagrad:
    case Kind::ASGD: return i == 0;
    case Kind::Adamax:
    case Kind::NAdam:
    case Kind::RAdam:
    case Kind::Adadelta:
    case Kind::Rprop: return i < 2;
    case Kind::LBFGS: return false;  // its state is the whole run's (LbfgsState)
  }
  return false;
}

// Slot i's first value: zeros, except Adagrad's sum (initial_accumulator_value), Rprop's step sizes
// (lr) and SGD's buffer, which is born as a copy of the first update direction and needs no zeros.
// A complex parameter's slot holds the value in both parts, since the parts are stepped as reals.
Tensor new_slot(const Hyper& h, const TensorImpl& p, int i) {
  if (h.kind == Kind::SGD) return ops::empty(p.sizes(), p.dtype(), p.device());
  const double v = h.kind == Kind::Adagrad ? h.initial_accumulator_value : h.kind == Kind::Rprop && i == 1 ? h.lr : 0.0;
  if (!is_complex(p.dtype())) return ops::full(p.sizes(), Scalar(v), p.dtype(), p.device());
  DimVector parts(p.sizes());
  parts.push_back(2);
  return ops::view_as_complex(ops::full(parts, Scalar(v), real_dtype(p.dtype()), p.device()));
}

void check_grad(const TensorImpl& p, const TensorImpl& g, size_t i) {
  CT_CHECK(g.device() == p.device(), CT_ERROR_DEVICE, "ct_optimizer_step: parameter ", i, " is on ", p.device(),
           " but its grad on ", g.device(), ". Give it a grad on the parameter's device");
  CT_CHECK(g.dtype() == p.dtype(), CT_ERROR_DTYPE, "ct_optimizer_step: parameter ", i, " is ", p.dtype(),
           " but its grad ", g.dtype(), ". Give it a grad of the parameter's dtype");
  CT_CHECK(g.sizes().equals(p.sizes()), CT_ERROR_SHAPE, "ct_optimizer_step: parameter ", i, " has sizes ", p.sizes(),
           " but its grad ", g.sizes(), ". Give it a grad of the parameter's sizes");
}

}  // namespace

Optimizer::Optimizer(std::vector<Tensor> params, const Hyper& h, const char* fn) : h_(h) {
  check_hyper(h, fn, CT_ERROR_INVALID_ARGUMENT);
  CT_CHECK(!params.empty(), CT_ERROR_INVALID_ARGUMENT, fn, ": the parameter list is empty. Pass at least one tensor");
  std::unordered_set<const TensorImpl*> seen;
  for (size_t i = 0; i < params.size(); ++i) {
    const TensorImpl& p = *params[i];
    CT_CHECK(is_floating(p.dtype()) || (is_complex(p.dtype()) && h.kind != Kind::LBFGS), CT_ERROR_DTYPE, fn,
             ": parameter ", i, " is ", p.dtype(), "; ", kind_name(h.kind), " optimizes only floating tensors",
             h.kind == Kind::LBFGS ? "" : " and complex ones", ". Convert it with to()");
    CT_CHECK(!p.device().is_meta(), CT_ERROR_DEVICE, fn, ": parameter ", i,
             " is a meta tensor, which has no data to update. Create it on cpu or cuda");
    CT_CHECK(autograd::is_leaf(p), CT_ERROR_INVALID_ARGUMENT, fn, ": parameter ", i,
             " is not a leaf (an operator made it). Optimize the leaf tensors it was computed from, or detach it");
    CT_CHECK(seen.insert(&p).second, CT_ERROR_INVALID_ARGUMENT, fn, ": parameter ", i,
             " appears more than once in the list. Pass each tensor once");
    params_.push_back(ParamState{std::move(params[i]), 0, {}, {}});
  }
  if (h.kind == Kind::LBFGS) {
    std::vector<Tensor> ps;
    for (const ParamState& s : params_) ps.push_back(s.param);
    check_lbfgs_params(ps, fn);
  }
}

void Optimizer::check_not_in_closure(const char* fn) const {
  CT_CHECK(!in_closure_, CT_ERROR_INVALID_ARGUMENT, fn,
           ": called from inside this optimizer's own closure. A closure computes the loss and its grads; "
           "step after it returns");
}

double Optimizer::step(const Closure& closure) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  check_not_in_closure("ct_optimizer_step_closure");
  auto call = [&] {
    in_closure_ = true;
    try {
      const double loss = closure();
      in_closure_ = false;
      return loss;
    } catch (...) {
      in_closure_ = false;
      throw;
    }
  };
  if (h_.kind != Kind::LBFGS) {
    const double loss = call();
    step_locked();
    return loss;
  }
  std::vector<Tensor> params;
  for (const ParamState& s : params_) {
    check_writable(*s.param, "ct_optimizer_step_closure", "a parameter");
    params.push_back(s.param);
  }
  // LBFGS moves the parameters between closure calls: a failing closure must leave them, and the
  // history, as they were.
  std::vector<Tensor> saved;
  {
    NoRecordGuard no_record;
    for (const Tensor& p : params) saved.push_back(ops::clone(p));
  }
  LbfgsState state = lbfgs_;
  try {
    const double loss = lbfgs_step(h_, params, state, call);
    lbfgs_ = std::move(state);
    return loss;
  } catch (...) {
    NoRecordGuard no_record;
    for (size_t i = 0; i < params.size(); ++i) ops::copy_(params[i], saved[i]);
    throw;
  }
}

void Optimizer::step() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  check_not_in_closure("ct_optimizer_step");
  CT_CHECK(h_.kind != Kind::LBFGS, CT_ERROR_INVALID_ARGUMENT,
           "ct_optimizer_step: LBFGS re-evaluates the model several times per step. Call ct_optimizer_step_closure "
           "with a closure that computes the loss and its grads");
  step_locked();
}

void Optimizer::step_locked() {
  NoRecordGuard no_record;
  // Pass 1: check every parameter and allocate missing state, committing nothing, so that a
  // failure leaves parameters and state as they were.
  struct Work {
    size_t index;
    StepTensors t;
  };
  std::vector<Work> work;
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParamState& s = params_[i];
    Tensor g = autograd::grad_of(*s.param);
    if (!g.defined()) continue;  // torch skips parameters without a grad
    check_grad(*s.param, *g, i);
    check_writable(*s.param, "ct_optimizer_step", str("parameter ", i).c_str());
    Work w{i, {s.param, std::move(g), {}}};
    for (int k = 0; k < kSlots; ++k) {
      if (!slot_used(h_, k)) continue;
      w.t.slot[k] = s.slot[k].defined() ? s.slot[k] : new_slot(h_, *s.param, k);
    }
    work.push_back(std::move(w));
  }
  // Pass 2: update.
  for (Work& w : work) {
    ParamState& s = params_[w.index];
    const bool had_buffer = s.slot[0].defined();
    for (int k = 0; k < kSlots; ++k)  // a slot the options stopped using is kept, as torch keeps it
      if (w.t.slot[k].defined()) s.slot[k] = w.t.slot[k];
    s.step += 1;
    const StepCoefs c = step_coefs(h_, s.step, had_buffer, &s.scalars);
    // A complex parameter is stepped as the real tensor of its parts, as torch's optimizers do: each
    // part has its own second moment. Its state stays complex, as torch keeps it.
    if (is_complex(w.t.param->dtype())) {
      w.t.param = ops::view_as_real(w.t.param);
      w.t.grad = ops::view_as_real(w.t.grad->is_contiguous() ? w.t.grad : ops::contiguous(w.t.grad));
      for (Tensor& slot : w.t.slot)
        if (slot.defined()) slot = ops::view_as_real(slot);
    }
    if (!fusable(w.t)) {
      update_ops(h_.kind, c, w.t);
      continue;
    }
    // A grad may be a view the user set; the loop reads it from a contiguous copy.
    if (!w.t.grad->is_contiguous()) w.t.grad = ops::contiguous(w.t.grad);
    update_fused(h_.kind, c, w.t);
  }
}

const char* const* state_names(Kind kind) {
  // num_scalars(kind) scalar names come before the buffers; a buffer's place after them is its slot.
  static const char* const kSgd[] = {"momentum_buffer", nullptr};
  static const char* const kAdam[] = {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq", nullptr};
  static const char* const kRmsprop[] = {"step", "square_avg", "momentum_buffer", "grad_avg", nullptr};
  static const char* const kAdagrad[] = {"step", "sum", nullptr};
  static const char* const kAdamax[] = {"step", "exp_avg", "exp_inf", nullptr};
  static const char* const kNadam[] = {"step", "mu_product", "exp_avg", "exp_avg_sq", nullptr};
  static const char* const kRadam[] = {"step", "exp_avg", "exp_avg_sq", nullptr};
  static const char* const kAdadelta[] = {"step", "square_avg", "acc_delta", nullptr};
  static const char* const kAsgd[] = {"step", "eta", "mu", "ax", nullptr};
  static const char* const kRprop[] = {"step", "prev", "step_size", nullptr};
  static const char* const kLbfgs[] = {"func_evals", "n_iter", "t", "H_diag", "prev_loss", "d", "prev_flat_grad",
                                       nullptr};
  switch (kind) {
    case Kind::SGD: return kSgd;
    case Kind::Adam:
    case Kind::AdamW: return kAdam;
    case Kind::RMSprop: return kRmsprop;
    case Kind::Adagrad: return kAdagrad;
    case Kind::Adamax: return kAdamax;
    case Kind::NAdam: return kNadam;
    case Kind::RAdam: return kRadam;
    case Kind::Adadelta: return kAdadelta;
    case Kind::ASGD: return kAsgd;
    case Kind::Rprop: return kRprop;
    case Kind::LBFGS: return kLbfgs;
  }
  return kSgd;
}

namespace {

// How many of state_names(kind) are scalars.
int num_scalars(Kind kind) {
  return kind == Kind::SGD ? 0 : kind == Kind::NAdam ? 2 : kind == Kind::ASGD ? 3 : kind == Kind::LBFGS ? 5 : 1;
}

}  // namespace

Tensor Optimizer::lbfgs_state(size_t i, int k) const {
  // torch keeps LBFGS's state under the first parameter; its numbers are Python numbers (float64).
  if (i != 0 || lbfgs_.func_evals == 0) return Tensor();
  switch (k) {
    case 0: return ops::full({}, Scalar(lbfgs_.func_evals), DType::Float64, kCPU);
    case 1: return ops::full({}, Scalar(lbfgs_.n_iter), DType::Float64, kCPU);
    case 5: return lbfgs_.d;
    case 6: return lbfgs_.prev_flat_grad;
    default: break;
  }
  if (!lbfgs_.d.defined()) return Tensor();  // the first step stopped before an iteration
  return ops::full({}, Scalar(k == 2 ? lbfgs_.t : k == 3 ? lbfgs_.h_diag : lbfgs_.prev_loss), DType::Float64, kCPU);
}

Tensor Optimizer::state(size_t i, const char* name, const char* fn) const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  CT_CHECK(i < params_.size(), CT_ERROR_INDEX, fn, ": index ", i, " is out of range for ", params_.size(),
           " parameters");
  const char* const* names = state_names(h_.kind);
  std::string known;
  for (int k = 0; names[k]; ++k) {
    if (std::strcmp(names[k], name) != 0) {
      known += str(known.empty() ? "" : ", ", names[k]);
      continue;
    }
    if (h_.kind == Kind::LBFGS) return lbfgs_state(i, k);
    const ParamState& s = params_[i];
    if (s.step == 0) return Tensor();  // torch creates the state on the first step
    const int scalars = num_scalars(h_.kind);
    if (k >= scalars) return s.slot[k - scalars];
    const std::string_view n(name);
    const double v = n == "step" ? s.step : n == "mu_product" ? s.scalars.mu_product : n == "eta" ? s.scalars.eta
                                                                                                   : s.scalars.mu;
    return ops::full({}, Scalar(v), DType::Float32, kCPU);
  }
  fail(CT_ERROR_INVALID_ARGUMENT, str(fn, ": ", kind_name(h_.kind), " has no state named '", name, "' (it has ", known,
                                      "). Use one of those names"));
}

void Optimizer::zero_grad(bool set_to_none) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  NoRecordGuard no_record;
  for (const ParamState& s : params_) {
    const Tensor g = autograd::grad_of(*s.param);
    if (!g.defined()) continue;
    if (set_to_none) {
      autograd::set_grad(*s.param, Tensor(), "ct_optimizer_zero_grad");
    } else if (g->device().is_cpu() && g->is_contiguous()) {
      check_writable(*g, "ct_optimizer_zero_grad", "a gradient");
      std::memset(g->data(), 0, static_cast<size_t>(g->numel()) * itemsize(g->dtype()));  // all-zero bits are 0
      g->storage()->bump_version();
    } else {
      ops::copy_(g, ops::zeros({}, g->dtype(), g->device()));
    }
  }
}

size_t Optimizer::size() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return params_.size();
}

Tensor Optimizer::param(size_t i) const {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // load() replaces params_
  return params_[i].param;
}

double Optimizer::lr() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return h_.lr;
}

void Optimizer::set_lr(double lr, const char* fn) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  CT_CHECK(std::isfinite(lr) && lr >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": lr is ", lr, ". Pass a finite value >= 0");
  h_.lr = lr;
}

Hyper Optimizer::hyper() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return h_;
}

void Optimizer::set_hyper(const Hyper& h, const char* fn) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  check_not_in_closure(fn);
  CT_CHECK(h.kind == h_.kind, CT_ERROR_INVALID_ARGUMENT, fn, ": the optimizer is ", kind_name(h_.kind),
           " and the options say ", static_cast<uint32_t>(h.kind) < kNumKinds ? kind_name(h.kind) : "an unknown kind",
           "; the kind cannot change. Create a new optimizer");
  check_hyper(h, fn, CT_ERROR_INVALID_ARGUMENT);
  h_ = h;
}

namespace {

// The Adam family's coefficients: the betas, eps, and the decoupled decay factor (AdamW's, and
// NAdam's and RAdam's with decoupled_weight_decay).
void set_betas(const Hyper& h, StepCoefs* c) {
  c->beta1 = h.beta1;
  c->one_minus_beta1 = 1 - h.beta1;
  c->beta2 = h.beta2;
  c->one_minus_beta2 = 1 - h.beta2;
  c->eps = h.eps;
  c->decoupled = h.decoupled_weight_decay;
  c->decay_factor = 1 - h.lr * h.weight_decay;
}

}  // namespace

StepCoefs step_coefs(const Hyper& h, double step, bool has_momentum_buffer, ScalarState* scalars) {
  StepCoefs c;
  c.maximize = h.maximize;
  c.weight_decay = h.weight_decay != 0;
  c.wd = h.weight_decay;
  c.neg_lr = -h.lr;
  switch (h.kind) {
    case Kind::SGD:
      c.use_momentum = h.momentum != 0;
      c.momentum = h.momentum;
      c.one_minus_dampening = 1 - h.dampening;
      c.nesterov = h.nesterov;
      c.has_momentum_buffer = has_momentum_buffer;
      break;
    case Kind::Adam:
    case Kind::AdamW: {
      set_betas(h, &c);
      c.amsgrad = h.amsgrad;
      // As torch's Python: bias_correction = 1 - beta ** step, step_size = lr / bias_correction1.
      const double bc1 = 1 - std::pow(h.beta1, step);
      const double bc2 = 1 - std::pow(h.beta2, step);
      c.neg_step_size = -(h.lr / bc1);
      c.bc2_sqrt = std::sqrt(bc2);
      break;
    }
    case Kind::RMSprop:
      c.alpha = h.alpha;
      c.one_minus_alpha = 1 - h.alpha;
      c.eps = h.eps;
      c.use_momentum = h.momentum > 0;
      c.momentum = h.momentum;
      c.centered = h.centered;
      break;
    case Kind::Adagrad:
      c.eps = h.eps;
      c.neg_lr = -(h.lr / (1 + (step - 1) * h.lr_decay));  // torch's clr
      break;
    case Kind::Adamax:
      set_betas(h, &c);
      c.neg_step_size = -(h.lr / (1 - std::pow(h.beta1, step)));  // -clr
      break;
    case Kind::NAdam: {
      set_betas(h, &c);
      c.bc2 = 1 - std::pow(h.beta2, step);
      // The momentum schedule mu_t = beta1 (1 - 0.5 * 0.96^(t * momentum_decay)); torch keeps the
      // product of the mu_t in a float32 tensor, so it is rounded to float after each factor.
      const double mu = h.beta1 * (1. - 0.5 * std::pow(0.96, step * h.momentum_decay));
      const double mu_next = h.beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * h.momentum_decay));
      double& mu_product = scalars->mu_product;
      mu_product = static_cast<float>(static_cast<float>(mu_product) * static_cast<float>(mu));
      const double mu_product_next = mu_product * mu_next;
      c.neg_grad_step = -h.lr * (1. - mu) / (1. - mu_product);
      c.neg_moment_step = (-h.lr * mu_next) / (1. - mu_product_next);
      break;
    }
    case Kind::RAdam: {
      set_betas(h, &c);
      c.lr = h.lr;
      c.bc1 = 1 - std::pow(h.beta1, step);
      const double bc2 = 1 - std::pow(h.beta2, step);
      c.bc2_sqrt = std::sqrt(bc2);
      // The length of the approximated simple moving average; above 5 the variance is tractable.
      const double rho_inf = 2 / (1 - h.beta2) - 1;
      const double rho_t = rho_inf - 2 * step * std::pow(h.beta2, step) / bc2;
      c.rectified = rho_t > 5.;
      if (c.rectified) {
        c.rect = std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
      }
      break;
    }
    case Kind::Adadelta:
      c.alpha = h.rho;
      c.one_minus_alpha = 1 - h.rho;
      c.eps = h.eps;
      break;
    case Kind::ASGD: {
      // torch creates eta = lr and mu = 1 with the state, each a float32 tensor; a step uses the
      // values the previous step left and then sets them from the step count.
      if (step == 1) *scalars = ScalarState{1, static_cast<float>(h.lr), 1};
      c.decay_factor = 1 - h.lambd * scalars->eta;
      c.neg_lr = -scalars->eta;
      c.averaging = scalars->mu != 1;
      c.ax_mu = scalars->mu;
      scalars->eta = static_cast<float>(h.lr / std::pow(1 + h.lambd * h.lr * step, h.alpha));
      scalars->mu = static_cast<float>(1 / std::max(1., step - h.t0));
      break;
    }
    case Kind::LBFGS: break;  // lbfgs.cpp
    case Kind::Rprop:
      c.etaminus = h.etaminus;
      c.etaplus = h.etaplus;
      c.step_size_min = h.step_size_min;
      c.step_size_max = h.step_size_max;
      break;
  }
  return c;
}

}  // namespace ct::train
