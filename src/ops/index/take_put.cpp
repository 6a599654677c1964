// take_put.cpp - take and put: indexing a tensor as if it were flattened; negative indices count
// from the end, as in torch.
#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/functions.h"
#include "ops/index/index_common.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// take(Tensor self, Tensor index) -> Tensor
void take_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& self = f.tensor(0);
  indexing::check_index_dtype("take", f.tensor(1), false);
  m.compute = self.dtype();
  set_output(m, 0, f.tensor(1).sym_sizes(), self.dtype(), common_device(f));
}

void take_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  const Tensor idx = indexing::checked_index("take", f.tensor(1), self.numel(), -1, true);
  const Tensor flat = expect_contiguous(Tensor::borrow(&self));
  const int64_t n = idx->numel();
  const int64_t* ix = idx->data_as<const int64_t>();
  visit_dtype<kAllDTypesAndComplex>(self.dtype(), "take", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* s = flat->template data_as<const T>();
    T* o = outs[0]->template data_as<T>();  // fresh, so contiguous
    for (int64_t i = 0; i < n; ++i) o[i] = s[ix[i]];
  });
}

// put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor
void put_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& index = f.tensor(1);
  const TensorImpl& source = f.tensor(2);
  indexing::check_index_dtype("put", index, false);
  CT_CHECK(source.dtype() == self.dtype(), CT_ERROR_DTYPE, "put: self (", self.dtype(), ") and source (",
           source.dtype(), ") must have the same dtype. Convert source with to()");
  CT_CHECK(source.sym_numel() == index.sym_numel(), CT_ERROR_SHAPE, "put: source ", source.sym_sizes(), " and index ",
           index.sym_sizes(), " must have the same number of elements. Give one source element per index");
  m.compute = self.dtype();
  set_output(m, 0, self.sym_sizes(), self.dtype(), common_device(f));
}

// Element offset of row-major position i in t (t may be a strided view when put_ writes in place).
int64_t offset_of(const TensorImpl& t, int64_t i) {
  if (t.is_contiguous()) return i;
  int64_t off = 0;
  for (int64_t d = static_cast<int64_t>(t.dim()) - 1; d >= 0; --d) {
    off += (i % t.size(d)) * t.stride(d);
    i /= t.size(d);
  }
  return off;
}

// Entries are applied in index order: a repeated index keeps the last (or adds them in order).
void put_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& self = f.tensor(0);
  const bool accumulate = f.arg(3).to_bool();
  const Tensor idx = indexing::checked_index("put", f.tensor(1), self.numel(), -1, true);
  const Tensor src = expect_contiguous(Tensor::borrow(&f.tensor(2)));
  indexing::copy_into(outs[0], self);
  const TensorImpl& out = *outs[0];
  const int64_t n = idx->numel();
  const int64_t* ix = idx->data_as<const int64_t>();
  visit_dtype<kAllDTypesAndComplex>(self.dtype(), "put", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const T* s = src->template data_as<const T>();
    T* o = out.template data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      T& d = o[offset_of(out, ix[i])];
      if (!accumulate) d = s[i];
      else if constexpr (std::is_same<T, bool>::value) d = d || s[i];
      else d = T(M(d) + M(s[i]));
    }
  });
}

// ---- Derivatives
using autograd::GradCtx;

void take_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  const Tensor z = zeros(c.sizes("self"), g->dtype(), g->device());
  c.set("self", indexing::put(z, c.saved("index"), g, true));
}

void put_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  const Tensor idx = c.saved("index");
  const bool accumulate = c.arg("accumulate").to_bool();
  if (c.needs("self"))
    c.set("self", accumulate ? g : indexing::put(g, idx, zeros(c.sizes("source"), g->dtype(), g->device()), false));
  if (c.needs("source")) c.set("source", reshape(indexing::take(g, idx), c.sizes("source")));
}

}  // namespace

void define_take_put(Registry& r) {
  r.def("take(Tensor self, Tensor index) -> Tensor")
      .meta(take_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, take_cpu, Determinism::Bitwise)
      .derivative(take_backward, save("index"));
  r.def("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor")
      .meta(put_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, put_cpu, Determinism::Bitwise)
      .derivative(put_backward, save("index"))
      .inplace("put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!)",
               OpBuilder::Reads::Anywhere);
}

}  // namespace ct::ops
