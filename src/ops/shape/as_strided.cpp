// as_strided.cpp - as_strided: a view of the input's storage with sizes, strides and a storage
// offset given outright (the geometry under every other view), checked to stay inside the storage.
//
// Its derivative goes by storage position: output element i reads position p(i), input element j
// sits at q(j), and j receives the sum of the gradients of every i with p(i) == q(j); positions
// the input does not cover receive nothing, as in PyTorch. An input whose own elements overlap
// (an expanded tensor) has no such one-to-one map, and its derivative is refused.
#include <algorithm>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

using autograd::GradCtx;

int64_t offset_arg(const Value& v, const TensorImpl& self) {
  return v.is_none() ? self.sym_storage_offset().guard_int() : v.to_int();
}

// as_strided(Tensor(a) self, int[] size, int[] stride, int? storage_offset=None) -> Tensor(a)
void as_strided_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const IntArrayRef size = f.arg(1).int_list(), stride = f.arg(2).int_list();
  const int64_t offset = offset_arg(f.arg(3), a);
  CT_CHECK(size.size() == stride.size(), CT_ERROR_SHAPE, "as_strided: size ", size, " has ", size.size(),
           " dims but stride ", stride, " has ", stride.size(), ". Give one stride per dim");
  CT_CHECK(offset >= 0, CT_ERROR_INVALID_ARGUMENT, "as_strided: storage_offset is ", offset, "; it must be >= 0");
  bool empty = false;
  for (size_t d = 0; d < size.size(); ++d) {
    CT_CHECK(size[d] >= 0, CT_ERROR_SHAPE, "as_strided: size ", size, " has a negative size");
    CT_CHECK(stride[d] >= 0, CT_ERROR_INVALID_ARGUMENT, "as_strided: stride ", stride,
             " has a negative stride, which is not supported (as in PyTorch)");
    empty = empty || size[d] == 0;
  }
  // The last position reached must lie in the storage, whose size a tensor of symbolic sizes does
  // not know: tracing stops here (a graph break), and the call runs on the real tensor.
  CT_CHECK(!a.is_symbolic(), CT_ERROR_GUARD, "as_strided: self ", a.sym_sizes(),
           " has symbolic sizes, so the storage it reaches cannot be checked; this operator does not support "
           "symbolic shapes yet. Give the tensor concrete sizes, or mark its dims static");
  if (!empty) {
    int64_t last = offset, step = 0;
    for (size_t d = 0; d < size.size(); ++d)
      CT_CHECK(!__builtin_mul_overflow(size[d] - 1, stride[d], &step) && !__builtin_add_overflow(last, step, &last),
               CT_ERROR_SHAPE, "as_strided: size ", size, " and stride ", stride, " reach past int64 positions");
    const int64_t capacity = a.storage() ? static_cast<int64_t>(a.storage()->nbytes() / itemsize(a.dtype())) : 0;
    CT_CHECK(last < capacity, CT_ERROR_SHAPE, "as_strided: size ", size, ", stride ", stride, " and storage_offset ",
             offset, " reach element ", last, " of a storage of ", capacity, " elements (self ", a.sym_sizes(),
             "). Keep the view inside the storage");
  }
  checked_numel(size, "as_strided");
  f.outs[0] = Tensor::adopt(TensorImpl::view_of(a, size, stride, offset));
}

// The storage position of every element of a geometry, in row-major order: [numel] int64.
Tensor positions(IntArrayRef sizes, IntArrayRef strides, int64_t offset, Device device) {
  Tensor p = full({}, Scalar(offset), DType::Int64, device);
  for (size_t d = 0; d < sizes.size(); ++d) {
    DimVector shape(sizes.size(), 1);
    shape[d] = sizes[d];
    const Tensor along = mul(arange(Scalar(0), Scalar(sizes[d]), Scalar(1), DType::Int64, device), Scalar(strides[d]));
    p = add(p, reshape(along, shape));
  }
  return reshape(p, {-1});
}

// Whether distinct elements of a geometry are sure to sit at distinct positions: sorted by stride,
// each dim's stride passes the span of the dims below it. Geometries that interleave otherwise are
// treated as overlapping.
bool distinct_positions(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims with more than one element
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1) dims.emplace_back(strides[d], sizes[d]);
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;  // the largest offset the smaller dims reach
  for (const auto& [stride, size] : dims) {
    if (stride <= span) return false;
    span += (size - 1) * stride;
  }
  return true;
}

void as_strided_backward(GradCtx& c) {
  const Tensor self = c.saved("self"), g = c.grad();
  const Device dev = g->device();
  const Tensor in_pos = positions(self->sizes(), self->strides(), self->storage_offset(), dev);
  const int64_t n = in_pos->numel();
  const Tensor zeros_in = zeros(self->sizes(), g->dtype(), dev);
  if (n == 0 || g->numel() == 0) {
    c.set("self", zeros_in);
    return;
  }
  CT_CHECK(distinct_positions(self->sizes(), self->strides()), CT_ERROR_NOT_IMPLEMENTED,
           "as_strided: the derivative for an input whose elements may overlap in memory (sizes ", self->sizes(),
           ", strides ", self->strides(), ") is not supported; call contiguous() on it before as_strided");
  const std::array<Tensor, 2> sorted = sort(in_pos, 0, false);
  const Tensor out_pos = positions(g->sizes(), c.arg("stride").int_list(), offset_arg(c.arg("storage_offset"), *self), dev);
  const Tensor at = clamp(searchsorted(sorted[0], out_pos), Scalar(0), Scalar(n - 1));
  // Positions the input does not cover add a zero (where, not a product: a NaN gradient there stays out).
  const Tensor hit = eq(index_select(sorted[0], 0, at), out_pos);
  const Tensor from = where(hit, reshape(g, {-1}), zeros({}, g->dtype(), dev));
  const Tensor flat = index_add(zeros({n}, g->dtype(), dev), 0, index_select(sorted[1], 0, at), from);
  c.set("self", reshape(flat, self->sizes()));
}

}  // namespace

void define_as_strided(Registry& r) {
  r.def("as_strided(Tensor(a) self, int[] size, int[] stride, int? storage_offset=None) -> Tensor(a)")
      .view(as_strided_kernel)
      .derivative(as_strided_backward, save("self"));
}

}  // namespace ct::ops
