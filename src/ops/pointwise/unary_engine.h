// unary_engine.h - the shared meta, kernel and registration of every one-input elementwise operator
// (unary.cpp's math table, activations.cpp's parametrized functions).
//
// An operator is a struct: its name and schema arguments, how the result dtype follows from the
// input's (Out), which dtypes it accepts, how many scalar parameters it reads from the frame, and
// apply(x, params) computed in opmath (float32 for float16/bfloat16, as PyTorch does).
#pragma once

#include <cmath>
#include <string>
#include <type_traits>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "ops/pointwise/element_fn.h"
#include "runtime/defaults.h"

namespace ct::ops::unary_engine {

template <typename T> using M = opmath_t<T>;

enum class Out {
  Same,         // the input's dtype (neg, floor, gelu)
  Float,        // integers and bool become the default float dtype (exp, sin, erf)
  Bool,         // a bool result computed in the input's dtype (isnan, logical_not)
  SameLongBool,  // the input's dtype, bool counted as int64 (square = pow(x, 2))
  SameOrReal     // the input's dtype, and a complex one's real dtype (abs)
};

constexpr int kMaxParams = 4;

template <typename T> constexpr bool is_float_v = std::is_floating_point<M<T>>::value;

/// Operators with no parameters and no extra checks derive from this.
struct NoParams {
  static constexpr int nparams = 0;
  static constexpr const char* args = "(Tensor self)";
  static constexpr const char* overload = "";
  static void check(const Frame&) {}
  template <typename T> static void load(const Frame&, M<T>*) {}
};

/// Reads parameters 1..n of the frame as numbers (None never reaches here).
template <int N>
struct NumberParams {
  static constexpr int nparams = N;
  static constexpr const char* overload = "";
  static void check(const Frame&) {}
  template <typename T> static void load(const Frame& f, M<T>* p) {
    for (int i = 0; i < N; ++i) p[i] = f.arg(i + 1).to_scalar().template to<M<T>>();  // defined for -inf into int8
  }
};

/// Operators whose element function has two forms chosen by parameter 0 (gelu's approximate)
/// declare `static constexpr bool two_forms = true` and apply_form<bool>(x, params): the form is
/// chosen once per call, so each loop body stays straight-line code that vectorizes.
template <typename Op, typename = void> struct two_forms : std::false_type {};
template <typename Op> struct two_forms<Op, std::void_t<decltype(Op::two_forms)>> : std::true_type {};

template <typename Op>
void unary_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  DType d = a.dtype();
  if (Op::out == Out::Float && !is_floating(d) && !is_complex(d)) d = runtime::default_dtype();
  if (Op::out == Out::SameLongBool && d == DType::Bool) d = DType::Int64;
  CT_CHECK((Op::dtypes & dtype_bit(d)) != 0, CT_ERROR_DTYPE, Op::name, ": not supported for ", d, " tensors (",
           a.sym_sizes(), "). Convert with to() first");
  Op::check(f);
  m.compute = d;
  const DType out = Op::out == Out::Bool ? DType::Bool : Op::out == Out::SameOrReal ? real_dtype(d) : d;
  set_output(m, 0, a.sym_sizes(), out, a.device());
}

template <typename Op>
void unary_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  const TensorImpl* in = &f.tensor(0);
  const cpu::LoopCasts casts = cpu::loop_casts(&in, 1, m.compute);  // Note [Casting in the loop]
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], &in, 1);
  static_assert(Op::nparams <= kMaxParams, "load writes nparams values into an array of kMaxParams");
  visit_dtype<Op::dtypes>(m.compute, Op::name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    struct Params {
      M<T> v[kMaxParams];
    } p{};
    Op::template load<T>(f, p.v);
    using R = decltype(Op::apply(T(), p.v));
    // always_inline: apply must be compiled into both builds of the loop body (a large one, say
    // with vec_math.h functions inlined, would otherwise stay a baseline call and not vectorize).
    if constexpr (two_forms<Op>::value) {
      if (p.v[0] != M<T>(0))
        cpu::elementwise<R, T>(plan, [p](T x) __attribute__((always_inline)) { return Op::template apply_form<true>(x, p.v); }, casts);
      else
        cpu::elementwise<R, T>(plan, [p](T x) __attribute__((always_inline)) { return Op::template apply_form<false>(x, p.v); }, casts);
    } else {
      cpu::elementwise<R, T>(plan, [p](T x) __attribute__((always_inline)) { return Op::apply(x, p.v); }, casts);
    }
  });
}

/// Registers Op as "name[.overload](args) -> Tensor", and "name_[.overload]" in place where the
/// result is not bool (as PyTorch: x.floor_(), x.erf_()); backward null means not differentiable.
template <typename Op>
OpBuilder define_unary(Registry& r, BackwardFn backward, Saves saves) {
  const std::string overload = *Op::overload ? std::string(".") + Op::overload : "";
  OpBuilder b = r.def(Op::name + overload + Op::args + " -> Tensor");
  b.meta(unary_meta<Op>).compute(DispatchKey::CPU, unary_cpu<Op>, Determinism::Bitwise).tag(Tag::Pointwise);
  if constexpr ((Op::dtypes & kComplexDTypes) != 0) b.takes_complex();
  // Fused kernels compute in the input's float dtype: operators with a bool result do not fuse.
  if constexpr (Op::out != Out::Bool && (Op::dtypes & kFloatingDTypes) != 0) declare_element_fn<Op>(b);
  if (backward) b.derivative(backward, saves);
  else b.not_differentiable();
  if (Op::out != Out::Bool) {
    std::string args = Op::args;  // "(Tensor self...": self becomes the written alias
    args.replace(0, 12, "(Tensor(a!) self");
    b.inplace(std::string(Op::name) + "_" + overload + args + " -> Tensor(a!)");
  }
  return b;
}

// Small helpers for derivative formulas (operators, so they are differentiable again).
inline Tensor g_times(autograd::GradCtx& c, const Tensor& t) { return mul(c.grad(), t); }
inline Tensor mask_as(const Tensor& mask, const Tensor& like) { return to(mask, like->dtype()); }
/// v as a 0-dim tensor of like's dtype and device: the other side of a where().
inline Tensor number_like(double v, const Tensor& like) { return full({}, Scalar(v), like->dtype(), like->device()); }
/// The zero gradient of step functions (floor, sign): zeros, not grad * 0 (which keeps NaN).
inline Tensor zeros_like_grad(autograd::GradCtx& c) {
  const Tensor& g = c.grad();
  return zeros(g->sizes(), g->dtype(), g->device());
}

}  // namespace ct::ops::unary_engine
