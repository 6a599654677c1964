// unary.cpp - unary elementwise operators. One row per operator: name, whether integer inputs
// become float32 (as in PyTorch), which dtypes it accepts, and the element function in opmath.
#include <cmath>

#include "dispatch/dispatcher.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/op_common.h"

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
  if (Op::int_to_float && !is_floating(d)) d = kDefaultFloat;
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
void define_unary(Registry& r) {
  r.def(std::string(Op::name) + "(Tensor self) -> Tensor")
      .meta(unary_meta<Op>)
      .compute(DispatchKey::CPU, unary_cpu<Op>, Determinism::Bitwise);
}

}  // namespace

void define_unary_ops(Registry& r) {
  define_unary<Neg>(r);
  define_unary<Abs>(r);
  define_unary<Relu>(r);
  define_unary<Exp>(r);
  define_unary<Log>(r);
  define_unary<Sqrt>(r);
  define_unary<Rsqrt>(r);
  define_unary<Sin>(r);
  define_unary<Cos>(r);
  define_unary<Tanh>(r);
  define_unary<Sigmoid>(r);
  define_unary<Reciprocal>(r);
}

}  // namespace ct::ops
