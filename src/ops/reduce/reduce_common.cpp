// reduce_common.cpp - dims, layouts and backward helpers shared by the reduction operators.
#include "ops/reduce/reduce_common.h"

namespace ct::ops {

uint64_t reduced_mask(const char* op, const Value& dims, int64_t ndim, bool* all) {
  *all = dims.is_none() || dims.int_list().empty();
  if (*all) return ndim >= 64 ? ~uint64_t(0) : (uint64_t(1) << ndim) - 1;
  uint64_t mask = 0;
  for (int64_t d : dims.int_list()) {
    const int64_t w = wrap_dim(op, d, ndim);
    CT_CHECK(!(mask >> w & 1), CT_ERROR_INVALID_ARGUMENT, op, ": dim ", w, " appears more than once in ",
             dims.int_list(), ". List each dim once");
    mask |= uint64_t(1) << w;
  }
  return mask;
}

SymDimVector reduced_sizes(SymIntArrayRef sizes, uint64_t mask, bool keepdim) {
  SymDimVector out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!(mask >> d & 1)) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

ReduceLayout reduce_layout(const TensorImpl& a, uint64_t mask) {
  const int64_t nd = static_cast<int64_t>(a.dim());
  ReduceLayout l;
  // A contiguous input whose reduced dims (size-1 dims aside) form one run is read in place as
  // [outer, k, inner]: rows when inner is 1, columns otherwise (see Note [Column reductions]).
  // Anything else is first laid out as [kept dims..., reduced dims...].
  bool in_place = a.is_contiguous();
  int phase = 0;  // 0: before the run, 1: in it, 2: after it
  for (int64_t d = 0; d < nd && in_place; ++d) {
    if (a.size(d) == 1) continue;
    const bool reduced = mask >> d & 1;
    if (reduced && phase == 2) in_place = false;
    if (reduced) phase = 1;
    else if (phase == 1) phase = 2;
    (reduced ? l.k : phase == 0 ? l.outer : l.inner) *= a.size(d);
  }
  l.data = Tensor::borrow(&a);
  if (in_place) return l;
  DimVector perm;
  l.outer = l.k = 1;
  l.inner = 1;
  for (int64_t d = 0; d < nd; ++d)
    if (!(mask >> d & 1)) {
      perm.push_back(d);
      l.outer *= a.size(d);
    }
  for (int64_t d = 0; d < nd; ++d)
    if (mask >> d & 1) {
      perm.push_back(d);
      l.k *= a.size(d);
    }
  l.data = expect_contiguous(permute(l.data, perm));
  return l;
}

DimVector grad_reduced_dims(autograd::GradCtx& c, const char* op) {
  const IntArrayRef in = c.sizes("self");
  bool all = false;
  const uint64_t mask = reduced_mask(op, c.arg("dim"), static_cast<int64_t>(in.size()), &all);
  DimVector dims;
  for (size_t d = 0; d < in.size(); ++d)
    if (mask >> d & 1) dims.push_back(static_cast<int64_t>(d));
  return dims;
}

Tensor expand_reduced(const Tensor& t, IntArrayRef dims, IntArrayRef in_sizes, bool keepdim) {
  Tensor r = t;
  if (!keepdim)
    for (int64_t d : dims) r = unsqueeze(r, d);
  return expand(r, in_sizes);
}

}  // namespace ct::ops
