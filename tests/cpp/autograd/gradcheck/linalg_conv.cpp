// linalg_conv.cpp - gradcheck cases of the linear-algebra, convolution and pooling family.
#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

Tensor einsum(const char* eq, std::initializer_list<Tensor> ts) {
  std::vector<const TensorImpl*> ps;
  for (const Tensor& t : ts) ps.push_back(t.impl());
  return op("einsum", {eq, ArrayRef<const TensorImpl*>(ps.data(), ps.size()), Value()});
}

// Both results of max_pool2d_with_indices; the values carry the gradient.
Tensor max_pool_values(const Tensor& x, bool ceil) {
  Tensor outs[2];
  const int64_t k[2] = {3, 2}, s[2] = {2, 1}, p[2] = {1, 0}, d[2] = {1, 2};
  const Value args[6] = {x, IntArrayRef(k, 2), IntArrayRef(s, 2), IntArrayRef(p, 2), IntArrayRef(d, 2), ceil};
  dispatch(builtin_op("max_pool2d_with_indices"), args, 6, outs, 2);
  return outs[0];
}

std::vector<Case> linalg_conv_cases() {
  const Input v3{{3}}, v4{{4}}, m34{{3, 4}}, img{{2, 4, 5, 5}};
  std::vector<Case> cs = {
      {{"dot"},
       {v3, {{3}}},
       [](const Inputs& x) {
         return op("dot", {x[0], x[1]});
       }},
      {{"outer"},
       {v3, v4},
       [](const Inputs& x) {
         return op("outer", {x[0], x[1]});
       }},
      {{"ger"},
       {v3, v4},
       [](const Inputs& x) {
         return op("ger", {x[0], x[1]});
       }},
      {{"mv"},
       {m34, v4},
       [](const Inputs& x) {
         return op("mv", {x[0], x[1]});
       }},
      {{"addmv"},
       {v3, m34, v4},
       [](const Inputs& x) {
         return op("addmv", {x[0], x[1], x[2], 0.5, 2.0});
       }},
      {{"baddbmm"},
       {{{3}}, {{2, 2, 4}}, {{2, 4, 3}}},
       [](const Inputs& x) {
         return op("baddbmm", {x[0], x[1], x[2], -1.5, 0.5});
       }},
      {{"tensordot"},
       {{{2, 3, 4}}, {{4, 3, 2}}},
       [](const Inputs& x) {
         return op("tensordot", {x[0], x[1], IntArrayRef{1, 2}, IntArrayRef{1, 0}});
       }},
      {{"inner"}, {{{2, 3}}, {{4, 3}}}, [](const Inputs& x) { return op("inner", {x[0], x[1]}); }},
      {{"addr"}, {{{3}}, {{2}}, {{3}}}, [](const Inputs& x) { return op("addr", {x[0], x[1], x[2], 0.5, -2.0}); }},
      {{"addbmm"}, {{{3}}, {{2, 2, 4}}, {{2, 4, 3}}}, [](const Inputs& x) {
         return op("addbmm", {x[0], x[1], x[2], -1.5, 0.5});
       }},
      {{"linalg_cross", "cross"}, {{{2, 3}}, {{1, 3}}}, [](const Inputs& x) {
         return ops::add(op("linalg_cross", {x[0], x[1], -1}), ops::mul(op("cross", {x[0], x[1], Value()}), Scalar(2.0)));
       }},
      {{"vander"}, {{{3}}}, [](const Inputs& x) { return op("vander", {x[0], 4, false}); }},
      {{"matrix_power"}, {{{3, 3}}}, [](const Inputs& x) { return op("matrix_power", {x[0], 5}); }},
      {{"linalg_matrix_power"}, {{{2, 2, 2}}}, [](const Inputs& x) { return op("linalg_matrix_power", {x[0], 3}); }},
      {{"matrix_exp"}, {{{3, 3}}}, [](const Inputs& x) { return op("matrix_exp", {x[0]}); }},
      {{"linalg_matrix_exp"}, {{{2, 2, 2}}}, [](const Inputs& x) { return op("linalg_matrix_exp", {x[0]}); }},
      {{"kron"},
       {{{2, 3}}, {{2}}},
       [](const Inputs& x) {
         return op("kron", {x[0], x[1]});
       }},
      {{"linear"},
       {{{2, 5, 3}}, {{4, 3}}, v4},
       [](const Inputs& x) {
         return op("linear", {x[0], x[1], x[2]});
       }},
      {{"linear"},
       {{{5, 3}}, {{4, 3}}, v4},
       [](const Inputs& x) {
         return op("linear", {x[0], x[1], x[2]});
       }},
      {{"bilinear"},
       {{{5, 3}}, {{5, 2}}, {{4, 3, 2}}, v4},
       [](const Inputs& x) {
         return op("bilinear", {x[0], x[1], x[2], x[3]});
       }},
      {{"einsum"},
       {{{4, 2}}, {{2, 4}}, {{4, 3}}},
       [](const Inputs& x) {
         return einsum("ij,jk,kl->il", {x[0], x[1], x[2]});
       }},
      {{"einsum"},
       {{{3, 3, 2}}, {{2, 3}}},
       [](const Inputs& x) {
         return einsum("iij,j...->i...", {x[0], x[1]});
       }},
      {{"conv2d"},
       {img, {{6, 2, 3, 2}}, {{6}}},
       [](const Inputs& x) {
         return op("conv2d", {x[0], x[1], x[2], IntArrayRef{2, 1}, IntArrayRef{1, 0}, IntArrayRef{1, 2}, 2});
       }},
      {{"conv2d"},
       {{{4, 5, 5}}, {{3, 4, 1, 1}}},
       [](const Inputs& x) {
         return op("conv2d", {x[0], x[1], Value(), IntArrayRef{1}, IntArrayRef{0}, IntArrayRef{1}, 1});
       }},
      {{"conv2d.padding"},
       {{{1, 2, 4, 5}}, {{3, 2, 2, 3}}},
       [](const Inputs& x) {
         return op("conv2d.padding", {x[0], x[1], Value(), IntArrayRef{1}, "same", IntArrayRef{1}, 1});
       }},
      {{"conv1d"},
       {{{2, 3, 7}}, {{2, 3, 3}}, {{2}}},
       [](const Inputs& x) {
         return op("conv1d", {x[0], x[1], x[2], IntArrayRef{2}, IntArrayRef{1}, IntArrayRef{1}, 1});
       }},
      {{"conv3d"},
       {{{2, 4, 4, 3, 4}}, {{4, 2, 2, 2, 3}}, {{4}}},
       [](const Inputs& x) {
         return op("conv3d", {x[0], x[1], x[2], IntArrayRef{2, 1, 1}, IntArrayRef{1, 0, 1}, IntArrayRef{1, 1, 2}, 2});
       }},
      {{"conv1d.padding", "conv3d.padding"},
       {{{1, 2, 3, 4, 3}}, {{2, 2, 2, 3, 2}}},
       [](const Inputs& x) {
         const Tensor a = op("conv3d.padding", {x[0], x[1], Value(), IntArrayRef{1}, "same", IntArrayRef{1}, 1});
         const Tensor b = op("conv1d.padding", {ops::flatten(x[0], 2, 4), ops::flatten(x[1], 2, 4), Value(),
                                                IntArrayRef{1}, "same", IntArrayRef{1}, 1});
         return ops::add(ops::sum(a), ops::sum(b));
       }},
      {{"conv_transpose1d"},
       {{{2, 4, 5}}, {{4, 1, 3}}, {{2}}},
       [](const Inputs& x) {
         return op("conv_transpose1d", {x[0], x[1], x[2], IntArrayRef{2}, IntArrayRef{1}, IntArrayRef{1}, 2,
                                        IntArrayRef{1}});
       }},
      {{"conv_transpose3d.input"},
       {{{1, 4, 2, 3, 2}}, {{4, 1, 2, 2, 3}}, {{2}}},
       [](const Inputs& x) {
         return op("conv_transpose3d.input", {x[0], x[1], x[2], IntArrayRef{2, 1, 2}, IntArrayRef{1, 0, 0},
                                              IntArrayRef{1, 0, 1}, 2, IntArrayRef{1, 2, 1}});
       }},
      {{"convolution", "conv_tbc"},
       {{{2, 3, 5}}, {{2, 3, 3}}, {{2}}},
       [](const Inputs& x) {
         const Tensor a = op("convolution", {x[0], x[1], x[2], IntArrayRef{1}, IntArrayRef{1}, IntArrayRef{1}, false,
                                             IntArrayRef{0}, 1});
         const Tensor b = op("conv_tbc", {ops::permute(x[0], {2, 0, 1}), ops::permute(x[1], {2, 1, 0}), x[2], 1});
         return ops::add(ops::sum(a), ops::sum(b));
       }},
      {{"im2col", "col2im"},
       {{{2, 2, 5, 4}}},
       [](const Inputs& x) {
         const Tensor cols = op("im2col", {x[0], IntArrayRef{3, 2}, IntArrayRef{1, 2}, IntArrayRef{1, 0},
                                           IntArrayRef{2, 1}});
         const Tensor image = op("col2im", {ops::mul(cols, cols), IntArrayRef{5, 4}, IntArrayRef{3, 2},
                                            IntArrayRef{1, 2}, IntArrayRef{1, 0}, IntArrayRef{2, 1}});
         return ops::add(ops::sum(cols), ops::sum(image));
       }},
      {{"conv_transpose2d.input"},
       {{{2, 4, 3, 3}}, {{4, 1, 3, 2}}, {{2}}},
       [](const Inputs& x) {
         return op("conv_transpose2d.input",
                   {x[0], x[1], x[2], IntArrayRef{2, 1}, IntArrayRef{1, 0}, IntArrayRef{1, 0}, 2, IntArrayRef{1, 2}});
       }},
      {{"max_pool2d_with_indices"}, {{{2, 2, 5, 6}}}, [](const Inputs& x) { return max_pool_values(x[0], true); }},
      {{"max_pool2d"},
       {{{1, 2, 4, 4}}},
       [](const Inputs& x) {
         return op("max_pool2d", {x[0], IntArrayRef{2}, IntArrayRef{}, IntArrayRef{0}, IntArrayRef{1}, false});
       }},
      {{"max_pool1d_with_indices", "max_pool1d"},
       {{{2, 2, 9}}},
       [](const Inputs& x) {
         const Tensor a = ops::max_pool1d_with_indices(x[0], IntArrayRef{3}, IntArrayRef{2}, IntArrayRef{1},
                                                       IntArrayRef{1}, true)[0];
         return ops::add(ops::sum(a), ops::sum(ops::max_pool1d(x[0], IntArrayRef{2})));
       }},
      {{"avg_pool1d"},
       {{{2, 2, 9}}},
       [](const Inputs& x) { return ops::avg_pool1d(x[0], IntArrayRef{3}, IntArrayRef{2}, IntArrayRef{1}, true, false); }},
      {{"adaptive_avg_pool1d"}, {{{2, 2, 9}}}, [](const Inputs& x) { return ops::adaptive_avg_pool1d(x[0], IntArrayRef{4}); }},
      {{"adaptive_max_pool1d", "adaptive_max_pool2d"},
       {{{2, 2, 5, 7}}},
       [](const Inputs& x) {
         const Tensor a = ops::adaptive_max_pool2d(x[0], IntArrayRef{3, 4})[0];
         const Tensor b = ops::adaptive_max_pool1d(ops::flatten(x[0], 2, 3), IntArrayRef{6})[0];
         return ops::add(ops::sum(a), ops::sum(b));
       }},
      {{"max_pool3d_with_indices"},
       {{{1, 2, 5, 4, 5}}},
       [](const Inputs& x) {
         return ops::max_pool3d_with_indices(x[0], IntArrayRef{3, 2, 3}, IntArrayRef{2, 1, 2}, IntArrayRef{1, 0, 1},
                                             IntArrayRef{1, 2, 1}, true)[0];
       }},
      {{"max_pool3d"}, {{{1, 2, 4, 4, 4}}}, [](const Inputs& x) { return ops::max_pool3d(x[0], IntArrayRef{2}); }},
      {{"avg_pool3d"},
       {{{1, 2, 5, 4, 5}}},
       [](const Inputs& x) {
         return ops::avg_pool3d(x[0], IntArrayRef{3}, IntArrayRef{2}, IntArrayRef{1}, true, false);
       }},
      {{"adaptive_avg_pool3d", "adaptive_max_pool3d"},
       {{{1, 2, 5, 4, 5}}},
       [](const Inputs& x) {
         const Tensor a = ops::adaptive_avg_pool3d(x[0], IntArrayRef{3, 2, 4});
         const Tensor b = ops::adaptive_max_pool3d(x[0], IntArrayRef{2, 3, 2})[0];
         return ops::add(ops::sum(a), ops::sum(b));
       }},
      // The pooled maxima (indices of distinct positions) put back: the gradient picks them out.
      {{"max_unpool2d", "max_unpool3d"},
       {{{1, 2, 4, 4, 4}}},
       [](const Inputs& x) {
         const std::array<Tensor, 2> p3 = ops::max_pool3d_with_indices(x[0], IntArrayRef{2});
         const Tensor a = ops::max_unpool3d(p3[0], p3[1], IntArrayRef{4, 4, 4}, IntArrayRef{2}, IntArrayRef{0});
         const Tensor planes = ops::flatten(x[0], 1, 2);
         const std::array<Tensor, 2> p2 = ops::max_pool2d_with_indices(planes, IntArrayRef{2});
         const Tensor b = ops::max_unpool2d(p2[0], p2[1], IntArrayRef{4, 4});
         return ops::add(ops::sum(ops::mul(a, a)), ops::sum(ops::mul(b, b)));
       }},
      // The gradient of the backward operator with respect to grad_output (self only fixes indices).
      {{"max_pool2d_with_indices_backward"},
       {{{2, 2, 3, 4}}},
       [](const Inputs& x) {
         Tensor outs[2];
         const Tensor self = ops::arange(0, 120, 1, DType::Float64, kCPU);
         const Tensor s = ops::reshape(ops::sin(self), {2, 2, 5, 6});
         const int64_t k[2] = {3, 2}, st[2] = {2, 1}, p[2] = {1, 0}, d[2] = {1, 2};
         const Value args[6] = {s, IntArrayRef(k, 2), IntArrayRef(st, 2), IntArrayRef(p, 2), IntArrayRef(d, 2), true};
         dispatch(builtin_op("max_pool2d_with_indices"), args, 6, outs, 2);
         return op("max_pool2d_with_indices_backward", {x[0], s, IntArrayRef(k, 2), IntArrayRef(st, 2),
                                                        IntArrayRef(p, 2), IntArrayRef(d, 2), true, outs[1]});
       }},
      {{"avg_pool2d"},
       {img},
       [](const Inputs& x) {
         return ops::add(op("avg_pool2d", {x[0], IntArrayRef{3}, IntArrayRef{2}, IntArrayRef{1}, true, false, Value()}),
                         op("avg_pool2d", {x[0], IntArrayRef{3}, IntArrayRef{2}, IntArrayRef{1}, true, true, 4}));
       }},
      {{"avg_pool2d_backward"},
       {{{2, 4, 3, 3}}, img},
       [](const Inputs& x) {
         return op("avg_pool2d_backward",
                   {x[0], x[1], IntArrayRef{3}, IntArrayRef{2}, IntArrayRef{1}, true, false, Value()});
       }},
      {{"adaptive_avg_pool2d"},
       {img},
       [](const Inputs& x) {
         return op("adaptive_avg_pool2d", {x[0], IntArrayRef{3, 2}});
       }},
      {{"_adaptive_avg_pool2d_backward"},
       {{{2, 4, 3, 2}}, img},
       [](const Inputs& x) {
         return op("_adaptive_avg_pool2d_backward", {x[0], x[1]});
       }},
  };
  return cs;
}

const GradCheckFamily family(linalg_conv_cases);

}  // namespace
}  // namespace ct::gradcheck
