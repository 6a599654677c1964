// update_math.h - the update formulas of torch.optim, written once for every way of running them.
//
// Note [One formula, two engines]
// Each optimizer's update is one function template over a value type V and a scalar type S. The
// fused CPU loops (update_cpu.cpp) instantiate it with V = S = float or double: one element at a
// time, every value in registers. The device-generic path (update_ops.cpp) instantiates it with
// V = OpValue, whose operators call the dispatcher's operators on whole tensors, and S = double
// (a Python-float scalar, rounded to the tensor's dtype by the kernel as torch rounds it). Both
// therefore do the same operations in the same order as torch.optim's single-tensor functions:
// `exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)` is `axpy(m * beta1, g, 1 - beta1)`, addcmul
// `self + value * t1 * t2`, addcdiv `self + value * t1 / t2`. axpy and addcmul are one operator call
// each on tensors (float16 and bfloat16 kernels compute them in float and round once, as torch's
// do) and the same arithmetic on numbers. The library is built with -ffp-contract=off, so no
// multiply and add are ever fused into one rounding, and both engines give the same bits for
// float32 and float64. (ctorch's addcdiv operator computes value * (t1 / t2), which rounds
// differently from torch's (value * t1) / t2, so addcdiv stays a multiply and a divide here.)
#pragma once

#include <cmath>

#include "train/hyper.h"

namespace ct::train {

/// The numbers one parameter's step uses, computed in double as torch computes them in Python.
struct StepCoefs {
  double wd = 0, decay_factor = 1, momentum = 0, one_minus_dampening = 1, neg_lr = 0;
  double beta1 = 0, one_minus_beta1 = 0, beta2 = 0, one_minus_beta2 = 0, eps = 0;
  double neg_step_size = 0, bc2_sqrt = 1, alpha = 0, one_minus_alpha = 0;
  // NAdam: the gradient's and the moment's step sizes; NAdam and RAdam: the bias corrections
  // 1 - beta^step; RAdam: lr and the rectification factor.
  double neg_grad_step = 0, neg_moment_step = 0, bc1 = 1, bc2 = 1, lr = 0, rect = 0;
  // ASGD: the averaging coefficient mu; Rprop: the step-size factors and bounds.
  double ax_mu = 1, etaminus = 0, etaplus = 0, step_size_min = 0, step_size_max = 0;
  bool maximize = false, weight_decay = false, use_momentum = false, has_momentum_buffer = false;
  bool nesterov = false, amsgrad = false, centered = false, decoupled = false, rectified = false;
  bool averaging = false;  // ASGD: mu != 1, so ax moves toward the parameter (else ax copies it)
};

/// A parameter's scalar state. torch keeps each in a 0-dim float32 tensor, so each holds a float
/// value: NAdam's product of momentum coefficients; ASGD's step size eta and averaging coefficient mu.
struct ScalarState {
  double mu_product = 1, eta = 0, mu = 1;
};

/// The coefficients for a parameter taking its step-th step (step >= 1); has_momentum_buffer says
/// whether SGD's buffer holds a value already (torch's momentum_buffer is not None); scalars is the
/// parameter's scalar state, advanced here past this step (NAdam's mu_product; ASGD's eta and mu,
/// whose values before the step are the ones the step uses).
StepCoefs step_coefs(const Hyper& h, double step, bool has_momentum_buffer, ScalarState* scalars);

/// StepCoefs with the numbers rounded to S, as a tensor kernel rounds a Python float.
template <typename S>
struct Coefs {
  explicit Coefs(const StepCoefs& c)
      : wd(S(c.wd)), decay_factor(S(c.decay_factor)), momentum(S(c.momentum)),
        one_minus_dampening(S(c.one_minus_dampening)), neg_lr(S(c.neg_lr)), beta1(S(c.beta1)),
        one_minus_beta1(S(c.one_minus_beta1)), beta2(S(c.beta2)), one_minus_beta2(S(c.one_minus_beta2)), eps(S(c.eps)),
        neg_step_size(S(c.neg_step_size)), bc2_sqrt(S(c.bc2_sqrt)), alpha(S(c.alpha)),
        one_minus_alpha(S(c.one_minus_alpha)), neg_grad_step(S(c.neg_grad_step)),
        neg_moment_step(S(c.neg_moment_step)), bc1(S(c.bc1)), bc2(S(c.bc2)), lr(S(c.lr)), rect(S(c.rect)),
        ax_mu(S(c.ax_mu)), etaminus(S(c.etaminus)), etaplus(S(c.etaplus)), step_size_min(S(c.step_size_min)),
        step_size_max(S(c.step_size_max)), maximize(c.maximize), weight_decay(c.weight_decay),
        use_momentum(c.use_momentum), has_momentum_buffer(c.has_momentum_buffer), nesterov(c.nesterov),
        amsgrad(c.amsgrad), centered(c.centered), decoupled(c.decoupled), rectified(c.rectified),
        averaging(c.averaging) {}
  S wd, decay_factor, momentum, one_minus_dampening, neg_lr, beta1, one_minus_beta1, beta2, one_minus_beta2, eps;
  S neg_step_size, bc2_sqrt, alpha, one_minus_alpha, neg_grad_step, neg_moment_step, bc1, bc2, lr, rect;
  S ax_mu, etaminus, etaplus, step_size_min, step_size_max;
  bool maximize, weight_decay, use_momentum, has_momentum_buffer, nesterov, amsgrad, centered, decoupled, rectified;
  bool averaging;
};

/// torch's add(a, b, alpha=s): a + s * b, one operator call (for a number, two roundings: the
/// library never fuses them, see the Note).
template <typename T, typename S>
inline T axpy(const T& a, const T& b, S s) {
  return a + b * s;
}
/// torch's addcmul(a, t1, t2, value=s): a + s * t1 * t2, multiplied left to right.
template <typename T, typename S>
inline T addcmul(const T& a, const T& t1, const T& t2, S s) {
  return a + t1 * s * t2;
}

/// torch.maximum for one number: NaN wins.
template <typename T>
inline T maximum(T a, T b) {
  return a != a ? a : (b != b ? b : (a > b ? a : b));
}
/// torch.reciprocal for one number (what `number / tensor` computes before multiplying).
template <typename T>
inline T reciprocal(T a) {
  return T(1) / a;
}
/// torch.sign for one number: (0 < a) - (a < 0), so NaN gives 0 as torch's CPU kernel does.
template <typename T>
inline T sign(T a) {
  return T(int(T(0) < a) - int(a < T(0)));
}
/// torch.clamp(a, lo, hi) for one number (lo <= hi): NaN stays NaN.
template <typename T>
inline T clamp(T a, T lo, T hi) {
  return a != a ? a : (a < lo ? lo : (a > hi ? hi : a));
}
/// Rprop's step-size factor from s = sign(grad * prev): torch's sign[s > 0] = etaplus,
/// sign[s < 0] = etaminus, sign[s == 0] = 1.
template <typename T>
inline T rprop_factor(T s, T etaplus, T etaminus) {
  return s > T(0) ? etaplus : (s < T(0) ? etaminus : T(1));
}
/// torch's a[f == v] = 0 for one number.
template <typename T>
inline T zero_where_equal(T a, T f, T v) {
  return f == v ? T(0) : a;
}
using std::abs;
using std::sqrt;

/// torch.optim.SGD (_single_tensor_sgd). buf is the momentum buffer.
template <typename V, typename S>
inline void sgd_update(const Coefs<S>& c, V& p, V g, V& buf) {
  if (c.maximize) g = -g;
  if (c.weight_decay) g = axpy(g, p, c.wd);
  if (c.use_momentum) {
    buf = c.has_momentum_buffer ? axpy(buf * c.momentum, g, c.one_minus_dampening) : g;
    g = c.nesterov ? axpy(g, buf, c.momentum) : buf;
  }
  p = axpy(p, g, c.neg_lr);
}

/// The Adam family's moments: exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1) and
/// exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2).
template <typename V, typename S>
inline void adam_moments(const Coefs<S>& c, const V& g, V& m, V& v) {
  m = axpy(m * c.beta1, g, c.one_minus_beta1);
  v = addcmul(v * c.beta2, g, g, c.one_minus_beta2);
}

/// torch.optim.Adam and AdamW (_single_tensor_adam(w)). m, v: the moments; vmax: amsgrad's maximum.
template <typename V, typename S>
inline void adam_update(const Coefs<S>& c, bool decoupled, V& p, V g, V& m, V& v, V& vmax) {
  if (c.maximize) g = -g;
  if (decoupled) p = p * c.decay_factor;  // AdamW: param.mul_(1 - lr * weight_decay), always
  else if (c.weight_decay) g = axpy(g, p, c.wd);
  adam_moments(c, g, m, v);
  if (c.amsgrad) vmax = maximum(vmax, v);
  const V denom = sqrt(c.amsgrad ? vmax : v) / c.bc2_sqrt + c.eps;
  p = p + m * c.neg_step_size / denom;
}

/// torch.optim.RMSprop (_single_tensor_rmsprop). sq: square_avg; buf: momentum_buffer; gavg: grad_avg.
template <typename V, typename S>
inline void rmsprop_update(const Coefs<S>& c, V& p, V g, V& sq, V& buf, V& gavg) {
  if (c.maximize) g = -g;
  if (c.weight_decay) g = axpy(g, p, c.wd);
  sq = addcmul(sq * c.alpha, g, g, c.one_minus_alpha);
  V avg;
  if (c.centered) {
    gavg = axpy(gavg * c.alpha, g, c.one_minus_alpha);
    avg = sqrt(addcmul(sq, gavg, gavg, S(-1)));  // square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
  } else {
    avg = sqrt(sq);
  }
  avg = avg + c.eps;
  if (c.use_momentum) {
    buf = buf * c.momentum + g / avg;  // addcdiv_ with value 1: (1 * g) / avg is g / avg exactly
    p = axpy(p, buf, c.neg_lr);
  } else {
    p = p + g * c.neg_lr / avg;
  }
}

/// The L2 penalty of torch's single-tensor functions, or (decoupled, NAdam's and RAdam's
/// decoupled_weight_decay) AdamW's param.mul_(1 - lr * weight_decay).
template <typename V, typename S>
inline void weight_decay(const Coefs<S>& c, V& p, V& g) {
  if (!c.weight_decay) return;
  if (c.decoupled) p = p * c.decay_factor;
  else g = axpy(g, p, c.wd);
}

/// torch.optim.Adagrad (_single_tensor_adagrad). sum: the running sum of squared gradients;
/// neg_lr holds -lr / (1 + (step - 1) * lr_decay).
template <typename V, typename S>
inline void adagrad_update(const Coefs<S>& c, V& p, V g, V& sum) {
  if (c.maximize) g = -g;
  if (c.weight_decay) g = axpy(g, p, c.wd);
  sum = addcmul(sum, g, g, S(1));
  const V std_ = sqrt(sum) + c.eps;
  p = p + g * c.neg_lr / std_;
}

/// torch.optim.Adamax (_single_tensor_adamax). m: exp_avg; u: exp_inf, the decayed infinity norm.
template <typename V, typename S>
inline void adamax_update(const Coefs<S>& c, V& p, V g, V& m, V& u) {
  if (c.maximize) g = -g;
  if (c.weight_decay) g = axpy(g, p, c.wd);
  m = axpy(m * c.beta1, g, c.one_minus_beta1);
  u = maximum(u * c.beta2, abs(g) + c.eps);
  p = p + m * c.neg_step_size / u;
}

/// torch.optim.NAdam (_single_tensor_nadam): m, v the moments; the step sizes of the gradient and
/// of the moment come from the momentum schedule (step_coefs).
template <typename V, typename S>
inline void nadam_update(const Coefs<S>& c, V& p, V g, V& m, V& v) {
  if (c.maximize) g = -g;
  weight_decay(c, p, g);
  adam_moments(c, g, m, v);
  const V denom = sqrt(v / c.bc2) + c.eps;
  p = p + g * c.neg_grad_step / denom;
  p = p + m * c.neg_moment_step / denom;
}

/// torch.optim.RAdam (_single_tensor_radam): m, v the moments. While the variance is not yet
/// tractable (rho_t <= 5) the step is plain momentum; after it, the rectified adaptive step.
template <typename V, typename S>
inline void radam_update(const Coefs<S>& c, V& p, V g, V& m, V& v) {
  if (c.maximize) g = -g;
  weight_decay(c, p, g);
  adam_moments(c, g, m, v);
  const V corrected = m / c.bc1;
  if (c.rectified) {
    const V adaptive = reciprocal(sqrt(v) + c.eps) * c.bc2_sqrt;  // sqrt(bc2) / (sqrt(v) + eps)
    p = axpy(p, corrected * c.lr * adaptive * c.rect, S(-1));
  } else {
    p = axpy(p, corrected * c.lr, S(-1));
  }
}

/// torch.optim.Adadelta (_single_tensor_adadelta). sq: square_avg; acc: acc_delta.
template <typename V, typename S>
inline void adadelta_update(const Coefs<S>& c, V& p, V g, V& sq, V& acc) {
  if (c.maximize) g = -g;
  if (c.weight_decay) g = axpy(g, p, c.wd);
  sq = addcmul(sq * c.alpha, g, g, c.one_minus_alpha);  // alpha holds rho
  const V std_ = sqrt(sq + c.eps);
  const V delta = sqrt(acc + c.eps) / std_ * g;
  acc = addcmul(acc * c.alpha, delta, delta, c.one_minus_alpha);
  p = axpy(p, delta, c.neg_lr);
}

/// torch.optim.ASGD (_single_tensor_asgd). ax: the averaged parameter. neg_lr holds -eta and
/// decay_factor 1 - lambd * eta, eta being the step size the previous step left.
template <typename V, typename S>
inline void asgd_update(const Coefs<S>& c, V& p, V g, V& ax) {
  if (c.maximize) g = -g;
  if (c.weight_decay) g = axpy(g, p, c.wd);
  p = p * c.decay_factor;
  p = axpy(p, g, c.neg_lr);
  if (c.averaging) ax = ax + (p - ax) * c.ax_mu;  // ax.add_(param.sub(ax).mul_(mu))
  else ax = p;                                    // ax.copy_(param)
}

/// torch.optim.Rprop (_single_tensor_rprop). prev: the previous (masked) gradient; step_size: the
/// per-element step sizes. Where the gradient's sign flipped, the step shrinks by etaminus and that
/// element does not move this step; where it held, the step grows by etaplus.
template <typename V, typename S>
inline void rprop_update(const Coefs<S>& c, V& p, V g, V& prev, V& step_size) {
  if (c.maximize) g = -g;
  const V f = rprop_factor(sign(g * prev), c.etaplus, c.etaminus);
  step_size = clamp(step_size * f, c.step_size_min, c.step_size_max);
  g = zero_where_equal(g, f, c.etaminus);
  p = addcmul(p, sign(g), step_size, S(-1));
  prev = g;
}

}  // namespace ct::train
