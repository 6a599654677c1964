// libtorch_ops_nn.cpp - libtorch's side of bench_ops_nn (see libtorch_ops_nn.h).
#include "libtorch_ops_nn.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

namespace {
at::Tensor& t(void* p) { return *static_cast<at::Tensor*>(p); }
}  // namespace

extern "C" {

void* lt_nn_randn(const int64_t* sizes, int ndim) {
  return new at::Tensor(at::randn(at::IntArrayRef(sizes, static_cast<size_t>(ndim)), at::kFloat));
}

void lt_nn_softmax(void* x) { at::Tensor y = at::softmax(t(x), -1); }

void lt_nn_log_softmax(void* x) { at::Tensor y = at::log_softmax(t(x), -1); }

void lt_nn_layer_norm(void* x, void* w, void* b) {
  at::Tensor y = at::layer_norm(t(x), {t(x).size(-1)}, t(w), t(b));
}

void lt_nn_attention(void* q, void* k, void* v, int causal) {
  const at::Tensor& Q = t(q);
  const int64_t L = Q.size(-2), S = t(k).size(-2);
  at::Tensor scores = at::matmul(Q, t(k).transpose(-2, -1)).mul_(1.0 / std::sqrt(static_cast<double>(Q.size(-1))));
  if (causal)
    scores.masked_fill_(at::ones({L, S}, at::kBool).triu(1), -std::numeric_limits<float>::infinity());
  at::Tensor out = at::matmul(at::softmax(scores, -1), t(v));
}

}  // extern "C"
