// norms.cpp - batch_norm (training and eval, running statistics), group_norm and rms_norm:
// composites of reductions and pointwise operators, whose derivatives are implicit.
// float16/bfloat16 inputs are normalized in float32 and rounded once at the end, as PyTorch does.
#include <cmath>
#include <optional>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_mode.h"
#include "ops/functions.h"
#include "ops/nn/nn.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {


DType opmath_dtype(DType d) { return d == DType::Float16 || d == DType::BFloat16 ? DType::Float32 : d; }
Tensor up(const Tensor& t) { return t->dtype() == opmath_dtype(t->dtype()) ? t : to(t, opmath_dtype(t->dtype())); }

// A [C] tensor viewed as [1, C, 1, ...] against an input of nd dims.
Tensor per_channel(const Tensor& t, size_t nd) {
  SymDimVector s(nd, 1);
  s[1] = t->sym_numel();
  return reshape_symint(t, s);
}

void check_channels(const char* op, const Tensor& t, const char* what, int64_t c, const Tensor& x) {
  if (!t.defined()) return;
  CT_CHECK(t->dim() == 1 && t->sym_size(0) == c, CT_ERROR_SHAPE, op, ": ", what, " has sizes ", t->sym_sizes(),
           ", expected [", c, "] for input ", x->sym_sizes(), ". Pass one value per channel");
}

// batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var,
//            bool training, float momentum, float eps, bool cudnn_enabled)
void batch_norm_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  const Tensor w = optional_tensor(f, 1), b = optional_tensor(f, 2), rm = optional_tensor(f, 3), rv = optional_tensor(f, 4);
  const bool training = f.arg(5).to_bool();
  const double momentum = f.arg(6).to_double(), eps = f.arg(7).to_double();
  const size_t nd = x->dim();
  CT_CHECK(nd >= 2, CT_ERROR_SHAPE, "batch_norm: input has sizes ", x->sym_sizes(),
           "; it needs at least 2 dims [N, C, ...]. Add a batch dim");
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, "batch_norm: needs a floating input, got ", x->dtype(),
           ". Convert with to(float32)");
  const int64_t c = x->sym_size(1).guard_int();  // channels decide the parameters' sizes: specialized
  check_channels("batch_norm", w, "weight", c, x);
  check_channels("batch_norm", b, "bias", c, x);
  check_channels("batch_norm", rm, "running_mean", c, x);
  check_channels("batch_norm", rv, "running_var", c, x);
  DimVector red{0};
  for (size_t d = 2; d < nd; ++d) red.push_back(static_cast<int64_t>(d));
  const Tensor xc = up(x);
  Tensor mean, var, centered;
  if (training) {
    const SymInt count = c ? x->sym_numel() / c : SymInt(0);
    CT_CHECK(count > 1, CT_ERROR_INVALID_ARGUMENT, "batch_norm: training needs more than 1 value per channel, input ",
             x->sym_sizes(), " has ", count, ". Use a larger batch or eval mode");
    mean = ops::mean(xc, red, true);
    centered = sub(xc, mean);
    var = ops::mean(mul(centered, centered), red, true);
    // The running statistics are state, not part of the graph: updated in place, unbiased variance.
    autograd::GradModeGuard no_grad(autograd::GradMode::NoGrad);
    const DimVector flat{c};
    if (rm.defined())
      copy_(rm, add(mul(rm, Scalar(1 - momentum)), mul(reshape(mean, flat), Scalar(momentum))));
    if (rv.defined()) {
      const double n = x->is_symbolic() ? 2.0 : static_cast<double>(count.expect_int());  // meta: no values
      const double unbias = n / (n - 1);
      copy_(rv, add(mul(rv, Scalar(1 - momentum)), mul(reshape(var, flat), Scalar(momentum * unbias))));
    }
  } else {
    CT_CHECK(rm.defined() && rv.defined(), CT_ERROR_INVALID_ARGUMENT,
             "batch_norm: eval mode (training=false) normalizes with running_mean and running_var; pass both");
    mean = per_channel(up(rm), nd);
    var = per_channel(up(rv), nd);
    centered = sub(xc, mean);
  }
  // The weight joins the per-channel scale, so the full-size passes are the centring (shared with
  // the variance in training), one product and the bias: torch folds them the same way.
  Tensor scale = rsqrt(add(var, Scalar(eps)));
  if (w.defined()) scale = mul(scale, per_channel(w, nd));
  Tensor y = mul(centered, scale);
  if (b.defined()) y = add(y, per_channel(b, nd));
  f.outs[0] = y->dtype() == x->dtype() ? y : to(y, x->dtype());
}

// group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05,
//            bool cudnn_enabled=True)
void group_norm_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  const int64_t g = f.arg(1).to_int();
  const Tensor w = optional_tensor(f, 2), b = optional_tensor(f, 3);
  const size_t nd = x->dim();
  CT_CHECK(nd >= 2, CT_ERROR_SHAPE, "group_norm: input has sizes ", x->sym_sizes(),
           "; it needs at least 2 dims [N, C, ...]. Add a batch dim");
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, "group_norm: needs a floating input, got ", x->dtype(),
           ". Convert with to(float32)");
  const SymInt n = x->sym_size(0);
  const int64_t c = x->sym_size(1).guard_int();
  CT_CHECK(g > 0 && c % g == 0, CT_ERROR_SHAPE, "group_norm: ", c, " channels (input ", x->sym_sizes(),
           ") do not split into num_groups = ", g, ". Pass a num_groups that divides the channels");
  check_channels("group_norm", w, "weight", c, x);
  check_channels("group_norm", b, "bias", c, x);
  SymInt per_group = c / g;
  for (size_t d = 2; d < nd; ++d) per_group = per_group * x->sym_size(d);
  const Tensor xg = reshape_symint(up(x), {n, g, per_group});
  const DimVector last{2};
  const Tensor xm = sub(xg, mean(xg, last, true));
  // With a concrete group size the variance is the squared 2-norm of the deviations over the count:
  // the CPU folds that norm in one pass, without the squares written out and read back
  // (group_norm(x, 8) of 16x64x32x32 float32 on one thread: 1181 -> 870 us). A symbolic
  // size keeps the mean of the squares, which needs no number for it.
  const std::optional<int64_t> count = per_group.maybe_int();
  Tensor var;
  if (count) {
    const Tensor nrm = linalg_vector_norm(xm, 2, last, true);
    var = div(mul(nrm, nrm), Scalar(static_cast<double>(*count)));
  } else {
    var = mean(mul(xm, xm), last, true);
  }
  Tensor y = reshape_symint(mul(xm, rsqrt(add(var, Scalar(f.arg(4).to_double())))),
                            x->sym_sizes());
  if (w.defined()) y = mul(y, per_channel(w, nd));
  if (b.defined()) y = add(y, per_channel(b, nd));
  f.outs[0] = y->dtype() == x->dtype() ? y : to(y, x->dtype());
}

// rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None): eps defaults
// to the machine epsilon of the computation's dtype (float32's for float16/bfloat16), as in PyTorch.
void rms_norm_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  const SymIntArrayRef ns = f.arg(1).sym_int_list();
  const Tensor w = optional_tensor(f, 2);
  bool fits = !ns.empty() && x->dim() >= ns.size();
  for (size_t i = 0; fits && i < ns.size(); ++i) fits = static_cast<bool>(x->sym_size(x->dim() - ns.size() + i) == ns[i]);
  CT_CHECK(fits, CT_ERROR_SHAPE, "rms_norm: normalized_shape ", ns, " is not the end of the input's sizes ",
           x->sym_sizes(), ". Pass the input's trailing sizes");
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, "rms_norm: needs a floating input, got ", x->dtype(),
           ". Convert with to(float32)");
  CT_CHECK(!w.defined() || w->sym_sizes().equals(ns), CT_ERROR_SHAPE, "rms_norm: weight has sizes ", w->sym_sizes(),
           ", normalized_shape is ", ns, ". Make them equal");
  const Tensor xc = up(x);
  const double eps = !f.arg(3).is_none()          ? f.arg(3).to_double()
                     : xc->dtype() == DType::Float64 ? 2.220446049250313e-16
                                                     : 1.1920928955078125e-07;
  DimVector dims;
  for (size_t d = x->dim() - ns.size(); d < x->dim(); ++d) dims.push_back(static_cast<int64_t>(d));
  const Tensor ms = mean(mul(xc, xc), dims, true);
  Tensor y = mul(xc, rsqrt(add(ms, Scalar(eps))));
  if (y->dtype() != x->dtype()) y = to(y, x->dtype());
  f.outs[0] = w.defined() ? mul(y, w) : y;
}

// instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//     Tensor? running_var, bool use_input_stats, float momentum, float eps, bool cudnn_enabled)
// batch_norm over the input viewed as [1, N * C, ...], so that each sample's channel has its own
// statistics. Running statistics stay per channel: each is the mean over the batch of the
// samples' updates (torch's rule).
void instance_norm_kernel(void*, Frame& f) {
  const char* op = "instance_norm";
  const Tensor x = Tensor::borrow(&f.tensor(0));
  const Tensor w = optional_tensor(f, 1), b = optional_tensor(f, 2), rm = optional_tensor(f, 3), rv = optional_tensor(f, 4);
  const bool use_input_stats = f.arg(5).to_bool();
  const double momentum = f.arg(6).to_double(), eps = f.arg(7).to_double();
  CT_CHECK(x->dim() >= 2, CT_ERROR_SHAPE, op, ": input has sizes ", x->sym_sizes(),
           "; it needs at least 2 dims [N, C, ...]. Add a batch dim");
  CT_CHECK(use_input_stats || (rm.defined() && rv.defined()), CT_ERROR_INVALID_ARGUMENT, op,
           ": use_input_stats is false, so running_mean and running_var are needed. Pass them");
  const int64_t n = x->sym_size(0).guard_int(), c = x->sym_size(1).guard_int();  // the repeats need them
  check_channels(op, w, "weight", c, x);
  check_channels(op, b, "bias", c, x);
  check_channels(op, rm, "running_mean", c, x);
  check_channels(op, rv, "running_var", c, x);
  if (n == 0) {  // no samples: nothing to normalize, and no statistics to take
    f.outs[0] = clone(x);
    return;
  }
  SymDimVector folded(x->sym_sizes());
  folded.erase(0);
  folded[0] = SymInt(n * c);
  folded.insert(0, SymInt(1));
  const auto per_sample = [n](const Tensor& t) { return t.defined() ? repeat(t, IntArrayRef{n}) : Tensor(); };
  const Tensor rm_n = per_sample(rm), rv_n = per_sample(rv);  // batch_norm updates these copies
  const Tensor y = batch_norm(reshape_symint(x, folded), per_sample(w), per_sample(b), rm_n, rv_n, use_input_stats,
                              momentum, eps, false);
  if (use_input_stats && rm.defined()) {
    autograd::GradModeGuard no_grad(autograd::GradMode::NoGrad);
    copy_(rm, mean(reshape(rm_n, DimVector{n, c}), IntArrayRef{0}, false));
    copy_(rv, mean(reshape(rv_n, DimVector{n, c}), IntArrayRef{0}, false));
  }
  f.outs[0] = reshape_symint(y, x->sym_sizes());
}

}  // namespace

void define_batch_group_rms_norms(Registry& r) {
  r.def("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
        "bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor")
      .composite(batch_norm_kernel);
  r.def("group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
        "bool cudnn_enabled=True) -> Tensor")
      .composite(group_norm_kernel);
  r.def("rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor")
      .composite(rms_norm_kernel);
  r.def("instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
        "bool use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor")
      .composite(instance_norm_kernel);
}

}  // namespace ct::ops
