// nn.cpp - gradcheck cases of the nn family: softmax, normalization, losses and attention.
#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

Tensor targets(std::initializer_list<int64_t> sizes, std::initializer_list<int64_t> values) {
  Tensor t = ops::empty(IntArrayRef(sizes.begin(), sizes.size()), DType::Int64, kCPU);
  int64_t i = 0;
  for (int64_t v : values) t->data_as<int64_t>()[i++] = v;
  return t;
}

std::vector<Case> nn_cases() {
  const Input m{{3, 4}}, row{{4}}, pos_row{{4}, 0.5, 2.0}, cube{{2, 3, 4}}, prob{{3, 4}, 0.1, 0.9};
  std::vector<Case> cs = {
      {{"softmax.int"}, {cube}, [](const Inputs& x) {
         return ops::add(op("softmax.int", {x[0], 1, Value()}), op("softmax.int", {x[0], -1, Value()}));
       }},
      {{"log_softmax.int"}, {cube}, [](const Inputs& x) {
         return ops::add(op("log_softmax.int", {x[0], 0, Value()}), op("log_softmax.int", {x[0], 2, Value()}));
       }},
      {{"layer_norm"}, {m, row, row}, [](const Inputs& x) {
         return op("layer_norm", {x[0], IntArrayRef{4}, x[1], x[2], 1e-5, true});
       }},
      {{"layer_norm"}, {cube}, [](const Inputs& x) { return op("layer_norm", {x[0], IntArrayRef{3, 4}, Value(), Value(), 1e-3, true}); }},
      {{"group_norm"}, {{{2, 4, 3}}, row, row}, [](const Inputs& x) {
         return op("group_norm", {x[0], 2, x[1], x[2], 1e-5, true});
       }},
      {{"batch_norm"}, {{{4, 3}}, {{3}}, {{3}}}, [](const Inputs& x) {  // training: batch statistics
         Tensor rm = ops::zeros({3}, DType::Float64, kCPU), rv = ops::ones({3}, DType::Float64, kCPU);
         return op("batch_norm", {x[0], x[1], x[2], rm, rv, true, 0.1, 1e-5, false});
       }},
      {{"batch_norm"}, {{{2, 3, 2}}, {{3}}, {{3}}, {{3}}, {{3}, 0.5, 2.0}}, [](const Inputs& x) {  // eval
         return op("batch_norm", {x[0], x[1], x[2], x[3], x[4], false, 0.1, 1e-5, false});
       }},
      {{"rms_norm"}, {m, row}, [](const Inputs& x) { return op("rms_norm", {x[0], IntArrayRef{4}, x[1], Value()}); }},
      {{"mse_loss"}, {m, row}, [](const Inputs& x) { return op("mse_loss", {x[0], x[1], 1}); }},
      {{"l1_loss"}, {m, m}, [](const Inputs& x) { return op("l1_loss", {x[0], x[1], 0}); }},
      {{"smooth_l1_loss"}, {m, m}, [](const Inputs& x) { return op("smooth_l1_loss", {x[0], x[1], 2, 0.5}); }},
      {{"huber_loss"}, {m, m}, [](const Inputs& x) { return op("huber_loss", {x[0], x[1], 1, 0.7}); }},
      {{"margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss"}, {row, row}, [](const Inputs& x) {
         const Tensor t = ops::to(targets({4}, {1, -1, 1, -1}), DType::Float64);
         Tensor total = op("margin_ranking_loss", {x[0], x[1], t, 3.0, 0});  // margins keep clear of the kinks
         total = ops::add(total, op("hinge_embedding_loss", {x[0], t, 2.0, 0}));
         return ops::add(total, op("soft_margin_loss", {x[0], t, 0}));
       }},
      {{"cosine_embedding_loss"}, {m, m}, [](const Inputs& x) {
         const Tensor t = ops::to(targets({3}, {1, -1, -1}), DType::Float64);
         return op("cosine_embedding_loss", {x[0], x[1], t, -1.5, 0});
       }},
      {{"triplet_margin_loss"}, {m, m, m}, [](const Inputs& x) {
         return ops::add(op("triplet_margin_loss", {x[0], x[1], x[2], 10.0, 2.0, 1e-6, false, 0}),
                         op("triplet_margin_loss", {x[0], x[1], x[2], 10.0, 1.5, 1e-6, true, 2}));
       }},
      {{"poisson_nll_loss"}, {m, {{3, 4}, 0.5, 3.0}}, [](const Inputs& x) {
         return ops::add(op("poisson_nll_loss", {x[0], x[1], true, true, 1e-8, 0}),
                         op("poisson_nll_loss", {ops::add(x[1], Scalar(0.1)), x[0], false, false, 1e-8, 2}));
       }},
      {{"cosine_similarity", "pairwise_distance", "dist"}, {m, m}, [](const Inputs& x) {
         Tensor total = op("cosine_similarity", {x[0], x[1], 1, 1e-8});
         total = ops::add(total, op("pairwise_distance", {x[0], x[1], 3.0, 1e-6, false}));
         return ops::add(ops::sum(total), op("dist", {x[0], x[1], 2}));
       }},
      {{"cdist"}, {{{3, 2}}, {{4, 2}}}, [](const Inputs& x) {
         return ops::add(op("cdist", {x[0], x[1], 2.0, 2}), op("cdist", {x[0], x[1], 1.5, Value()}));
       }},
      {{"cdist"}, {{{3, 2}}, {{4, 2}}}, [](const Inputs& x) { return op("cdist", {x[0], x[1], 2.0, 1}); }},  // matmul form
      {{"upsample_nearest1d", "_upsample_nearest_exact1d", "upsample_linear1d"}, {{{1, 2, 3}}}, [](const Inputs& x) {
         Tensor total = ops::sum(op("upsample_nearest1d", {x[0], IntArrayRef{5}, Value()}));
         total = ops::add(total, ops::sum(ops::mul(op("_upsample_nearest_exact1d", {x[0], IntArrayRef{7}, Value()}), Scalar(2.0))));
         const Tensor l = op("upsample_linear1d", {x[0], IntArrayRef{5}, false, Value()});
         return ops::add(total, ops::sum(ops::mul(l, l)));
       }},
      {{"upsample_nearest2d", "_upsample_nearest_exact2d", "upsample_bilinear2d"}, {{{1, 2, 3, 2}}}, [](const Inputs& x) {
         Tensor total = ops::sum(op("upsample_nearest2d", {x[0], IntArrayRef{5, 3}, Value(), Value()}));
         total = ops::add(total, ops::sum(op("_upsample_nearest_exact2d", {x[0], IntArrayRef{2, 4}, 0.7, Value()})));
         const Tensor a = op("upsample_bilinear2d", {x[0], IntArrayRef{4, 5}, true, Value(), Value()});
         const Tensor b = op("upsample_bilinear2d", {x[0], IntArrayRef{5, 3}, false, Value(), Value()});
         return ops::add(total, ops::add(ops::sum(ops::mul(a, a)), ops::sum(b)));
       }},
      {{"pixel_shuffle", "pixel_unshuffle"}, {{{1, 4, 2, 2}}}, [](const Inputs& x) {
         const Tensor up = op("pixel_shuffle", {x[0], 2});
         return ops::add(ops::mul(up, up), ops::sum(op("pixel_unshuffle", {up, 2})));
       }},
      {{"binary_cross_entropy"}, {prob, prob, {{4}, 0.5, 2.0}}, [](const Inputs& x) {
         return op("binary_cross_entropy", {x[0], x[1], x[2], 0});
       }},
      {{"binary_cross_entropy_with_logits"}, {m, prob, pos_row, pos_row}, [](const Inputs& x) {
         return op("binary_cross_entropy_with_logits", {x[0], x[1], x[2], x[3], 1});
       }},
      {{"kl_div"}, {m, prob}, [](const Inputs& x) {
         return ops::add(op("kl_div", {x[0], x[1], 0, false}), op("kl_div", {x[0], x[1], 2, true}));
       }},
      {{"nll_loss"}, {m, pos_row}, [](const Inputs& x) {
         const Tensor t = targets({3}, {1, 3, -100});
         return ops::add(op("nll_loss", {x[0], t, x[1], 1, -100}), op("nll_loss", {x[0], t, Value(), 0, -100}));
       }},
      {{"nll_loss2d"}, {{{2, 3, 2, 2}}}, [](const Inputs& x) {
         return op("nll_loss2d", {x[0], targets({2, 2, 2}, {0, 1, 2, 1, 2, 2, 0, 0}), Value(), 1, -100});
       }},
      {{"cross_entropy_loss"}, {m, pos_row}, [](const Inputs& x) {
         const Tensor t = targets({3}, {1, 3, 0});
         return ops::add(op("cross_entropy_loss", {x[0], t, x[1], 1, 0, 0.2}), op("cross_entropy_loss", {x[0], t, Value(), 0, -100, 0.0}));
       }},
      {{"cross_entropy_loss"}, {m, prob}, [](const Inputs& x) {  // class probabilities
         return op("cross_entropy_loss", {x[0], x[1], Value(), 1, -100, 0.1});
       }},
      {{"scaled_dot_product_attention"}, {cube, {{2, 5, 4}}, {{2, 5, 2}}}, [](const Inputs& x) {
         return ops::add(op("scaled_dot_product_attention", {x[0], x[1], x[2], Value(), 0.0, false, Value(), Value()}),
                         op("scaled_dot_product_attention", {x[0], x[1], x[2], Value(), 0.0, true, 0.5, Value()}));
       }},
      {{"scaled_dot_product_attention"}, {{{2, 3, 4}}, {{2, 4, 4}}, {{2, 4, 2}}, {{3, 4}}}, [](const Inputs& x) {
         return op("scaled_dot_product_attention", {x[0], x[1], x[2], x[3], 0.3, false, Value(), Value(seeded_generator())});
       }},
  };
  return cs;
}

const GradCheckFamily family(nn_cases);

}  // namespace
}  // namespace ct::gradcheck
