// quantile.cpp - quantile and nanquantile: the q-th quantiles of the values along dim (all values
// when dim is None), interpolated between the two nearest ranks as torch does.
//
// A composite over sort and gather, so the derivative flows to the picked values (and, for
// 'linear' and 'midpoint', is shared between the two neighbours by the lerp weight). quantile gives
// NaN for a row holding a NaN (sort puts NaNs last, so the rank is moved onto them); nanquantile
// ranks among the non-NaN values only, and gives NaN for a row of NaNs.
#include <cstring>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

enum class Interpolation { Linear, Lower, Higher, Midpoint, Nearest };

Interpolation parse_interpolation(const char* op, const char* s) {
  static constexpr const char* kNames[] = {"linear", "lower", "higher", "midpoint", "nearest"};
  for (int i = 0; i < 5; ++i) {
    if (std::strcmp(s, kNames[i]) == 0) return static_cast<Interpolation>(i);
  }
  fail(CT_ERROR_INVALID_ARGUMENT, str(op, ": interpolation is '", s,
                                     "'; pass 'linear', 'lower', 'higher', 'midpoint' or 'nearest'"));
}

// quantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, str interpolation='linear')
// quantile.scalar(Tensor self, float q, ...) takes one q.
template <bool IgnoreNan, bool ScalarQ>
void quantile_kernel(void*, Frame& f) {
  const char* op = IgnoreNan ? "nanquantile" : "quantile";
  const Tensor self = Tensor::borrow(&f.tensor(0));
  CT_CHECK(is_floating(self->dtype()), CT_ERROR_DTYPE, op, ": self is ", self->dtype(),
           "; it takes float32 or float64 values. Convert them with to(float32)");
  Tensor q;
  if (ScalarQ) {
    const double v = f.arg(1).to_double();
    CT_CHECK(v >= 0 && v <= 1, CT_ERROR_INVALID_ARGUMENT, op, ": q is ", v, "; it must be in [0, 1]");
    q = full({}, Scalar(v), self->dtype(), self->device());
  } else {
    q = Tensor::borrow(&f.tensor(1));
    CT_CHECK(q->dim() <= 1, CT_ERROR_SHAPE, op, ": q is ", q->sym_sizes(), "; it takes a number or a 1-D tensor");
    CT_CHECK(q->dtype() == self->dtype(), CT_ERROR_DTYPE, op, ": self is ", self->dtype(), " but q is ", q->dtype(),
             ". Give q self's dtype");
    if (!q->device().is_meta() && q->numel() > 0) {  // Note [Values read on the host]
      const Tensor lo = host_contiguous(to(amin(q, {}, false), DType::Float64));
      const Tensor hi = host_contiguous(to(amax(q, {}, false), DType::Float64));
      CT_CHECK(*lo->data_as<double>() >= 0 && *hi->data_as<double>() <= 1, CT_ERROR_INVALID_ARGUMENT, op,
               ": q holds values outside [0, 1] (from ", *lo->data_as<double>(), " to ", *hi->data_as<double>(), ")");
    }
  }
  const int64_t nd = static_cast<int64_t>(self->dim());
  const int64_t dim = f.arg(2).is_none() ? 0 : wrap_dim(op, f.arg(2).to_int(), nd == 0 ? 1 : nd);
  const bool all = f.arg(2).is_none() || nd == 0;  // a 0-dim self has one value along dim 0
  const bool keepdim = f.arg(3).to_bool();
  const Interpolation how = parse_interpolation(op, f.arg(4).str());
  // Values to rank along the last dim: [..., n].
  const Tensor x = all ? reshape(self, DimVector{-1}) : movedim(self, dim, -1);
  const int64_t n = x->sym_size(x->dim() - 1).guard_int();  // ranks scale by it: a symbolic n specializes
  CT_CHECK(n > 0, CT_ERROR_SHAPE, op, ": self ", self->sym_sizes(), " has no values to take quantiles of");
  const Tensor sorted = sort(x, -1, false)[0];
  const int64_t last = n - 1;
  const Tensor nan_row = any(isnan(sorted), -1, true);  // [..., 1]
  const Tensor qs = reshape(q, DimVector{-1});           // [Q]
  Tensor ranks;                                          // [..., Q]
  if (IgnoreNan) {
    const Tensor valid = sum(logical_not(isnan(sorted)), IntArrayRef{-1}, true);
    ranks = mul(qs, sub(to(valid, self->dtype()), Scalar(1)));
    ranks = clamp(ranks, Scalar(0), std::nullopt);  // a row of NaNs ranks at 0 (a NaN)
  } else {
    ranks = mul(qs, Scalar(static_cast<double>(last)));
    ranks = where(nan_row, full({}, Scalar(static_cast<double>(last)), self->dtype(), self->device()), ranks);
  }
  if (how == Interpolation::Nearest) ranks = round(ranks);
  const Tensor below = to(ranks, DType::Int64);
  Tensor out;
  if (how == Interpolation::Lower || how == Interpolation::Nearest) {
    out = gather(sorted, -1, below);
  } else {
    const Tensor above = clamp(to(ceil(ranks), DType::Int64), std::nullopt, Scalar(last));
    const Tensor lo = gather(sorted, -1, below), hi = gather(sorted, -1, above);
    out = how == Interpolation::Higher     ? hi
          : how == Interpolation::Midpoint ? lerp(lo, hi, Scalar(0.5))
                                           : lerp(lo, hi, sub(ranks, floor(ranks)));
  }
  // [..., Q] -> [Q, ...], with the reduced dims kept as size 1 when asked.
  out = movedim(out, -1, 0);
  if (keepdim) {
    if (all) {
      SymDimVector sizes(static_cast<size_t>(nd) + 1, SymInt(1));
      sizes[0] = out->sym_size(0);
      out = reshape_symint(out, sizes);
    } else {
      out = unsqueeze(out, dim + 1);
    }
  } else if (all) {
    out = reshape_symint(out, SymDimVector{out->sym_size(0)});
  }
  f.outs[0] = ScalarQ || q->dim() == 0 ? squeeze(out, 0) : out;
}

}  // namespace

void define_quantile(Registry& r) {
  const std::string tail = "int? dim=None, bool keepdim=False, *, str interpolation='linear') -> Tensor";
  r.def("quantile(Tensor self, Tensor q, " + tail).composite(quantile_kernel<false, false>);
  r.def("quantile.scalar(Tensor self, float q, " + tail).composite(quantile_kernel<false, true>);
  r.def("nanquantile(Tensor self, Tensor q, " + tail).composite(quantile_kernel<true, false>);
  r.def("nanquantile.scalar(Tensor self, float q, " + tail).composite(quantile_kernel<true, true>);
}

}  // namespace ct::ops
