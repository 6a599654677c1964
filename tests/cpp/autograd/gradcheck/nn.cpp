// nn.cpp - gradcheck cases of the nn family: softmax, normalization, losses, attention and the
// recurrent operators.
#include <array>
#include <tuple>

#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

Tensor targets(std::initializer_list<int64_t> sizes, std::initializer_list<int64_t> values) {
  Tensor t = ops::empty(IntArrayRef(sizes.begin(), sizes.size()), DType::Int64, kCPU);
  int64_t i = 0;
  for (int64_t v : values) t->data_as<int64_t>()[i++] = v;
  return t;
}

// The outputs of a recurrent operator flattened into one tensor, so one Jacobian covers them all.
template <size_t N>
Tensor joined(const std::array<Tensor, N>& outs) {
  std::vector<Tensor> flat;
  std::vector<const TensorImpl*> parts;
  for (const Tensor& t : outs) flat.push_back(ops::reshape(t, DimVector{-1}));
  for (const Tensor& t : flat) parts.push_back(t.impl());
  return ops::cat(parts, 0);
}

std::vector<const TensorImpl*> impls(const Inputs& x, size_t from, size_t to) {
  std::vector<const TensorImpl*> out;
  for (size_t i = from; i < to; ++i) out.push_back(x[i].impl());
  return out;
}

// Cases of one recurrent operator: a bidirectional layer over padded input [4, 2, 3], and the
// packed form (batch_sizes 2, 2, 1), hidden size 2; inputs are x, the state(s), then the params.
// names: the operator, then its .input, .data and _cell overloads, spelt out for op_coverage.py.
std::vector<Case> recurrent_cases(const std::array<const char*, 4>& names, int64_t gates, bool lstm, bool smooth) {
  const int64_t g = gates * 2;
  std::vector<Input> params;
  for (int d = 0; d < 2; ++d) params.insert(params.end(), {{{g, 3}}, {{g, 2}}, {{g}}, {{g}}});
  const size_t nstates = lstm ? 2 : 1;
  std::vector<Input> padded{{{4, 2, 3}}}, packed{{{5, 3}}};
  for (size_t i = 0; i < nstates; ++i) {
    padded.push_back({{2, 2, 2}});
    packed.push_back({{2, 2, 2}});
  }
  padded.insert(padded.end(), params.begin(), params.end());
  packed.insert(packed.end(), params.begin(), params.end());
  const std::string op = names[0];
  Case p{{names[1]}, padded, [=](const Inputs& x) {
           const auto hx = impls(x, 1, 1 + nstates), ps = impls(x, 1 + nstates, x.size());
           if (lstm) return joined(ops::lstm(x[0], hx, ps, true, 1, 0.0, false, true, false));
           return joined(op == "gru" ? ops::gru(x[0], x[1], ps, true, 1, 0.0, false, true, false)
                         : op == "rnn_tanh" ? ops::rnn_tanh(x[0], x[1], ps, true, 1, 0.0, false, true, false)
                                            : ops::rnn_relu(x[0], x[1], ps, true, 1, 0.0, false, true, false));
         }};
  Case k{{names[2]}, packed, [=](const Inputs& x) {
           const Tensor sizes = targets({3}, {2, 2, 1});
           const auto hx = impls(x, 1, 1 + nstates), ps = impls(x, 1 + nstates, x.size());
           if (lstm) return joined(ops::lstm(x[0], sizes, hx, ps, true, 1, 0.0, false, true));
           return joined(op == "gru" ? ops::gru(x[0], sizes, x[1], ps, true, 1, 0.0, false, true)
                         : op == "rnn_tanh" ? ops::rnn_tanh(x[0], sizes, x[1], ps, true, 1, 0.0, false, true)
                                            : ops::rnn_relu(x[0], sizes, x[1], ps, true, 1, 0.0, false, true));
         }};
  std::vector<Input> cell{{{2, 3}}, {{2, 2}}};
  if (lstm) cell.push_back({{2, 2}});
  cell.insert(cell.end(), {{{g, 3}}, {{g, 2}}, {{g}}, {{g}}});
  Case c{{names[3]}, cell, [=](const Inputs& x) {
           if (lstm) {
             const auto hx = impls(x, 1, 3);
             return joined(ops::lstm_cell(x[0], hx, x[3], x[4], x[5], x[6]));
           }
           return op == "gru" ? ops::gru_cell(x[0], x[1], x[2], x[3], x[4], x[5])
                  : op == "rnn_tanh" ? ops::rnn_tanh_cell(x[0], x[1], x[2], x[3], x[4], x[5])
                                     : ops::rnn_relu_cell(x[0], x[1], x[2], x[3], x[4], x[5]);
         }};
  for (Case* cs : {&p, &k, &c}) cs->second_order = smooth;  // relu has a kink
  return {p, k, c};
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
      {{"instance_norm"}, {{{2, 3, 4}}, {{3}}, {{3}}}, [](const Inputs& x) {
         return op("instance_norm", {x[0], x[1], x[2], Value(), Value(), true, 0.1, 1e-5, false});
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
  using Names = std::array<const char*, 4>;
  for (const auto& [names, gates, lstm, smooth] :
       {std::tuple{Names{"lstm", "lstm.input", "lstm.data", "lstm_cell"}, 4, true, true},
        {Names{"gru", "gru.input", "gru.data", "gru_cell"}, 3, false, true},
        {Names{"rnn_tanh", "rnn_tanh.input", "rnn_tanh.data", "rnn_tanh_cell"}, 1, false, true},
        {Names{"rnn_relu", "rnn_relu.input", "rnn_relu.data", "rnn_relu_cell"}, 1, false, false}}) {
    for (Case& c : recurrent_cases(names, gates, lstm, smooth)) cs.push_back(std::move(c));
  }
  return cs;
}

const GradCheckFamily family(nn_cases);

}  // namespace
}  // namespace ct::gradcheck
