// covariance.cpp - cov and corrcoef: the covariance and the Pearson correlation matrices of the
// variables in the rows of a [variables, observations] tensor, as torch.cov and torch.corrcoef.
//
// Composites (mean, products, mm), so their derivatives come from those operators. cov takes
// integer frequency weights and float observation weights, with torch's normalization for each.
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

// Weights must be 1-D, one per observation, non-negative (read on the host; Note [Values read on
// the host]).
void check_weights(const char* op, const char* name, const Tensor& w, int64_t observations, bool integral) {
  CT_CHECK(w->dim() <= 1 && (w->dim() == 0 ? SymInt(1) : w->sym_size(0)) == observations, CT_ERROR_SHAPE, op, ": ", name, " is ",
           w->sym_sizes(), "; it takes one weight per observation (", observations, ")");
  CT_CHECK(integral ? is_integral(w->dtype(), false) : is_floating(w->dtype()), CT_ERROR_DTYPE,
           op, ": ", name, " is ", w->dtype(), "; it takes ", integral ? "integer" : "floating", " weights");
  if (!w->device().is_meta() && w->numel() > 0) {
    const double lo = *host_contiguous(to(amin(w, {}, false), DType::Float64))->data_as<double>();
    CT_CHECK(lo >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": ", name, " holds the negative weight ", lo);
  }
}

Tensor covariance(const char* op, const Tensor& self, int64_t correction, const Tensor& fweights,
                  const Tensor& aweights) {
  CT_CHECK(self->dim() <= 2, CT_ERROR_SHAPE, op, ": self is ", self->sym_sizes(),
           "; it takes [variables, observations] (or one variable's observations)");
  CT_CHECK(self->dtype() != DType::Bool, CT_ERROR_DTYPE, op, ": self is bool; convert it to a number dtype");
  const Tensor x = self->dim() < 2 ? reshape(self, DimVector{1, -1}) : self;
  const int64_t observations = x->sym_size(1).guard_int();  // the normalization divides by it
  if (fweights.defined()) check_weights(op, "fweights", fweights, observations, true);
  if (aweights.defined()) check_weights(op, "aweights", aweights, observations, false);
  // Integers compute in the default float dtype; weights join the promotion.
  DType dt = is_floating(x->dtype()) ? x->dtype() : runtime::default_dtype();
  if (aweights.defined()) dt = promote_types(dt, aweights->dtype());
  const Tensor xf = to(x, dt);
  Tensor w;
  if (fweights.defined()) w = to(reshape(fweights, DimVector{-1}), dt);
  if (aweights.defined()) {
    const Tensor a = to(reshape(aweights, DimVector{-1}), dt);
    w = w.defined() ? mul(w, a) : a;
  }
  Tensor avg, w_sum, norm;
  if (!w.defined()) {
    avg = mean(xf, IntArrayRef{1}, false);
    norm = full({}, Scalar(static_cast<double>(observations - correction)), dt, x->device());
  } else {
    w_sum = sum(w, std::nullopt, false);
    avg = div(sum(mul(xf, w), IntArrayRef{1}, false), w_sum);
    if (correction == 0) {
      norm = w_sum;
    } else if (!aweights.defined()) {
      norm = sub(w_sum, Scalar(correction));
    } else {
      const Tensor a = to(reshape(aweights, DimVector{-1}), dt);
      norm = sub(w_sum, div(mul(sum(mul(w, a), std::nullopt, false), Scalar(correction)), w_sum));
    }
  }
  // A normalization at or below zero gives inf/NaN entries, as torch's (which also warns).
  norm = clamp(norm, Scalar(0), std::nullopt);
  const Tensor centered = sub(xf, unsqueeze(avg, 1));
  const Tensor right = w.defined() ? mul(centered, w) : centered;
  const Tensor c = div(mm(centered, transpose(right, 0, 1)), norm);
  return self->dim() < 2 ? reshape(c, DimVector{}) : c;
}

// cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor
void cov_kernel(void*, Frame& f) {
  f.outs[0] = covariance("cov", Tensor::borrow(&f.tensor(0)), f.arg(1).to_int(), optional_tensor(f, 2),
                         optional_tensor(f, 3));
}

// corrcoef(Tensor self) -> Tensor: cov / (stddev_i stddev_j), clipped to [-1, 1] against rounding.
void corrcoef_kernel(void*, Frame& f) {
  const Tensor c = covariance("corrcoef", Tensor::borrow(&f.tensor(0)), 1, Tensor(), Tensor());
  if (c->dim() == 0) {
    f.outs[0] = div(c, c);  // one variable: 1, or NaN when it does not vary
    return;
  }
  const Tensor stddev = sqrt(diagonal(c, 0, 0, 1));
  const Tensor r = div(div(c, unsqueeze(stddev, 1)), unsqueeze(stddev, 0));
  f.outs[0] = clamp(r, Scalar(-1), Scalar(1));
}

}  // namespace

void define_covariance(Registry& r) {
  r.def("cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor")
      .composite(cov_kernel);
  r.def("corrcoef(Tensor self) -> Tensor").composite(corrcoef_kernel);
}

}  // namespace ct::ops
