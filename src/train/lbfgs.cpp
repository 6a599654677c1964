// lbfgs.cpp - torch.optim.LBFGS's step: the two-loop recursion over the curvature history, and the
// strong-Wolfe line search (bracketing, then zooming with cubic interpolation; Nocedal and Wright,
// Numerical Optimization, algorithms 3.5 and 3.6), deciding as torch decides at every branch.
//
// Vectors are flat tensors of the parameters' dtype; the scalars torch keeps as 0-dim tensors of
// that dtype (dot products, 1 / y.s, the history coefficients) are rounded to it here, so a float32
// run takes torch's branches on torch's numbers.
#include "train/lbfgs.h"

#include <algorithm>
#include <cmath>

#include "autograd/meta.h"
#include "core/error.h"
#include "ops/functions.h"
#include "train/no_record.h"

namespace ct::train {
namespace {

double value(const Tensor& t) { return ops::to(t, kCPU, DType::Float64)->data_as<double>()[0]; }

/// v as torch's 0-dim tensor of the parameters' dtype holds it: float64 keeps it, float32 rounds it
/// (and the 16-bit dtypes, whose scalars this keeps in float, approximately so).
double round_to(DType dtype, double v) { return dtype == DType::Float64 ? v : static_cast<double>(static_cast<float>(v)); }

double dot(const Tensor& a, const Tensor& b) { return value(ops::dot(a, b)); }
double abs_max(const Tensor& a) { return value(ops::amax(ops::abs(a), {}, false)); }

/// The parameters' grads as one flat vector (zeros for a parameter without one), as torch gathers.
Tensor flat_grad(const std::vector<Tensor>& params) {
  std::vector<Tensor> parts;
  std::vector<const TensorImpl*> impls;
  for (const Tensor& p : params) {
    const Tensor g = autograd::grad_of(*p);
    parts.push_back(g.defined() ? ops::reshape(g, {-1}) : ops::zeros({p->numel()}, p->dtype(), p->device()));
    impls.push_back(parts.back().impl());
  }
  return ops::cat(impls, 0);
}

/// p += t * d[p's span], parameter by parameter.
void add_step(const std::vector<Tensor>& params, double t, const Tensor& d) {
  NoRecordGuard no_record;
  int64_t offset = 0;
  for (const Tensor& p : params) {
    const int64_t n = p->numel();
    ops::add_(p, ops::view(ops::narrow(d, 0, offset, n), p->sizes()), Scalar(t));
    offset += n;
  }
}

std::vector<Tensor> clone_params(const std::vector<Tensor>& params) {
  NoRecordGuard no_record;
  std::vector<Tensor> out;
  for (const Tensor& p : params) out.push_back(ops::clone(p));
  return out;
}

void set_params(const std::vector<Tensor>& params, const std::vector<Tensor>& values) {
  NoRecordGuard no_record;
  for (size_t i = 0; i < params.size(); ++i) ops::copy_(params[i], values[i]);
}

/// The loss and flat gradient at x + t * d; the parameters are x again afterwards.
struct Evaluation {
  double loss;
  Tensor grad;
};
Evaluation evaluate_along(const std::vector<Tensor>& params, const Closure& closure, const std::vector<Tensor>& x,
                          double t, const Tensor& d) {
  add_step(params, t, d);
  const double loss = closure();
  Evaluation e{loss, flat_grad(params)};
  set_params(params, x);
  return e;
}

/// The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clamped to the
/// bounds (by default the interval between the points); their midpoint when the cubic has none.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2, double lo, double hi) {
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (lo + hi) / 2.;
  const double d2 = std::sqrt(d2_square);
  const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                  : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(min_pos, lo), hi);
}
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2) {
  return cubic_interpolate(x1, f1, g1, x2, f2, g2, std::min(x1, x2), std::max(x1, x2));
}

struct LineSearch {
  double loss;
  Tensor grad;
  double t;
  int evals;
};

/// The strong-Wolfe line search from x along d (gtd = g.d < 0), starting at step t: a step with
/// sufficient decrease (c1) and curvature (c2), bracketed and then zoomed into, at most 25
/// evaluations. torch passes its defaults, so they are fixed here too.
LineSearch strong_wolfe(const std::vector<Tensor>& params, const Closure& closure, const std::vector<Tensor>& x,
                        double t, const Tensor& d, double f, const Tensor& g, double gtd, DType dtype) {
  constexpr double c1 = 1e-4, c2 = 0.9, tolerance_change = 1e-9;
  constexpr int max_ls = 25;
  const double d_norm = abs_max(d);
  Evaluation e = evaluate_along(params, closure, x, t, d);
  int evals = 1;
  double gtd_new = round_to(dtype, dot(e.grad, d));
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  int ls_iter = 0;
  // Bracket: an interval holding a point that satisfies the conditions, or that point itself.
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < max_ls) {
    const bool no_decrease = e.loss > f + c1 * t * gtd || (ls_iter > 1 && e.loss >= f_prev);
    if (!no_decrease && std::abs(gtd_new) <= -c2 * gtd) {  // both conditions hold at t
      bracket = {t};
      bracket_f = {e.loss};
      bracket_g = {e.grad};
      bracket_gtd = {gtd_new};
      done = true;
      break;
    }
    if (no_decrease || gtd_new >= 0) {  // a minimizer lies between t_prev and t
      bracket = {t_prev, t};
      bracket_f = {f_prev, e.loss};
      bracket_g = {g_prev, e.grad};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // Extrapolate: the cubic's minimizer between a little past t and ten times t.
    const double min_step = t + 0.01 * (t - t_prev), max_step = t * 10;
    const double next = cubic_interpolate(t_prev, f_prev, gtd_prev, t, e.loss, gtd_new, min_step, max_step);
    t_prev = t;
    f_prev = e.loss;
    g_prev = e.grad;
    gtd_prev = gtd_new;
    t = next;
    e = evaluate_along(params, closure, x, t, d);
    ++evals;
    gtd_new = round_to(dtype, dot(e.grad, d));
    ++ls_iter;
  }
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, e.loss};
    bracket_g = {g, e.grad};
    bracket_gtd = {gtd, gtd_new};
  }
  // Zoom: shrink the bracket until a point satisfies both conditions.
  bool insufficient_progress = false;
  size_t low = bracket_f[0] <= bracket_f.back() ? 0 : 1, high = 1 - low;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    // A point too near an end makes little progress: the second time in a row (or outside the
    // bracket), move it a tenth of the bracket inside.
    const double hi = std::max(bracket[0], bracket[1]), lo = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (hi - lo);
    if (std::min(hi - t, t - lo) < eps) {
      if (insufficient_progress || t >= hi || t <= lo) {
        t = std::abs(t - hi) < std::abs(t - lo) ? hi - eps : lo + eps;
        insufficient_progress = false;
      } else {
        insufficient_progress = true;
      }
    } else {
      insufficient_progress = false;
    }
    e = evaluate_along(params, closure, x, t, d);
    ++evals;
    gtd_new = round_to(dtype, dot(e.grad, d));
    ++ls_iter;
    if (e.loss > f + c1 * t * gtd || e.loss >= bracket_f[low]) {
      bracket[high] = t;
      bracket_f[high] = e.loss;
      bracket_g[high] = e.grad;
      bracket_gtd[high] = gtd_new;
      low = bracket_f[0] <= bracket_f[1] ? 0 : 1;
      high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high] - bracket[low]) >= 0) {
        bracket[high] = bracket[low];
        bracket_f[high] = bracket_f[low];
        bracket_g[high] = bracket_g[low];
        bracket_gtd[high] = bracket_gtd[low];
      }
      bracket[low] = t;
      bracket_f[low] = e.loss;
      bracket_g[low] = e.grad;
      bracket_gtd[low] = gtd_new;
    }
  }
  return LineSearch{bracket_f[low], bracket_g[low], bracket[low], evals};
}

}  // namespace

void check_lbfgs_params(const std::vector<Tensor>& params, const char* fn) {
  for (size_t i = 1; i < params.size(); ++i) {
    CT_CHECK(params[i]->dtype() == params[0]->dtype(), CT_ERROR_DTYPE, fn, ": LBFGS steps all parameters as one vector, but parameter 0 is ",
             params[0]->dtype(), " and parameter ", i, " ", params[i]->dtype(), ". Give them one dtype");
    CT_CHECK(params[i]->device() == params[0]->device(), CT_ERROR_DEVICE, fn,
             ": LBFGS steps all parameters as one vector, but parameter 0 is on ", params[0]->device(),
             " and parameter ", i, " on ", params[i]->device(), ". Keep them on one device");
  }
}

double lbfgs_step(const Hyper& h, const std::vector<Tensor>& params, LbfgsState& s, const Closure& closure) {
  const DType dtype = params[0]->dtype();
  const int64_t max_eval = h.max_eval > 0 ? h.max_eval : h.max_iter * 5 / 4;
  const double orig_loss = closure();
  double loss = orig_loss;
  int64_t current_evals = 1;
  s.func_evals += 1;
  Tensor g = flat_grad(params);
  if (abs_max(g) <= h.tolerance_grad) return orig_loss;  // already optimal

  // The closure runs in the caller's grad mode (it calls backward); the vectors here are grads and
  // their combinations, which record nothing, and the parameters change under NoRecordGuard.
  for (int64_t n_iter = 1; n_iter <= h.max_iter; ++n_iter) {
    s.n_iter += 1;
    // The direction: steepest descent first, then the two-loop recursion over the history.
    if (s.n_iter == 1) {
      s.d = ops::neg(g);
      s.old_dirs.clear();
      s.old_stps.clear();
      s.ro.clear();
      s.h_diag = 1;
    } else {
      const Tensor y = ops::sub(g, s.prev_flat_grad);
      const Tensor step = ops::mul(s.d, Scalar(s.t));
      const double ys = round_to(dtype, dot(y, step));
      if (ys > 1e-10) {  // keep the pair only where the curvature is positive
        if (static_cast<int64_t>(s.old_dirs.size()) == h.history_size) {
          s.old_dirs.erase(s.old_dirs.begin());
          s.old_stps.erase(s.old_stps.begin());
          s.ro.erase(s.ro.begin());
        }
        s.old_dirs.push_back(y);
        s.old_stps.push_back(step);
        s.ro.push_back(round_to(dtype, 1. / ys));
        s.h_diag = round_to(dtype, ys / round_to(dtype, dot(y, y)));
      }
      const size_t k = s.old_dirs.size();
      std::vector<double> al(k);
      Tensor q = ops::neg(g);
      for (size_t i = k; i-- > 0;) {
        al[i] = round_to(dtype, round_to(dtype, dot(s.old_stps[i], q)) * s.ro[i]);
        q = ops::add(q, s.old_dirs[i], Scalar(-al[i]));
      }
      Tensor r = ops::mul(q, Scalar(s.h_diag));
      for (size_t i = 0; i < k; ++i) {
        const double be = round_to(dtype, round_to(dtype, dot(s.old_dirs[i], r)) * s.ro[i]);
        r = ops::add(r, s.old_stps[i], Scalar(round_to(dtype, al[i] - be)));
      }
      s.d = r;
    }
    s.prev_flat_grad = g;
    s.prev_loss = loss;
    // The first step is scaled by the gradient's size (a 0-dim tensor of the dtype in torch).
    if (s.n_iter == 1) {
      const double inv = round_to(dtype, 1. / round_to(dtype, value(ops::sum(ops::abs(g)))));
      s.t = inv < 1. ? round_to(dtype, inv * h.lr) : h.lr;
    } else {
      s.t = h.lr;
    }
    const double gtd = round_to(dtype, dot(g, s.d));
    if (gtd > -h.tolerance_change) break;  // not a descent direction
    int64_t ls_evals = 0;
    bool optimal = false;
    if (h.strong_wolfe) {
      const std::vector<Tensor> x = clone_params(params);
      const LineSearch ls = strong_wolfe(params, closure, x, s.t, s.d, loss, g, gtd, dtype);
      loss = ls.loss;
      g = ls.grad;
      s.t = ls.t;
      ls_evals = ls.evals;
      add_step(params, s.t, s.d);
      optimal = abs_max(g) <= h.tolerance_grad;
    } else {
      add_step(params, s.t, s.d);
      if (n_iter != h.max_iter) {  // the last iteration's loss is never looked at
        loss = closure();
        g = flat_grad(params);
        optimal = abs_max(g) <= h.tolerance_grad;
        ls_evals = 1;
      }
    }
    current_evals += ls_evals;
    s.func_evals += static_cast<double>(ls_evals);
    if (n_iter == h.max_iter || current_evals >= max_eval || optimal) break;
    if (abs_max(ops::mul(s.d, Scalar(s.t))) <= h.tolerance_change) break;  // the step is tiny
    if (std::abs(loss - s.prev_loss) < h.tolerance_change) break;         // the loss stopped moving
  }
  return orig_loss;
}

}  // namespace ct::train
