// ternary.cpp - elementwise operators of two or three tensors and a scalar: lerp (Scalar and Tensor
// weight), addcmul, addcdiv. One meta function (promotion and broadcasting over every tensor) and
// one kernel over the loop engine; each row below gives the dtype rule and the element function.
#include <cmath>
#include <string>
#include <type_traits>

#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/cpu/loop.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

template <typename T> using M = opmath_t<T>;
using autograd::GradCtx;

// PyTorch's lerp: the form that is exact at the end the weight is nearer to.
template <typename X>
X lerp_value(X a, X b, X w) {
  return std::abs(w) < X(0.5) ? a + w * (b - a) : b - (b - a) * (X(1) - w);
}

struct LerpScalar {  // lerp.Scalar(Tensor self, Tensor end, Scalar weight)
  static constexpr const char* schema = "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor";
  static constexpr const char* name = "lerp";
  static constexpr int ninputs = 2, scalar_arg = 2;
  static constexpr unsigned dtypes = kFloatingDTypes;
  template <typename T> static T apply(T a, T b, M<T> w) { return T(lerp_value(M<T>(a), M<T>(b), w)); }
  static void backward(GradCtx& c) {
    const Scalar w = c.arg("weight").to_scalar();
    if (c.needs("self")) c.set("self", mul(c.grad(), Scalar(1.0 - w.to_double())));
    if (c.needs("end")) c.set("end", mul(c.grad(), w));
  }
};
struct LerpTensor {  // lerp.Tensor(Tensor self, Tensor end, Tensor weight)
  static constexpr const char* schema = "lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor";
  static constexpr const char* name = "lerp";
  static constexpr int ninputs = 3, scalar_arg = -1;
  static constexpr unsigned dtypes = kFloatingDTypes;
  template <typename T> static T apply(T a, T b, T w, M<T>) { return T(lerp_value(M<T>(a), M<T>(b), M<T>(w))); }
  static void backward(GradCtx& c) {
    const Tensor w = c.saved("weight");
    if (c.needs("self")) c.set("self", mul(c.grad(), rsub(w, 1)));
    if (c.needs("end")) c.set("end", mul(c.grad(), w));
    if (c.needs("weight")) c.set("weight", mul(c.grad(), sub(c.saved("end"), c.saved("self"))));
  }
};
struct Addcmul {  // self + value * tensor1 * tensor2
  static constexpr const char* schema =
      "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor";
  static constexpr const char* name = "addcmul";
  static constexpr int ninputs = 3, scalar_arg = 3;
  static constexpr unsigned dtypes = kNumericDTypes;
  template <typename T> static T apply(T a, T b, T c, M<T> v) { return T(M<T>(a) + v * M<T>(b) * M<T>(c)); }
  static void backward(GradCtx& c) {
    const Scalar v = c.arg("value").to_scalar();
    c.set("self", c.grad());
    if (c.needs("tensor1")) c.set("tensor1", mul(mul(c.grad(), c.saved("tensor2")), v));
    if (c.needs("tensor2")) c.set("tensor2", mul(mul(c.grad(), c.saved("tensor1")), v));
  }
};
struct Addcdiv {  // self + value * tensor1 / tensor2
  static constexpr const char* schema =
      "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor";
  static constexpr const char* name = "addcdiv";
  static constexpr int ninputs = 3, scalar_arg = 3;
  static constexpr unsigned dtypes = kFloatingDTypes;
  template <typename T> static T apply(T a, T b, T c, M<T> v) { return T(M<T>(a) + v * (M<T>(b) / M<T>(c))); }
  static void backward(GradCtx& c) {
    const Scalar v = c.arg("value").to_scalar();
    const Tensor t2 = c.saved("tensor2");
    const Tensor g1 = mul(div(c.grad(), t2), v);
    c.set("self", c.grad());
    if (c.needs("tensor1")) c.set("tensor1", g1);
    if (c.needs("tensor2")) c.set("tensor2", neg(mul(g1, div(c.saved("tensor1"), t2))));
  }
};

template <typename Op>
void ternary_meta(const Frame& f, MetaResult& m) {
  const Device dev = common_device(f);
  const TensorImpl* t[3] = {&f.tensor(0), &f.tensor(1), Op::ninputs > 2 ? &f.tensor(2) : nullptr};
  SymDimVector sizes = broadcast_shapes(Op::name, t[0]->sym_sizes(), t[1]->sym_sizes());
  if (t[2]) sizes = broadcast_shapes(Op::name, sizes.ref(), t[2]->sym_sizes());
  DType d;
  if (std::is_same<Op, LerpScalar>::value || std::is_same<Op, LerpTensor>::value) {
    // lerp does not promote: end and weight must have self's dtype, as in PyTorch.
    d = t[0]->dtype();
    const char* what[3] = {"self", "end", "weight"};
    for (int i = 1; i < Op::ninputs; ++i)
      CT_CHECK(t[i]->dtype() == d, CT_ERROR_DTYPE, "lerp: expected dtype ", d, " for `", what[i], "` but got dtype ",
               t[i]->dtype(), ". Convert it with to() first");
  } else {
    CT_CHECK(!(std::is_same<Op, Addcdiv>::value && is_integral(t[1]->dtype(), true) &&
               is_integral(t[2]->dtype(), true)),
             CT_ERROR_DTYPE, "addcdiv: integer division of tensor1 (", t[1]->dtype(), ") by tensor2 (", t[2]->dtype(),
             ") is not supported. Convert one of them to a floating dtype");
    ResultType rt;
    for (int i = 0; i < Op::ninputs; ++i) rt.add(*t[i]);
    d = rt.result();
  }
  CT_CHECK((Op::dtypes & dtype_bit(d)) != 0, CT_ERROR_DTYPE, Op::name, ": not supported for ", d,
           " tensors. Convert with to() first");
  m.compute = d;
  set_output(m, 0, sizes, d, dev);
}

template <typename Op>
void ternary_cpu(const Frame& f, const MetaResult& m, Tensor* outs) {
  Tensor temp;
  const TensorImpl* in[3];
  for (int i = 0; i < Op::ninputs; ++i) in[i] = &f.tensor(i);
  const cpu::LoopCasts casts = cpu::loop_casts(in, Op::ninputs, m.compute);  // Note [Casting in the loop]
  // In place into a narrower dtype (float16 self, float32 tensor1): compute, then convert into self.
  if (outs[0]->dtype() != m.compute) temp = empty(outs[0]->sizes(), m.compute, kCPU);
  const TensorImpl& out = temp.defined() ? *temp : *outs[0];
  const cpu::LoopPlan plan = cpu::make_plan(out, in, Op::ninputs);
  visit_dtype<Op::dtypes>(m.compute, Op::name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const M<T> s = Op::scalar_arg >= 0 ? f.arg(Op::scalar_arg).to_scalar().template to<M<T>>() : M<T>(0);
    if constexpr (Op::ninputs == 2) cpu::elementwise<T, T, T>(plan, [s](T a, T b) { return Op::apply(a, b, s); }, casts);
    else cpu::elementwise<T, T, T, T>(plan, [s](T a, T b, T c) { return Op::apply(a, b, c, s); }, casts);
  });
  if (temp.defined()) copy_(outs[0], temp);
}

// Registers Op and its in-place form (name_: self written, as in x.addcmul_(a, b)).
template <typename Op>
void define_ternary(Registry& r, Saves saves) {
  std::string inplace = Op::schema;
  inplace.insert(inplace.find_first_of(".("), "_");
  inplace.replace(inplace.find("Tensor self"), 11, "Tensor(a!) self");
  inplace.replace(inplace.rfind("-> Tensor"), 9, "-> Tensor(a!)");
  r.def(Op::schema)
      .meta(ternary_meta<Op>)
      .compute(DispatchKey::CPU, ternary_cpu<Op>, Determinism::Bitwise)
      .derivative(Op::backward, saves)
      .inplace(inplace);
}

}  // namespace

void define_ternary_ops(Registry& r) {
  define_ternary<LerpScalar>(r, {});
  define_ternary<LerpTensor>(r, save("self", "end", "weight"));
  define_ternary<Addcmul>(r, save("tensor1", "tensor2"));
  define_ternary<Addcdiv>(r, save("tensor1", "tensor2"));
}

}  // namespace ct::ops
