#include "ops/functions.h"

#include "dispatch/dispatcher.h"

namespace ct::ops {

#define CT_OP(var, full) static const OperatorDef& var = builtin_op(full)

Tensor empty_symint(SymIntArrayRef sizes, DType dtype, Device device) {
  CT_OP(op, "empty");
  return call(op, {sizes, dtype, device});
}
Tensor empty_like_sizes(const TensorImpl& like, DType dtype) {
  if (!like.is_symbolic()) return empty(like.sizes(), dtype, like.device());
  return empty_symint(like.sym_sizes(), dtype, like.device());
}
Tensor full_symint(SymIntArrayRef sizes, const Scalar& value, DType dtype, Device device) {
  CT_OP(op, "full");
  return call(op, {sizes, value, dtype, device});
}

Tensor expect_contiguous(const Tensor& a) {
  if (a->is_contiguous()) return a;  // the operator would return a itself; skip the dispatch
  return contiguous(a);
}

Tensor view_symint(const Tensor& a, SymIntArrayRef sizes) {
  CT_OP(op, "view");
  return call(op, {a, sizes});
}
Tensor expand_symint(const Tensor& a, SymIntArrayRef sizes) {
  CT_OP(op, "expand");
  return call(op, {a, sizes});
}
Tensor narrow_symint(const Tensor& a, int64_t dim, SymInt start, SymInt length) {
  CT_OP(op, "narrow");
  return call(op, {a, dim, start, length});
}
Tensor reshape_symint(const Tensor& a, SymIntArrayRef sizes) {
  CT_OP(op, "reshape");
  return call(op, {a, sizes});
}

#undef CT_OP

Tensor scatter_back(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes, bool keepdim) {
  if (sizes.empty()) return grad;  // a 0-dim input: the one element was picked
  const Tensor g = keepdim ? grad : unsqueeze(grad, dim), ix = keepdim ? indices : unsqueeze(indices, dim);
  return scatter_add(zeros(sizes, grad->dtype(), grad->device()), dim, ix, g);
}

}  // namespace ct::ops
