// copy.cpp - copy_ (with broadcasting and dtype conversion), and the operators built on it:
// to.dtype, contiguous, clone; to.device, which moves elements between devices; fill_ and zero_,
// a copy of one value into every element.
#include <algorithm>
#include <cstring>

#include "core/device_backend.h"
#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/copy_tiled.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)
void copy_check(const Frame& f) {
  const TensorImpl& self = f.tensor(0);
  const TensorImpl& src = f.tensor(1);
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
  if (self.dtype() == src->dtype()) {
    const int64_t item = static_cast<int64_t>(itemsize(self.dtype()));
    if (cpu::copy_tiled(plan, item)) {
      // A transpose: see Note [Tiled transpose copy].
    } else if (plan.ndim == 1 && plan.strides[0][0] == item && plan.strides[1][0] == item) {
      // Dense on both sides: the C library's memcpy is tuned for this machine's large copies.
      cpu::run_plan(plan, [item](char** ptrs, const int64_t*, int64_t n) { std::memcpy(ptrs[0], ptrs[1], n * item); });
    } else if (std::all_of(plan.strides[1], plan.strides[1] + plan.ndim, [](int64_t s) { return s == 0; })) {
      // One value into every element: an expanded scalar, as autograd hands a sum's gradient on. A
      // fill, where the elementwise loop read it again per element (59 us against 8 for torch's on
      // 8x32x32x32).
      visit_dtype<kAllDTypesAndComplex>(self.dtype(), "copy_", [&](auto dt) {
        using T = typename decltype(dt)::type;
        T v;
        std::memcpy(&v, src->data(), sizeof v);
        cpu::elementwise<T>(cpu::make_plan(self, nullptr, 0), [v]() { return v; });
      });
    } else {
      visit_dtype<kAllDTypesAndComplex>(self.dtype(), "copy_", [&](auto dt) {
        using T = typename decltype(dt)::type;
        cpu::elementwise<T, T>(plan, [](T x) { return x; });
      });
    }
  } else {  // the conversion the loop engine's mixed-dtype reads use (Note [Casting in the loop])
    const cpu::CastLine line = cpu::cast_line(src->dtype(), self.dtype());
    const int64_t item = static_cast<int64_t>(itemsize(self.dtype()));
    cpu::run_plan(plan, [line, item](char** ptrs, const int64_t* strides, int64_t n) {
      if (strides[0] == item) return line(ptrs[1], strides[1], ptrs[0], n);
      constexpr int64_t kChunk = 256;  // a strided self: convert a chunk, then scatter it
      alignas(64) char buf[kChunk * kMaxItemsize];
      for (int64_t done = 0; done < n; done += kChunk) {
        const int64_t m = std::min(kChunk, n - done);
        line(ptrs[1] + done * strides[1], strides[1], buf, m);
        for (int64_t i = 0; i < m; ++i) std::memcpy(ptrs[0] + (done + i) * strides[0], buf + i * item, item);
      }
    });
  }
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
  f.outs[0] = clone(Tensor::borrow(&a));
}

// Note [Memory formats]
// clone's memory_format is torch's MemoryFormat number: 0 contiguous_format, 1 preserve_format,
// 2 channels_last (4-D, NHWC), 3 channels_last_3d (5-D, NDHWC). None is a row-major copy, the
// promise of ct_tensor_clone; Python's Tensor.clone passes preserve_format, torch's default. A
// preserved layout keeps self's strides when they cover its elements once with no gaps (a
// permutation of a row-major layout: the copy is then a memcpy); any other layout, and a traced
// proxy with symbolic sizes, gets a row-major copy, as torch gives one that is not channels-last.
enum MemoryFormat : int64_t { kContiguousFormat = 0, kPreserveFormat = 1, kChannelsLast = 2, kChannelsLast3d = 3 };

// NHWC (or NDHWC) strides for sizes [N, C, spatial...]: channels vary fastest.
DimVector channels_last_strides(IntArrayRef sizes) {
  DimVector st;
  st.resize(sizes.size());
  int64_t stride = 1;
  st[1] = stride;
  stride *= std::max<int64_t>(sizes[1], 1);
  for (size_t d = sizes.size() - 1; d >= 2; --d) {
    st[d] = stride;
    stride *= std::max<int64_t>(sizes[d], 1);
  }
  st[0] = stride;
  return st;
}

// The strides clone gives its result; empty for a row-major one.
DimVector clone_strides(const TensorImpl& a, const Value& format) {
  if (format.is_none() || a.is_symbolic()) return {};
  const int64_t fmt = format.to_int();
  switch (fmt) {
    case kContiguousFormat: return {};
    case kPreserveFormat:
      // Exactly self's strides, as torch keeps them, also those of size-1 dims.
      if (!is_non_overlapping_and_dense(a) || a.strides().equals(contiguous_strides(a.sizes()))) return {};
      return DimVector(a.strides());
    case kChannelsLast:
    case kChannelsLast3d: {
      const size_t rank = fmt == kChannelsLast ? 4 : 5;
      CT_CHECK(a.dim() == rank, CT_ERROR_SHAPE, "clone: ", fmt == kChannelsLast ? "channels_last" : "channels_last_3d",
               " needs a ", rank, "-D tensor, got ", a.sym_sizes(), ". Use contiguous_format for other ranks");
      return channels_last_strides(a.sizes());
    }
    default:
      fail(CT_ERROR_INVALID_ARGUMENT, str("clone: memory_format is ", fmt, ". Pass 0 (contiguous_format), 1 "
                                          "(preserve_format), 2 (channels_last) or 3 (channels_last_3d)"));
  }
}

void clone_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  // Callers inside the library (ct_tensor_clone, the dispatcher's copies) pass self alone.
  const DimVector strides = f.nargs > 1 ? clone_strides(a, f.arg(1)) : DimVector();
  Tensor out = empty_like_sizes(a, a.dtype());
  // Every layout above covers numel elements, so the fresh storage is laid out anew, not grown.
  if (!strides.empty()) {
    out->storage()->retain();
    out = Tensor::adopt(TensorImpl::create(out->storage(), a.sizes(), strides, 0, a.dtype()));
  }
  copy_(out, Tensor::borrow(&a));
  f.outs[0] = out;
}

// Note [Moving tensors between devices]
// to.device needs no kernel on either device: bytes move through the backends' copy functions
// (core/device_backend.h), and any change of layout or dtype happens on the cpu. A contiguous
// tensor moves as one copy; a strided view on a device brings the span of storage its elements
// cover to the host and is gathered there, so a plugin without a copy_ kernel can still hand back
// any view. Between two devices the elements pass through the host.

// src (on a device, not cpu or meta) on the cpu with src's dtype: contiguous, or a strided view of
// the span it covers.
Tensor device_to_host(const TensorImpl& src) {
  const DeviceBackend& b = require_backend(src.device(), "to");
  const size_t item = itemsize(src.dtype());
  if (src.numel() == 0 || src.is_contiguous()) {
    Tensor host = Tensor::adopt(TensorImpl::empty(src.sizes(), src.dtype(), kCPU));
    if (src.numel() > 0)
      b.copy(b.ctx, CopyKind::DeviceToHost, src.device().index, host->data(), src.data(), src.numel() * item);
    return host;
  }
  int64_t span = 1;
  for (size_t d = 0; d < src.dim(); ++d) {
    CT_CHECK(src.strides()[d] >= 0, CT_ERROR_INTERNAL, "to: negative stride in a ", src.device(), " tensor");
    span += (src.sizes()[d] - 1) * src.strides()[d];
  }
  Tensor buffer = Tensor::adopt(TensorImpl::empty({span}, src.dtype(), kCPU));
  b.copy(b.ctx, CopyKind::DeviceToHost, src.device().index, buffer->data(), src.data(), span * item);
  return Tensor::adopt(TensorImpl::view_of(*buffer, src.sizes(), src.strides(), 0));
}

Tensor move_to(const TensorImpl& src, Device dst, DType dtype) {
  CT_CHECK(!src.device().is_meta(), CT_ERROR_DEVICE, "to: a meta tensor ", src.sym_sizes(),
           " has no data to copy to ", dst, ". Compute it on a real device");
  if (dst.is_meta()) return Tensor::adopt(TensorImpl::empty(src.sizes(), dtype, kMeta));
  if (!src.device().is_cpu()) {
    Tensor host = expect_contiguous(to(device_to_host(src), dtype));
    return dst.is_cpu() ? host : move_to(*host, dst, dtype);
  }
  const DeviceBackend& b = require_backend(dst, "to");
  Tensor host = expect_contiguous(to(Tensor::borrow(&src), dtype));
  Tensor out = Tensor::adopt(TensorImpl::empty(src.sizes(), dtype, dst));
  if (host->numel() > 0)
    b.copy(b.ctx, CopyKind::HostToDevice, dst.index, out->data(), host->data(), host->numel() * itemsize(dtype));
  return out;
}

// to.device(Tensor(a) self, Device device, ScalarType? dtype=None, bool copy=False) -> Tensor(a)
// Returns self itself when nothing changes and copy is false, as Tensor.to does.
void to_device(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const Device dst = f.arg(1).device();
  const DType dtype = f.arg(2).is_none() ? a.dtype() : f.arg(2).dtype();
  if (dst == a.device()) {
    f.outs[0] = f.arg(3).to_bool() ? clone(to(Tensor::borrow(&a), dtype)) : to(Tensor::borrow(&a), dtype);
    return;
  }
  // A traced tensor (a meta proxy) moves as a proxy: the trace records the move for run time.
  if (a.device().is_meta() && a.shape_env()) {
    f.outs[0] = Tensor::adopt(TensorImpl::empty_sym(a.sym_sizes(), dtype, kMeta, a.shape_env()));
    return;
  }
  f.outs[0] = move_to(a, dst, dtype);
}

// The gradient goes back to the input's device and dtype (GradCtx::set moves it).
void to_device_backward(autograd::GradCtx& c) { c.set("self", c.grad()); }

// self's old values are overwritten, so they get no gradient; src's is summed over the dims it
// was broadcast along and converted back to its dtype (by set).
void copy_backward(autograd::GradCtx& c) { c.set("src", c.grad()); }

// A derivative of its own, as in PyTorch (CloneBackward), rather than those of the empty_like and
// copy_ it runs: a compiled backward then sees one functional operator, not a write in place.
void clone_backward(autograd::GradCtx& c) { c.set("self", c.grad()); }

// self narrowed to one element along each dim it was expanded over (stride 0): the same memory
// locations, each once, so that filling an expanded tensor works as torch's fill_ does where
// copy_ refuses to write one location twice.
Tensor distinct_elements(const Tensor& self) {
  Tensor t = self;
  if (self->is_symbolic()) return t;  // a traced proxy: an expanded one has no storage to share
  for (size_t d = 0; d < self->dim(); ++d)
    if (self->strides()[d] == 0 && self->sizes()[d] > 1) t = narrow(t, static_cast<int64_t>(d), 0, 1);
  return t;
}

// fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!), zero_(Tensor(a!) self) -> Tensor(a!):
// copy_ of a 0-dim tensor of self's dtype, so a value self's dtype cannot hold is refused as the
// factories refuse it, and self gets copy_'s derivative (none for its old values).
void fill_with(Frame& f, const Tensor& value) {
  const Tensor self = Tensor::borrow(&f.tensor(0));
  copy_(distinct_elements(self), value);
  f.outs[0] = self;
}

void fill_scalar_kernel(void*, Frame& f) {
  const TensorImpl& self = f.tensor(0);
  fill_with(f, full({}, f.arg(1).to_scalar(), self.dtype(), self.device()));
}
void zero_kernel(void*, Frame& f) {
  const TensorImpl& self = f.tensor(0);
  fill_with(f, zeros({}, self.dtype(), self.device()));
}

// fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!): value is 0-dim, and its gradient is the
// sum of self's (copy_'s derivative sums over the broadcast).
void fill_tensor_kernel(void*, Frame& f) {
  const TensorImpl& value = f.tensor(1);
  CT_CHECK(value.dim() == 0, CT_ERROR_SHAPE, "fill_: value must be a 0-dim tensor, got sizes ", value.sym_sizes(),
           " (self ", f.tensor(0).sym_sizes(), "). Pass a number or a 0-dim tensor; copy_ fills from a tensor of more dims");
  fill_with(f, Tensor::borrow(&value));
}

}  // namespace

void define_copy(Registry& r) {
  r.def("copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)")
      .kernel(DispatchKey::CPU, copy_cpu, Determinism::Bitwise)
      .kernel(DispatchKey::Meta, copy_meta, Determinism::Bitwise)
      .derivative(copy_backward);
  r.def("to.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)").composite(to_dtype);
  r.def("to.device(Tensor(a) self, Device device, ScalarType? dtype=None, bool copy=False) -> Tensor(a)")
      .composite(to_device)
      .derivative(to_device_backward);
  r.def("contiguous(Tensor(a) self) -> Tensor(a)").composite(contiguous_kernel);
  r.def("clone(Tensor self, *, int? memory_format=None) -> Tensor").composite(clone_kernel).derivative(clone_backward);
  r.def("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)").composite(fill_scalar_kernel);
  r.def("fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)").composite(fill_tensor_kernel);
  r.def("zero_(Tensor(a!) self) -> Tensor(a!)").composite(zero_kernel);
}

}  // namespace ct::ops
