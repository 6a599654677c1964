// histogram.cpp - counting values into bins: bincount (one bin per non-negative integer) and histc
// (equal-width bins between min and max), as torch.bincount and torch.histc.
//
// Composites: each element's bin is computed elementwise and the counts (or weights) are summed in
// with index_add, which is deterministic on the CPU. The number of bins of bincount and histc's
// range when min == max come from the data (Note [Values read on the host]); on the meta device
// histc has its size from `bins` and bincount cannot be sized.
#include <algorithm>
#include <cmath>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

double host_value(const Tensor& t) { return *host_contiguous(to(t, DType::Float64))->data_as<double>(); }

// bincount(Tensor self, Tensor? weights=None, int minlength=0) -> Tensor
void bincount_kernel(void*, Frame& f) {
  const char* op = "bincount";
  const Tensor self = Tensor::borrow(&f.tensor(0));
  const Tensor weights = optional_tensor(f, 1);
  const int64_t minlength = f.arg(2).to_int();
  CT_CHECK(self->dim() == 1 && is_integral(self->dtype(), false), CT_ERROR_INVALID_ARGUMENT,
           op, ": self is ", self->dtype(), " ", self->sym_sizes(), "; it takes a 1-D tensor of non-negative integers");
  CT_CHECK(minlength >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": minlength is ", minlength, "; pass 0 or more");
  CT_CHECK(!weights.defined() || (weights->dim() == 1 && weights->sym_size(0) == self->sym_size(0)), CT_ERROR_SHAPE,
           op, ": weights ", weights.defined() ? weights->sym_sizes() : self->sym_sizes(), " must match self ",
           self->sym_sizes(), " (one weight per value)");
  CT_CHECK(!self->device().is_meta(), CT_ERROR_NOT_IMPLEMENTED, op,
           ": the number of bins is read from the values, which a meta tensor lacks");
  int64_t bins = minlength;
  if (self->numel() > 0) {  // Note [Values read on the host]
    const Tensor lo = host_contiguous(to(amin(self, {}, false), DType::Int64));
    const Tensor hi = host_contiguous(to(amax(self, {}, false), DType::Int64));
    CT_CHECK(*lo->data_as<int64_t>() >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": self holds the negative value ",
             *lo->data_as<int64_t>(), "; bincount counts non-negative integers");
    bins = std::max(bins, *hi->data_as<int64_t>() + 1);
  }
  // torch's dtypes: counts are int64; float32 weights sum as float32, any other weights as float64.
  const DType dtype = !weights.defined()                    ? DType::Int64
                      : weights->dtype() == DType::Float32 ? DType::Float32
                                                            : DType::Float64;
  const Tensor source = weights.defined() ? to(weights, dtype) : full({self->numel()}, Scalar(1), dtype, self->device());
  f.outs[0] = index_add(zeros({bins}, dtype, self->device()), 0, to(self, DType::Int64), source);
}

// histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor
void histc_kernel(void*, Frame& f) {
  const char* op = "histc";
  const Tensor self = Tensor::borrow(&f.tensor(0));
  const int64_t bins = f.arg(1).to_int();
  double lo = f.arg(2).to_double(), hi = f.arg(3).to_double();
  CT_CHECK(is_floating(self->dtype()), CT_ERROR_DTYPE, op, ": self is ", self->dtype(),
           "; it takes floating values. Convert them with to(float32)");
  CT_CHECK(bins > 0, CT_ERROR_INVALID_ARGUMENT, op, ": bins is ", bins, "; pass 1 or more");
  CT_CHECK(lo <= hi, CT_ERROR_INVALID_ARGUMENT, op, ": min (", lo, ") is above max (", hi, ")");
  const DType dt = self->dtype();
  if (self->device().is_meta()) {
    f.outs[0] = empty({bins}, dt, self->device());
    return;
  }
  if (lo == hi && self->numel() > 0) {  // the range of the data; Note [Values read on the host]
    lo = host_value(amin(self, {}, false));
    hi = host_value(amax(self, {}, false));
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  CT_CHECK(std::isfinite(lo) && std::isfinite(hi), CT_ERROR_INVALID_ARGUMENT, op, ": the range [", lo, ", ", hi,
           "] is not finite", self->numel() > 0 ? " (self holds inf or NaN; pass min and max)" : "");
  // bin = (x - min) * bins / (max - min) in self's dtype, as torch rounds it; x == max joins the
  // last bin, values outside [min, max] (and NaN) count nothing.
  const Tensor x = reshape(self, DimVector{-1});
  const Tensor lo_t = full({}, Scalar(lo), dt, self->device()), hi_t = full({}, Scalar(hi), dt, self->device());
  const Tensor inside = logical_and(ge(x, lo_t), le(x, hi_t));
  const Tensor scaled = div(mul(sub(where(inside, x, lo_t), lo_t), Scalar(bins)), sub(hi_t, lo_t));
  const Tensor bin = clamp(to(scaled, DType::Int64), Scalar(0), Scalar(bins - 1));
  f.outs[0] = index_add(zeros({bins}, dt, self->device()), 0, bin, to(inside, dt));
}

}  // namespace

void define_histogram(Registry& r) {
  r.def("bincount(Tensor self, Tensor? weights=None, int minlength=0) -> Tensor")
      .composite(bincount_kernel)
      .not_differentiable();
  r.def("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor")
      .composite(histc_kernel)
      .not_differentiable();
}

}  // namespace ct::ops
