// complex.cpp - the operators that exist for complex numbers: view_as_real and view_as_complex
// (views that read a tensor's bytes as the other kind), real and imag (views of one part), conj,
// conj_physical and resolve_conj, complex and polar (a complex tensor from two real ones), angle
// and sgn.
//
// Note [Complex tensors]
// complex64 and complex128 hold (real, imaginary) pairs of float32 and float64, std::complex's
// layout, so a complex tensor of sizes S is a real one of sizes S + [2] read two at a time. An
// operator with kernels of its own takes complex tensors only where it says so
// (OpBuilder::takes_complex); the dispatcher refuses them to the others before their meta function
// runs, so no kernel reads complex elements as real ones, and visit_dtype's default mask is the
// real dtypes. Composites and views need no flag: the operators they call check. conj is eager:
// torch's lazy conjugate bit (is_conj) is never set here, so conj of a complex tensor is a new
// tensor and is_conj() is false. Derivatives follow
// torch's convention: the gradient of a real loss L with respect to z = x + iy is dL/dx + i dL/dy,
// which makes the derivative of a product a product with the conjugate (mul's, in binary.cpp).
#include <cmath>
#include <complex>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/cast.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

using autograd::GradCtx;

// view_as_real(Tensor(a) self) -> Tensor(a): sizes + [2], strides doubled, offset doubled.
void view_as_real_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(is_complex(a.dtype()), CT_ERROR_DTYPE, "view_as_real: is only supported for complex tensors, but got a ",
           a.dtype(), " tensor of sizes ", a.sym_sizes(), ". Pass a complex64 or complex128 tensor");
  SymDimVector sizes(a.sym_sizes()), strides;
  for (const SymInt& s : a.sym_strides()) strides.push_back(s * 2);
  sizes.push_back(SymInt(2));
  strides.push_back(SymInt(1));
  checked_numel(sizes.ref(), "view_as_real");
  f.outs[0] = Tensor::adopt(
      TensorImpl::view_of(a, sizes.ref(), strides.ref(), a.sym_storage_offset() * 2, real_dtype(a.dtype())));
}

// view_as_complex(Tensor(a) self) -> Tensor(a): the last dim (size 2, stride 1) becomes the pairs;
// every other stride and the offset must be even, so that each pair starts a complex element.
void view_as_complex_kernel(void*, Frame& f) {
  const TensorImpl& a = f.tensor(0);
  const DType d = a.dtype();
  CT_CHECK(d == DType::Float32 || d == DType::Float64, CT_ERROR_DTYPE,
           "view_as_complex: is only supported for float32 and float64 tensors, but got ", d, " of sizes ",
           a.sym_sizes(), ". Convert with to() first");
  // Symbolic geometry is specialized (guards): the checks below are on the numbers the layout has.
  const size_t n = a.dim();
  CT_CHECK(n > 0, CT_ERROR_SHAPE, "view_as_complex: a 0-dim tensor has no (real, imaginary) pairs. Pass a tensor "
           "whose last dimension has size 2");
  CT_CHECK(a.sym_size(n - 1).guard_int() == 2, CT_ERROR_SHAPE, "view_as_complex: the tensor (sizes ", a.sym_sizes(),
           ") must have a last dimension of size 2, the (real, imaginary) pairs");
  CT_CHECK(a.sym_stride(n - 1).guard_int() == 1, CT_ERROR_SHAPE, "view_as_complex: the tensor (sizes ",
           a.sym_sizes(), ", strides ", a.sym_strides(), ") must have a last dimension with stride 1. Call contiguous() first");
  SymDimVector sizes, strides;
  for (size_t i = 0; i + 1 < n; ++i) {
    const int64_t s = a.sym_stride(i).guard_int();
    CT_CHECK(s % 2 == 0, CT_ERROR_SHAPE, "view_as_complex: the tensor (sizes ", a.sym_sizes(), ", strides ",
             a.sym_strides(), ") must have a stride divisible by 2 for all but the last dimension. Call contiguous() first");
    sizes.push_back(a.sym_size(i));
    strides.push_back(SymInt(s / 2));
  }
  const int64_t offset = a.sym_storage_offset().guard_int();
  CT_CHECK(offset % 2 == 0, CT_ERROR_SHAPE, "view_as_complex: the tensor's storage offset (", offset,
           ") must be divisible by 2. Call contiguous() first");
  f.outs[0] = Tensor::adopt(TensorImpl::view_of(a, sizes.ref(), strides.ref(), SymInt(offset / 2), complex_dtype(d)));
}

// The pairs of the gradient as complex numbers: complex() of its two halves rather than
// view_as_complex, which needs pairs that start at an even offset (a gradient narrowed out of a
// larger one, as cat's, may start at any).
void view_as_real_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  c.set("self", complex(select(g, -1, 0), select(g, -1, 1)));
}
void view_as_complex_backward(GradCtx& c) { c.set("self", view_as_real(c.grad())); }

// real(Tensor(a) self) -> Tensor(a): the real parts of a complex tensor, a view; a real tensor itself.
void real_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  f.outs[0] = is_complex(a->dtype()) ? select(view_as_real(a), -1, 0) : a;
}

// imag(Tensor(a) self) -> Tensor(a): the imaginary parts, a view; refused for real tensors, as torch.
void imag_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  CT_CHECK(is_complex(a->dtype()), CT_ERROR_DTYPE, "imag: is not implemented for tensors with non-complex dtypes (",
           a->dtype(), ", sizes ", a->sym_sizes(), "). A real tensor's imaginary parts are zeros");
  f.outs[0] = select(view_as_real(a), -1, 1);
}

// conj_physical(Tensor self) -> Tensor: (x, -y) for complex, a copy for real tensors.
void same_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  m.compute = a.dtype();
  set_output(m, 0, a.sym_sizes(), a.dtype(), a.device());
}
void conj_physical_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl* in = &f.tensor(0);
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], &in, 1);
  visit_dtype<kAllDTypesAndComplex>(m.compute, "conj_physical", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_complex_t<T>::value) cpu::elementwise<T, T>(plan, [](T z) { return std::conj(z); });
    else cpu::elementwise<T, T>(plan, [](T x) { return x; });
  });
}
void conj_physical_backward(GradCtx& c) { c.set("self", conj_if_complex(c.grad())); }

// conj(Tensor(a) self) -> Tensor(a): conj_physical for complex tensors (eager, Note [Complex
// tensors]); a real tensor itself.
void conj_kernel(void*, Frame& f) { f.outs[0] = conj_if_complex(Tensor::borrow(&f.tensor(0))); }
// resolve_conj(Tensor(a) self) -> Tensor(a): nothing is ever lazily conjugated, so self.
void resolve_conj_kernel(void*, Frame& f) { f.outs[0] = Tensor::borrow(&f.tensor(0)); }

// complex(Tensor real, Tensor imag) -> Tensor: real + i imag, broadcast; both float32 or both float64.
void complex_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& re = f.tensor(0);
  const TensorImpl& im = f.tensor(1);
  CT_CHECK((re.dtype() == DType::Float32 || re.dtype() == DType::Float64) && re.dtype() == im.dtype(), CT_ERROR_DTYPE,
           "complex: expected real and imag of one dtype, float32 or float64, but got ", re.dtype(), " ",
           re.sym_sizes(), " and ", im.dtype(), " ", im.sym_sizes(), ". Convert them with to() first");
  m.compute = re.dtype();
  set_output(m, 0, broadcast_shapes("complex", re.sym_sizes(), im.sym_sizes()), complex_dtype(re.dtype()),
             common_device(f));
}
void complex_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl* in[2] = {&f.tensor(0), &f.tensor(1)};
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], in, 2);
  visit_dtype<dtype_bit(DType::Float32) | dtype_bit(DType::Float64)>(m.compute, "complex", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu::elementwise<std::complex<T>, T, T>(plan, [](T x, T y) { return std::complex<T>(x, y); });
  });
}
void complex_backward(GradCtx& c) {
  const Tensor& g = c.grad();
  if (c.needs("real")) c.set("real", real(g));
  if (c.needs("imag")) c.set("imag", imag(g));
}

// polar(Tensor abs, Tensor angle) -> Tensor: abs (cos angle + i sin angle), from the operators, so
// its derivative is theirs.
void polar_kernel(void*, Frame& f) {
  const Tensor r = Tensor::borrow(&f.tensor(0)), theta = Tensor::borrow(&f.tensor(1));
  CT_CHECK(r->dtype() == theta->dtype() && (r->dtype() == DType::Float32 || r->dtype() == DType::Float64),
           CT_ERROR_DTYPE, "polar: expected abs and angle of one dtype, float32 or float64, but got ", r->dtype(), " ",
           r->sym_sizes(), " and ", theta->dtype(), " ", theta->sym_sizes(), ". Convert them with to() first");
  f.outs[0] = complex(mul(r, cos(theta)), mul(r, sin(theta)));
}

// angle(Tensor self) -> Tensor: arg z of a complex z (a real result); 0 or pi for a real x by its
// sign, NaN for NaN; integers and bool as the default float.
void angle_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  const DType d = a.dtype();
  m.compute = is_complex(d) || is_floating(d) ? d : runtime::default_dtype();
  set_output(m, 0, a.sym_sizes(), real_dtype(m.compute), a.device());
}
void angle_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl* in = &f.tensor(0);
  const cpu::LoopCasts casts = cpu::loop_casts(&in, 1, m.compute);  // Note [Casting in the loop]
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], &in, 1);
  visit_dtype<kFloatingDTypes | kComplexDTypes>(m.compute, "angle", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (cpu::is_complex_t<T>::value) {
      cpu::elementwise<typename T::value_type, T>(plan, [](T z) { return std::arg(z); }, casts);
    } else {
      using A = opmath_t<T>;
      cpu::elementwise<T, T>(plan, [](T t) {
        const A x = A(t);
        return T(std::isnan(x) ? x : x < A(0) ? A(3.14159265358979323846) : A(0));
      }, casts);
    }
  });
}
// d arg z = (-y dx + x dy) / |z|^2: the gradient g i z / |z|^2, 0 at z = 0 (torch's); a step for real x.
void angle_backward(GradCtx& c) {
  const Tensor z = c.saved("self");
  if (!is_complex(z->dtype())) {
    c.set("self", zeros(z->sizes(), z->dtype(), z->device()));
    return;
  }
  const Tensor re = real(z), im = imag(z);
  const Tensor iz = complex(neg(im), re);
  const Tensor r2 = add(mul(re, re), mul(im, im));
  const Tensor g = div(mul(c.grad(), iz), r2);
  c.set("self", where(eq(r2, 0), zeros({}, g->dtype(), g->device()), g));
}

// sgn(Tensor self) -> Tensor: z / |z| (0 at 0) for complex z, sign(x) for real x. The division is
// by 1 where |z| is 0, so that its derivative there is 0, as torch's, not 0/0.
void sgn_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  if (!is_complex(a->dtype())) {
    f.outs[0] = sign(a);
    return;
  }
  const Tensor r = abs(a), zero = eq(r, 0);
  const Tensor safe = where(zero, ones({}, r->dtype(), r->device()), r);
  f.outs[0] = where(zero, zeros({}, a->dtype(), a->device()), div(a, safe));
}
// From a copy of self: sgn's derivative reads the values that self's are about to replace.
void sgn_inplace_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0));
  copy_(a, sgn(clone(a)));
  f.outs[0] = a;
}

}  // namespace

Tensor conj_if_complex(const Tensor& t) { return is_complex(t->dtype()) ? conj_physical(t) : t; }

void define_complex(Registry& r) {
  r.def("view_as_real(Tensor(a) self) -> Tensor(a)").view(view_as_real_kernel).derivative(view_as_real_backward);
  r.def("view_as_complex(Tensor(a) self) -> Tensor(a)").view(view_as_complex_kernel).derivative(view_as_complex_backward);
  r.def("real(Tensor(a) self) -> Tensor(a)").composite(real_kernel);
  r.def("imag(Tensor(a) self) -> Tensor(a)").composite(imag_kernel);
  r.def("conj_physical(Tensor self) -> Tensor")
      .meta(same_meta)
      .compute(DispatchKey::CPU, conj_physical_cpu, Determinism::Bitwise)
      .takes_complex()
      .tag(Tag::Pointwise)
      .derivative(conj_physical_backward)
      .inplace("conj_physical_(Tensor(a!) self) -> Tensor(a!)");
  r.def("conj(Tensor(a) self) -> Tensor(a)").composite(conj_kernel);
  r.def("resolve_conj(Tensor(a) self) -> Tensor(a)").composite(resolve_conj_kernel);
  r.def("complex(Tensor real, Tensor imag) -> Tensor")
      .meta(complex_meta)
      .compute(DispatchKey::CPU, complex_cpu, Determinism::Bitwise)
      .tag(Tag::Pointwise)
      .derivative(complex_backward);
  r.def("polar(Tensor abs, Tensor angle) -> Tensor").composite(polar_kernel);
  r.def("angle(Tensor self) -> Tensor")
      .meta(angle_meta)
      .compute(DispatchKey::CPU, angle_cpu, Determinism::Bitwise)
      .takes_complex()
      .tag(Tag::Pointwise)
      .derivative(angle_backward, save("self"));
  r.def("sgn(Tensor self) -> Tensor").composite(sgn_kernel);
  r.def("sgn_(Tensor(a!) self) -> Tensor(a!)").composite(sgn_inplace_kernel);
}

}  // namespace ct::ops
