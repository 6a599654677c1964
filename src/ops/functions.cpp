#include "ops/functions.h"

#include <string>

#include "dispatch/dispatcher.h"

namespace ct::ops {
namespace {

// Looks a built-in operator up once per call site name; the registry never moves definitions.
const OperatorDef& named(const char* base, const char* overload) {
  std::string full = overload[0] ? std::string(base) + "." + overload : std::string(base);
  return builtin_op(full.c_str());
}

Value opt(const Scalar* s) { return s ? Value(*s) : Value(); }

}  // namespace

#define CT_OP(var, full) static const OperatorDef& var = builtin_op(full)

Tensor empty(IntArrayRef sizes, DType dtype, Device device) {
  CT_OP(op, "empty");
  return call(op, {sizes, dtype, device});
}
Tensor empty_symint(SymIntArrayRef sizes, DType dtype, Device device) {
  CT_OP(op, "empty");
  return call(op, {sizes, dtype, device});
}
Tensor empty_like_sizes(const TensorImpl& like, DType dtype) {
  if (!like.is_symbolic()) return empty(like.sizes(), dtype, like.device());
  return empty_symint(like.sym_sizes(), dtype, like.device());
}
Tensor zeros(IntArrayRef sizes, DType dtype, Device device) {
  CT_OP(op, "zeros");
  return call(op, {sizes, dtype, device});
}
Tensor ones(IntArrayRef sizes, DType dtype, Device device) {
  CT_OP(op, "ones");
  return call(op, {sizes, dtype, device});
}
Tensor full(IntArrayRef sizes, const Scalar& value, DType dtype, Device device) {
  CT_OP(op, "full");
  return call(op, {sizes, value, dtype, device});
}
Tensor full_symint(SymIntArrayRef sizes, const Scalar& value, DType dtype, Device device) {
  CT_OP(op, "full");
  return call(op, {sizes, value, dtype, device});
}
Tensor arange(double start, double end, double step, DType dtype, Device device) {
  CT_OP(op, "arange");
  return call(op, {start, end, step, dtype, device});
}
Tensor linspace(double start, double end, int64_t steps, DType dtype, Device device) {
  CT_OP(op, "linspace");
  return call(op, {start, end, steps, dtype, device});
}
Tensor eye(int64_t n, int64_t m, DType dtype, Device device) {
  CT_OP(op, "eye");
  return call(op, {n, m, dtype, device});
}

void copy_(const Tensor& self, const Tensor& src) {
  CT_OP(op, "copy_");
  call(op, {self, src});
}
Tensor to(const Tensor& a, DType dtype) {
  CT_OP(op, "to.dtype");
  return call(op, {a, dtype});
}
Tensor to_device(const Tensor& a, Device device, DType dtype) {
  CT_OP(op, "to.device");
  return call(op, {a, device, dtype, false});
}
Tensor contiguous(const Tensor& a) {
  if (a->is_contiguous()) return a;  // the operator would return a itself; skip the dispatch
  CT_OP(op, "contiguous");
  return call(op, {a});
}
Tensor clone(const Tensor& a) {
  CT_OP(op, "clone");
  return call(op, {a});
}

Tensor binary(const char* name, const Tensor& a, const Tensor& b) { return call(named(name, "Tensor"), {a, b}); }
Tensor binary_scalar(const char* name, const Tensor& a, const Scalar& b) {
  return call(named(name, "Scalar"), {a, b});
}
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  CT_OP(op, "add.Tensor");
  return call(op, {a, b, alpha});
}
Tensor sub(const Tensor& a, const Tensor& b) {
  CT_OP(op, "sub.Tensor");
  return call(op, {a, b, 1});
}
Tensor mul(const Tensor& a, const Tensor& b) {
  CT_OP(op, "mul.Tensor");
  return call(op, {a, b});
}
Tensor mul(const Tensor& a, const Scalar& b) {
  CT_OP(op, "mul.Scalar");
  return call(op, {a, b});
}
Tensor div(const Tensor& a, const Tensor& b) {
  CT_OP(op, "div.Tensor");
  return call(op, {a, b});
}
Tensor neg(const Tensor& a) {
  CT_OP(op, "neg");
  return call(op, {a});
}
Tensor rsub(const Tensor& a, const Scalar& b) {
  CT_OP(op, "rsub.Scalar");
  return call(op, {a, b, 1});
}
void add_(const Tensor& a, const Tensor& b) {
  CT_OP(op, "add_.Tensor");
  call(op, {a, b, 1});
}
Tensor unary(const char* name, const Tensor& a) { return call(named(name, ""), {a}); }
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  CT_OP(op, "where.self");
  return call(op, {cond, a, b});
}
Tensor clamp(const Tensor& a, const Scalar* lo, const Scalar* hi) {
  CT_OP(op, "clamp");
  return call(op, {a, opt(lo), opt(hi)});
}

Tensor view(const Tensor& a, IntArrayRef sizes) {
  CT_OP(op, "view");
  return call(op, {a, sizes});  // an IntList: its values are checked as they are read, never taken for nodes
}
Tensor reshape(const Tensor& a, IntArrayRef sizes) {
  CT_OP(op, "reshape");
  return call(op, {a, sizes});  // an IntList: its values are checked as they are read, never taken for nodes
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
Tensor permute(const Tensor& a, IntArrayRef dims) {
  CT_OP(op, "permute");
  return call(op, {a, dims});
}
Tensor transpose(const Tensor& a, int64_t d0, int64_t d1) {
  CT_OP(op, "transpose.int");
  return call(op, {a, d0, d1});
}
Tensor expand(const Tensor& a, IntArrayRef sizes) {
  CT_OP(op, "expand");
  return call(op, {a, sizes});  // an IntList: its values are checked as they are read, never taken for nodes
}
Tensor squeeze(const Tensor& a) {
  CT_OP(op, "squeeze");
  return call(op, {a});
}
Tensor squeeze_dim(const Tensor& a, int64_t dim) {
  CT_OP(op, "squeeze.dim");
  return call(op, {a, dim});
}
Tensor unsqueeze(const Tensor& a, int64_t dim) {
  CT_OP(op, "unsqueeze");
  return call(op, {a, dim});
}
Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length) {
  CT_OP(op, "narrow");
  return call(op, {a, dim, start, length});
}
Tensor select(const Tensor& a, int64_t dim, int64_t index) {
  CT_OP(op, "select.int");
  return call(op, {a, dim, index});
}
Tensor flatten(const Tensor& a, int64_t start, int64_t end) {
  CT_OP(op, "flatten.using_ints");
  return call(op, {a, start, end});
}
Tensor cat(ArrayRef<const TensorImpl*> tensors, int64_t dim) {
  CT_OP(op, "cat");
  return call(op, {tensors, dim});
}
Tensor repeat(const Tensor& a, IntArrayRef repeats) {
  CT_OP(op, "repeat");
  return call(op, {a, repeats});
}
Tensor flip(const Tensor& a, IntArrayRef dims) {
  CT_OP(op, "flip");
  return call(op, {a, dims});
}
Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2) {
  CT_OP(op, "diagonal");
  return call(op, {a, offset, dim1, dim2});
}

Tensor reduce(const char* name, const Tensor& a, IntArrayRef dims, bool keepdim) {
  return call(named(name, "dim_IntList"), {a, dims, keepdim});
}
Tensor arg_reduce(const char* name, const Tensor& a, const int64_t* dim, bool keepdim) {
  return call(named(name, ""), {a, dim ? Value(*dim) : Value(), keepdim});
}

Tensor mm(const Tensor& a, const Tensor& b) {
  CT_OP(op, "mm");
  return call(op, {a, b});
}
Tensor bmm(const Tensor& a, const Tensor& b) {
  CT_OP(op, "bmm");
  return call(op, {a, b});
}
Tensor matmul(const Tensor& a, const Tensor& b) {
  CT_OP(op, "matmul");
  return call(op, {a, b});
}

#undef CT_OP

Tensor scatter_back(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes, bool keepdim) {
  static const OperatorDef& scatter_add = builtin_op("scatter_add");
  if (sizes.empty()) return grad;  // a 0-dim input: the one element was picked
  const Tensor g = keepdim ? grad : unsqueeze(grad, dim), ix = keepdim ? indices : unsqueeze(indices, dim);
  return call(scatter_add, {zeros(sizes, grad->dtype(), grad->device()), dim, ix, g});
}

}  // namespace ct::ops

