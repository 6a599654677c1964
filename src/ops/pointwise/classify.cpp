// classify.cpp - isposinf, isneginf and isreal: per-element predicates beside isnan, isinf and
// isfinite (pointwise/unary.cpp), composites of them. Every dtype is accepted; integers and bool
// are never infinite, and an element of a real dtype is real.
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// isposinf(Tensor self) -> Tensor and isneginf(Tensor self) -> Tensor
template <bool Positive>
void signed_inf_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  f.outs[0] = logical_and(isinf(self), Positive ? gt(self, Scalar(0)) : lt(self, Scalar(0)));
}

// isreal(Tensor self) -> Tensor: a complex element is real when its imaginary part is 0.
void isreal_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  if (is_complex(a.dtype())) {
    f.outs[0] = eq(imag(Tensor::borrow(&a)), Scalar(0));
    return;
  }
  f.outs[0] = full_symint(a.sym_sizes(), Scalar(true), DType::Bool, a.device());
}

}  // namespace

void define_classify(Registry& r) {
  r.def("isposinf(Tensor self) -> Tensor").composite(signed_inf_kernel<true>).not_differentiable();
  r.def("isneginf(Tensor self) -> Tensor").composite(signed_inf_kernel<false>).not_differentiable();
  r.def("isreal(Tensor self) -> Tensor").composite(isreal_kernel).not_differentiable();
}

}  // namespace ct::ops
