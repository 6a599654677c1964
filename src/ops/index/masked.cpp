// masked.cpp - operators driven by a boolean mask: masked_fill, masked_scatter, and the two whose
// output size depends on the data, masked_select and nonzero (composites that refuse the meta device).
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/index/index_common.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// torch still accepts uint8 masks (deprecated); the kernels read them as bool.
void check_mask(const char* op, const TensorImpl& mask) {
  CT_CHECK(mask.dtype() == DType::Bool || mask.dtype() == DType::UInt8, CT_ERROR_DTYPE, op,
           ": mask must be bool, got ", mask.dtype(), " (", mask.sym_sizes(), "). Build it with a comparison");
}

const TensorImpl* bool_mask(const TensorImpl& mask, Tensor& holder) { return as_dtype(mask, DType::Bool, holder); }

// masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor
// masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor
void masked_fill_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& self = f.tensor(0);
  check_mask("masked_fill", f.tensor(1));
  indexing::check_fill_value("masked_fill", f, 2, self);
  m.compute = self.dtype();
  set_output(m, 0, broadcast_shapes("masked_fill", self.sym_sizes(), f.tensor(1).sym_sizes()), self.dtype(),
             common_device(f));
}

void masked_fill_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  Tensor hm;
  const TensorImpl* in[2] = {&f.tensor(0), bool_mask(f.tensor(1), hm)};
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], in, 2);
  visit_dtype<kAllDTypesAndComplex>(m.compute, "masked_fill", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = indexing::fill_value<T>(f, 2);
    cpu::elementwise<T, T, bool>(plan, [v](T x, bool c) { return cpu::select(c, v, x); });
  });
}

// masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor
void masked_scatter_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& self = f.tensor(0);
  check_mask("masked_scatter", f.tensor(1));
  CT_CHECK(f.tensor(2).dtype() == self.dtype(), CT_ERROR_DTYPE, "masked_scatter: self (", self.dtype(),
           ") and source (", f.tensor(2).dtype(), ") must have the same dtype. Convert source with to()");
  m.compute = self.dtype();
  set_output(m, 0, broadcast_shapes("masked_scatter", self.sym_sizes(), f.tensor(1).sym_sizes()), self.dtype(),
             common_device(f));
}

// Source elements are consumed in order, one per true mask element in row-major order of the result.
void masked_scatter_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const Tensor out = outs[0];
  Tensor hm;
  const Tensor mask = expect_contiguous(expand(Tensor::borrow(bool_mask(f.tensor(1), hm)), out->sizes()));
  const Tensor source = expect_contiguous(Tensor::borrow(&f.tensor(2)));
  const bool* mk = mask->data_as<const bool>();
  const int64_t n = out->numel();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += mk[i];
  // An index error: the mask's true elements index source past its end (known from the values only).
  CT_CHECK(count <= source->numel(), CT_ERROR_INDEX, "masked_scatter: the mask has ", count,
           " true elements but source ", source->sym_sizes(), " has only ", source->numel(),
           ". Give source at least as many elements");
  indexing::copy_into(out, f.tensor(0));
  const Tensor dst = out->is_contiguous() ? out : expect_contiguous(out);
  visit_dtype<kAllDTypesAndComplex>(m.compute, "masked_scatter", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = dst->template data_as<T>();
    const T* s = source->template data_as<const T>();
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i)
      if (mk[i]) o[i] = s[k++];
  });
  if (dst.impl() != out.impl()) copy_(out, dst);
}

// Walks the nonzero elements of t in row-major order without a branch per element, which a random
// mask mispredicts half the time (x[mask] of 512x1024 took 4.8 ms, torch 3.1): a counting pass
// (a bool read as its byte, so it vectorizes), then visit(count, nonzero), nonzero(i) telling
// whether element i is. A visitor writes every element's slot k and moves k on only after a
// nonzero one, so its buffers need count + 1 slots.
template <typename Visit>
int64_t count_then_visit(const Tensor& c, const Visit& visit) {
  int64_t count = 0;
  visit_dtype<kAllDTypesAndComplex>(c->dtype(), "nonzero", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const cpu::loaded_t<T>* p = reinterpret_cast<const cpu::loaded_t<T>*>(c->data());
    const int64_t n = c->numel();
    for (int64_t i = 0; i < n; ++i) count += cpu::cast_value<bool>(p[i]);
    visit(count, [p](int64_t i) { return cpu::cast_value<bool>(p[i]); });
  });
  return count;
}

// Row-major positions of the nonzero elements of t.
std::vector<int64_t> true_positions(const TensorImpl& t) {
  const Tensor c = host_contiguous(Tensor::borrow(&t));  // Note [Values read on the host]
  std::vector<int64_t> pos;
  const int64_t n = c->numel();
  const int64_t count = count_then_visit(c, [&](int64_t total, const auto& nonzero) {
    pos.resize(static_cast<size_t>(total) + 1);
    int64_t* out = pos.data();
    for (int64_t i = 0, k = 0; i < n; ++i) {
      out[k] = i;
      k += nonzero(i);
    }
  });
  pos.resize(static_cast<size_t>(count));
  return pos;
}

// nonzero(Tensor self) -> Tensor
// The coordinates come from an odometer over the dims, not from dividing each position by the
// sizes (two 64-bit divisions per dim and element were most of its time).
void nonzero_kernel(void*, Frame& f) {
  const TensorImpl& self = f.tensor(0);
  const int64_t nd = static_cast<int64_t>(self.dim());
  if (auto u = indexing::data_dependent_size("nonzero", self, self.sym_numel())) {
    f.outs[0] = empty_symint({*u, nd}, DType::Int64, self.device());
    return;
  }
  indexing::check_not_meta("nonzero", self);
  const Tensor c = host_contiguous(Tensor::borrow(&self));  // Note [Values read on the host]
  Tensor out;
  const int64_t count = count_then_visit(c, [&](int64_t total, const auto& nonzero) {
    out = empty({total + 1, nd}, DType::Int64, kCPU);
    int64_t* o = out->data_as<int64_t>();
    if (nd == 0 || c->numel() == 0) return;
    const int64_t last = self.size(nd - 1), outer = c->numel() / last;
    DimVector at;
    at.resize(static_cast<size_t>(nd));
    for (int64_t d = 0; d < nd; ++d) at[d] = 0;
    int64_t k = 0;
    for (int64_t r = 0; r < outer; ++r) {
      for (int64_t j = 0; j < last; ++j) {
        int64_t* row = o + k * nd;
        for (int64_t d = 0; d + 1 < nd; ++d) row[d] = at[d];
        row[nd - 1] = j;
        k += nonzero(r * last + j);
      }
      for (int64_t d = nd - 2; d >= 0 && ++at[d] == self.size(d); --d) at[d] = 0;
    }
  });
  f.outs[0] = to(narrow(out, 0, 0, count), self.device(), DType::Int64);
}

// masked_select(Tensor self, Tensor mask) -> Tensor
// index_select over the flattened broadcast self: its derivative (index_add) is the gradient.
void masked_select_kernel(void*, Frame& f) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& mask = f.tensor(1);
  check_mask("masked_select", mask);
  const SymDimVector sb = broadcast_shapes("masked_select", self.sym_sizes(), mask.sym_sizes());
  const TensorImpl& with_env = self.shape_env() ? self : mask;
  if (auto u = indexing::data_dependent_size("masked_select", with_env, checked_numel(sb.ref(), "masked_select"))) {
    f.outs[0] = empty_symint({*u}, self.dtype(), self.device());
    return;
  }
  const DimVector b(as_ints(sb.ref()));
  indexing::check_not_meta("masked_select", self);
  indexing::check_not_meta("masked_select", mask);
  Tensor hm;
  const std::vector<int64_t> pos = true_positions(*expand(Tensor::borrow(bool_mask(mask, hm)), b));
  Tensor idx = empty({static_cast<int64_t>(pos.size())}, DType::Int64, kCPU);
  std::copy(pos.begin(), pos.end(), idx->data_as<int64_t>());
  idx = to(idx, self.device(), DType::Int64);
  const Tensor flat = reshape(expand(Tensor::borrow(&self), b), {-1});
  f.outs[0] = indexing::index_select(flat, 0, idx);
}

// ---- Derivatives
using autograd::GradCtx;

void masked_fill_backward(GradCtx& c) {
  c.set("self", indexing::masked_fill(c.grad(), c.saved("mask"), Scalar(0)));
}
void masked_fill_tensor_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  const Tensor kept = indexing::masked_fill(g, c.saved("mask"), Scalar(0));
  if (c.needs("self")) c.set("self", kept);
  if (c.needs("value")) c.set("value", sum(sub(g, kept), {}, false));
}

// source's first k elements (k true mask elements) get the gradient at their targets; the rest 0.
void masked_scatter_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  const Tensor mask = c.saved("mask");
  if (c.needs("self")) c.set("self", indexing::masked_fill(g, mask, Scalar(0)));
  if (!c.needs("source")) return;
  const Tensor used = indexing::masked_select(g, mask);
  int64_t numel = 1;
  for (int64_t s : c.sizes("source")) numel *= s;
  Tensor flat = used;
  if (used->numel() < numel) {
    const Tensor pad = zeros({numel - used->numel()}, g->dtype(), g->device());
    const TensorImpl* parts[2] = {used.impl(), pad.impl()};
    flat = cat(ArrayRef<const TensorImpl*>(parts, 2), 0);
  }
  c.set("source", reshape(flat, c.sizes("source")));
}

}  // namespace

void define_masked(Registry& r) {
  r.def("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor")
      .meta(masked_fill_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, masked_fill_cpu, Determinism::Bitwise)
      .derivative(masked_fill_backward, save("mask"))
      .inplace("masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)");
  r.def("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor")
      .meta(masked_fill_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, masked_fill_cpu, Determinism::Bitwise)
      .derivative(masked_fill_tensor_backward, save("mask"))
      .inplace("masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)");
  r.def("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor")
      .meta(masked_scatter_meta)
      .takes_complex()
      .compute(DispatchKey::CPU, masked_scatter_cpu, Determinism::Bitwise)
      .derivative(masked_scatter_backward, save("mask"))
      .inplace("masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)",
               OpBuilder::Reads::Anywhere);
  r.def("masked_select(Tensor self, Tensor mask) -> Tensor").composite(masked_select_kernel);
  r.def("nonzero(Tensor self) -> Tensor").composite(nonzero_kernel).not_differentiable();
}

}  // namespace ct::ops
