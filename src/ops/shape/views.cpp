// views.cpp - operators whose result shares the input's storage: view, permute, transpose, expand,
// squeeze, unsqueeze, narrow, select, slice, unfold; and reshape/flatten/ravel, which view when the
// strides allow. Each kernel validates, computes the new geometry and wraps it; no element is
// touched, so one kernel serves every device. Beside slice and select, their scatter forms
// (slice_scatter, select_scatter: a copy of self with src in place of that view).
#include <algorithm>
#include <optional>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// Note [Views with symbolic sizes]
// The view kernels that do arithmetic on sizes (view, reshape) are written once over a size type
// I: int64_t for concrete tensors, which keeps eager calls as cheap as plain integer code, and
// SymInt for meta tensors with symbolic sizes, where a check that a symbol's range cannot settle
// records a guard, as PyTorch's does. The kernels that only move sizes around use SymInt, whose
// plain values cost a compare.
template <typename I> using Dims = SmallVector<I, 6>;
template <typename I> ArrayRef<I> sizes_of(const TensorImpl& a);
template <> IntArrayRef sizes_of<int64_t>(const TensorImpl& a) { return a.sizes(); }
template <> SymIntArrayRef sizes_of<SymInt>(const TensorImpl& a) { return a.sym_sizes(); }
template <typename I> ArrayRef<I> strides_of(const TensorImpl& a);
template <> IntArrayRef strides_of<int64_t>(const TensorImpl& a) { return a.strides(); }
template <> SymIntArrayRef strides_of<SymInt>(const TensorImpl& a) { return a.sym_strides(); }
template <typename I> ArrayRef<I> list_of(const Value& v);
template <> IntArrayRef list_of<int64_t>(const Value& v) { return v.int_list(); }
template <> SymIntArrayRef list_of<SymInt>(const Value& v) { return v.sym_int_list(); }
int64_t numel_of(const TensorImpl& a, int64_t) { return a.numel(); }
SymInt numel_of(const TensorImpl& a, SymInt) { return a.sym_numel(); }
int64_t offset_of(const TensorImpl& a, int64_t) { return a.storage_offset(); }
SymInt offset_of(const TensorImpl& a, SymInt) { return a.sym_storage_offset(); }
bool is_value(int64_t x, int64_t v) { return x == v; }
bool is_value(SymInt x, int64_t v) { return x.maybe_int() == v; }
int64_t at_least_one(int64_t x) { return x > 1 ? x : 1; }
SymInt at_least_one(SymInt x) { return sym_max(x, 1); }
bool mul_overflows(int64_t& acc, int64_t x) { return __builtin_mul_overflow(acc, x, &acc); }
bool mul_overflows(SymInt& acc, SymInt x) {  // SymInt's * raises on overflow itself
  acc = acc * x;
  return false;
}
Tensor view_sized(const Tensor& a, IntArrayRef sizes) { return view(a, sizes); }
Tensor view_sized(const Tensor& a, SymIntArrayRef sizes) { return view_symint(a, sizes); }

// Runs body(int64_t{}) for concrete geometry and arguments, body(SymInt{}) otherwise.
template <typename Body>
void by_size_type(const Frame& f, Body body) {
  if (f.tensor(0).is_symbolic() || (f.nargs > 1 && f.arg(1).is_symbolic())) body(SymInt());
  else body(int64_t());
}

// Sizes are checked here too, so that too many dims or an overflowing count is reported under this
// operator's name (an expand to [2^40, 2^40], an unsqueeze of 64 dims), not as a "view".
void make_view(Frame& f, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  checked_numel(sizes, f.name());
  f.outs[0] = Tensor::adopt(TensorImpl::view_of(f.tensor(0), sizes, strides, offset));
}
void make_view(Frame& f, SymIntArrayRef sizes, SymIntArrayRef strides, SymInt offset) {
  checked_numel(sizes, f.name());
  f.outs[0] = Tensor::adopt(TensorImpl::view_of(f.tensor(0), sizes, strides, offset));
}

// Replaces a single -1 with the size that keeps numel; CT_ERROR_SHAPE when impossible.
template <typename I>
Dims<I> infer_size(const char* op, ArrayRef<I> sizes, I numel, ArrayRef<I> from) {
  Dims<I> out(sizes);
  I known = 1;
  int infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (is_value(sizes[i], -1)) {
      CT_CHECK(infer < 0, CT_ERROR_SHAPE, op, ": only one dimension can be -1, got ", sizes, ". Spell out the others");
      infer = static_cast<int>(i);
    } else {
      CT_SYM_CHECK(sizes[i] >= 0, CT_ERROR_SHAPE, op, ": invalid size ", sizes[i], " in ", sizes,
                   ". Sizes must be >= 0, or -1 to infer one");
      CT_CHECK(!mul_overflows(known, sizes[i]), CT_ERROR_SHAPE, op, ": shape ", sizes,
               " has more elements than int64 can count");
    }
  }
  if (infer >= 0) {
    CT_SYM_CHECK(sym_all({known != 0, numel % at_least_one(known) == 0}), CT_ERROR_SHAPE, op, ": shape ", sizes,
                 " is invalid for input ", from, " of ", numel, " elements. Choose sizes whose product is ", numel);
    out[infer] = numel / known;
  } else {
    CT_SYM_CHECK(known == numel, CT_ERROR_SHAPE, op, ": shape ", sizes, " is invalid for input ", from, " of ", numel,
                 " elements. Choose sizes whose product is ", numel);
  }
  return out;
}

// Strides giving sizes `to` over the memory of a, or nothing when some new dim would have to span
// two separately strided chunks of a's layout.
template <typename I>
std::optional<Dims<I>> view_strides(const TensorImpl& a, ArrayRef<I> to) {
  if (a.is_contiguous()) return contiguous_strides(to);
  const ArrayRef<I> from = sizes_of<I>(a), strides = strides_of<I>(a);
  if (from.empty() || numel_of(a, I()) == 0) return contiguous_strides(to);
  Dims<I> out;
  out.resize(to.size());
  int64_t vd = static_cast<int64_t>(to.size()) - 1;
  I chunk_stride = strides.back(), chunk_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(from.size()) - 1; d >= 0; --d) {
    chunk_numel = chunk_numel * from[d];
    const bool chunk_ends = d == 0 || (from[d - 1] != 1 && strides[d - 1] != chunk_numel * chunk_stride);
    if (!chunk_ends) continue;
    while (vd >= 0 && (view_numel < chunk_numel || to[vd] == 1)) {
      out[vd] = view_numel * chunk_stride;
      view_numel = view_numel * to[vd];
      --vd;
    }
    if (view_numel != chunk_numel) return std::nullopt;
    if (d > 0) {
      chunk_stride = strides[d - 1];
      chunk_numel = 1;
      view_numel = 1;
    }
  }
  if (vd != -1) return std::nullopt;
  return out;
}

// view(Tensor(a) self, int[] size) -> Tensor(a)
void view_kernel(void*, Frame& f) {
  by_size_type(f, [&](auto zero) {
    using I = decltype(zero);
    const TensorImpl& a = f.tensor(0);
    const Dims<I> sizes = infer_size<I>("view", list_of<I>(f.arg(1)), numel_of(a, I()), sizes_of<I>(a));
    auto st = view_strides<I>(a, sizes);
    CT_CHECK(st, CT_ERROR_SHAPE, "view: sizes ", sizes.ref(), " are not compatible with the input's sizes ",
             a.sym_sizes(), " and strides ", a.sym_strides(),
             " (a dim would span two non-contiguous chunks). Use reshape, which copies");
    make_view(f, sizes, *st, offset_of(a, I()));
  });
}

// reshape(Tensor(a) self, int[] shape) -> Tensor(a)
void reshape_kernel(void*, Frame& f) {
  by_size_type(f, [&](auto zero) {
    using I = decltype(zero);
    const TensorImpl& a = f.tensor(0);
    const Dims<I> sizes = infer_size<I>("reshape", list_of<I>(f.arg(1)), numel_of(a, I()), sizes_of<I>(a));
    // Through the view operator, not make_view: reshape is a composite, so what it calls is what
    // autograd records.
    if (view_strides<I>(a, sizes)) f.outs[0] = view_sized(Tensor::borrow(&a), sizes.ref());
    else f.outs[0] = view_sized(clone(Tensor::borrow(&a)), sizes.ref());
  });
}

// permute(Tensor(a) self, int[] dims) -> Tensor(a)
void permute_kernel(void*, Frame& f) {
  by_size_type(f, [&](auto zero) {
    using I = decltype(zero);
    const TensorImpl& a = f.tensor(0);
    IntArrayRef dims = f.arg(1).int_list();
    const int64_t n = static_cast<int64_t>(a.dim());
    CT_CHECK(static_cast<int64_t>(dims.size()) == n, CT_ERROR_SHAPE, "permute: dims ", dims, " has ", dims.size(),
             " entries but the input ", a.sym_sizes(), " has ", n, " dims. List every dim once");
    Dims<I> sizes, strides;
    sizes.resize(n);
    strides.resize(n);
    uint64_t seen[kMaxDims / 64 + 1] = {};
    for (int64_t i = 0; i < n; ++i) {
      const int64_t d = wrap_dim("permute", dims[i], n);
      CT_CHECK(!(seen[d / 64] >> (d % 64) & 1), CT_ERROR_SHAPE, "permute: dim ", d, " appears twice in ", dims,
               ". List every dim once");
      seen[d / 64] |= uint64_t(1) << (d % 64);
      sizes[i] = sizes_of<I>(a)[d];
      strides[i] = strides_of<I>(a)[d];
    }
    make_view(f, sizes, strides, offset_of(a, I()));
  });
}

// transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
void transpose_kernel(void*, Frame& f) {
  by_size_type(f, [&](auto zero) {
    using I = decltype(zero);
    const TensorImpl& a = f.tensor(0);
    const int64_t n = static_cast<int64_t>(a.dim());
    const int64_t d0 = wrap_dim("transpose", f.arg(1).to_int(), n), d1 = wrap_dim("transpose", f.arg(2).to_int(), n);
    Dims<I> sizes(sizes_of<I>(a)), strides(strides_of<I>(a));
    if (n > 0) {
      std::swap(sizes[d0], sizes[d1]);
      std::swap(strides[d0], strides[d1]);
    }
    make_view(f, sizes, strides, offset_of(a, I()));
  });
}

// expand(Tensor(a) self, int[] size) -> Tensor(a)
void expand_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const SymIntArrayRef want = f.arg(1).sym_int_list();
  CT_CHECK(want.size() >= a.dim(), CT_ERROR_SHAPE, "expand: sizes ", want, " have fewer dims than the input ",
           a.sym_sizes(), ". Give at least ", a.dim(), " sizes");
  const size_t lead = want.size() - a.dim();
  SymDimVector sizes, strides;
  sizes.resize(want.size());
  strides.resize(want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (i < lead) {
      CT_SYM_CHECK(want[i] >= 0, CT_ERROR_SHAPE, "expand: size -1 is not allowed for the new leading dim ", i,
                   " in ", want, ". Give its size");
      sizes[i] = want[i];
      strides[i] = 0;
      continue;
    }
    const SymInt have = a.sym_size(i - lead);
    const SymInt w = want[i].maybe_int() == -1 ? have : want[i];
    const bool same = w.raw() == have.raw() || w == have;  // same node: no guard
    CT_CHECK(same || have == 1, CT_ERROR_SHAPE, "expand: the input ", a.sym_sizes(), " cannot expand to ", want,
             " (dim ", i, ": ", have, " vs ", w, "). Only dims of size 1 can grow");
    sizes[i] = w;
    strides[i] = same ? a.sym_stride(i - lead) : SymInt(0);
  }
  make_view(f, sizes, strides, a.sym_storage_offset());
}

// squeeze(Tensor(a) self) -> Tensor(a); squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)
void squeeze_kernel(void*, Frame& f) {
  by_size_type(f, [&](auto zero) {
    using I = decltype(zero);
    const TensorImpl& a = f.tensor(0);
    const int64_t only = f.nargs > 1 ? wrap_dim("squeeze", f.arg(1).to_int(), a.dim()) : -1;
    Dims<I> sizes, strides;
    for (size_t d = 0; d < a.dim(); ++d) {
      const bool drop = (only < 0 || static_cast<int64_t>(d) == only) && sizes_of<I>(a)[d] == 1;
      if (drop) continue;
      sizes.push_back(sizes_of<I>(a)[d]);
      strides.push_back(strides_of<I>(a)[d]);
    }
    make_view(f, sizes, strides, offset_of(a, I()));
  });
}

// unsqueeze(Tensor(a) self, int dim) -> Tensor(a)
void unsqueeze_kernel(void*, Frame& f) {
  by_size_type(f, [&](auto zero) {
    using I = decltype(zero);
    const TensorImpl& a = f.tensor(0);
    const int64_t d = wrap_dim("unsqueeze", f.arg(1).to_int(), static_cast<int64_t>(a.dim()) + 1);
    Dims<I> sizes(sizes_of<I>(a)), strides(strides_of<I>(a));
    const I st = static_cast<size_t>(d) < a.dim() ? strides[d] * sizes[d] : I(1);
    sizes.insert(d, 1);
    strides.insert(d, st);
    make_view(f, sizes, strides, offset_of(a, I()));
  });
}

// narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)
void narrow_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(a.dim() > 0, CT_ERROR_SHAPE, "narrow: cannot narrow a 0-dim tensor. Reshape it to 1-D first");
  const int64_t d = wrap_dim("narrow", f.arg(1).to_int(), a.dim());
  const SymInt size = a.sym_size(d);
  SymInt start = f.arg(2).to_symint();
  const SymInt length = f.arg(3).to_symint();
  CT_SYM_CHECK(sym_all({start >= -size, start <= size}), CT_ERROR_INDEX, "narrow: start ", start,
               " is out of range for dim ", d, " of size ", size, " (input ", a.sym_sizes(), "). Pass start in [",
               -size, ", ", size, "]");
  if (start < 0) start = start + size;
  CT_SYM_CHECK(sym_all({length >= 0, length <= size - start}), CT_ERROR_SHAPE, "narrow: start ", start, " + length ", length,
               " exceeds dim ", d, " of size ", size, " (input ", a.sym_sizes(), "). Shorten length");
  SymDimVector sizes(a.sym_sizes());
  sizes[d] = length;
  make_view(f, sizes, a.sym_strides(), a.sym_storage_offset() + start * a.sym_stride(d));
}

// Python's clamping of a[start:end] for a dim of size `size`.
std::pair<SymInt, SymInt> slice_bounds(SymInt size, const Value& start, const Value& end) {
  auto clamp = [size](const Value& v, SymInt dflt) {
    if (v.is_none()) return dflt;
    SymInt x = v.to_symint();
    if (x < 0) x = x + size;
    return x < 0 ? SymInt(0) : x > size ? size : x;
  };
  const SymInt s = clamp(start, 0);
  const SymInt e = clamp(end, size);
  return {s, e.raw() == s.raw() ? s : sym_max(s, e)};
}

// slice.Tensor(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)
// Python's a[start:end:step] along dim: bounds are clamped to the size, as Python does.
void slice_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(a.dim() > 0, CT_ERROR_INDEX, "slice: cannot slice a 0-dim tensor. Reshape it to 1-D first");
  const int64_t d = wrap_dim("slice", f.arg(1).to_int(), a.dim());
  const SymInt size = a.sym_size(d);
  const int64_t step = f.arg(4).to_int();
  CT_CHECK(step > 0, CT_ERROR_INVALID_ARGUMENT, "slice: step is ", step, " (input ", a.sym_sizes(),
           "). Steps must be positive; flip the result instead");
  const auto [start, end] = slice_bounds(size, f.arg(2), f.arg(3));
  SymDimVector sizes(a.sym_sizes()), strides(a.sym_strides());
  sizes[d] = (end - start + (step - 1)) / step;
  strides[d] = a.sym_stride(d) * step;
  make_view(f, sizes, strides, a.sym_storage_offset() + start * a.sym_stride(d));
}

// unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a): the windows of `size`
// elements every `step` along dimension, as that dim (one entry per window) and a new last dim
// (the window). A 0-dim tensor counts as one element.
void unfold_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const int64_t nd = std::max<int64_t>(static_cast<int64_t>(a.dim()), 1);
  const int64_t d = wrap_dim("unfold", f.arg(1).to_int(), nd);
  const int64_t size = f.arg(2).to_int(), step = f.arg(3).to_int();
  const SymInt n = a.dim() == 0 ? SymInt(1) : a.sym_size(d);
  CT_CHECK(step > 0, CT_ERROR_INVALID_ARGUMENT, "unfold: step is ", step, ". Pass a step > 0");
  CT_SYM_CHECK(sym_all({size >= 0, n >= size}), CT_ERROR_SHAPE, "unfold: size ", size, " does not fit dim ", d,
               " of self ", a.sym_sizes(), ". Pass a size in [0, ", n, "]");
  SymDimVector sizes, strides;
  if (a.dim() == 0) {
    sizes.push_back(size);
    strides.push_back(1);
  } else {
    sizes = SymDimVector(a.sym_sizes());
    strides = SymDimVector(a.sym_strides());
    sizes[d] = (n - size) / step + 1;
    strides[d] = a.sym_stride(d) * step;
    sizes.push_back(size);
    strides.push_back(a.sym_stride(d));
  }
  make_view(f, sizes, strides, a.sym_storage_offset());
}

// select.int(Tensor(a) self, int dim, int index) -> Tensor(a)
void select_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(a.dim() > 0, CT_ERROR_INDEX, "select: cannot select from a 0-dim tensor. Use item() to read it");
  const int64_t d = wrap_dim("select", f.arg(1).to_int(), a.dim());
  const SymInt size = a.sym_size(d);
  SymInt index = f.arg(2).to_symint();
  CT_SYM_CHECK(sym_all({index >= -size, index < size}), CT_ERROR_INDEX, "select: index ", index,
               " is out of range for dim ", d, " of size ", size, " (input ", a.sym_sizes(),
               "). Pass an index in [", -size, ", ", size - 1, "]");
  if (index < 0) index = index + size;
  SymDimVector sizes(a.sym_sizes()), strides(a.sym_strides());
  sizes.erase(d);
  strides.erase(d);
  make_view(f, sizes, strides, a.sym_storage_offset() + index * a.sym_stride(d));
}

// flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)
void flatten_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const int64_t n = static_cast<int64_t>(a.dim());
  const int64_t s = wrap_dim("flatten", f.arg(1).to_int(), n), e = wrap_dim("flatten", f.arg(2).to_int(), n);
  CT_CHECK(s <= e, CT_ERROR_INDEX, "flatten: start_dim ", s, " comes after end_dim ", e,
           ". Pass start_dim <= end_dim");
  if (n == 0) {
    f.outs[0] = reshape(Tensor::borrow(&a), {1});
    return;
  }
  SymDimVector sizes;
  for (int64_t d = 0; d < s; ++d) sizes.push_back(a.sym_size(d));
  SymInt merged = 1;
  for (int64_t d = s; d <= e; ++d) merged = merged * a.sym_size(d);
  sizes.push_back(merged);
  for (int64_t d = e + 1; d < n; ++d) sizes.push_back(a.sym_size(d));
  f.outs[0] = reshape_symint(Tensor::borrow(&a), sizes);
}

// atleast_1d / atleast_2d / atleast_3d(Tensor(a) self) -> Tensor(a): self viewed with at least
// that many dims, as numpy: a 0-dim tensor becomes [1], [1, 1], [1, 1, 1]; a 1-D one [1, n] and
// [1, n, 1]; a 2-D one [a, b, 1]. Tensors with enough dims come back as a view of themselves.
template <int N>
void atleast_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  SymDimVector sizes(a.sym_sizes());
  const size_t nd = a.dim();
  if (nd < static_cast<size_t>(N)) {
    if (nd == 0) {
      for (int i = 0; i < N; ++i) sizes.push_back(SymInt(1));
    } else if (N == 2 || nd == 1) {  // [n] -> [1, n] (and [1, n, 1] for 3-D)
      sizes = SymDimVector{SymInt(1)};
      for (size_t d = 0; d < nd; ++d) sizes.push_back(a.sym_size(static_cast<int64_t>(d)));
      if (N == 3) sizes.push_back(SymInt(1));
    } else {  // [a, b] -> [a, b, 1]
      sizes.push_back(SymInt(1));
    }
  }
  f.outs[0] = reshape_symint(Tensor::borrow(&a), sizes);
}

// ---- Derivatives. A view's gradient is the incoming one laid back out in the input's shape.
using autograd::GradCtx;

// Reshaping views (view, squeeze, unsqueeze): the same elements in the input's sizes.
void reshape_back(GradCtx& c) { c.set("self", reshape(c.grad(), c.sizes("self"))); }

void permute_backward(GradCtx& c) {
  const IntArrayRef dims = c.arg("dims").int_list();
  DimVector inverse;
  inverse.resize(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    inverse[static_cast<size_t>(wrap_dim("permute", dims[i], dims.size()))] = static_cast<int64_t>(i);
  c.set("self", permute(c.grad(), inverse));
}
void transpose_backward(GradCtx& c) { c.set("self", transpose(c.grad(), c.arg("dim0").to_int(), c.arg("dim1").to_int())); }
void expand_backward(GradCtx& c) { c.set("self", c.grad()); }  // set() sums over the expanded dims

// A tensor of the input's sizes holding g at positions start, start + step, ... of dim, zeros
// elsewhere; built from cat so that it is itself differentiable.
Tensor embed(const Tensor& g, IntArrayRef sizes, int64_t dim, int64_t start, int64_t step) {
  Tensor spread = g;
  const int64_t n = g->size(dim);
  if (step > 1 && n > 0) {  // interleave step - 1 zero slices after each slice of g
    const Tensor u = unsqueeze(g, dim + 1);
    DimVector zs(u->sizes());
    zs[dim + 1] = step - 1;
    const Tensor z = zeros(zs, g->dtype(), g->device());
    const TensorImpl* parts[2] = {u.impl(), z.impl()};
    DimVector merged(g->sizes());
    merged[dim] = n * step;
    spread = narrow(reshape(cat(ArrayRef<const TensorImpl*>(parts, 2), dim + 1), merged), dim, 0, (n - 1) * step + 1);
  }
  std::vector<Tensor> pieces;
  auto zeros_along = [&](int64_t len) {
    DimVector zs(sizes);
    zs[dim] = len;
    pieces.push_back(zeros(zs, g->dtype(), g->device()));
  };
  if (start > 0) zeros_along(start);
  pieces.push_back(spread);
  const int64_t after = sizes[dim] - start - spread->size(dim);
  if (after > 0) zeros_along(after);
  if (pieces.size() == 1) return spread;
  std::vector<const TensorImpl*> impls;
  for (const Tensor& p : pieces) impls.push_back(p.impl());
  return cat(impls, dim);
}

// The windows' gradients summed into the input: window w's element j came from w * step + j.
void unfold_backward(GradCtx& c) {
  const IntArrayRef in_sizes = c.sizes("self");
  const Tensor g = c.grad();
  if (in_sizes.empty()) {  // a 0-dim input: zero windows of one element, or one
    c.set("self", reshape(sum(g), {}));
    return;
  }
  const int64_t d = wrap_dim("unfold", c.arg("dimension").to_int(), static_cast<int64_t>(in_sizes.size()));
  const int64_t size = c.arg("size").to_int(), step = c.arg("step").to_int();
  const int64_t windows = g->size(d);
  const Tensor index = reshape(add(unsqueeze(arange(Scalar(0), Scalar(windows * step), Scalar(step), DType::Int64, g->device()), 1),
                                   arange(Scalar(0), Scalar(size), Scalar(1), DType::Int64, g->device())), {windows * size});
  DimVector flat(g->sizes());
  flat.resize(flat.size() - 1);
  flat[d] = windows * size;
  const Tensor rows = reshape(movedim(g, -1, d + 1), flat);  // (..., windows, size, ...) merged
  c.set("self", index_add(zeros(in_sizes, g->dtype(), g->device()), d, index, rows));
}

int64_t dim_of(GradCtx& c, const char* op) { return wrap_dim(op, c.arg("dim").to_int(), c.sizes("self").size()); }
void narrow_backward(GradCtx& c) {
  const int64_t d = dim_of(c, "narrow");
  int64_t start = c.arg("start").to_int();
  if (start < 0) start += c.sizes("self")[d];
  c.set("self", embed(c.grad(), c.sizes("self"), d, start, 1));
}
void select_backward(GradCtx& c) {
  const int64_t d = dim_of(c, "select");
  int64_t index = c.arg("index").to_int();
  if (index < 0) index += c.sizes("self")[d];
  c.set("self", embed(unsqueeze(c.grad(), d), c.sizes("self"), d, index, 1));
}
void slice_backward(GradCtx& c) {
  const int64_t d = dim_of(c, "slice");
  const int64_t start = slice_bounds(c.sizes("self")[d], c.arg("start"), c.arg("end")).first.expect_int("slice start");
  c.set("self", embed(c.grad(), c.sizes("self"), d, start, c.arg("step").to_int()));
}

// slice_scatter(Tensor self, Tensor src, int dim=0, int? start=None, int? end=None, int step=1)
// -> Tensor and select_scatter(Tensor self, Tensor src, int dim, int index) -> Tensor: self with
// the positions of that view taken from src (which has the view's sizes), as index_copy along dim,
// so both inputs get their gradients.
template <bool Select>
void view_scatter_kernel(void*, Frame& f) {
  const char* op = Select ? "select_scatter" : "slice_scatter";
  const Tensor self = Tensor::borrow(&f.tensor(0)), src = Tensor::borrow(&f.tensor(1));
  CT_CHECK(self->dim() > 0, CT_ERROR_INDEX, op, ": self is 0-dim and has no dim to scatter along. Reshape it to 1-D");
  const int64_t d = wrap_dim(op, f.arg(2).to_int(), static_cast<int64_t>(self->dim()));
  const Tensor slot = Select ? select(self, d, f.arg(3).to_int())
                             : slice(self, d, f.arg(3).is_none() ? std::nullopt : std::optional<int64_t>(f.arg(3).to_int()),
                                     f.arg(4).is_none() ? std::nullopt : std::optional<int64_t>(f.arg(4).to_int()),
                                     f.arg(5).to_int());
  CT_CHECK(src->sym_sizes().equals(slot->sym_sizes()), CT_ERROR_SHAPE, op, ": src ", src->sym_sizes(),
           " must have the sizes of the view it replaces, ", slot->sym_sizes(), " (self ", self->sym_sizes(), ")");
  int64_t start, step = 1, count = 1;
  if (Select) {
    const int64_t i = f.arg(3).to_int();
    start = i < 0 ? i + self->size(d) : i;
  } else {
    step = f.arg(5).to_int();
    start = slice_bounds(self->sym_size(d), f.arg(3), f.arg(4)).first.guard_int();
    count = slot->size(d);
  }
  const Tensor index = arange(Scalar(start), Scalar(start + count * step), Scalar(step), DType::Int64, self->device());
  f.outs[0] = index_copy(self, d, index, to(Select ? unsqueeze(src, d) : src, self->dtype()));
}

// ravel(Tensor(a) self) -> Tensor(a): the elements as one dim, a view where the strides allow.
void ravel_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  f.outs[0] = reshape_symint(self, {self->sym_numel()});
}

}  // namespace

void define_views(Registry& r) {
  r.def("view(Tensor(a) self, int[] size) -> Tensor(a)").view(view_kernel).derivative(reshape_back);
  r.def("reshape(Tensor(a) self, int[] shape) -> Tensor(a)").composite(reshape_kernel);
  r.def("permute(Tensor(a) self, int[] dims) -> Tensor(a)").view(permute_kernel).derivative(permute_backward);
  r.def("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)")
      .view(transpose_kernel)
      .derivative(transpose_backward);
  r.def("expand(Tensor(a) self, int[] size) -> Tensor(a)").view(expand_kernel).derivative(expand_backward);
  r.def("squeeze(Tensor(a) self) -> Tensor(a)").view(squeeze_kernel).derivative(reshape_back);
  r.def("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)").view(squeeze_kernel).derivative(reshape_back);
  r.def("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)").view(unsqueeze_kernel).derivative(reshape_back);
  r.def("narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)")
      .view(narrow_kernel)
      .derivative(narrow_backward);
  r.def("select.int(Tensor(a) self, int dim, int index) -> Tensor(a)").view(select_kernel).derivative(select_backward);
  r.def("slice.Tensor(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)")
      .view(slice_kernel)
      .derivative(slice_backward);
  r.def("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)")
      .view(unfold_kernel)
      .derivative(unfold_backward);
  r.def("slice_scatter(Tensor self, Tensor src, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor")
      .composite(view_scatter_kernel<false>);
  r.def("select_scatter(Tensor self, Tensor src, int dim, int index) -> Tensor").composite(view_scatter_kernel<true>);
  r.def("ravel(Tensor(a) self) -> Tensor(a)").composite(ravel_kernel);
  r.def("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)").composite(flatten_kernel);
  r.def("atleast_1d(Tensor(a) self) -> Tensor(a)").composite(atleast_kernel<1>);
  r.def("atleast_2d(Tensor(a) self) -> Tensor(a)").composite(atleast_kernel<2>);
  r.def("atleast_3d(Tensor(a) self) -> Tensor(a)").composite(atleast_kernel<3>);
}

}  // namespace ct::ops
