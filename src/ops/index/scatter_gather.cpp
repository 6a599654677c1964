// scatter_gather.cpp - an index per element along one dim: gather, scatter (src and value),
// scatter_add and scatter_reduce. Loops: see Note [Indexing loops].
#include <cmath>
#include <cstring>
#include <limits>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/index/index_common.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

using indexing::LoopOperand;
using indexing::sizes_1d;
using indexing::sym_sizes_1d;
using indexing::strides_1d;

int64_t dim_arg(const char* op, const Frame& f, const TensorImpl& self) {
  return wrap_dim(op, f.arg(1).to_int(), std::max<int64_t>(1, static_cast<int64_t>(self.dim())));
}

// torch's rules: index has self's rank (0-dim counting as 1-D) and is no larger than self outside
// dim, and no larger than src anywhere.
void check_shapes(const char* op, const TensorImpl& self, const TensorImpl& index, const TensorImpl* src,
                  int64_t dim) {
  indexing::check_index_dtype(op, index, false);
  const SymDimVector ss = sym_sizes_1d(self), is = sym_sizes_1d(index);
  CT_CHECK(ss.size() == is.size(), CT_ERROR_SHAPE, op, ": index ", index.sym_sizes(), " must have as many dims as self ",
           self.sym_sizes(), ". Reshape index");
  if (index.sym_numel() == 0) return;
  for (size_t d = 0; d < ss.size(); ++d)
    CT_CHECK(static_cast<int64_t>(d) == dim || is[d] <= ss[d], CT_ERROR_SHAPE, op, ": index ", index.sym_sizes(),
             " is larger than self ", self.sym_sizes(), " in dim ", d, ". Make index no larger than self outside dim ",
             dim);
  if (!src) return;
  const SymDimVector rs = sym_sizes_1d(*src);
  CT_CHECK(rs.size() == is.size(), CT_ERROR_SHAPE, op, ": src ", src->sym_sizes(), " must have as many dims as index ",
           index.sym_sizes(), ". Reshape src");
  for (size_t d = 0; d < rs.size(); ++d)
    CT_CHECK(is[d] <= rs[d], CT_ERROR_SHAPE, op, ": index ", index.sym_sizes(), " is larger than src ", src->sym_sizes(),
             " in dim ", d, ". Make index no larger than src");
}

// gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
void gather_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& self = f.tensor(0);
  const int64_t dim = dim_arg("gather", f, self);
  check_shapes("gather", self, f.tensor(2), nullptr, dim);
  CT_CHECK(!f.arg(3).to_bool(), CT_ERROR_NOT_IMPLEMENTED, "gather: sparse_grad=True is not supported (ctorch has no "
           "sparse tensors). Pass sparse_grad=False");
  m.compute = self.dtype();
  set_output(m, 0, f.tensor(2).sym_sizes(), self.dtype(), common_device(f));
}

// The loop over index's positions: tensors out-or-self (indexed along dim), then the others.
struct IndexedLoop {
  indexing::DimLoop L;
  int64_t indexed_stride;  // element stride along dim of the indexed tensor
  Tensor idx;              // checked, contiguous
};

IndexedLoop indexed_loop(const char* op, const TensorImpl& indexed, const TensorImpl& index, int64_t dim,
                         const TensorImpl* other) {
  IndexedLoop r;
  r.idx = indexing::checked_index(op, index, sizes_1d(indexed)[dim], dim, false);
  const DimVector shape = sizes_1d(index);
  DimVector xs = strides_1d(indexed);
  r.indexed_stride = xs[dim];
  xs[dim] = 0;
  LoopOperand ops[3] = {{static_cast<char*>(indexed.data()), xs},
                        {static_cast<char*>(r.idx->data()), contiguous_strides(shape)},
                        {nullptr, {}}};
  if (other) ops[2] = {static_cast<char*>(other->data()), strides_1d(*other)};
  r.L = indexing::make_dim_loop(shape, dim, ops, other ? 3 : 2);
  return r;
}

void gather_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  const int64_t dim = dim_arg("gather", f, self);
  const IndexedLoop r = indexed_loop("gather", self, f.tensor(2), dim, outs[0].impl());
  const int64_t xs = r.indexed_stride;
  visit_dtype<kAllDTypesAndComplex>(self.dtype(), "gather", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = reinterpret_cast<const T*>(r.L.base[0]);
    const int64_t* ix = reinterpret_cast<const int64_t*>(r.L.base[1]);
    T* o = reinterpret_cast<T*>(r.L.base[2]);
    indexing::run_dim_loop(r.L, true, indexing::each([&](const int64_t* off) { o[off[2]] = s[off[0] + ix[off[1]] * xs]; }));
  });
}

// scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
// scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor
// scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
void scatter_meta_named(const char* op, const Frame& f, MetaResult& m) {
  const TensorImpl& self = f.tensor(0);
  const int64_t dim = dim_arg(op, f, self);
  const TensorImpl* src = f.arg(3).is_tensor() ? &f.tensor(3) : nullptr;
  if (src)
    CT_CHECK(src->dtype() == self.dtype(), CT_ERROR_DTYPE, op, ": self (", self.dtype(), ") and src (", src->dtype(),
             ") must have the same dtype. Convert src with to()");
  else
    check_scalar_fits(op, "value", f.arg(3).to_scalar(), self.dtype());
  check_shapes(op, self, f.tensor(2), src, dim);
  m.compute = self.dtype();
  set_output(m, 0, self.sym_sizes(), self.dtype(), common_device(f));
}
void scatter_meta(const Frame& f, MetaResult& m) { scatter_meta_named("scatter", f, m); }
void scatter_add_meta(const Frame& f, MetaResult& m) { scatter_meta_named("scatter_add", f, m); }

// Walks index in order along dim within each unit, so repeated targets see their entries in index
// order on every run and thread count (the last one wins for scatter, they add for scatter_add).
template <typename Body>
void scatter_loop(const char* op, const Frame& f, const Tensor& out, const Body& body) {
  const TensorImpl& self = f.tensor(0);
  const int64_t dim = dim_arg(op, f, self);
  const TensorImpl* src = f.arg(3).is_tensor() ? &f.tensor(3) : nullptr;
  IndexedLoop r = indexed_loop(op, *out, f.tensor(2), dim, src);  // checks before self is copied
  indexing::copy_into(out, self);
  visit_dtype<kAllDTypesAndComplex>(self.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    body(tag, r, reinterpret_cast<T*>(r.L.base[0]), reinterpret_cast<const int64_t*>(r.L.base[1]),
         reinterpret_cast<const T*>(r.L.base[2]));
  });
}

void scatter_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const bool has_src = f.arg(3).is_tensor();
  scatter_loop("scatter", f, outs[0], [&](auto tag, const IndexedLoop& r, auto* o, const int64_t* ix, const auto* s) {
    using T = typename decltype(tag)::type;
    const int64_t xs = r.indexed_stride;
    if (has_src) {
      indexing::run_dim_loop(r.L, false,
                          indexing::each([&](const int64_t* off) { o[off[0] + ix[off[1]] * xs] = s[off[2]]; }));
    } else {
      const T v = cpu::cast_value<T>(f.arg(3).to_scalar().template to<opmath_t<T>>());
      indexing::run_dim_loop(r.L, false, indexing::each([&](const int64_t* off) { o[off[0] + ix[off[1]] * xs] = v; }));
    }
  });
}

void scatter_add_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  scatter_loop("scatter_add", f, outs[0], [&](auto tag, const IndexedLoop& r, auto* o, const int64_t* ix,
                                             const auto* s) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const int64_t xs = r.indexed_stride;
    indexing::run_dim_loop(r.L, false, indexing::each([&](const int64_t* off) {
      T& d = o[off[0] + ix[off[1]] * xs];
      if constexpr (std::is_same<T, bool>::value) d = d || s[off[2]];
      else d = T(M(d) + M(s[off[2]]));
    }));
  });
}

// scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor
enum class Reduce { Sum, Prod, Mean, Amax, Amin };

Reduce reduce_arg(const Frame& f) {
  const std::string r = f.arg(4).str();
  if (r == "sum") return Reduce::Sum;
  if (r == "prod") return Reduce::Prod;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax") return Reduce::Amax;
  if (r == "amin") return Reduce::Amin;
  fail(CT_ERROR_INVALID_ARGUMENT, str("scatter_reduce: reduce is '", r,
                                      "'. Pass one of 'sum', 'prod', 'mean', 'amax', 'amin'"));
}

void scatter_reduce_meta(const Frame& f, MetaResult& m) {
  const Reduce red = reduce_arg(f);
  const DType d = f.tensor(0).dtype();
  // Complex numbers have no order, so no maximum or minimum (torch has no such kernel either).
  CT_CHECK(!is_complex(d) || (red != Reduce::Amax && red != Reduce::Amin), CT_ERROR_DTYPE,
           "scatter_reduce: reduce '", f.arg(4).str(), "' is not defined for ", d,
           " tensors, as complex numbers have no order. Pass 'sum', 'prod' or 'mean', or reduce abs() instead");
  CT_CHECK(d != DType::Bool, CT_ERROR_DTYPE, "scatter_reduce: not supported for bool tensors. Convert self and src with to()");
  scatter_meta_named("scatter_reduce", f, m);
}

template <typename M>
M identity(Reduce r) {
  if (r == Reduce::Prod) return M(1);
  if constexpr (!cpu::is_complex_t<M>::value) {  // complex amax and amin are refused in scatter_reduce_meta
    using L = std::numeric_limits<M>;
    if (r == Reduce::Amax) return L::has_infinity ? -L::infinity() : L::lowest();
    if (r == Reduce::Amin) return L::has_infinity ? L::infinity() : L::max();
  }
  return M(0);
}

template <typename M>
bool is_nan(M x) {
  if constexpr (std::is_floating_point<M>::value) return std::isnan(x);
  else return false;
}

// One step of reduction red: the running value a with the scattered b.
template <typename M>
M reduce_step(Reduce red, M a, M b) {
  switch (red) {
    case Reduce::Sum:
    case Reduce::Mean: return a + b;
    case Reduce::Prod: return a * b;
    default: break;
  }
  if constexpr (cpu::is_complex_t<M>::value) {
    return a;  // refused in scatter_reduce_meta
  } else {
    if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
    return red == Reduce::Amax ? (a > b ? a : b) : (a < b ? a : b);
  }
}

void scatter_reduce_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const Reduce red = reduce_arg(f);
  const bool include_self = f.arg(5).to_bool();
  const TensorImpl& self = f.tensor(0);
  // mean needs a count per element of self: entries scattered there, plus one for self itself.
  Tensor count;
  if (red == Reduce::Mean) count = full(self.sizes(), Scalar(int64_t(include_self ? 1 : 0)), DType::Int64, kCPU);
  scatter_loop("scatter_reduce", f, outs[0], [&](auto tag, const IndexedLoop& r, auto* o, const int64_t* ix,
                                                const auto* s) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same<T, bool>::value) {  // bool is refused in scatter_reduce_meta
      using M = opmath_t<T>;
      const int64_t xs = r.indexed_stride;
      if (!include_self)
        indexing::run_dim_loop(r.L, false, indexing::each([&](const int64_t* off) {
          o[off[0] + ix[off[1]] * xs] = T(identity<M>(red));
        }));
      indexing::run_dim_loop(r.L, false, indexing::each([&](const int64_t* off) {
        T& d = o[off[0] + ix[off[1]] * xs];
        d = T(reduce_step<M>(red, M(d), M(s[off[2]])));
      }));
    }
  });
  if (red != Reduce::Mean) return;
  // count = include_self + scatter_add(ones) over index; then the sums are divided by it (floor for
  // integers, as torch does), where it is not 0.
  const int64_t dim = dim_arg("scatter_reduce", f, self);
  const TensorImpl& index = f.tensor(2);
  const Tensor ones_src = ones(index.sizes(), DType::Int64, kCPU);
  count = indexing::scatter_add(count, dim, Tensor::borrow(&index), ones_src);
  const Tensor safe = where(eq(count, Scalar(int64_t(0))), ones(self.sizes(), DType::Int64, kCPU),
                            count);
  const TensorImpl* in[2] = {outs[0].impl(), safe.impl()};
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], in, 2);
  visit_dtype<kNumericDTypes | kComplexDTypes>(self.dtype(), "scatter_reduce", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    cpu::elementwise<T, T, int64_t>(plan, [](T x, int64_t n) {
      if constexpr (std::is_integral<T>::value) {  // floor division, as torch's div(rounding_mode='floor')
        const int64_t v = static_cast<int64_t>(x);
        int64_t q = v / n;
        if (v % n != 0 && (v < 0) != (n < 0)) --q;
        return static_cast<T>(q);
      } else {
        return T(M(x) / M(n));
      }
    });
  });
}

// scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor
// scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor
// torch's older form of scatter_reduce ('add' or 'multiply', self included): composites over
// scatter_add and scatter_reduce, whose derivatives give theirs.
Tensor scatter_with_reduce(const Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0)), index = Tensor::borrow(&f.tensor(2));
  const std::string reduce = f.arg(4).str();
  CT_CHECK(reduce == "add" || reduce == "multiply", CT_ERROR_INVALID_ARGUMENT, "scatter: reduce is '", reduce,
           "'. Pass 'add' or 'multiply' (scatter_reduce has 'sum', 'prod', 'mean', 'amax', 'amin')");
  const Tensor src = f.arg(3).is_tensor() ? Tensor::borrow(&f.tensor(3))
                                          : full_symint(index->sym_sizes(), f.arg(3).to_scalar(), self->dtype(),
                                                        self->device());
  if (reduce == "add") return indexing::scatter_add(self, f.arg(1).to_int(), index, src);
  return scatter_reduce(self, f.arg(1).to_int(), index, src, "prod", true);
}
void scatter_reduce_kernel(void*, Frame& f) { f.outs[0] = scatter_with_reduce(f); }
void scatter_reduce_inplace_kernel(void*, Frame& f) {
  const Tensor r = scatter_with_reduce(f);
  copy_(Tensor::borrow(&f.tensor(0)), r);
  f.outs[0] = Tensor::borrow(&f.tensor(0));
}

// ---- Derivatives
using autograd::GradCtx;
const Scalar kOne(1.0);

// src may be larger than index (torch allows it); the elements no index entry reads get zeros.
Tensor grow(const Tensor& t, IntArrayRef sizes) {
  Tensor r = t;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (r->size(d) == sizes[d]) continue;
    DimVector zs(r->sizes());
    zs[d] = sizes[d] - r->size(d);
    const Tensor z = zeros(zs, r->dtype(), r->device());
    const TensorImpl* parts[2] = {r.impl(), z.impl()};
    r = cat(ArrayRef<const TensorImpl*>(parts, 2), static_cast<int64_t>(d));
  }
  return r;
}

// The part of src that index reads (its leading corner of index's sizes).
Tensor narrow_to(const Tensor& src, const Tensor& index) {
  Tensor r = src;
  for (size_t d = 0; d < index->dim(); ++d)
    if (r->size(d) != index->size(d)) r = narrow(r, static_cast<int64_t>(d), 0, index->size(d));
  return r;
}

int64_t grad_dim(GradCtx& c) {
  return wrap_dim("scatter", c.arg("dim").to_int(), std::max<int64_t>(1, static_cast<int64_t>(c.sizes("self").size())));
}

void gather_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  const Tensor z = zeros(c.sizes("self"), g->dtype(), g->device());
  c.set("self", indexing::scatter_add(z, grad_dim(c), c.saved("index"), g));
}

// Overwritten elements of self get no gradient; each src element used gets its target's.
void scatter_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  const int64_t dim = grad_dim(c);
  if (c.needs("self")) c.set("self", indexing::scatter_value(g, dim, c.saved("index"), Scalar(0)));
  if (c.needs("src")) c.set("src", grow(indexing::gather(g, dim, c.saved("index")), c.sizes("src")));
}
void scatter_value_backward(GradCtx& c) {
  c.set("self", indexing::scatter_value(c.grad(), grad_dim(c), c.saved("index"), Scalar(0)));
}

void scatter_add_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  if (c.needs("self")) c.set("self", g);
  if (c.needs("src")) c.set("src", grow(indexing::gather(g, grad_dim(c), c.saved("index")), c.sizes("src")));
}

void scatter_reduce_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  const int64_t dim = grad_dim(c);
  const Tensor idx = c.saved("index");
  const std::string red = c.arg("reduce").str();
  const bool include_self = c.arg("include_self").to_bool();
  // Where self does not take part, the scattered positions of self get nothing.
  auto self_part = [&](const Tensor& t) { return include_self ? t : indexing::scatter_value(t, dim, idx, Scalar(0)); };
  if (red == "sum") {
    if (c.needs("self")) c.set("self", self_part(g));
    if (c.needs("src")) c.set("src", grow(indexing::gather(g, dim, idx), c.sizes("src")));
    return;
  }
  const Tensor src = c.saved("src");
  // Counts are real, in the dtype of g's parts.
  const DType count_dtype = real_dtype(g->dtype());
  if (red == "mean") {
    const Tensor n0 = full(c.sizes("self"), Scalar(include_self ? 1.0 : 0.0), count_dtype, g->device());
    const Tensor n = indexing::scatter_add(n0, dim, idx, ones(src->sizes(), count_dtype, g->device()));
    const Tensor gs = div(g, clamp(n, kOne));
    if (c.needs("self")) c.set("self", self_part(gs));
    if (c.needs("src")) c.set("src", grow(indexing::gather(gs, dim, idx), c.sizes("src")));
    return;
  }
  const Tensor self = c.saved("self"), result = c.result();
  if (red == "prod") {
    // The derivative by one factor is the product of the others, zeros included: with P the product
    // of a position's nonzero factors and Z its count of zero factors, a nonzero factor x gets
    // P / x when Z == 0 (else 0), a zero factor gets P when Z == 1 (else 0). A complex factor's
    // gradient is g times the conjugate of that product (torch's convention for complex gradients).
    const Tensor s = narrow_to(src, idx), zero = zeros({}, g->dtype(), g->device());
    const Tensor one = ones({}, g->dtype(), g->device());
    const Tensor s_zero = eq(s, Scalar(0.0)), self_zero = eq(self, Scalar(0.0));
    const Tensor base = include_self ? where(self_zero, one, self) : ones(c.sizes("self"), g->dtype(), g->device());
    const Tensor p = scatter_reduce(base, dim, idx, where(s_zero, one, s), "prod", true);
    const Tensor z0 = include_self ? to(self_zero, count_dtype) : zeros(c.sizes("self"), count_dtype, g->device());
    const Tensor z = indexing::scatter_add(z0, dim, idx, to(s_zero, count_dtype));
    auto others = [&](const Tensor& x_zero, const Tensor& x_masked, const Tensor& pp, const Tensor& zz) {
      return conj_if_complex(where(x_zero, where(eq(zz, Scalar(1.0)), pp, zero),
                                   where(gt(zz, Scalar(0.0)), zero, div(pp, x_masked))));
    };
    if (c.needs("self")) c.set("self", self_part(mul(g, others(self_zero, base, p, z))));
    if (c.needs("src")) {
      const Tensor o = others(s_zero, where(s_zero, one, s), indexing::gather(p, dim, idx), indexing::gather(z, dim, idx));
      c.set("src", grow(mul(indexing::gather(g, dim, idx), o), c.sizes("src")));
    }
    return;
  }
  // amax / amin: the gradient is shared evenly by every input equal to the result, as torch does.
  const Tensor self_hit = to(self_part(to(eq(self, result), g->dtype())), g->dtype());
  const Tensor src_hit = to(eq(narrow_to(src, idx), indexing::gather(result, dim, idx)), g->dtype());
  const Tensor n = indexing::scatter_add(self_hit, dim, idx, src_hit);
  const Tensor share = div(g, clamp(n, kOne));
  if (c.needs("self")) c.set("self", mul(share, self_hit));
  if (c.needs("src")) c.set("src", grow(mul(indexing::gather(share, dim, idx), src_hit), c.sizes("src")));
}

// take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor: gather along dim after
// broadcasting self and indices against each other in every other dim; without dim, a gather
// from the flattened self.
void take_along_dim_kernel(void*, Frame& f) {
  const Tensor self = Tensor::borrow(&f.tensor(0)), idx = Tensor::borrow(&f.tensor(1));
  CT_CHECK(idx->dtype() == DType::Int64, CT_ERROR_DTYPE, "take_along_dim: indices are ", idx->dtype(), " ",
           idx->sym_sizes(), "; they must be int64. Convert them with to(int64)");
  if (f.arg(2).is_none()) {
    f.outs[0] = gather(reshape(self, {-1}), 0, reshape(idx, {-1}));
    return;
  }
  CT_CHECK(self->dim() > 0, CT_ERROR_INDEX, "take_along_dim: self is 0-dim, so it has no dim ", f.arg(2).to_int(),
           ". Leave dim out to take from the flattened self");
  CT_CHECK(self->dim() == idx->dim(), CT_ERROR_SHAPE, "take_along_dim: self ", self->sym_sizes(), " and indices ",
           idx->sym_sizes(), " must have the same number of dims");
  const int64_t dim = wrap_dim("take_along_dim", f.arg(2).to_int(), static_cast<int64_t>(self->dim()));
  SymDimVector self_sizes(self->sym_sizes()), idx_sizes(idx->sym_sizes());
  self_sizes[dim] = idx->sym_size(dim);
  const SymDimVector idx_shape = broadcast_shapes("take_along_dim", self_sizes, idx->sym_sizes());
  idx_sizes[dim] = self->sym_size(dim);
  const SymDimVector self_shape = broadcast_shapes("take_along_dim", idx_sizes, self->sym_sizes());
  f.outs[0] = gather(expand_symint(self, self_shape), dim, expand_symint(idx, idx_shape));
}

}  // namespace

void define_scatter_gather(Registry& r) {
  r.def("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor").composite(take_along_dim_kernel);
  r.def("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor")
      .meta(gather_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, gather_cpu, Determinism::Bitwise)
      .derivative(gather_backward, save("index"));
  r.def("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor")
      .meta(scatter_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, scatter_cpu, Determinism::Bitwise)
      .derivative(scatter_backward, save("index"))
      .inplace("scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
               OpBuilder::Reads::Anywhere);
  r.def("scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor")
      .meta(scatter_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, scatter_cpu, Determinism::Bitwise)
      .derivative(scatter_value_backward, save("index"))
      .inplace("scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
               OpBuilder::Reads::Anywhere);
  r.def("scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor")
      .composite(scatter_reduce_kernel);
  r.def("scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor")
      .composite(scatter_reduce_kernel);
  r.def("scatter_.reduce(Tensor(a!) self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor(a!)")
      .composite(scatter_reduce_inplace_kernel);
  r.def("scatter_.value_reduce(Tensor(a!) self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor(a!)")
      .composite(scatter_reduce_inplace_kernel);
  r.def("scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor")
      .meta(scatter_add_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, scatter_add_cpu, Determinism::Bitwise)
      .derivative(scatter_add_backward, save("index"))
      .inplace("scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
               OpBuilder::Reads::Anywhere);
  r.def("scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) "
        "-> Tensor")
      .meta(scatter_reduce_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, scatter_reduce_cpu, Determinism::Bitwise)
      .derivative(scatter_reduce_backward, save_result(save("self", "index", "src")))
      .inplace("scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, *, "
               "bool include_self=True) -> Tensor(a!)", OpBuilder::Reads::Anywhere);
}

}  // namespace ct::ops
