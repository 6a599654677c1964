// functions.h - the C++ API over the dispatcher: one typed function per operator overload.
//
// Each builds its argument frame on the stack and dispatches; the operator's behaviour lives in its
// definition under src/ops/<family>/. src/capi and composite operators call these.
#pragma once

#include <vector>

#include "core/scalar.h"
#include "core/tensor.h"

namespace ct::ops {

// Factories.
Tensor empty(IntArrayRef sizes, DType dtype, Device device);
/// empty with sizes that may be symbolic (meta device only when they are), as PyTorch's *_symint.
Tensor empty_symint(SymIntArrayRef sizes, DType dtype, Device device);
/// empty with like's sizes (symbolic or not) and device.
Tensor empty_like_sizes(const TensorImpl& like, DType dtype);
Tensor zeros(IntArrayRef sizes, DType dtype, Device device);
Tensor ones(IntArrayRef sizes, DType dtype, Device device);
Tensor full(IntArrayRef sizes, const Scalar& value, DType dtype, Device device);
Tensor full_symint(SymIntArrayRef sizes, const Scalar& value, DType dtype, Device device);
Tensor arange(double start, double end, double step, DType dtype, Device device);
Tensor linspace(double start, double end, int64_t steps, DType dtype, Device device);
Tensor eye(int64_t n, int64_t m, DType dtype, Device device);

// Copies and conversion.
void copy_(const Tensor& self, const Tensor& src);
Tensor to(const Tensor& a, DType dtype);
/// a on device with dtype (to.device); a itself when it is already there.
Tensor to_device(const Tensor& a, Device device, DType dtype);
Tensor contiguous(const Tensor& a);
Tensor clone(const Tensor& a);

// Elementwise. `name` is the operator's base name: "add", "sub", "mul", "div", "pow", "maximum",
// "minimum", "eq", "ne", "lt", "le", "gt", "ge".
Tensor binary(const char* name, const Tensor& a, const Tensor& b);
Tensor binary_scalar(const char* name, const Tensor& a, const Scalar& b);
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = Scalar(1));
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Scalar& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor neg(const Tensor& a);
/// b - a (rsub.Scalar).
Tensor rsub(const Tensor& a, const Scalar& b);
/// a += b, in place (add_.Tensor).
void add_(const Tensor& a, const Tensor& b);
/// A unary operator by name: "exp", "log", "cos", ...
Tensor unary(const char* name, const Tensor& a);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& a, const Scalar* lo, const Scalar* hi);

// Shapes and views.
Tensor view(const Tensor& a, IntArrayRef sizes);
Tensor reshape(const Tensor& a, IntArrayRef sizes);
/// view and reshape with sizes that may be symbolic.
Tensor view_symint(const Tensor& a, SymIntArrayRef sizes);
Tensor expand_symint(const Tensor& a, SymIntArrayRef sizes);
Tensor narrow_symint(const Tensor& a, int64_t dim, SymInt start, SymInt length);
Tensor reshape_symint(const Tensor& a, SymIntArrayRef sizes);
Tensor permute(const Tensor& a, IntArrayRef dims);
Tensor transpose(const Tensor& a, int64_t d0, int64_t d1);
Tensor expand(const Tensor& a, IntArrayRef sizes);
Tensor squeeze(const Tensor& a);
Tensor squeeze_dim(const Tensor& a, int64_t dim);
Tensor unsqueeze(const Tensor& a, int64_t dim);
Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& a, int64_t dim, int64_t index);
Tensor flatten(const Tensor& a, int64_t start, int64_t end);
Tensor cat(ArrayRef<const TensorImpl*> tensors, int64_t dim);
// Copies in a new arrangement and splits (src/ops/shape/repeat.cpp, triangle.cpp, split.cpp).
Tensor repeat(const Tensor& a, IntArrayRef repeats);
Tensor flip(const Tensor& a, IntArrayRef dims);
Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2);
/// Pieces of split_size along dim (the last may be shorter): views of a, like every list below.
/// Not operators: the dispatcher returns a fixed number of tensors (see split.cpp).
std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t dim);
std::vector<Tensor> split_with_sizes(const Tensor& a, IntArrayRef sizes, int64_t dim);
std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t dim);
std::vector<Tensor> unbind(const Tensor& a, int64_t dim);

// Reductions. `name`: "sum", "mean", "prod", "amax", "amin"; dims empty means all.
Tensor reduce(const char* name, const Tensor& a, IntArrayRef dims, bool keepdim);
/// "argmax" or "argmin"; dim null means over the flattened tensor.
Tensor arg_reduce(const char* name, const Tensor& a, const int64_t* dim, bool keepdim);
/// The derivative of an operator that picks values along dim (sort, topk, kthvalue, median, mode,
/// cummax): zeros of `sizes` with grad summed in at indices (scatter_add; without keepdim, grad and
/// indices lack dim). Differentiable, since scatter_add is.
Tensor scatter_back(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes, bool keepdim);

// Matrix products.
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);

}  // namespace ct::ops
