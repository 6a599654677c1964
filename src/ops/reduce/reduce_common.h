// reduce_common.h - what the reduction operators share: which dims a dims argument reduces, how
// an input is laid out for the reduction engine, and the backward helpers that expand a reduced
// gradient back over the input.
#pragma once

#include "dispatch/grad_ctx.h"
#include "ops/cpu/reduce.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {

/// The dims a reduction reduces, as a bitmask over the input's dims; `dims` None or empty means
/// every dim (all = true). A repeated dim is CT_ERROR_INVALID_ARGUMENT.
uint64_t reduced_mask(const char* op, const Value& dims, int64_t ndim, bool* all);

/// The result sizes of reducing `mask` of `sizes` (size 1 there with keepdim).
SymDimVector reduced_sizes(SymIntArrayRef sizes, uint64_t mask, bool keepdim);

/// An input seen by the reduction engine: rows (inner == 1) or columns (see Note [Column
/// reductions]) of k reduced elements, outer * inner results. `data` keeps a copy alive when the
/// input could not be read in place.
struct ReduceLayout {
  Tensor data;
  int64_t outer = 1, k = 1, inner = 1;
};
ReduceLayout reduce_layout(const TensorImpl& a, uint64_t mask);

/// Runs the engine with Op over the layout: dst[i] = finish(fold of the elements of result i).
template <typename Op, typename T, typename O, typename Finish>
void run_reduction(const ReduceLayout& l, O* dst, Finish finish) {
  const T* p = l.data->data_as<T>();
  if (l.inner == 1) cpu::reduce_rows<Op>(p, l.outer, l.k, dst, finish);
  else cpu::reduce_columns<Op>(p, l.outer, l.k, l.inner, dst, finish);
}

/// sizes seen around dim as [outer, n, inner]: the lines a scan (cumsum ...) runs along.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
};
inline Lines lines_of(IntArrayRef sizes, int64_t dim) {
  Lines l;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d)
    (d < dim ? l.outer : d == dim ? l.n : l.inner) *= sizes[static_cast<size_t>(d)];
  return l;
}

/// The reduced dims (ascending) of a reduction's backward, from its arguments `self` (the sizes)
/// and `dim`, as every reduction's schema names them.
DimVector grad_reduced_dims(autograd::GradCtx& c, const char* op);

/// t, shaped like a result, unsqueezed at the reduced dims (unless keepdim) and expanded over the
/// input's sizes.
Tensor expand_reduced(const Tensor& t, IntArrayRef dims, IntArrayRef in_sizes, bool keepdim);

}  // namespace ct::ops
