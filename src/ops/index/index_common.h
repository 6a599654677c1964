// index_common.h - what the indexing operators share: index validation, the "along one dim" loop
// engine, and typed calls of the family's operators for derivatives and composites.
//
// Note [Indexing loops]
// Every kernel of the family walks a loop shape (the sizes of the tensor that drives the loop,
// with `dim` the indexed dim) and, per position, reads an index value and moves one pointer by
// index * stride. The rest dims (all but dim) are split into outer positions, whose element
// offsets are precomputed per tensor, and the innermost rest dim, walked with plain strides.
// Work is split into units (outer position, stretch of the innermost rest dim). A unit runs the
// whole of dim in order, so an accumulating kernel (index_add, scatter_add) adds the entries of
// one destination element in index order on one thread: the sum is bitwise the same for any
// thread count. Kernels whose every destination element is written once may split dim instead.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "dispatch/operator.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/parallel.h"

namespace ct::ops::indexing {

/// Raises CT_ERROR_DTYPE unless index is int64 (or int32 when int32 is allowed, as torch does).
void check_index_dtype(const char* op, const TensorImpl& index, bool allow_int32);

/// The smallest and largest of p[0..n), n > 0.
struct ValueRange {
  int64_t lo, hi;
};
/// One branch-free pass, vectorized: checking that indices lie in a range then costs a fraction of
/// the gather that reads them (a loop that tests each value and may raise does not vectorize).
ValueRange value_range(const int64_t* p, int64_t n);

/// The index values as a contiguous int64 tensor, each checked to lie in [0, size) (or in
/// [-size, size) and wrapped when wrap); CT_ERROR_INDEX names op, the value, the dim and size.
/// dim < 0: size counts the elements of a flattened tensor (take, put). On the meta device the
/// index is returned unchecked (there are no values).
Tensor checked_index(const char* op, const TensorImpl& index, int64_t size, int64_t dim, bool wrap);

/// Raises CT_ERROR_NOT_IMPLEMENTED on the meta device: op's output size depends on the data.
void check_not_meta(const char* op, const TensorImpl& t);
/// For a meta tensor of a ShapeEnv, the size an operator's data decides (nonzero's count): a new
/// unbacked symbol of t's env, asserted to lie in [0, most] at run time. Null when t has no env.
std::optional<SymInt> data_dependent_size(const char* op, const TensorImpl& t, SymInt most);

/// Sizes of a tensor treated as at least 1-D (0-dim tensors index like a 1-element vector).
DimVector sizes_1d(const TensorImpl& t);
SymDimVector sym_sizes_1d(const TensorImpl& t);
DimVector strides_1d(const TensorImpl& t);

constexpr int kMaxLoopTensors = 3;

/// One tensor taking part in a DimLoop: element strides per loop dim, and a base pointer.
struct LoopOperand {
  char* base;
  DimVector strides;  // elements, one per loop dim; 0 where the tensor is broadcast or indexed
};

/// The loop described in Note [Indexing loops].
struct DimLoop {
  int nt = 0;
  int64_t n = 0;      // length of dim
  int64_t outer = 0;  // positions of the rest dims except the innermost
  int64_t inner = 1;  // length of the innermost rest dim
  bool dim_innermost = false;  // dim has the smaller strides: walk it in the innermost loop
  int64_t dim_stride[kMaxLoopTensors] = {};
  int64_t inner_stride[kMaxLoopTensors] = {};
  std::vector<int64_t> offsets;  // outer * nt element offsets
  char* base[kMaxLoopTensors] = {};
};

DimLoop make_dim_loop(IntArrayRef shape, int64_t dim, const LoopOperand* ops, int nt);

/// Runs seg(off, len, st) over every segment of the loop: the elements off[k] + e * st[k] for
/// e in [0, len) of each tensor k. A segment runs along dim (st = dim strides; then off[k] already
/// includes the segment's start along dim) or along the innermost rest dim, whichever has the
/// smaller strides. See Note [Indexing loops]: a unit (outer position, stretch of the innermost
/// rest dim) always walks dim in order on one thread. split_dim: every destination element is
/// written at most once, so dim may be split across threads too.
template <typename Seg>
void run_dim_loop(const DimLoop& L, bool split_dim, const Seg& seg) {
  const int64_t units = L.outer * L.inner;
  if (units == 0 || L.n == 0) return;
  const int nt = L.nt;
  auto run = [&](int64_t u0, int64_t u1, int64_t j0, int64_t j1) {
    int64_t u = u0;
    while (u < u1) {
      const int64_t o = u / L.inner, l0 = u % L.inner, l1 = std::min(L.inner, l0 + (u1 - u));
      const int64_t* base = &L.offsets[static_cast<size_t>(o * nt)];
      int64_t off[kMaxLoopTensors] = {};
      if (L.dim_innermost) {
        for (int64_t l = l0; l < l1; ++l) {
          for (int k = 0; k < nt; ++k) off[k] = base[k] + l * L.inner_stride[k] + j0 * L.dim_stride[k];
          seg(off, j1 - j0, L.dim_stride);
        }
      } else {
        for (int64_t j = j0; j < j1; ++j) {
          for (int k = 0; k < nt; ++k) off[k] = base[k] + j * L.dim_stride[k] + l0 * L.inner_stride[k];
          seg(off, l1 - l0, L.inner_stride);
        }
      }
      u += l1 - l0;
    }
  };
  const int64_t work = units * L.n;
  if (work < cpu::kElementwiseGrain || cpu::get_num_threads() == 1) {
    run(0, units, 0, L.n);
  } else if (split_dim && L.n >= units) {
    cpu::parallel_for(0, L.n, std::max<int64_t>(1, cpu::kElementwiseGrain / units),
                      [&](int64_t j0, int64_t j1) { run(0, units, j0, j1); });
  } else {
    cpu::parallel_for(0, units, std::max<int64_t>(1, cpu::kElementwiseGrain / L.n),
                      [&](int64_t u0, int64_t u1) { run(u0, u1, 0, L.n); });
  }
}

/// A segment body calling f(off) element by element (for kernels without a faster form).
template <typename F>
auto each(const F& f) {
  return [&f](const int64_t* start, int64_t len, const int64_t* st) {
    int64_t off[kMaxLoopTensors] = {start[0], start[1], start[2]};
    for (int64_t e = 0; e < len; ++e) {
      f(off);
      for (int k = 0; k < kMaxLoopTensors; ++k) off[k] += st[k];
    }
  };
}

/// out = self.index_select(dim, idx) for a checked idx (checked_index); out has the result's sizes.
void index_select_into(const Tensor& out, const TensorImpl& self, int64_t dim, const Tensor& idx);

/// Checks op's fill value, argument i, for self (index_fill, masked_fill): a number that fits self's
/// dtype, or a 0-dim tensor, whose complex value a real self cannot hold.
void check_fill_value(const char* op, const Frame& f, size_t i, const TensorImpl& self);
/// The fill value, argument i, as T: a number, or the element of a 0-dim tensor of any dtype
/// (complex included), converted as to() converts.
template <typename T>
T fill_value(const Frame& f, size_t i) {
  if (!f.arg(i).is_tensor()) return cpu::cast_value<T>(f.arg(i).to_scalar().template to<opmath_t<T>>());
  const TensorImpl& v = f.tensor(i);
  return visit_dtype<kAllDTypesAndComplex>(v.dtype(), "fill value", [&](auto tag) {
    using V = typename decltype(tag)::type;
    return cpu::cast_value<T>(*static_cast<const V*>(v.data()));
  });
}

/// Copies self into out unless they are the same tensor (the in-place variants).
void copy_into(const Tensor& out, const TensorImpl& self);

// Typed calls of the family's operators (derivatives and composites record through them).
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_value(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor nonzero(const Tensor& self);
Tensor take(const Tensor& self, const Tensor& index);
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate);

}  // namespace ct::ops::indexing
