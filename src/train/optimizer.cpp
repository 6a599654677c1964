// optimizer.cpp - Optimizer: checks, the step loop over parameters, zero_grad, hyperparameters.
#include "train/optimizer.h"

#include <cmath>
#include <cstring>
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
    case Kind::Adagrad: return i == 0;
    case Kind::Adamax:
    case Kind::NAdam:
    case Kind::RAdam:
    case Kind::Adadelta: return i < 2;
  }
  return false;
}

// A slot's first value: zeros, except Adagrad's sum (initial_accumulator_value) and SGD's buffer,
// which is born as a copy of the first update direction and needs no zeros.
Tensor new_slot(const Hyper& h, const TensorImpl& p) {
  if (h.kind == Kind::SGD) return ops::empty(p.sizes(), p.dtype(), p.device());
  if (h.kind == Kind::Adagrad) return ops::full(p.sizes(), Scalar(h.initial_accumulator_value), p.dtype(), p.device());
  return ops::zeros(p.sizes(), p.dtype(), p.device());
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
    CT_CHECK(is_floating(p.dtype()), CT_ERROR_DTYPE, fn, ": parameter ", i, " is ", p.dtype(),
             "; only floating tensors can be optimized. Convert it with to()");
    CT_CHECK(!p.device().is_meta(), CT_ERROR_DEVICE, fn, ": parameter ", i,
             " is a meta tensor, which has no data to update. Create it on cpu or cuda");
    CT_CHECK(autograd::is_leaf(p), CT_ERROR_INVALID_ARGUMENT, fn, ": parameter ", i,
             " is not a leaf (an operator made it). Optimize the leaf tensors it was computed from, or detach it");
    CT_CHECK(seen.insert(&p).second, CT_ERROR_INVALID_ARGUMENT, fn, ": parameter ", i,
             " appears more than once in the list. Pass each tensor once");
    params_.push_back(ParamState{std::move(params[i]), 0, 1, {}});
  }
}

void Optimizer::step() {
  std::lock_guard<std::mutex> lock(mu_);
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
      w.t.slot[k] = s.slot[k].defined() ? s.slot[k] : new_slot(h_, *s.param);
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
    const StepCoefs c = step_coefs(h_, s.step, had_buffer, &s.mu_product);
    if (!fusable(w.t)) {
      update_ops(h_.kind, c, w.t);
      continue;
    }
    // A grad may be a view the user set; the loop reads it from a contiguous copy.
    if (!w.t.grad->is_contiguous()) w.t.grad = ops::contiguous(w.t.grad);
    update_fused(h_.kind, c, w.t);
  }
}

void Optimizer::zero_grad(bool set_to_none) {
  std::lock_guard<std::mutex> lock(mu_);
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
  std::lock_guard<std::mutex> lock(mu_);
  return params_.size();
}

Tensor Optimizer::param(size_t i) const {
  std::lock_guard<std::mutex> lock(mu_);  // load() replaces params_
  return params_[i].param;
}

double Optimizer::lr() const {
  std::lock_guard<std::mutex> lock(mu_);
  return h_.lr;
}

void Optimizer::set_lr(double lr, const char* fn) {
  std::lock_guard<std::mutex> lock(mu_);
  CT_CHECK(std::isfinite(lr) && lr >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": lr is ", lr, ". Pass a finite value >= 0");
  h_.lr = lr;
}

Hyper Optimizer::hyper() const {
  std::lock_guard<std::mutex> lock(mu_);
  return h_;
}

void Optimizer::set_hyper(const Hyper& h, const char* fn) {
  std::lock_guard<std::mutex> lock(mu_);
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

StepCoefs step_coefs(const Hyper& h, double step, bool has_momentum_buffer, double* mu_product) {
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
      *mu_product = static_cast<float>(static_cast<float>(*mu_product) * static_cast<float>(mu));
      const double mu_product_next = *mu_product * mu_next;
      c.neg_grad_step = -h.lr * (1. - mu) / (1. - *mu_product);
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
  }
  return c;
}

}  // namespace ct::train
