// functions.h - the C++ calls that are not one operator overload. Every overload has its typed call
// in op_calls.h (generated, Note [Typed calls]), included here; this file adds symbolic-size forms,
// list-returning helpers and composites that src/capi and the kernels share.
#pragma once

#include <vector>

#include "core/scalar.h"
#include "core/tensor.h"
#include "ops/op_calls.h"

namespace ct::ops {

/// empty with sizes that may be symbolic (meta device only when they are), as PyTorch's *_symint.
Tensor empty_symint(SymIntArrayRef sizes, DType dtype, Device device);
/// empty with like's sizes (symbolic or not) and device.
Tensor empty_like_sizes(const TensorImpl& like, DType dtype);
Tensor full_symint(SymIntArrayRef sizes, const Scalar& value, DType dtype, Device device);

/// t's conjugate (conj_physical) when t is complex, else t itself without dispatching: the
/// derivatives of products (Note [Complex tensors] in complex.cpp).
Tensor conj_if_complex(const Tensor& t);

/// a when it is already contiguous (without dispatching), else contiguous(a).
Tensor expect_contiguous(const Tensor& a);

// view, expand, narrow and reshape with sizes that may be symbolic.
Tensor view_symint(const Tensor& a, SymIntArrayRef sizes);
Tensor expand_symint(const Tensor& a, SymIntArrayRef sizes);
Tensor narrow_symint(const Tensor& a, int64_t dim, SymInt start, SymInt length);
Tensor reshape_symint(const Tensor& a, SymIntArrayRef sizes);

/// Pieces of split_size along dim (the last may be shorter): views of a, like every list below.
/// Not operators: the dispatcher returns a fixed number of tensors (see split.cpp).
std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t dim);
std::vector<Tensor> split_with_sizes(const Tensor& a, IntArrayRef sizes, int64_t dim);
std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t dim);
std::vector<Tensor> unbind(const Tensor& a, int64_t dim);

/// The derivative of an operator that picks values along dim (sort, topk, kthvalue, median, mode,
/// cummax): zeros of `sizes` with grad summed in at indices (scatter_add; without keepdim, grad and
/// indices lack dim). Differentiable, since scatter_add is.
Tensor scatter_back(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes, bool keepdim);

}  // namespace ct::ops
