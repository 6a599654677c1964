// losses.cpp - the loss functions: mse, l1, smooth_l1, huber, binary_cross_entropy (from
// probabilities and from logits), kl_div, nll_loss (and nll_loss2d) and cross_entropy_loss.
// Composites, as in PyTorch, whose derivatives are implicit. `reduction` is aten's int (0 none,
// 1 mean, 2 sum); Python maps torch's strings onto it. float16/bfloat16 losses are computed in
// float32 and rounded once at the end.
#include <cmath>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/index/index_common.h"
#include "ops/nn/nn.h"
#include "ops/op_common.h"

namespace ct::ops {

Reduction to_reduction(const char* op, int64_t r) {
  CT_CHECK(r >= 0 && r <= 2, CT_ERROR_INVALID_ARGUMENT, op, ": reduction is ", r,
           ". Pass 0 (none), 1 (mean) or 2 (sum)");
  return static_cast<Reduction>(r);
}

Tensor reduce_loss(const Tensor& loss, Reduction r) {
  if (r == Reduction::None) return loss;
  return r == Reduction::Mean ? mean(loss) : sum(loss);
}

Tensor in_loss_precision(const Tensor& t) {
  const DType d = t->dtype();
  return d == DType::Float16 || d == DType::BFloat16 ? to(t, DType::Float32) : t;
}

DType promoted(const Tensor& a, const Tensor& b) {
  ResultType rt;
  rt.add(*a);
  rt.add(*b);
  return rt.result();
}

DType floating_pair(const char* op, const Tensor& a, const Tensor& b) {
  const DType d = promoted(a, b);
  CT_CHECK(is_floating(d), CT_ERROR_DTYPE, op, ": needs floating inputs, got ", a->dtype(), " and ", b->dtype(),
           ". Convert with to(float32)");
  return d;
}

namespace {

Tensor self_arg(const Frame& f, size_t i) { return Tensor::borrow(&f.tensor(i)); }

// The loss in the inputs' promoted dtype, rounded once.
void finish(Frame& f, const Tensor& loss, DType want) { f.outs[0] = loss->dtype() == want ? loss : to(loss, want); }

Tensor zero_like(const Tensor& t) { return zeros({}, t->dtype(), t->device()); }

// ---- mse_loss, l1_loss, smooth_l1_loss, huber_loss (Tensor self, Tensor target, int reduction=1, ...)

void mse_loss_kernel(void*, Frame& f) {
  const Tensor x = self_arg(f, 0), t = self_arg(f, 1);
  const DType d = floating_pair("mse_loss", x, t);
  const Reduction r = to_reduction("mse_loss", f.arg(2).to_int());
  const Tensor diff = sub(in_loss_precision(x), in_loss_precision(t));
  finish(f, reduce_loss(mul(diff, diff), r), d);
}

// As torch 1.13: |self - target| for any dtype (a mean of integers fails, as there).
void l1_loss_kernel(void*, Frame& f) {
  const Tensor x = self_arg(f, 0), t = self_arg(f, 1);
  const Reduction r = to_reduction("l1_loss", f.arg(2).to_int());
  const DType d = promoted(x, t);
  finish(f, reduce_loss(abs(sub(in_loss_precision(x), in_loss_precision(t))), r), d);
}

// |d| < beta: 0.5 d^2 / beta, else |d| - 0.5 beta (l1 when beta is 0).
void smooth_l1_loss_kernel(void*, Frame& f) {
  const Tensor x = self_arg(f, 0), t = self_arg(f, 1);
  const DType d = floating_pair("smooth_l1_loss", x, t);
  const Reduction r = to_reduction("smooth_l1_loss", f.arg(2).to_int());
  const double beta = f.arg(3).to_double();
  CT_CHECK(beta >= 0, CT_ERROR_INVALID_ARGUMENT, "smooth_l1_loss: beta is ", beta, ". Pass beta >= 0");
  const Tensor ad = abs(sub(in_loss_precision(x), in_loss_precision(t)));
  const Tensor loss = beta == 0 ? ad
                                : where(lt(ad, Scalar(beta)), mul(mul(ad, ad), Scalar(0.5 / beta)),
                                        sub(ad, Scalar(0.5 * beta)));
  finish(f, reduce_loss(loss, r), d);
}

// |d| < delta: 0.5 d^2, else delta (|d| - 0.5 delta). The result has self's dtype, as in torch.
void huber_loss_kernel(void*, Frame& f) {
  const Tensor x = self_arg(f, 0), t = self_arg(f, 1);
  floating_pair("huber_loss", x, t);
  const DType d = x->dtype();
  const Reduction r = to_reduction("huber_loss", f.arg(2).to_int());
  const double delta = f.arg(3).to_double();
  CT_CHECK(delta > 0, CT_ERROR_INVALID_ARGUMENT, "huber_loss: delta is ", delta, ". Pass delta > 0");
  const Tensor ad = abs(sub(in_loss_precision(x), in_loss_precision(t)));
  const Tensor loss = where(lt(ad, Scalar(delta)), mul(mul(ad, ad), Scalar(0.5)),
                            mul(sub(ad, Scalar(0.5 * delta)), Scalar(delta)));
  finish(f, reduce_loss(loss, r), d);
}

// ---- binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1)

// -(t log(x) + (1 - t) log(1 - x)), each log clamped at -100 as in PyTorch so that x = 0 or 1
// gives a finite loss.
void binary_cross_entropy_kernel(void*, Frame& f) {
  const Tensor x = self_arg(f, 0), t = self_arg(f, 1), w = optional_tensor(f, 2);
  const DType d = floating_pair("binary_cross_entropy", x, t);
  const Reduction r = to_reduction("binary_cross_entropy", f.arg(3).to_int());
  CT_CHECK(x->sym_sizes().equals(t->sym_sizes()), CT_ERROR_SHAPE, "binary_cross_entropy: target has sizes ", t->sym_sizes(),
           ", input ", x->sym_sizes(), ". Make them equal");
  if (x->device().type != DeviceType::Meta && x->numel() > 0) {
    // Note [Values read on the host]
    const Tensor lo = host_contiguous(to(amin(x, {}, false), DType::Float64)),
                 hi = host_contiguous(to(amax(x, {}, false), DType::Float64));
    const double l = *lo->data_as<double>(), h = *hi->data_as<double>();
    CT_CHECK(l >= 0 && h <= 1, CT_ERROR_INVALID_ARGUMENT, "binary_cross_entropy: input holds values outside [0, 1] (",
             l, " to ", h, "). Pass probabilities, or use binary_cross_entropy_with_logits on logits");
  }
  const Scalar floor(-100.0);
  const Tensor xu = in_loss_precision(x), tu = in_loss_precision(t);
  const Tensor log_x = clamp(log(xu), floor);
  const Tensor log_1mx = clamp(log(rsub(xu, 1)), floor);
  Tensor loss = neg(add(mul(tu, log_x), mul(rsub(tu, 1), log_1mx)));
  if (w.defined()) loss = mul(loss, in_loss_precision(w));
  finish(f, reduce_loss(loss, r), d);
}

// ---- binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None,
//                                       Tensor? pos_weight=None, int reduction=1)

// torch's stable form: with m = max(-x, 0),
// (1 - t) x + (1 + (pos_weight - 1) t) (log(exp(-m) + exp(-x - m)) + m).
void bce_with_logits_kernel(void*, Frame& f) {
  const Tensor x = self_arg(f, 0), t = self_arg(f, 1), w = optional_tensor(f, 2), pw = optional_tensor(f, 3);
  const DType d = floating_pair("binary_cross_entropy_with_logits", x, t);
  const Reduction r = to_reduction("binary_cross_entropy_with_logits", f.arg(4).to_int());
  CT_CHECK(x->sym_sizes().equals(t->sym_sizes()), CT_ERROR_SHAPE, "binary_cross_entropy_with_logits: target has sizes ",
           t->sym_sizes(), ", input ", x->sym_sizes(), ". Make them equal");
  const Tensor xu = in_loss_precision(x), tu = in_loss_precision(t);
  const Scalar zero(0.0);
  const Tensor m = clamp(neg(xu), zero);
  const Tensor softplus = add(log(add(exp(neg(m)), exp(sub(neg(xu), m)))), m);
  Tensor loss = mul(rsub(tu, 1), xu);
  if (pw.defined()) loss = add(loss, mul(add(mul(sub(in_loss_precision(pw), 1), tu), 1), softplus));
  else loss = add(loss, softplus);
  if (w.defined()) loss = mul(loss, in_loss_precision(w));
  finish(f, reduce_loss(loss, r), d);
}

// ---- kl_div(Tensor self, Tensor target, int reduction=1, *, bool log_target=False)

// target (log target - self), with 0 log 0 = 0 (xlogy); exp(target) (target - self) for log targets.
void kl_div_kernel(void*, Frame& f) {
  const Tensor x = self_arg(f, 0), t = self_arg(f, 1);
  const DType d = floating_pair("kl_div", x, t);
  const Reduction r = to_reduction("kl_div", f.arg(2).to_int());
  const Tensor xu = in_loss_precision(x), tu = in_loss_precision(t);
  Tensor loss;
  if (f.arg(3).to_bool()) {
    loss = mul(exp(tu), sub(tu, xu));
  } else {
    const Tensor safe = where(eq(tu, 0), full({}, Scalar(1.0), tu->dtype(), tu->device()), tu);
    loss = sub(mul(tu, log(safe)), mul(tu, xu));
  }
  finish(f, reduce_loss(loss, r), d);
}

// ---- nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, int ignore_index=-100)

// The class dim: 0 for one sample [C], else 1 ([N, C, d1, ...]).
int64_t class_dim(const Tensor& x) { return x->dim() == 1 ? 0 : 1; }

// The number of samples, numel / c, as a 0-dim tensor: the mean's divisor. A meta input (symbolic
// or not) has no values to divide, so its divisor is only a tensor of the right dtype.
Tensor divisor_count(const Tensor& x, int64_t c, DType dtype) {
  const double n = c == 0 ? 0.0 : x->device().is_meta() ? 1.0 : static_cast<double>(x->numel() / c);
  return full({}, Scalar(n), dtype, x->device());
}

// [C] viewed to broadcast along the class dim of x.
Tensor along_classes(const Tensor& v, const Tensor& x) {
  SymDimVector s(x->dim(), 1);
  s[static_cast<size_t>(class_dim(x))] = v->sym_numel();
  return reshape_symint(v, s);
}

struct Picked {
  Tensor index;   // the target, with ignore_index replaced by class 0: safe to gather with
  Tensor valid;   // bool, target != ignore_index; undefined when the values show none is ignored
  Tensor weight;  // per target element: weight[target], 0 where ignored; undefined when all weigh 1
};

// Validates target against x ([C] or [N, C, d1, ...]) and gathers what each target element picks.
// A gather (whose derivative scatters, as torch's nll_loss backward does), not a comparison of
// every element with its class number: O(N) instead of several passes over N x C (nll_loss of
// 4096 x 1024 took 4 ms). The check of the values also tells whether any is ignored; when none
// is (the usual case), the masks are left out: they were half of nll_loss's operators.
Picked pick(const char* op, const Tensor& x, const Tensor& target, const Tensor& w, int64_t ignore_index) {
  CT_CHECK(x->dim() >= 1, CT_ERROR_SHAPE, op, ": input is 0-dim; it needs [C] or [N, C, ...]");
  CT_CHECK(target->dtype() == DType::Int64, CT_ERROR_DTYPE, op, ": target is ", target->dtype(),
           "; class indices must be int64. Convert with to(int64)");
  // The class count bounds the targets below: specialized (a guard) when symbolic.
  const int64_t cd = class_dim(x), c = x->sym_size(cd).guard_int();
  bool fits = target->dim() + 1 == x->dim();
  for (size_t d = 0, e = 0; fits && d < x->dim(); ++d)
    if (static_cast<int64_t>(d) != cd) fits = static_cast<bool>(target->sym_size(e++) == x->sym_size(d));
  CT_CHECK(fits, CT_ERROR_SHAPE, op, ": target has sizes ", target->sym_sizes(), ", input ", x->sym_sizes(),
           ". The target needs the input's sizes without the class dim ", cd);
  CT_CHECK(!w.defined() || (w->dim() == 1 && w->sym_numel() == c), CT_ERROR_SHAPE, op, ": weight has sizes ",
           w.defined() ? w->sym_sizes() : SymIntArrayRef(), "; it needs one value per class [", c, "]");
  bool any_ignored = true;  // a meta target has no values to tell
  if (target->device().type != DeviceType::Meta) {
    const Tensor tc = host_contiguous(target);  // Note [Values read on the host]
    const int64_t* p = tc->data_as<int64_t>();
    const int64_t n = tc->numel();
    any_ignored = false;
    // The usual case in one vectorized pass: every target a class, and ignore_index none.
    const bool all_classes = n == 0 || [&] {
      const indexing::ValueRange r = indexing::value_range(p, n);
      return r.lo >= 0 && r.hi < c && (ignore_index < 0 || ignore_index >= c);
    }();
    for (int64_t i = 0; !all_classes && i < n; ++i) {
      any_ignored |= p[i] == ignore_index;
      CT_CHECK(p[i] == ignore_index || (p[i] >= 0 && p[i] < c), CT_ERROR_INDEX, op, ": target ", p[i],
               " is out of bounds for ", c, " classes. Pass class indices in [0, ", c, ") or ignore_index");
    }
  }
  Picked out;
  out.index = target;
  if (any_ignored) {
    out.valid = ne(target, Scalar(ignore_index));
    out.index = where(out.valid, target, zero_like(target));
  }
  if (w.defined()) {
    out.weight = view_symint(index_select(to(w, x->dtype()), 0, reshape(out.index, {-1})), target->sym_sizes());
    if (out.valid.defined()) out.weight = mul(out.weight, to(out.valid, x->dtype()));
  } else if (out.valid.defined()) {
    out.weight = to(out.valid, x->dtype());
  }
  return out;
}

// -weight[t] x[t] per element; the mean divides by the sum of the weights that took part. An
// ignored element contributes an exact 0, whatever x holds at class 0 (-inf times 0 would be NaN).
Tensor nll(const char* op, const Tensor& x, const Tensor& target, const Tensor& w, Reduction r, int64_t ignore_index) {
  const Picked p = pick(op, x, target, w, ignore_index);
  const int64_t cd = class_dim(x);
  Tensor picked = squeeze(gather(x, cd, unsqueeze(p.index, cd)), cd);
  if (p.valid.defined()) picked = where(p.valid, picked, zero_like(picked));
  if (p.weight.defined()) picked = mul(picked, p.weight);
  // The minus sign goes on last, onto the sum or the divisor: negation commutes with rounding, so
  // the bits are those of negating every element, without that pass.
  if (r == Reduction::None) return neg(picked);
  const Tensor total = sum(picked, {}, false);
  if (r == Reduction::Sum) return neg(total);
  // Unweighted and nothing ignored: the weights' sum is the element count.
  return div(total, p.weight.defined() ? neg(sum(p.weight, {}, false))
                                       : full({}, Scalar(-static_cast<double>(target->numel())), x->dtype(), x->device()));
}

DType floating_input(const char* op, const Tensor& x) {
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, op, ": needs a floating input, got ", x->dtype(),
           ". Convert with to(float32)");
  return x->dtype();
}

void nll_loss_kernel(void*, Frame& f) {
  const Tensor x = self_arg(f, 0);
  const DType d = floating_input("nll_loss", x);
  const Tensor w = optional_tensor(f, 2);
  finish(f, nll("nll_loss", in_loss_precision(x), self_arg(f, 1), w.defined() ? in_loss_precision(w) : w, to_reduction("nll_loss", f.arg(3).to_int()),
                f.arg(4).to_int()),
         d);
}

void nll_loss2d_kernel(void*, Frame& f) {
  const Tensor x = self_arg(f, 0), t = self_arg(f, 1);
  CT_CHECK(x->dim() == 4 && t->dim() == 3, CT_ERROR_SHAPE, "nll_loss2d: input ", x->sym_sizes(), " and target ", t->sym_sizes(),
           " must be 4-D [N, C, H, W] and 3-D [N, H, W]. Use nll_loss for other ranks");
  nll_loss_kernel(nullptr, f);
}

// ---- cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1,
//                         int ignore_index=-100, float label_smoothing=0.0)

void cross_entropy_kernel(void*, Frame& f) {
  const char* op = "cross_entropy_loss";
  const Tensor x = self_arg(f, 0), target = self_arg(f, 1), w0 = optional_tensor(f, 2);
  const DType d = floating_input(op, x);
  const Reduction r = to_reduction(op, f.arg(3).to_int());
  const int64_t ignore_index = f.arg(4).to_int();
  const double ls = f.arg(5).to_double();
  CT_CHECK(ls >= 0 && ls <= 1, CT_ERROR_INVALID_ARGUMENT, op, ": label_smoothing is ", ls, ". Pass a value in [0, 1]");
  CT_CHECK(x->dim() >= 1, CT_ERROR_SHAPE, op, ": input is 0-dim; it needs [C] or [N, C, ...]");
  const Tensor xu = in_loss_precision(x), w = w0.defined() ? in_loss_precision(w0) : w0;
  const int64_t cd = class_dim(x), c = x->sym_size(cd).guard_int();
  const int64_t cdims[1] = {cd};
  const IntArrayRef classes_dim(cdims, 1);
  const Tensor lsm = log_softmax(xu, cd);
  if (is_floating(target->dtype())) {  // class probabilities
    CT_CHECK(target->sym_sizes().equals(x->sym_sizes()), CT_ERROR_SHAPE, op, ": probability target has sizes ",
             target->sym_sizes(), ", input ", x->sym_sizes(), ". Make them equal");
    CT_CHECK(ignore_index < 0, CT_ERROR_INVALID_ARGUMENT, op,
             ": ignore_index is not supported with class probabilities. Leave it at -100");
    CT_CHECK(!w.defined() || (w->dim() == 1 && w->sym_numel() == c), CT_ERROR_SHAPE, op, ": weight has sizes ",
             w.defined() ? w->sym_sizes() : SymIntArrayRef(), "; it needs one value per class [", c, "]");
    Tensor t = in_loss_precision(target);
    if (ls > 0) t = add(mul(t, Scalar(1 - ls)), Scalar(ls / static_cast<double>(c)));
    const Tensor terms = w.defined() ? mul(mul(lsm, along_classes(w, x)), t) : mul(lsm, t);
    Tensor loss;
    if (r == Reduction::None) loss = neg(sum(terms, classes_dim, false));
    else if (r == Reduction::Sum) loss = neg(sum(terms, {}, false));
    else loss = div(neg(sum(terms, {}, false)),
                    divisor_count(x, c, xu->dtype()));
    return finish(f, loss, d);
  }
  const Tensor nll_part = nll(op, lsm, target, w, r, ignore_index);
  if (ls == 0) return finish(f, nll_part, d);
  // Label smoothing spreads ls over every class: the loss adds ls / C times the (weighted) sum of
  // -log p over the classes, with the mean normalized as nll_loss's.
  const Picked p = pick(op, lsm, target, w, ignore_index);
  const Tensor terms = w.defined() ? mul(lsm, along_classes(w, x)) : lsm;
  const Tensor ignored = eq(target, Scalar(ignore_index));
  const Tensor smooth = where(ignored, zero_like(lsm), neg(sum(terms, classes_dim, false)));
  Tensor ret;
  if (r == Reduction::None) ret = smooth;
  else if (r == Reduction::Sum) ret = sum(smooth, {}, false);
  else if (w.defined()) ret = div(sum(smooth, {}, false), sum(p.weight, {}, false));
  else ret = div(sum(smooth, {}, false), sum(to(ne(target, Scalar(ignore_index)), lsm->dtype()), {}, false));
  finish(f, add(mul(nll_part, Scalar(1 - ls)), mul(ret, Scalar(ls / static_cast<double>(c)))), d);
}

}  // namespace

void define_losses(Registry& r) {
  r.def("mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor").composite(mse_loss_kernel);
  r.def("l1_loss(Tensor self, Tensor target, int reduction=1) -> Tensor").composite(l1_loss_kernel);
  r.def("smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.0) -> Tensor")
      .composite(smooth_l1_loss_kernel);
  r.def("huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.0) -> Tensor")
      .composite(huber_loss_kernel);
  r.def("binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1) -> Tensor")
      .composite(binary_cross_entropy_kernel);
  r.def("binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, "
        "int reduction=1) -> Tensor")
      .composite(bce_with_logits_kernel);
  r.def("kl_div(Tensor self, Tensor target, int reduction=1, *, bool log_target=False) -> Tensor")
      .composite(kl_div_kernel);
  r.def("nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, int ignore_index=-100) -> Tensor")
      .composite(nll_loss_kernel);
  r.def("nll_loss2d(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, int ignore_index=-100) -> Tensor")
      .composite(nll_loss2d_kernel);
  r.def("cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, int ignore_index=-100, "
        "float label_smoothing=0.0) -> Tensor")
      .composite(cross_entropy_kernel);
}

}  // namespace ct::ops
