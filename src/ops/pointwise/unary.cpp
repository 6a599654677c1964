// unary.cpp - unary elementwise operators. One row per operator: name, whether integer inputs
// become float32 (as in PyTorch), which dtypes it accepts, and the element function in opmath.
#include <cmath>

#include "autograd/grad_ctx.h"
#include "dispatch/dispatcher.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

template <typename T> using M = opmath_t<T>;

#define CT_UNARY(Name, str, to_float, allowed, expr)       \
  struct Name {                                            \
    static constexpr const char* name = str;               \
    static constexpr bool int_to_float = to_float;         \
    static constexpr unsigned dtypes = allowed;            \
    template <typename T> static T apply(T t) {            \
      const M<T> x = M<T>(t);                              \
      return T(expr);                                      \
    }                                                      \
  };
CT_UNARY(Neg, "neg", false, kNumericDTypes, -x)
CT_UNARY(Abs, "abs", false, kAllDTypes, x < M<T>(0) ? -x : x)
CT_UNARY(Relu, "relu", false, kNumericDTypes, x < M<T>(0) ? M<T>(0) : x)  // NaN stays NaN
CT_UNARY(Exp, "exp", true, kFloatingDTypes, std::exp(x))
CT_UNARY(Log, "log", true, kFloatingDTypes, std::log(x))
CT_UNARY(Sqrt, "sqrt", true, kFloatingDTypes, std::sqrt(x))
CT_UNARY(Rsqrt, "rsqrt", true, kFloatingDTypes, M<T>(1) / std::sqrt(x))
CT_UNARY(Sin, "sin", true, kFloatingDTypes, std::sin(x))
CT_UNARY(Cos, "cos", true, kFloatingDTypes, std::cos(x))
CT_UNARY(Tanh, "tanh", true, kFloatingDTypes, std::tanh(x))
CT_UNARY(Sigmoid, "sigmoid", true, kFloatingDTypes, M<T>(1) / (M<T>(1) + std::exp(-x)))
CT_UNARY(Reciprocal, "reciprocal", true, kFloatingDTypes, M<T>(1) / x)
#undef CT_UNARY

template <typename Op>
void unary_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& a = f.tensor(0);
  DType d = a.dtype();
  if (Op::int_to_float && !is_floating(d)) d = runtime::default_dtype();
  CT_CHECK((Op::dtypes & dtype_bit(d)) != 0, CT_ERROR_DTYPE, Op::name, ": not supported for ", d, " tensors (",
           a.sizes(), "). Convert with to() first");
  m.compute = d;
  set_output(m, 0, a.sizes(), d, a.device());
}

template <typename Op>
void unary_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  Tensor holder;
  const TensorImpl* in = as_dtype(f.tensor(0), m.compute, holder);
  const cpu::LoopPlan plan = cpu::make_plan(*outs[0], &in, 1);
  visit_dtype<Op::dtypes>(m.compute, Op::name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    cpu::elementwise<T, T>(plan, [](T x) { return Op::apply(x); });
  });
}

template <typename Op>
void define_unary(Registry& r, BackwardFn backward, Saves saves) {
  r.def(std::string(Op::name) + "(Tensor self) -> Tensor")
      .meta(unary_meta<Op>)
      .compute(DispatchKey::CPU, unary_cpu<Op>, Determinism::Bitwise)
      .derivative(backward, saves);
}

// Derivatives, in terms of the input x, the result y and the incoming gradient g.
using autograd::GradCtx;
using namespace ops;
Tensor g_times(GradCtx& c, const Tensor& t) { return mul(c.grad(), t); }
Tensor as_float(const Tensor& mask, const Tensor& like) { return to(mask, like->dtype()); }

void neg_backward(GradCtx& c) { c.set(0, neg(c.grad())); }
void abs_backward(GradCtx& c) {  // g * sign(x), 0 at 0
  const Tensor x = c.saved(0);
  c.set(0, g_times(c, sub(as_float(binary_scalar("gt", x, 0), x), as_float(binary_scalar("lt", x, 0), x))));
}
void relu_backward(GradCtx& c) { c.set(0, g_times(c, binary_scalar("gt", c.result(), 0))); }
void exp_backward(GradCtx& c) { c.set(0, g_times(c, c.result())); }
void log_backward(GradCtx& c) { c.set(0, div(c.grad(), c.saved(0))); }
void sqrt_backward(GradCtx& c) { c.set(0, div(c.grad(), mul(c.result(), Scalar(2.0)))); }
void rsqrt_backward(GradCtx& c) {  // -y^3 / 2
  const Tensor y = c.result();
  c.set(0, g_times(c, mul(mul(y, mul(y, y)), Scalar(-0.5))));
}
void sin_backward(GradCtx& c) { c.set(0, g_times(c, unary("cos", c.saved(0)))); }
void cos_backward(GradCtx& c) { c.set(0, neg(g_times(c, unary("sin", c.saved(0))))); }
void tanh_backward(GradCtx& c) {  // 1 - y^2
  const Tensor y = c.result();
  c.set(0, g_times(c, rsub(mul(y, y), 1)));
}
void sigmoid_backward(GradCtx& c) {  // y (1 - y)
  const Tensor y = c.result();
  c.set(0, g_times(c, mul(y, rsub(y, 1))));
}
void reciprocal_backward(GradCtx& c) {  // -y^2
  const Tensor y = c.result();
  c.set(0, neg(g_times(c, mul(y, y))));
}

}  // namespace

void define_unary_ops(Registry& r) {
  const Saves x = save_args(0), y = save_result();
  define_unary<Neg>(r, neg_backward, {});
  define_unary<Abs>(r, abs_backward, x);
  define_unary<Relu>(r, relu_backward, y);
  define_unary<Exp>(r, exp_backward, y);
  define_unary<Log>(r, log_backward, x);
  define_unary<Sqrt>(r, sqrt_backward, y);
  define_unary<Rsqrt>(r, rsqrt_backward, y);
  define_unary<Sin>(r, sin_backward, x);
  define_unary<Cos>(r, cos_backward, x);
  define_unary<Tanh>(r, tanh_backward, y);
  define_unary<Sigmoid>(r, sigmoid_backward, y);
  define_unary<Reciprocal>(r, reciprocal_backward, y);
}

}  // namespace ct::ops
