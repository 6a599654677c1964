// complex.cpp - gradcheck cases of the complex-number operators and of the complex forms of the
// arithmetic, pointwise math, reduction and product operators. Each case is a real function of real
// inputs that goes through complex tensors (complex() in, view_as_real() or a real part out), so a
// finite difference of real numbers checks torch's convention for complex gradients: the gradient
// with respect to z = x + iy is dL/dx + i dL/dy, and products pass it on through the conjugate.
#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

Tensor z_of(const Inputs& x, size_t i) { return ops::complex(x[i], x[i + 1]); }
Tensor parts(const Tensor& z) { return ops::view_as_real(z); }
// The harness also passes inputs laid out transposed: view_as_complex needs its pairs adjacent.
Tensor pairs_of(const Tensor& x) { return ops::view_as_complex(ops::contiguous(x)); }
// An in-place operator on a copy of z (a non-leaf), seen through its parts.
Tensor in_place(const char* name, const Tensor& z) {
  const Tensor c = ops::mul(z, Scalar(1.0));
  Value args[1] = {Value(c)};
  Tensor out;
  dispatch(builtin_op(name), args, 1, &out, 1);
  return parts(c);
}

std::vector<Case> complex_cases() {
  const Input v{{3}}, m{{2, 3}}, pairs{{3, 2}}, far{{3}, 0.5, 1.5}, sq{{3, 3}};
  return {
      {{"view_as_real", "view_as_complex", "mul"},
       {pairs, pairs},
       [](const Inputs& x) { return parts(ops::mul(pairs_of(x[0]), pairs_of(x[1]))); }},
      {{"complex", "real", "imag"},
       {v, v, v, v},
       [](const Inputs& x) {
         const Tensor p = ops::mul(z_of(x, 0), z_of(x, 2));
         return ops::add(ops::real(p), ops::mul(ops::imag(p), Scalar(2.0)));
       }},
      {{"conj_physical", "conj", "resolve_conj"},
       {v, v, v, v},
       [](const Inputs& x) {
         const Tensor a = z_of(x, 0), b = z_of(x, 2);
         return parts(ops::add(ops::mul(ops::conj_physical(a), b), ops::mul(ops::resolve_conj(ops::conj(b)), b)));
       }},
      {{"angle"}, {far, v}, [](const Inputs& x) { return ops::angle(z_of(x, 0)); }},
      {{"sgn"}, {far, v}, [](const Inputs& x) { return parts(ops::sgn(z_of(x, 0))); }},
      {{"sgn_"}, {far, v}, [](const Inputs& x) { return in_place("sgn_", z_of(x, 0)); }},
      {{"conj_physical_"}, {v, v}, [](const Inputs& x) { return in_place("conj_physical_", z_of(x, 0)); }},
      {{"polar"}, {far, v}, [](const Inputs& x) { return parts(ops::polar(x[0], x[1])); }},
      {{"div", "sub", "add"},
       {far, v, v, v},
       [](const Inputs& x) {
         const Tensor a = z_of(x, 0), b = z_of(x, 2);
         return parts(ops::add(ops::div(b, a), ops::sub(a, b), Scalar(2)));
       }},
      {{"abs", "exp", "log", "sqrt", "tanh"},
       {far, v},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0);
         const Tensor w = ops::add(ops::add(ops::exp(z), ops::log(z)), ops::add(ops::sqrt(z), ops::tanh(z)));
         return ops::add(parts(w), ops::unsqueeze(ops::abs(z), -1));
       }},
      {{"sin", "cos", "tan", "sinh", "cosh", "sigmoid", "reciprocal", "rsqrt", "square"},
       {far, v},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0);
         const Tensor w = ops::add(ops::add(ops::add(ops::sin(z), ops::cos(z)), ops::add(ops::tan(z), ops::sinh(z))),
                                   ops::add(ops::add(ops::cosh(z), ops::sigmoid(z)),
                                            ops::add(ops::add(ops::reciprocal(z), ops::rsqrt(z)), ops::square(z))));
         return parts(w);
       }},
      // Off the real axis (imaginary parts in [0.5, 1.5]), away from the inverse functions' branch cuts.
      {{"asin", "acos", "atan", "asinh", "acosh", "atanh", "log2", "log10", "expm1", "log1p", "exp2"},
       {v, far},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0);
         const Tensor sines = ops::add(ops::add(ops::asin(z), ops::acos(z)), ops::add(ops::atan(z), ops::asinh(z)));
         const Tensor inverses = ops::add(sines, ops::add(ops::acosh(z), ops::atanh(z)));
         const Tensor logs = ops::add(ops::add(ops::log2(z), ops::log10(z)), ops::log1p(z));
         const Tensor w = ops::add(ops::add(inverses, logs), ops::add(ops::expm1(z), ops::exp2(z)));
         return parts(w);
       }},
      {{"pow"},
       {far, v, far, v},
       [](const Inputs& x) {
         const Tensor a = z_of(x, 0), b = z_of(x, 2);
         return parts(ops::add(ops::pow(a, b), ops::pow(a, ops::full({}, Scalar(2.5), DType::Complex128))));
       }},
      // Indexing moves whole complex elements; the gradients go back through index_add and scatter_add.
      {{"index_select", "gather", "masked_fill"},
       {m, m},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0);
         const Tensor rows = ops::index_select(z, 0, ops::full({3}, Scalar(1), DType::Int64));
         const Tensor picked = ops::gather(z, 1, ops::full({2, 2}, Scalar(2), DType::Int64));
         const Tensor filled = ops::masked_fill(z, ops::gt(x[0], 0), Scalar(0.5));
         return ops::add(ops::sum(parts(rows)), ops::add(ops::sum(parts(picked)), ops::sum(parts(filled))));
       }},
      // scatter_reduce adds, averages or multiplies whole elements; prod's gradient passes g on through
      // the conjugates of the other factors at each position (index 1 takes three of them).
      {{"scatter_reduce.two"},
       {far, v, far, v},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0), w = z_of(x, 2);
         Tensor idx = ops::empty({3}, DType::Int64, kCPU);
         int64_t* at = idx->data_as<int64_t>();
         at[0] = 1, at[1] = 1, at[2] = 0;
         const Tensor prod = ops::scatter_reduce(z, 0, idx, w, "prod", true);
         const Tensor prod_without = ops::scatter_reduce(z, 0, idx, ops::mul(w, w), "prod", false);
         const Tensor mean = ops::scatter_reduce(z, 0, idx, w, "mean", false);
         const Tensor sum = ops::scatter_reduce(ops::mul(z, w), 0, idx, w, "sum", true);
         return parts(ops::add(ops::add(prod, prod_without), ops::add(mean, sum)));
       }},
      {{"cumprod", "prod.dim_IntList"},
       {far, v},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0);
         return ops::add(ops::sum(parts(ops::cumprod(z, 0))), ops::sum(parts(ops::prod(z, IntArrayRef{0}))));
       }},
      // cumprod through a zero: the first derivative before, at and after the first zero (its own
      // derivative treats the gradient after the zero as 0, as the real case says: first order only).
      {{"cumprod"},
       {{{4}, -1, 1, {0.5, 0, 1.5, -1}}, {{4}, -1, 1, {0.25, 0, -0.5, 1}}},
       [](const Inputs& x) { return parts(ops::cumprod(z_of(x, 0), 0)); },
       false},
      // Reductions with a real result (var, std, the norms) or a complex one (cumsum).
      {{"cumsum", "var.correction", "std.correction", "linalg_vector_norm"},
       {m, m},
       [](const Inputs& x) {
         const Tensor z = z_of(x, 0);
         const Tensor running = ops::sum(parts(ops::cumsum(z, 1)), IntArrayRef{0});
         const Tensor spread = ops::add(ops::sum(ops::var_correction(z, IntArrayRef{1})),
                                        ops::sum(ops::std_correction(z, IntArrayRef{0})));
         const Tensor norms = ops::add(ops::linalg_vector_norm(z, Scalar(2), IntArrayRef{1}),
                                       ops::linalg_vector_norm(z, Scalar(3), IntArrayRef{1}));
         return ops::add(ops::sum(running), ops::add(ops::sum(spread), ops::sum(norms)));
       }},
      {{"sum", "mean"},
       {m, m},
       [](const Inputs& x) {
         const Tensor z = ops::mul(z_of(x, 0), z_of(x, 0));
         return ops::add(parts(ops::sum(z, IntArrayRef{0})), parts(ops::mean(z, IntArrayRef{0})));
       }},
      {{"matmul", "mm"},
       {sq, sq, sq, sq},
       [](const Inputs& x) { return parts(ops::matmul(z_of(x, 0), z_of(x, 2))); }},
  };
}

const GradCheckFamily family(complex_cases);

}  // namespace
}  // namespace ct::gradcheck
