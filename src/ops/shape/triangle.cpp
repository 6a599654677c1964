// triangle.cpp - operators over a matrix's triangles and diagonals: tril, triu, diag, diagflat,
// diag_embed, diagonal, diagonal_scatter and trace. tril, triu, diag, diag_embed and
// diagonal_scatter are composites of where over an index mask; diagonal is a view. (tril_indices and triu_indices are factories: creation/factories.cpp.)
#include <algorithm>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// (rows, cols) int64 holding col - row: the diagonal offset of every position of a matrix.
Tensor offsets(int64_t rows, int64_t cols, Device dev) {
  const Tensor r = reshape(arange(0, static_cast<double>(rows), 1, DType::Int64, dev), {rows, 1});
  const Tensor c = reshape(arange(0, static_cast<double>(cols), 1, DType::Int64, dev), {1, cols});
  return sub(c, r);
}

Tensor zero_like_scalar(const TensorImpl& a) { return zeros({}, a.dtype(), a.device()); }

// tril(Tensor self, int diagonal=0) -> Tensor; triu(Tensor self, int diagonal=0) -> Tensor
// Elements off the kept triangle become zero; batched over leading dims.
template <bool Lower>
void triangle_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const char* op = Lower ? "tril" : "triu";
  CT_CHECK(a.dim() >= 2, CT_ERROR_SHAPE, op, ": the input ", a.sym_sizes(),
           " has fewer than 2 dims. Pass a matrix or a batch of matrices");
  const int64_t k = f.arg(1).to_int();
  // A meta input has no values to mask: its mask is a value-free bool tensor of the right sizes.
  const Tensor keep =
      a.device().is_meta()
          ? empty_symint({a.sym_size(a.dim() - 2), a.sym_size(a.dim() - 1)}, DType::Bool, a.device())
      : Lower ? le(offsets(a.size(a.dim() - 2), a.size(a.dim() - 1), a.device()), k)
              : ge(offsets(a.size(a.dim() - 2), a.size(a.dim() - 1), a.device()), k);
  f.outs[0] = where(keep, Tensor::borrow(&a), zero_like_scalar(a));
}

struct DiagonalDims {
  int64_t d1, d2;
};

DiagonalDims diagonal_dims(const char* op, int64_t ndim, int64_t dim1, int64_t dim2) {
  CT_CHECK(ndim >= 2, CT_ERROR_SHAPE, op, ": the input has ", ndim, " dims. Pass a tensor of at least 2 dims");
  const int64_t d1 = wrap_dim(op, dim1, ndim), d2 = wrap_dim(op, dim2, ndim);
  CT_CHECK(d1 != d2, CT_ERROR_INVALID_ARGUMENT, op, ": dim1 and dim2 are both dim ", d1,
           ". Pass two different dims");
  return {d1, d2};
}

// diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)
// dim1 and dim2 are removed and the diagonal becomes the last dim, one stride stepping both.
void diagonal_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const int64_t offset = f.arg(1).to_int();
  const auto [d1, d2] = diagonal_dims("diagonal", static_cast<int64_t>(a.dim()), f.arg(2).to_int(), f.arg(3).to_int());
  // Length of the diagonal: min(n1, n2 - offset) or min(n1 + offset, n2), at least 0.
  const SymInt n1 = a.sym_size(d1), n2 = a.sym_size(d2);
  const SymInt len = sym_max(offset >= 0 ? sym_min(n1, n2 - offset) : sym_min(n1 + offset, n2), 0);
  SymInt start = a.sym_storage_offset();
  if (len > 0) start = start + (offset >= 0 ? offset * a.sym_stride(d2) : -offset * a.sym_stride(d1));
  SymDimVector sizes, strides;
  for (int64_t d = 0; d < static_cast<int64_t>(a.dim()); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(a.sym_size(d));
    strides.push_back(a.sym_stride(d));
  }
  sizes.push_back(len);
  strides.push_back(a.sym_stride(d1) + a.sym_stride(d2));
  f.outs[0] = Tensor::adopt(TensorImpl::view_of(a, sizes, strides, start));
}

// The tensor of `sizes` holding g (a diagonal laid out as diagonal() returns it) on diagonal
// `offset` of dims d1, d2 and `elsewhere` (zeros when undefined) around it; made of where, cat and
// views so that it is itself differentiable.
Tensor embed_diagonal(const Tensor& g, IntArrayRef sizes, int64_t offset, int64_t d1, int64_t d2,
                      const Tensor& elsewhere = Tensor()) {
  const int64_t n1 = sizes[d1], n2 = sizes[d2];
  const int64_t last = static_cast<int64_t>(g->dim()) - 1;
  // Along the diagonal, element i sits in row i (offset >= 0) or in column i (offset < 0): pad g
  // to that dim's length and let a broadcast against the other dim place it.
  const int64_t along = offset >= 0 ? n1 : n2;
  Tensor padded = g;
  const int64_t have = g->size(last);
  if (have < along) {
    DimVector zs(g->sizes());
    zs[last] = along - have;
    const Tensor z = zeros(zs, g->dtype(), g->device());
    const TensorImpl* parts[2] = {g.impl(), z.impl()};
    padded = cat(ArrayRef<const TensorImpl*>(parts, 2), last);
  }
  const Tensor t = unsqueeze(padded, offset >= 0 ? last + 1 : last);  // (rest..., n1, 1) or (rest..., 1, n2)
  const int64_t nd = static_cast<int64_t>(sizes.size());
  DimVector perm;
  perm.resize(nd);
  int64_t next = 0;
  for (int64_t d = 0; d < nd; ++d) perm[d] = d == d1 ? nd - 2 : d == d2 ? nd - 1 : next++;
  const Tensor placed = permute(t, perm);
  DimVector mask_sizes;
  mask_sizes.resize(nd);
  for (int64_t d = 0; d < nd; ++d) mask_sizes[d] = d == d1 ? n1 : d == d2 ? n2 : 1;
  Tensor on = eq(offsets(n1, n2, g->device()), Scalar(offset));
  if (d1 > d2) on = transpose(on, 0, 1);
  on = reshape(on, mask_sizes);
  return where(on, placed, elsewhere.defined() ? elsewhere : zeros({}, g->dtype(), g->device()));
}

void diagonal_backward(autograd::GradCtx& c) {
  const IntArrayRef sizes = c.sizes("self");
  const auto [d1, d2] = diagonal_dims("diagonal", static_cast<int64_t>(sizes.size()), c.arg("dim1").to_int(),
                                      c.arg("dim2").to_int());
  c.set("self", embed_diagonal(c.grad(), sizes, c.arg("offset").to_int(), d1, d2));
}

// diag(Tensor self, int diagonal=0) -> Tensor
// 1-D: the square matrix with self on that diagonal; 2-D: a copy of that diagonal.
void diag_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const int64_t k = f.arg(1).to_int();
  CT_CHECK(a.dim() == 1 || a.dim() == 2, CT_ERROR_SHAPE, "diag: the input ", a.sym_sizes(), " has ", a.dim(),
           " dims. Pass a 1-D tensor (to build a matrix) or a 2-D one (to read a diagonal)");
  const Tensor self = Tensor::borrow(&a);
  if (a.dim() == 2) {
    f.outs[0] = clone(diagonal(self, k, 0, 1));
    return;
  }
  // The matrix's side and bytes are checked before anything is allocated: an offset of 2^32 asks
  // for 2^64 elements, and the padding of the diagonal alone would take gigabytes first.
  const uint64_t distance = k >= 0 ? static_cast<uint64_t>(k) : 0 - static_cast<uint64_t>(k);
  const uint64_t side = static_cast<uint64_t>(a.size(0)) + distance;
  CT_CHECK(side <= static_cast<uint64_t>(INT64_MAX), CT_ERROR_INVALID_ARGUMENT, "diag: diagonal ", k,
           " of an input of ", a.size(0), " elements makes a matrix side past int64. Pass a smaller diagonal");
  const int64_t n = static_cast<int64_t>(side);
  DimVector sizes{n, n};
  checked_nbytes(sizes, a.dtype(), "diag");
  f.outs[0] = embed_diagonal(self, sizes, k, 0, 1);
}

// diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor: the last dim of self
// laid on diagonal `offset` of two new dims of size n + |offset| (dim1, dim2 of the result), zeros
// elsewhere; the other dims are batch dims.
void diag_embed_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  const int64_t offset = f.arg(1).to_int();
  const int64_t nd = static_cast<int64_t>(self->dim()) + 1;
  const int64_t d1 = wrap_dim("diag_embed", f.arg(2).to_int(), nd), d2 = wrap_dim("diag_embed", f.arg(3).to_int(), nd);
  CT_CHECK(d1 != d2, CT_ERROR_INVALID_ARGUMENT, "diag_embed: dim1 and dim2 are both dim ", d1,
           " of the result. Pass two different dims");
  const Tensor t = self->dim() == 0 ? reshape(self, {1}) : self;
  const int64_t n = t->size(t->dim() - 1) + (offset >= 0 ? offset : -offset);
  DimVector sizes;
  for (int64_t d = 0, next = 0; d < nd; ++d) sizes.push_back(d == d1 || d == d2 ? n : t->size(next++));
  checked_nbytes(sizes, t->dtype(), "diag_embed");
  f.outs[0] = embed_diagonal(t, sizes, offset, d1, d2);
}

// diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor: a
// copy of self with src (shaped as diagonal(self, offset, dim1, dim2)) on that diagonal.
void diagonal_scatter_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0)), src = Tensor::borrow(&f.tensor(1));
  const int64_t offset = f.arg(2).to_int();
  const auto [d1, d2] = diagonal_dims("diagonal_scatter", static_cast<int64_t>(self->dim()), f.arg(3).to_int(),
                                      f.arg(4).to_int());
  const Tensor slot = diagonal(self, offset, d1, d2);
  CT_CHECK(src->sym_sizes().equals(slot->sym_sizes()), CT_ERROR_SHAPE, "diagonal_scatter: src ", src->sym_sizes(),
           " must have the sizes of the diagonal it replaces, ", slot->sym_sizes(), " (self ", self->sym_sizes(), ")");
  f.outs[0] = embed_diagonal(to(src, self->dtype()), self->sizes(), offset, d1, d2, self);
}

// diagflat(Tensor self, int offset=0) -> Tensor: the matrix with self's elements, flattened, on
// diagonal `offset` (diag of the flattened input, so a 0-dim input makes a 1 x 1 matrix).
void diagflat_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  f.outs[0] = diag(reshape_symint(self, {self->sym_numel()}), f.arg(1).to_int());
}

// trace(Tensor self) -> Tensor: the sum of a matrix's main diagonal (integers sum to int64).
void trace_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  CT_CHECK(self->dim() == 2, CT_ERROR_SHAPE, "trace: self ", self->sym_sizes(), " has ", self->dim(),
           " dims; it takes a matrix (2 dims)");
  CT_CHECK(self->dtype() != DType::Bool, CT_ERROR_DTYPE, "trace: self ", self->sym_sizes(),
           " is bool; convert it with to(int64) first");
  f.outs[0] = sum(diagonal(self, 0, 0, 1));
}

}  // namespace

void define_triangle(Registry& r) {
  r.def("tril(Tensor self, int diagonal=0) -> Tensor").composite(triangle_kernel<true>);
  r.def("triu(Tensor self, int diagonal=0) -> Tensor").composite(triangle_kernel<false>);
  r.def("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)")
      .view(diagonal_kernel)
      .derivative(diagonal_backward);
  r.def("diag(Tensor self, int diagonal=0) -> Tensor").composite(diag_kernel);
  r.def("diagflat(Tensor self, int offset=0) -> Tensor").composite(diagflat_kernel);
  r.def("diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor")
      .composite(diagonal_scatter_kernel);
  r.def("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor").composite(diag_embed_kernel);
  r.def("trace(Tensor self) -> Tensor").composite(trace_kernel);
}

}  // namespace ct::ops
