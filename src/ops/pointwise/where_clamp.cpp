// where_clamp.cpp - where (select by a bool condition) and clamp (bound by optional scalars), with
// clamp_min and clamp_max, its one-bound forms; threshold_backward (relu's gradient), a select by
// comparison.
#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "ops/pointwise/unary_engine.h"

namespace ct::ops {
namespace {

template <typename T> using M = opmath_t<T>;

// where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
void where_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& c = f.tensor(0);
  const TensorImpl& a = f.tensor(1);
  const TensorImpl& b = f.tensor(2);
  const Device dev = common_device(f);
  CT_CHECK(c.dtype() == DType::Bool, CT_ERROR_DTYPE, "where: condition must be bool, got ", c.dtype(), " (",
           c.sym_sizes(), "). Build it with a comparison, or convert with to(bool)");
  ResultType rt;
  rt.add(a);
  rt.add(b);
  m.compute = rt.result();
  const SymDimVector ab = broadcast_shapes("where", a.sym_sizes(), b.sym_sizes());
  const SymDimVector s = broadcast_shapes("where", c.sym_sizes(), ab.ref());
  set_output(m, 0, s, m.compute, dev);
}

void where_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl* in[3] = {&f.tensor(0), &f.tensor(1), &f.tensor(2)};
  cpu::LoopCasts casts = cpu::loop_casts(in, 3, m.compute);  // Note [Casting in the loop]
  casts.line[0] = nullptr;  // the condition is read as the bool it is
  casts.any = casts.line[1] || casts.line[2];
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], in, 3);
  visit_dtype<kAllDTypesAndComplex>(m.compute, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu::elementwise<T, bool, T, T>(plan, [](bool c, T x, T y) { return cpu::select(c, x, y); }, casts);
  });
}

// clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor
void clamp_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  CT_CHECK(!f.arg(1).is_none() || !f.arg(2).is_none(), CT_ERROR_INVALID_ARGUMENT,
           "clamp: min and max are both None. Pass at least one bound");
  CT_CHECK(a.dtype() != DType::Bool, CT_ERROR_DTYPE, "clamp: not supported for bool tensors (", a.sym_sizes(),
           "). Convert with to() first");
  ResultType rt;
  rt.add(a);
  for (int i = 1; i <= 2; ++i)
    if (!f.arg(i).is_none()) rt.add(f.arg(i).to_scalar());
  m.compute = rt.result();
  if (!f.arg(1).is_none()) check_scalar_fits("clamp", "min", f.arg(1).to_scalar(), m.compute);
  if (!f.arg(2).is_none()) check_scalar_fits("clamp", "max", f.arg(2).to_scalar(), m.compute);
  set_output(m, 0, a.sym_sizes(), m.compute, a.device());
}

void clamp_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl* in = &f.tensor(0);
  const cpu::LoopCasts casts = cpu::loop_casts(&in, 1, m.compute);  // Note [Casting in the loop]
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], &in, 1);
  const bool has_lo = !f.arg(1).is_none(), has_hi = !f.arg(2).is_none();
  visit_dtype<kNumericDTypes>(m.compute, "clamp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const M<T> lo = has_lo ? f.arg(1).to_scalar().template to<M<T>>() : M<T>(0);
    const M<T> hi = has_hi ? f.arg(2).to_scalar().template to<M<T>>() : M<T>(0);
    // Comparisons with NaN are false, so NaN passes through; lo > hi gives hi, as in PyTorch.
    cpu::elementwise<T, T>(plan, [=](T t) {
      M<T> x = M<T>(t);
      if (has_lo && x < lo) x = lo;
      if (has_hi && x > hi) x = hi;
      return T(x);
    }, casts);
  });
}

// threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor: 0 where self <=
// threshold, else grad_output as it came (NaN in self passes it), PyTorch's gradient of relu and
// threshold. Its own pass on the cpu: le then where also wrote and read a bool mask.
void threshold_backward_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& g = f.tensor(0);
  const TensorImpl& x = f.tensor(1);
  const Device dev = common_device(f);
  ResultType rt;
  rt.add(g);
  rt.add(x);
  m.compute = rt.result();
  CT_CHECK(m.compute != DType::Bool, CT_ERROR_DTYPE, "threshold_backward: not supported for bool tensors (grad_output ",
           g.sym_sizes(), ", self ", x.sym_sizes(), "). Convert with to() first");
  check_scalar_fits("threshold_backward", "threshold", f.arg(2).to_scalar(), m.compute);
  set_output(m, 0, broadcast_shapes("threshold_backward", g.sym_sizes(), x.sym_sizes()), m.compute, dev);
}

void threshold_backward_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl* in[2] = {&f.tensor(0), &f.tensor(1)};
  const cpu::LoopCasts casts = cpu::loop_casts(in, 2, m.compute);  // Note [Casting in the loop]
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], in, 2);
  visit_dtype<kNumericDTypes>(m.compute, "threshold_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const M<T> threshold = f.arg(2).to_scalar().template to<M<T>>();
    cpu::elementwise<T, T, T>(plan, [threshold](T g, T x) { return cpu::select(M<T>(x) <= threshold, T(0), g); },
                              casts);
  });
}

// Other devices compose it from their comparison and where.
void threshold_backward_composite(void*, Frame& f) {
  const Tensor g = Tensor::borrow(&f.tensor(0)), x = Tensor::borrow(&f.tensor(1));
  ResultType rt;
  rt.add(*g);
  rt.add(*x);
  const DType d = rt.result();
  f.outs[0] = where(le(x, f.arg(2).to_scalar()), zeros({}, d, g->device()), to(g, d));
}

// Only grad_output carries a gradient: the selection is a step in self.
void threshold_backward_backward(autograd::GradCtx& c) {
  c.set("grad_output", threshold_backward(c.grad(), c.saved("self"), c.arg("threshold").to_scalar()));
}

// The gradient goes to the input the condition picked.
void where_backward(autograd::GradCtx& c) {
  const Tensor& g = c.grad();
  const Tensor cond = c.saved("condition"), zero = unary_engine::number_like(0, g);
  if (c.needs("self")) c.set("self", where(cond, g, zero));
  if (c.needs("other")) c.set("other", where(cond, zero, g));
}

// The gradient passes where the input lies within [min, max], bounds included, and is 0 elsewhere
// (selected, as in PyTorch: a product with the mask gave NaN for an infinite gradient there).
void clamp_backward(autograd::GradCtx& c) {
  const Tensor x = c.saved("self");
  Tensor pass;
  if (!c.arg("min").is_none()) pass = ge(x, c.arg("min").to_scalar());
  if (!c.arg("max").is_none()) {
    const Tensor below = le(x, c.arg("max").to_scalar());
    pass = pass.defined() ? mul(pass, below) : below;
  }
  c.set("self", pass.defined() ? where(pass, c.grad(), unary_engine::number_like(0, c.grad())) : c.grad());
}

// clamp_min(Tensor self, Scalar min) / clamp_max(Tensor self, Scalar max): clamp with one bound
// (its meta, kernel and derivative).
// clamp_min_ / clamp_max_ are the same over clamp_.
template <bool IsMin, bool InPlace = false>
void one_bound(void*, Frame& f) {
  static const OperatorDef& clamp = builtin_op(InPlace ? "clamp_" : "clamp");
  Value args[3] = {f.arg(0), IsMin ? f.arg(1) : Value(), IsMin ? Value() : f.arg(1)};
  dispatch(clamp, args, 3, f.outs, 1);
}

}  // namespace

void define_where_clamp(Registry& r) {
  r.def("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor")
      .meta(where_meta)
      .compute(DispatchKey::CPU, where_cpu, Determinism::Bitwise)
      .takes_complex()
      .derivative(where_backward, save("condition"));
  r.def("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor")
      .meta(clamp_meta)
      .compute(DispatchKey::CPU, clamp_cpu, Determinism::Bitwise)
      .derivative(clamp_backward, save("self"))
      .inplace("clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)");
  // The composite serves the devices without a kernel; the cpu's own replaces it.
  r.def("threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor")
      .composite(threshold_backward_composite)
      .meta(threshold_backward_meta)
      .compute(DispatchKey::CPU, threshold_backward_cpu, Determinism::Bitwise)
      .derivative(threshold_backward_backward, save("self"));
  r.def("clamp_min(Tensor self, Scalar min) -> Tensor").composite(one_bound<true>);
  r.def("clamp_max(Tensor self, Scalar max) -> Tensor").composite(one_bound<false>);
  r.def("clamp_min_(Tensor(a!) self, Scalar min) -> Tensor(a!)").composite(one_bound<true, true>);
  r.def("clamp_max_(Tensor(a!) self, Scalar max) -> Tensor(a!)").composite(one_bound<false, true>);
}

}  // namespace ct::ops
