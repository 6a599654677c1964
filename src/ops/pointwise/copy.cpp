// copy.cpp - copy_ (with broadcasting and dtype conversion), and the operators built on it:
// to.dtype, contiguous, clone.
#include "autograd/grad_ctx.h"
#include "dispatch/dispatcher.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)
void copy_check(const Frame& f) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& src = f.tensor(1);
  check_inplace_target(self, "copy_");
  CT_CHECK(self.device() == src.device() || (src.dim() == 0 && src.device().is_cpu()), CT_ERROR_DEVICE,
           "copy_: self is on ", self.device(), " and src on ", src.device(), ". Copy between devices with to()");
  const SymDimVector b = broadcast_shapes("copy_", self.sym_sizes(), src.sym_sizes());
  CT_CHECK(b.ref().equals(self.sym_sizes()), CT_ERROR_SHAPE, "copy_: src ", src.sym_sizes(),
           " does not broadcast to self ", self.sym_sizes(), ". Give src self's sizes, or sizes of 1 where they differ");
}

void copy_cpu(void*, Frame& f) {
  copy_check(f);
  const TensorImpl& self = f.tensor(0);
  const TensorImpl* src = f.args[1].tensor_ptr();
  // See Note [In-place aliasing]: refuse a self with aliased elements, read an overlapping src
  // from a copy.
  CT_CHECK(!has_internal_overlap(self), CT_ERROR_INVALID_ARGUMENT, "copy_: several elements of self (sizes ",
           self.sym_sizes(), ", strides ", self.strides(), ") share one memory location. Clone self first");
  Tensor src_copy;
  if (overlaps_differently(self, *src)) {
    src_copy = clone(Tensor::borrow(src));
    src = src_copy.impl();
  }
  cpu::LoopPlan plan = cpu::make_plan(self, &src, 1);
  visit_dtype(self.dtype(), "copy_", [&](auto dt) {
    using D = typename decltype(dt)::type;
    visit_dtype(src->dtype(), "copy_", [&](auto st) {
      using S = typename decltype(st)::type;
      cpu::elementwise<D, S>(plan, [](S x) { return cpu::cast_value<D>(x); });
    });
  });
  self.storage()->bump_version();
  f.outs[0] = Tensor::borrow(&self);
}

void copy_meta(void*, Frame& f) {
  copy_check(f);
  f.outs[0] = Tensor::borrow(&f.tensor(0));
}

// Returns the input itself when nothing needs converting, as Tensor.to does.
void to_dtype(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const DType dtype = f.arg(1).dtype();
  if (a.dtype() == dtype) {
    f.outs[0] = Tensor::borrow(&a);
    return;
  }
  f.outs[0] = empty_like_sizes(a, dtype);
  copy_(f.outs[0], Tensor::borrow(&a));
}

void contiguous_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  if (a.is_contiguous()) {
    f.outs[0] = Tensor::borrow(&a);
    return;
  }
  f.outs[0] = empty_like_sizes(a, a.dtype());
  copy_(f.outs[0], Tensor::borrow(&a));
}

void clone_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  f.outs[0] = empty_like_sizes(a, a.dtype());
  copy_(f.outs[0], Tensor::borrow(&a));
}

// self's old values are overwritten, so they get no gradient; src's is summed over the dims it
// was broadcast along and converted back to its dtype (by set).
void copy_backward(autograd::GradCtx& c) { c.set(1, c.grad()); }

}  // namespace

void define_copy(Registry& r) {
  r.def("copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)")
      .kernel(DispatchKey::CPU, copy_cpu, Determinism::Bitwise)
      .kernel(DispatchKey::Meta, copy_meta, Determinism::Bitwise)
      .derivative(copy_backward);
  r.def("to.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)").composite(to_dtype);
  r.def("contiguous(Tensor(a) self) -> Tensor(a)").composite(contiguous_kernel);
  r.def("clone(Tensor self) -> Tensor").composite(clone_kernel);
}

}  // namespace ct::ops
