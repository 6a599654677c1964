// activations.cpp - the activation functions of torch.nn.functional: gelu, silu, softplus, elu
// (selu, celu), leaky_relu, hardtanh (relu6), hardsigmoid, hardswish, mish as rows for the engine in
// unary_engine.h with PyTorch's formulas, derivatives below, written with operators; hardshrink,
// softshrink, log_sigmoid, threshold, softsign, tanhshrink, glu and prelu as composites of those
// operators (their derivatives are implicit). exp, erf, tanh,
// expm1 and log1p come from vec_math.h (vectorized float32; see Note [Vectorizable float32 math]).
#include <cmath>
#include <cstring>

#include "ops/cpu/vec_math.h"
#include "ops/pointwise/unary_engine.h"

namespace ct::ops {
namespace {

using namespace unary_engine;
using autograd::GradCtx;
namespace vm = cpu::vm;

constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kGeluCubic = 0.044715;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
// selu's constants (Klambauer et al.), as in PyTorch.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// gelu(Tensor self, *, str approximate='none'): x Phi(x), or its tanh approximation.
struct Gelu {
  static constexpr const char* name = "gelu";
  static constexpr const char* overload = "";
  static constexpr const char* args = "(Tensor self, *, str approximate='none')";
  static constexpr Out out = Out::Same;
  static constexpr unsigned dtypes = kFloatingDTypes;
  static constexpr int nparams = 1;
  static bool is_tanh(const Frame& f) { return std::strcmp(f.arg(1).str(), "tanh") == 0; }
  static void check(const Frame& f) {
    const char* a = f.arg(1).str();
    CT_CHECK(std::strcmp(a, "none") == 0 || std::strcmp(a, "tanh") == 0, CT_ERROR_INVALID_ARGUMENT,
             "gelu: approximate is '", a, "'. Pass 'none' (exact) or 'tanh'");
  }
  template <typename T> static void load(const Frame& f, M<T>* p) { p[0] = is_tanh(f) ? M<T>(1) : M<T>(0); }
  static constexpr bool two_forms = true;
  template <bool Tanh, typename T> [[gnu::always_inline]] static T apply_form(T t, const M<T>*) {
    const M<T> x = M<T>(t);
    if constexpr (Tanh) {
      const M<T> inner = M<T>(kSqrt2OverPi) * (x + M<T>(kGeluCubic) * x * x * x);
      return T(M<T>(0.5) * x * (M<T>(1) + vm::tanh(inner)));
    } else {
      // x/2 + x/2 erf(...) in one rounding: no error from 1 + erf, and +0 (not -0) for -0 and
      // for large negative x, as PyTorch gives.
      const M<T> hx = M<T>(0.5) * x;
      return T(std::fma(hx, vm::erf(x * M<T>(1.0 / kSqrt2)), hx));
    }
  }
  template <typename T> static T apply(T t, const M<T>* p) {  // the engine loops over apply_form
    return p[0] != M<T>(0) ? apply_form<true>(t, p) : apply_form<false>(t, p);
  }
};

// min(max(y, 0), 6) with NaN passing through, as PyTorch's kernels do.
template <typename X> X relu6(X y) { return y < X(0) ? X(0) : (y > X(6) ? X(6) : y); }

#define CT_ACTIVATION(Name, str, allowed, params_t, schema, expr)     \
  struct Name : params_t {                                            \
    static constexpr const char* name = str;                          \
    static constexpr const char* args = schema;                       \
    static constexpr Out out = Out::Same;                             \
    static constexpr unsigned dtypes = allowed;                       \
    template <typename T> [[gnu::always_inline]] static T apply(T t, [[maybe_unused]] const M<T>* p) { \
      const M<T> x = M<T>(t);                                         \
      [[maybe_unused]] const M<T> zero(0), one(1);                    \
      return T(expr);                                                 \
    }                                                                 \
  };
CT_ACTIVATION(Silu, "silu", kFloatingDTypes, NoParams, "(Tensor self)", x / (one + vm::exp(-x)))
CT_ACTIVATION(Mish, "mish", kFloatingDTypes, NoParams, "(Tensor self)", x * vm::tanh(vm::log1p(vm::exp(x))))
// Above threshold (in units of x * beta) softplus is x. vm::pick, not ?:, keeps the loop vectorized.
CT_ACTIVATION(Softplus, "softplus", kFloatingDTypes, NumberParams<2>,
              "(Tensor self, Scalar beta=1, Scalar threshold=20)",
              vm::pick(x * p[0] > p[1], x, vm::log1p(vm::exp(x * p[0])) / p[0]))
// elu's parameters as PyTorch's kernel holds them: alpha * scale (rounded in opmath), scale,
// input_scale.
struct EluParams : NumberParams<3> {
  template <typename T> static void load(const Frame& f, M<T>* p) {
    NumberParams<3>::load<T>(f, p);
    p[0] = p[0] * p[1];
  }
};
CT_ACTIVATION(Elu, "elu", kFloatingDTypes, EluParams,
              "(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1)",
              vm::pick(x <= zero, vm::expm1(x * p[2]) * p[0], x * p[1]))
CT_ACTIVATION(LeakyRelu, "leaky_relu", kFloatingDTypes, NumberParams<1>,
              "(Tensor self, Scalar negative_slope=0.01)", x > zero ? x : x * p[0])
// hardtanh also takes signed integers, as PyTorch does (it is a clamp); NaN passes through.
CT_ACTIVATION(Hardtanh, "hardtanh", kFloatingDTypes | (kNumericDTypes & ~kFloatingDTypes & ~dtype_bit(DType::UInt8)),
              NumberParams<2>, "(Tensor self, Scalar min_val=-1, Scalar max_val=1)",
              x < p[0] ? p[0] : (x > p[1] ? p[1] : x))
CT_ACTIVATION(Hardsigmoid, "hardsigmoid", kFloatingDTypes, NoParams, "(Tensor self)",
              relu6(x + M<T>(3)) / M<T>(6))
CT_ACTIVATION(Hardswish, "hardswish", kFloatingDTypes, NoParams, "(Tensor self)",
              x * relu6(x + M<T>(3)) / M<T>(6))
#undef CT_ACTIVATION

// selu(Tensor self) -> Tensor: elu with fixed alpha and scale.
void selu_kernel(void*, Frame& f) {
  f.outs[0] = elu(Tensor::borrow(&f.tensor(0)), kSeluAlpha, kSeluScale, 1.0);
}

Tensor floating_self(const Frame& f, const char* op) {
  Tensor x = Tensor::borrow(&f.tensor(0));
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, op, ": needs a floating input, got ", x->dtype(), " ",
           x->sym_sizes(), ". Convert it with to(float32)");
  return x;
}

// relu6(Tensor self): hardtanh(self, 0, 6) (whose derivative is 0 at the bounds); integers,
// unsigned ones too, are clamped, as in PyTorch.
void relu6_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  CT_CHECK(x->dtype() != DType::Bool, CT_ERROR_DTYPE, "relu6: needs a numeric input, got bool ", x->sym_sizes(),
           ". Convert it with to(uint8) or to(float32)");
  f.outs[0] = is_floating(x->dtype()) ? hardtanh(x, 0, 6) : clamp(x, Scalar(0), Scalar(6));
}

// celu(Tensor self, Scalar alpha=1.0): max(0, x) + min(0, alpha (exp(x / alpha) - 1)), elu's row.
void celu_kernel(void*, Frame& f) {
  const Tensor x = floating_self(f, "celu");
  const double alpha = f.arg(1).to_double();
  CT_CHECK(alpha != 0, CT_ERROR_INVALID_ARGUMENT, "celu: alpha is 0, which it divides by. Pass alpha != 0");
  f.outs[0] = elu(x, alpha, 1, 1.0 / alpha);
}

// hardshrink(Tensor self, Scalar lambd=0.5): 0 inside [-lambd, lambd], x elsewhere (NaN stays).
void hardshrink_kernel(void*, Frame& f) {
  const Tensor x = floating_self(f, "hardshrink");
  const Scalar l = f.arg(1).to_scalar();
  const Tensor inside = logical_and(ge(x, Scalar(-l.to_double())), le(x, l));
  f.outs[0] = where(inside, number_like(0, x), x);
}

// softshrink(Tensor self, Scalar lambd=0.5): x - lambd above lambd, x + lambd below -lambd, else 0
// (x * 0, so NaN stays NaN, as PyTorch's scalar kernel computes it; its vectorized one gives 0).
void softshrink_kernel(void*, Frame& f) {
  const Tensor x = floating_self(f, "softshrink");
  const double l = f.arg(1).to_double();
  CT_CHECK(l >= 0, CT_ERROR_INVALID_ARGUMENT, "softshrink: lambd is ", l, ". Pass lambd >= 0");
  f.outs[0] = where(gt(x, Scalar(l)), sub(x, Scalar(l)), where(lt(x, Scalar(-l)), add(x, Scalar(l)), mul(x, 0)));
}

// log_sigmoid(Tensor self): min(x, 0) - log1p(exp(-|x|)), which neither overflows nor loses the
// small values of log(sigmoid(x)) for large negative x.
void log_sigmoid_kernel(void*, Frame& f) {
  const Tensor x = floating_self(f, "log_sigmoid");
  f.outs[0] = sub(clamp_max(x, 0), log1p(exp(neg(abs(x)))));
}

// threshold(Tensor self, Scalar threshold, Scalar value): value where x <= threshold, else x.
void threshold_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  CT_CHECK(x->dtype() != DType::Bool, CT_ERROR_DTYPE, "threshold: needs a numeric input, got bool ", x->sym_sizes(),
           ". Convert it with to(uint8) or to(float32)");
  const Tensor value = full({}, f.arg(2).to_scalar(), x->dtype(), x->device());
  f.outs[0] = where(le(x, f.arg(1).to_scalar()), value, x);
}

// softsign(Tensor self): x / (1 + |x|); tanhshrink(Tensor self): x - tanh(x). Integers give floats.
void softsign_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  CT_CHECK(x->dtype() != DType::Bool, CT_ERROR_DTYPE, "softsign: needs a numeric input, got bool ", x->sym_sizes(),
           ". Convert it with to(float32)");
  f.outs[0] = div(x, add(abs(x), 1));
}
void tanhshrink_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  f.outs[0] = sub(x, tanh(x));
}

// glu(Tensor self, int dim=-1): a * sigmoid(b), a and b the halves of self along dim.
void glu_kernel(void*, Frame& f) {
  const Tensor x = floating_self(f, "glu");
  CT_CHECK(x->dim() > 0, CT_ERROR_INVALID_ARGUMENT, "glu: cannot halve a 0-dim tensor. Pass a tensor with the dim to halve");
  const int64_t d = wrap_dim("glu", f.arg(1).to_int(), static_cast<int64_t>(x->dim()));
  const int64_t n = x->sym_size(d).guard_int();
  CT_CHECK(n % 2 == 0, CT_ERROR_INVALID_ARGUMENT, "glu: dim ", d, " of ", x->sym_sizes(),
           " has odd size ", n, "; the halved dim must be even");
  f.outs[0] = mul(narrow(x, d, 0, n / 2), sigmoid(narrow(x, d, n / 2, n / 2)));
}

// prelu(Tensor self, Tensor weight): x above 0, weight * x elsewhere; weight has one element or
// one per channel (dim 1), as in PyTorch.
void prelu_kernel(void*, Frame& f) {
  const Tensor x = floating_self(f, "prelu");
  const Tensor w = Tensor::borrow(&f.tensor(1));
  const int64_t channels = x->dim() > 1 ? x->sym_size(1).guard_int() : 1;
  const int64_t n = w->sym_numel().guard_int();
  CT_CHECK(w->dim() <= 1 && (n == 1 || n == channels), CT_ERROR_SHAPE, "prelu: weight ", w->sym_sizes(),
           " for self ", x->sym_sizes(), " must have 1 element or one per channel (", channels, ")");
  Tensor wb = w;
  if (n > 1) {  // [C] against dim 1: [C, 1, ..., 1]
    DimVector shape(x->dim() - 1, 1);
    shape[0] = n;
    wb = reshape(w, shape);
  } else if (w->dim() == 1) {
    wb = reshape(w, {});
  }
  f.outs[0] = where(gt(x, 0), x, mul(wb, x));
}

// Derivatives. x is the saved input, g the incoming gradient.

void gelu_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  if (std::strcmp(c.arg("approximate").str(), "tanh") == 0) {
    // With u = k (x + a x^3), t = tanh(u): d/dx = (1 + t) / 2 + x (1 - t^2) k (1 + 3 a x^2) / 2.
    const Tensor x2 = mul(x, x);
    const Tensor u = mul(mul(add(mul(x2, Scalar(kGeluCubic)), 1), x), Scalar(kSqrt2OverPi));
    const Tensor t = tanh(u);
    const Tensor du = mul(add(mul(x2, Scalar(3 * kGeluCubic)), 1), Scalar(kSqrt2OverPi));
    const Tensor d = add(mul(add(t, 1), Scalar(0.5)), mul(mul(mul(x, rsub(mul(t, t), 1)), du), Scalar(0.5)));
    c.set("self", g_times(c, d));
    return;
  }
  // Phi(x) + x phi(x)
  const Tensor cdf = mul(add(erf(mul(x, Scalar(1.0 / kSqrt2))), 1), Scalar(0.5));
  const Tensor pdf = mul(exp(mul(mul(x, x), Scalar(-0.5))), Scalar(kInvSqrt2Pi));
  c.set("self", g_times(c, add(cdf, mul(x, pdf))));
}
void silu_backward(GradCtx& c) {  // s (1 + x (1 - s))
  const Tensor x = c.saved("self"), s = sigmoid(x);
  c.set("self", g_times(c, mul(s, add(mul(x, rsub(s, 1)), 1))));
}
void mish_backward(GradCtx& c) {  // t + x s (1 - t^2), t = tanh(softplus(x)), s = sigmoid(x)
  const Tensor x = c.saved("self");
  const Tensor t = tanh(softplus(x));
  const Tensor s = sigmoid(x);
  c.set("self", g_times(c, add(t, mul(mul(x, s), rsub(mul(t, t), 1)))));
}
void softplus_backward(GradCtx& c) {  // sigmoid(beta x), or 1 above the threshold
  const Tensor x = c.saved("self");
  const double beta = c.arg("beta").to_double(), threshold = c.arg("threshold").to_double();
  const Tensor bx = mul(x, Scalar(beta));
  const Tensor& g = c.grad();
  c.set("self", where(gt(bx, threshold), g, mul(g, sigmoid(bx))));
}
void elu_backward(GradCtx& c) {  // scale above 0, alpha scale input_scale exp(x input_scale) below
  const Tensor x = c.saved("self");
  const double alpha = c.arg("alpha").to_double(), scale = c.arg("scale").to_double(), in_scale = c.arg("input_scale").to_double();
  const Tensor& g = c.grad();
  const Tensor below = mul(g, mul(exp(mul(x, Scalar(in_scale))), Scalar(alpha * scale * in_scale)));
  c.set("self", where(gt(x, 0), mul(g, Scalar(scale)), below));
}
void leaky_relu_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  const Tensor& g = c.grad();
  c.set("self", where(gt(x, 0), g, mul(g, c.arg("negative_slope").to_scalar())));
}
// Zero at and beyond the bounds, as in PyTorch.
void hardtanh_backward(GradCtx& c) {
  const Tensor x = c.saved("self");
  const Tensor inside = mul(gt(x, c.arg("min_val").to_scalar()), lt(x, c.arg("max_val").to_scalar()));
  c.set("self", where(inside, c.grad(), number_like(0, c.grad())));
}
void hardsigmoid_backward(GradCtx& c) {  // 1/6 strictly inside (-3, 3)
  const Tensor x = c.saved("self");
  const Tensor inside = mul(gt(x, -3), lt(x, 3));
  c.set("self", where(inside, mul(c.grad(), Scalar(1.0 / 6.0)), number_like(0, c.grad())));
}
void hardswish_backward(GradCtx& c) {  // 0 below -3, x/3 + 1/2 up to 3, 1 above
  const Tensor x = c.saved("self");
  const Tensor& g = c.grad();
  const Tensor mid = mul(g, add(mul(x, Scalar(1.0 / 3.0)), 0.5));
  c.set("self", where(lt(x, -3), number_like(0, g), where(le(x, 3), mid, g)));
}

}  // namespace

void define_activations(Registry& r) {
  const Saves x = save("self");
  define_unary<Gelu>(r, gelu_backward, x);
  define_unary<Silu>(r, silu_backward, x);
  define_unary<Mish>(r, mish_backward, x);
  define_unary<Softplus>(r, softplus_backward, x);
  define_unary<Elu>(r, elu_backward, x);
  r.def("selu(Tensor self) -> Tensor").composite(selu_kernel);
  r.def("celu(Tensor self, Scalar alpha=1.0) -> Tensor").composite(celu_kernel);
  r.def("relu6(Tensor self) -> Tensor").composite(relu6_kernel);
  r.def("hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor").composite(hardshrink_kernel);
  r.def("softshrink(Tensor self, Scalar lambd=0.5) -> Tensor").composite(softshrink_kernel);
  r.def("log_sigmoid(Tensor self) -> Tensor").composite(log_sigmoid_kernel);
  r.def("threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor").composite(threshold_kernel);
  r.def("softsign(Tensor self) -> Tensor").composite(softsign_kernel);
  r.def("tanhshrink(Tensor self) -> Tensor").composite(tanhshrink_kernel);
  r.def("glu(Tensor self, int dim=-1) -> Tensor").composite(glu_kernel);
  r.def("prelu(Tensor self, Tensor weight) -> Tensor").composite(prelu_kernel);
  define_unary<LeakyRelu>(r, leaky_relu_backward, x);
  define_unary<Hardtanh>(r, hardtanh_backward, x);
  define_unary<Hardsigmoid>(r, hardsigmoid_backward, x);
  define_unary<Hardswish>(r, hardswish_backward, x);
}

}  // namespace ct::ops
