// closeness.cpp - isclose: whether two tensors' elements are equal within a tolerance,
// |self - other| <= atol + |rtol * other|, as torch decides it (infinities close only to
// themselves, NaN to NaN only with equal_nan). A composite of the pointwise operators, computed in
// the inputs' dtype as torch does (integers and bool in the default dtype; complex numbers with
// their magnitudes, an element NaN when either part is).
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

// isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor
void isclose_kernel(void*, Frame& f) {
  Tensor a = Tensor::borrow(&f.tensor(0)), b = Tensor::borrow(&f.tensor(1));
  const double rtol = f.arg(2).to_double(), atol = f.arg(3).to_double();
  CT_CHECK(a->dtype() == b->dtype(), CT_ERROR_DTYPE, "isclose: self is ", a->dtype(), " ", a->sym_sizes(),
           " and other is ", b->dtype(), " ", b->sym_sizes(), "; both must have one dtype. Convert one with to()");
  CT_CHECK(rtol >= 0 && atol >= 0, CT_ERROR_INVALID_ARGUMENT, "isclose: rtol (", rtol, ") and atol (", atol,
           ") must be >= 0");
  Tensor close = eq(a, b);
  const bool complex = is_complex(a->dtype()), floating = is_floating(a->dtype()) || complex;
  if (f.arg(4).to_bool() && floating) {
    const auto nan = [complex](const Tensor& t) { return complex ? any(isnan(view_as_real(t)), -1) : isnan(t); };
    close = logical_or(close, logical_and(nan(a), nan(b)));
  }
  if (rtol == 0 && atol == 0) {
    f.outs[0] = close;
    return;
  }
  if (!floating) {
    a = to(a, runtime::default_dtype());
    b = to(b, runtime::default_dtype());
  }
  const Tensor allowed = add(abs(mul(b, Scalar(rtol))), Scalar(atol));
  const Tensor actual = abs(sub(a, b));
  f.outs[0] = logical_or(close, logical_and(isfinite(actual), le(actual, allowed)));
}

}  // namespace

void define_closeness(Registry& r) {
  r.def("isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor")
      .composite(isclose_kernel)
      .not_differentiable();
}

}  // namespace ct::ops
