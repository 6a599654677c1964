// views.cpp - operators whose result shares the input's storage: view, permute, transpose, expand,
// squeeze, unsqueeze, narrow, select; and reshape/flatten, which view when the strides allow.
// Each kernel validates, computes the new geometry and wraps it; no element is touched, so one
// kernel serves every device.
#include <algorithm>
#include <optional>

#include "autograd/grad_ctx.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

void make_view(Frame& f, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  f.outs[0] = Tensor::adopt(TensorImpl::view_of(f.tensor(0), sizes, strides, offset));
}

// Replaces a single -1 with the size that keeps numel; CT_ERROR_SHAPE when impossible.
DimVector infer_size(const char* op, IntArrayRef sizes, int64_t numel, IntArrayRef from) {
  DimVector out(sizes);
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      CT_CHECK(infer < 0, CT_ERROR_SHAPE, op, ": only one dimension can be -1, got ", sizes, ". Spell out the others");
      infer = static_cast<int>(i);
    } else {
      CT_CHECK(sizes[i] >= 0, CT_ERROR_SHAPE, op, ": invalid size ", sizes[i], " in ", sizes,
               ". Sizes must be >= 0, or -1 to infer one");
      CT_CHECK(!__builtin_mul_overflow(known, sizes[i], &known), CT_ERROR_SHAPE, op, ": shape ", sizes,
               " has more elements than int64 can count");
    }
  }
  if (infer >= 0) {
    CT_CHECK(known != 0 && numel % known == 0, CT_ERROR_SHAPE, op, ": shape ", sizes, " is invalid for input ",
             from, " of ", numel, " elements. Choose sizes whose product is ", numel);
    out[infer] = numel / known;
  } else {
    CT_CHECK(known == numel, CT_ERROR_SHAPE, op, ": shape ", sizes, " is invalid for input ", from, " of ", numel,
             " elements. Choose sizes whose product is ", numel);
  }
  return out;
}

// Strides giving sizes `to` over the memory of (from, strides), or nothing when some new dim
// would have to span two separately strided chunks of the old layout.
std::optional<DimVector> view_strides(IntArrayRef from, IntArrayRef strides, IntArrayRef to, int64_t numel) {
  if (numel == 0 || from.empty()) return contiguous_strides(to);
  DimVector out;
  out.resize(to.size());
  int64_t vd = static_cast<int64_t>(to.size()) - 1;
  int64_t chunk_stride = strides.back(), chunk_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(from.size()) - 1; d >= 0; --d) {
    chunk_numel *= from[d];
    const bool chunk_ends = d == 0 || (from[d - 1] != 1 && strides[d - 1] != chunk_numel * chunk_stride);
    if (!chunk_ends) continue;
    while (vd >= 0 && (view_numel < chunk_numel || to[vd] == 1)) {
      out[vd] = view_numel * chunk_stride;
      view_numel *= to[vd];
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
  const TensorImpl& a = f.tensor(0);
  DimVector sizes = infer_size("view", f.arg(1).int_list(), a.numel(), a.sizes());
  auto st = view_strides(a.sizes(), a.strides(), sizes, a.numel());
  CT_CHECK(st, CT_ERROR_SHAPE, "view: sizes ", sizes.ref(), " are not compatible with the input's sizes ", a.sizes(),
           " and strides ", a.strides(), " (a dim would span two non-contiguous chunks). Use reshape, which copies");
  make_view(f, sizes, *st, a.storage_offset());
}

// reshape(Tensor(a) self, int[] shape) -> Tensor(a)
void reshape_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  DimVector sizes = infer_size("reshape", f.arg(1).int_list(), a.numel(), a.sizes());
  // Through the view operator, not make_view: reshape is a composite, so what it calls is what
  // autograd records.
  if (view_strides(a.sizes(), a.strides(), sizes, a.numel())) f.outs[0] = view(Tensor::borrow(&a), sizes);
  else f.outs[0] = view(clone(Tensor::borrow(&a)), sizes);
}

// permute(Tensor(a) self, int[] dims) -> Tensor(a)
void permute_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  IntArrayRef dims = f.arg(1).int_list();
  const int64_t n = static_cast<int64_t>(a.dim());
  CT_CHECK(static_cast<int64_t>(dims.size()) == n, CT_ERROR_SHAPE, "permute: dims ", dims, " has ", dims.size(),
           " entries but the input ", a.sizes(), " has ", n, " dims. List every dim once");
  DimVector sizes, strides;
  sizes.resize(n);
  strides.resize(n);
  uint64_t seen[kMaxDims / 64 + 1] = {};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = wrap_dim("permute", dims[i], n);
    CT_CHECK(!(seen[d / 64] >> (d % 64) & 1), CT_ERROR_SHAPE, "permute: dim ", d, " appears twice in ", dims,
             ". List every dim once");
    seen[d / 64] |= uint64_t(1) << (d % 64);
    sizes[i] = a.size(d);
    strides[i] = a.stride(d);
  }
  make_view(f, sizes, strides, a.storage_offset());
}

// transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
void transpose_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const int64_t n = static_cast<int64_t>(a.dim());
  const int64_t d0 = wrap_dim("transpose", f.arg(1).to_int(), n), d1 = wrap_dim("transpose", f.arg(2).to_int(), n);
  DimVector sizes(a.sizes()), strides(a.strides());
  if (n > 0) {
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  make_view(f, sizes, strides, a.storage_offset());
}

// expand(Tensor(a) self, int[] size) -> Tensor(a)
void expand_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  IntArrayRef want = f.arg(1).int_list();
  CT_CHECK(want.size() >= a.dim(), CT_ERROR_SHAPE, "expand: sizes ", want, " have fewer dims than the input ",
           a.sizes(), ". Give at least ", a.dim(), " sizes");
  const size_t lead = want.size() - a.dim();
  DimVector sizes, strides;
  sizes.resize(want.size());
  strides.resize(want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (i < lead) {
      CT_CHECK(want[i] >= 0, CT_ERROR_SHAPE, "expand: size -1 is not allowed for the new leading dim ", i, " in ",
               want, ". Give its size");
      sizes[i] = want[i];
      strides[i] = 0;
      continue;
    }
    const int64_t have = a.size(i - lead);
    const int64_t w = want[i] == -1 ? have : want[i];
    CT_CHECK(w == have || have == 1, CT_ERROR_SHAPE, "expand: the input ", a.sizes(), " cannot expand to ", want,
             " (dim ", i, ": ", have, " vs ", w, "). Only dims of size 1 can grow");
    sizes[i] = w;
    strides[i] = w == have ? a.stride(i - lead) : 0;
  }
  make_view(f, sizes, strides, a.storage_offset());
}

// squeeze(Tensor(a) self) -> Tensor(a); squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)
void squeeze_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const int64_t only = f.nargs > 1 ? wrap_dim("squeeze", f.arg(1).to_int(), a.dim()) : -1;
  DimVector sizes, strides;
  for (size_t d = 0; d < a.dim(); ++d) {
    const bool drop = a.size(d) == 1 && (only < 0 || static_cast<int64_t>(d) == only);
    if (drop) continue;
    sizes.push_back(a.size(d));
    strides.push_back(a.stride(d));
  }
  make_view(f, sizes, strides, a.storage_offset());
}

// unsqueeze(Tensor(a) self, int dim) -> Tensor(a)
void unsqueeze_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const int64_t d = wrap_dim("unsqueeze", f.arg(1).to_int(), static_cast<int64_t>(a.dim()) + 1);
  DimVector sizes(a.sizes()), strides(a.strides());
  const int64_t st = static_cast<size_t>(d) < a.dim() ? a.stride(d) * a.size(d) : 1;
  sizes.insert(d, 1);
  strides.insert(d, st);
  make_view(f, sizes, strides, a.storage_offset());
}

// narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)
void narrow_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(a.dim() > 0, CT_ERROR_SHAPE, "narrow: cannot narrow a 0-dim tensor. Reshape it to 1-D first");
  const int64_t d = wrap_dim("narrow", f.arg(1).to_int(), a.dim());
  const int64_t size = a.size(d);
  int64_t start = f.arg(2).to_int();
  const int64_t length = f.arg(3).to_int();
  CT_CHECK(start >= -size && start <= size, CT_ERROR_INDEX, "narrow: start ", start, " is out of range for dim ", d,
           " of size ", size, " (input ", a.sizes(), "). Pass start in [", -size, ", ", size, "]");
  if (start < 0) start += size;
  CT_CHECK(length >= 0 && length <= size - start, CT_ERROR_SHAPE, "narrow: start ", start, " + length ", length,
           " exceeds dim ", d, " of size ", size, " (input ", a.sizes(), "). Shorten length");
  DimVector sizes(a.sizes());
  sizes[d] = length;
  make_view(f, sizes, a.strides(), a.storage_offset() + start * a.stride(d));
}

// Python's clamping of a[start:end] for a dim of size `size`.
std::pair<int64_t, int64_t> slice_bounds(int64_t size, const Value& start, const Value& end) {
  auto clamp = [size](const Value& v, int64_t dflt) {
    if (v.is_none()) return dflt;
    int64_t x = v.to_int();
    if (x < 0) x += size;
    return x < 0 ? int64_t(0) : x > size ? size : x;
  };
  const int64_t s = clamp(start, 0);
  return {s, std::max(s, clamp(end, size))};
}

// slice.Tensor(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)
// Python's a[start:end:step] along dim: bounds are clamped to the size, as Python does.
void slice_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(a.dim() > 0, CT_ERROR_INDEX, "slice: cannot slice a 0-dim tensor. Reshape it to 1-D first");
  const int64_t d = wrap_dim("slice", f.arg(1).to_int(), a.dim());
  const int64_t size = a.size(d), step = f.arg(4).to_int();
  CT_CHECK(step > 0, CT_ERROR_INVALID_ARGUMENT, "slice: step is ", step, " (input ", a.sizes(),
           "). Steps must be positive; flip the result instead");
  const auto [start, end] = slice_bounds(size, f.arg(2), f.arg(3));
  DimVector sizes(a.sizes()), strides(a.strides());
  sizes[d] = (end - start + step - 1) / step;
  strides[d] = a.stride(d) * step;
  make_view(f, sizes, strides, a.storage_offset() + start * a.stride(d));
}

// select.int(Tensor(a) self, int dim, int index) -> Tensor(a)
void select_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(a.dim() > 0, CT_ERROR_INDEX, "select: cannot select from a 0-dim tensor. Use item() to read it");
  const int64_t d = wrap_dim("select", f.arg(1).to_int(), a.dim());
  const int64_t size = a.size(d);
  int64_t index = f.arg(2).to_int();
  CT_CHECK(index >= -size && index < size, CT_ERROR_INDEX, "select: index ", index, " is out of range for dim ", d,
           " of size ", size, " (input ", a.sizes(), "). Pass an index in [", -size, ", ", size - 1, "]");
  if (index < 0) index += size;
  DimVector sizes(a.sizes()), strides(a.strides());
  sizes.erase(d);
  strides.erase(d);
  make_view(f, sizes, strides, a.storage_offset() + index * a.stride(d));
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
  DimVector sizes;
  for (int64_t d = 0; d < s; ++d) sizes.push_back(a.size(d));
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= a.size(d);
  sizes.push_back(merged);
  for (int64_t d = e + 1; d < n; ++d) sizes.push_back(a.size(d));
  f.outs[0] = reshape(Tensor::borrow(&a), sizes);
}

// ---- Derivatives. A view's gradient is the incoming one laid back out in the input's shape.
using autograd::GradCtx;

// Reshaping views (view, squeeze, unsqueeze): the same elements in the input's sizes.
void reshape_back(GradCtx& c) { c.set(0, reshape(c.grad(), c.sizes(0))); }

void permute_backward(GradCtx& c) {
  const IntArrayRef dims = c.arg(1).int_list();
  DimVector inverse;
  inverse.resize(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    inverse[static_cast<size_t>(wrap_dim("permute", dims[i], dims.size()))] = static_cast<int64_t>(i);
  c.set(0, permute(c.grad(), inverse));
}
void transpose_backward(GradCtx& c) { c.set(0, transpose(c.grad(), c.arg(1).to_int(), c.arg(2).to_int())); }
void expand_backward(GradCtx& c) { c.set(0, c.grad()); }  // set() sums over the expanded dims

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

int64_t dim_of(GradCtx& c, size_t arg, const char* op) {
  return wrap_dim(op, c.arg(arg).to_int(), c.sizes(0).size());
}
void narrow_backward(GradCtx& c) {
  const int64_t d = dim_of(c, 1, "narrow");
  int64_t start = c.arg(2).to_int();
  if (start < 0) start += c.sizes(0)[d];
  c.set(0, embed(c.grad(), c.sizes(0), d, start, 1));
}
void select_backward(GradCtx& c) {
  const int64_t d = dim_of(c, 1, "select");
  int64_t index = c.arg(2).to_int();
  if (index < 0) index += c.sizes(0)[d];
  c.set(0, embed(unsqueeze(c.grad(), d), c.sizes(0), d, index, 1));
}
void slice_backward(GradCtx& c) {
  const int64_t d = dim_of(c, 1, "slice");
  const int64_t start = slice_bounds(c.sizes(0)[d], c.arg(2), c.arg(3)).first;
  c.set(0, embed(c.grad(), c.sizes(0), d, start, c.arg(4).to_int()));
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
  r.def("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)").composite(flatten_kernel);
}

}  // namespace ct::ops
