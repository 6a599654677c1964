// margin_losses.cpp - the losses of metric learning and ranking, which compare a score or a
// distance with a margin: margin_ranking_loss, hinge_embedding_loss, soft_margin_loss,
// cosine_embedding_loss, triplet_margin_loss; and poisson_nll_loss. Composites with PyTorch's
// formulas (their derivatives are implicit); `reduction` is aten's int (0 none, 1 mean, 2 sum).
// float16/bfloat16 inputs are computed in float32 and rounded once (triplet_margin_loss's distances
// in the inputs' dtype, as pairwise_distance computes them).
#include <cmath>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/nn/nn.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

Tensor arg_tensor(const Frame& f, size_t i) { return Tensor::borrow(&f.tensor(i)); }
Tensor zero_of(const Tensor& t) { return zeros({}, t->dtype(), t->device()); }
bool is_half(DType d) { return d == DType::Float16 || d == DType::BFloat16; }
// The loss, computed in float32 for float16/bfloat16 inputs (`inputs`, their promoted dtype),
// rounded back to it once; other dtypes are the formula's own.
void finish(Frame& f, const Tensor& loss, DType inputs) {
  f.outs[0] = is_half(inputs) && loss->dtype() != inputs ? to(loss, inputs) : loss;
}

// margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, int reduction=1):
// max(0, -target (input1 - input2) + margin); the three inputs have one number of dims.
void margin_ranking_loss_kernel(void*, Frame& f) {
  const Tensor a = arg_tensor(f, 0), b = arg_tensor(f, 1), t = arg_tensor(f, 2);
  CT_CHECK(a->dim() == b->dim() && b->dim() == t->dim(), CT_ERROR_SHAPE, "margin_ranking_loss: input1 ", a->sym_sizes(),
           ", input2 ", b->sym_sizes(), " and target ", t->sym_sizes(), " must have the same number of dims");
  const Reduction r = to_reduction("margin_ranking_loss", f.arg(4).to_int());
  ResultType inputs;
  for (const Tensor* x : {&a, &b, &t}) inputs.add(**x);
  const Tensor diff = sub(in_loss_precision(a), in_loss_precision(b));
  const Tensor loss = clamp_min(add(mul(neg(in_loss_precision(t)), diff), Scalar(f.arg(3).to_double())), 0);
  finish(f, reduce_loss(loss, r), inputs.result());
}

// hinge_embedding_loss(Tensor self, Tensor target, float margin=1.0, int reduction=1): self where
// target is 1, max(0, margin - self) where it is -1 (other targets add both, as PyTorch).
void hinge_embedding_loss_kernel(void*, Frame& f) {
  const Tensor x = arg_tensor(f, 0), t = arg_tensor(f, 1);
  const Reduction r = to_reduction("hinge_embedding_loss", f.arg(3).to_int());
  const Tensor xu = in_loss_precision(x);
  const Tensor zero = zero_of(xu);
  const Tensor margin_part = where(ne(t, 1), clamp_min(rsub(xu, Scalar(f.arg(2).to_double())), 0), zero);
  const Tensor self_part = where(ne(t, -1), xu, zero);
  finish(f, reduce_loss(add(margin_part, self_part), r), promoted(x, t));
}

// soft_margin_loss(Tensor self, Tensor target, int reduction=1): log(1 + exp(-target self)).
void soft_margin_loss_kernel(void*, Frame& f) {
  const Tensor x = arg_tensor(f, 0), t = arg_tensor(f, 1);
  const DType d = floating_pair("soft_margin_loss", x, t);
  const Reduction r = to_reduction("soft_margin_loss", f.arg(2).to_int());
  const Tensor loss = log1p(exp(mul(neg(in_loss_precision(x)), in_loss_precision(t))));
  finish(f, reduce_loss(loss, r), d);
}

// cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, int
// reduction=1): 1 - cos(x1, x2) where target is 1, max(0, cos - margin) where it is -1. Rows of
// [N, D] inputs with an [N] target, or one pair of [D] vectors with a 0-dim target.
void cosine_embedding_loss_kernel(void*, Frame& f) {
  const Tensor a = arg_tensor(f, 0), b = arg_tensor(f, 1), t = arg_tensor(f, 2);
  const int64_t td = static_cast<int64_t>(t->dim());
  CT_CHECK(td <= 1, CT_ERROR_SHAPE, "cosine_embedding_loss: target ", t->sym_sizes(),
           " must be 0-dim or 1-D (one target per pair); several targets per pair are not supported");
  CT_CHECK(static_cast<int64_t>(a->dim()) == td + 1 && static_cast<int64_t>(b->dim()) == td + 1, CT_ERROR_SHAPE,
           "cosine_embedding_loss: a ", td, "-D target ", t->sym_sizes(), " needs ", td + 1, "-D inputs, got ",
           a->sym_sizes(), " and ", b->sym_sizes());
  const Reduction r = to_reduction("cosine_embedding_loss", f.arg(4).to_int());
  const Tensor x1 = in_loss_precision(a), x2 = in_loss_precision(b);
  const std::vector<int64_t> dims{td};
  constexpr double kEps = 1e-12;  // PyTorch's, added to each squared magnitude
  const Tensor dot = sum(mul(x1, x2), IntArrayRef(dims));
  const Tensor m1 = add(sum(mul(x1, x1), IntArrayRef(dims)), Scalar(kEps));
  const Tensor m2 = add(sum(mul(x2, x2), IntArrayRef(dims)), Scalar(kEps));
  const Tensor cos = div(dot, sqrt(mul(m1, m2)));
  const Tensor zero = zero_of(cos);
  const Tensor pos = where(eq(t, 1), rsub(cos, 1), zero);
  const Tensor negative = where(eq(t, -1), clamp_min(sub(cos, Scalar(f.arg(3).to_double())), 0), zero);
  finish(f, reduce_loss(add(pos, negative), r), promoted(a, b));
}

Tensor distance(const Tensor& x1, const Tensor& x2, double p, double eps) {
  return pairwise_distance(x1, x2, p, eps, false);
}

// triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, float p=2,
// float eps=1e-06, bool swap=False, int reduction=1): max(0, margin + d(a, p) - d(a, n)), d the
// pairwise distance; with swap, d(a, n) is at most d(p, n).
void triplet_margin_loss_kernel(void*, Frame& f) {
  const Tensor a = arg_tensor(f, 0), pos = arg_tensor(f, 1), negative = arg_tensor(f, 2);
  CT_CHECK(a->dim() == pos->dim() && pos->dim() == negative->dim(), CT_ERROR_SHAPE, "triplet_margin_loss: anchor ",
           a->sym_sizes(), ", positive ", pos->sym_sizes(), " and negative ", negative->sym_sizes(),
           " must have the same number of dims");
  const double margin = f.arg(3).to_double(), p = f.arg(4).to_double(), eps = f.arg(5).to_double();
  const Reduction r = to_reduction("triplet_margin_loss", f.arg(7).to_int());
  const Tensor d_pos = distance(a, pos, p, eps);
  Tensor d_neg = distance(a, negative, p, eps);
  if (f.arg(6).to_bool()) d_neg = minimum(d_neg, distance(pos, negative, p, eps));
  f.outs[0] = reduce_loss(clamp_min(sub(add(d_pos, Scalar(margin)), d_neg), 0), r);
}

// poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int
// reduction): exp(input) - target input for log-rate inputs, else input - target log(input + eps);
// full adds Stirling's approximation of log(target!) where target > 1. Integer inputs give the
// formula's floating result, as in PyTorch.
void poisson_nll_loss_kernel(void*, Frame& f) {
  const Tensor x = arg_tensor(f, 0), t = arg_tensor(f, 1);
  const Reduction r = to_reduction("poisson_nll_loss", f.arg(5).to_int());
  const Tensor xu = in_loss_precision(x), tu = in_loss_precision(t);
  Tensor loss = f.arg(2).to_bool() ? sub(exp(xu), mul(tu, xu)) : sub(xu, mul(tu, log(add(xu, Scalar(f.arg(4).to_double())))));
  if (f.arg(3).to_bool()) {
    const Tensor stirling = add(sub(mul(tu, log(tu)), tu), mul(log(mul(tu, Scalar(2 * M_PI))), Scalar(0.5)));
    loss = add(loss, masked_fill(stirling, le(tu, 1), Scalar(0)));
  }
  finish(f, reduce_loss(loss, r), promoted(x, t));
}

}  // namespace

void define_margin_losses(Registry& r) {
  r.def("margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, int reduction=1) -> Tensor")
      .composite(margin_ranking_loss_kernel);
  r.def("hinge_embedding_loss(Tensor self, Tensor target, float margin=1.0, int reduction=1) -> Tensor")
      .composite(hinge_embedding_loss_kernel);
  r.def("soft_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor").composite(soft_margin_loss_kernel);
  r.def("cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, int reduction=1) -> Tensor")
      .composite(cosine_embedding_loss_kernel);
  r.def("triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, float p=2, "
        "float eps=1e-06, bool swap=False, int reduction=1) -> Tensor")
      .composite(triplet_margin_loss_kernel);
  r.def("poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction) -> Tensor")
      .composite(poisson_nll_loss_kernel);
}

}  // namespace ct::ops
