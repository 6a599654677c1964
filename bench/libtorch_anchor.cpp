// libtorch_anchor.cpp - the libtorch side of bench_core's libtorch rows (see libtorch_anchor.h).
#include "libtorch_anchor.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

namespace {
at::Tensor& t(void* p) { return *static_cast<at::Tensor*>(p); }
}  // namespace

extern "C" {

const char* lt_version(void) { return "1.13"; }

void lt_set_threads(int n) { at::set_num_threads(n); }

void* lt_from_floats(const float* data, int64_t n, int64_t cols) {
  at::Tensor x = cols ? at::from_blob(const_cast<float*>(data), {n, cols}, at::kFloat)
                      : at::from_blob(const_cast<float*>(data), {n}, at::kFloat);
  return new at::Tensor(x.clone());
}

void lt_release(void* p) { delete static_cast<at::Tensor*>(p); }

void lt_add_release(void* a, void* b, int iters) {
  for (int i = 0; i < iters; ++i) {
    at::Tensor c = at::add(t(a), t(b));
  }
}

void lt_mm(void* a, void* b) { at::Tensor c = at::mm(t(a), t(b)); }

float lt_sum(void* a) { return at::sum(t(a)).item<float>(); }

void* lt_param(const float* data, int64_t n, int64_t cols) {
  auto* p = static_cast<at::Tensor*>(lt_from_floats(data, n, cols));
  p->set_requires_grad(true);
  return p;
}

void lt_small_steps(void* x, void* w, void* b, int iters) {
  for (int i = 0; i < iters; ++i) {
    at::Tensor loss = at::add(at::mul(t(x), t(w)), t(b)).sum();
    loss.backward();
    t(w).mutable_grad().reset();
    t(b).mutable_grad().reset();
  }
}

void lt_mlp_step(void* x, void** params) {
  at::Tensor a1 = at::relu(at::addmm(t(params[1]), t(x), t(params[0])));
  at::Tensor a2 = at::relu(at::addmm(t(params[3]), a1, t(params[2])));
  at::Tensor out = at::addmm(t(params[5]), a2, t(params[4]));
  (out * out).mean().backward();
  for (int i = 0; i < 6; ++i) t(params[i]).mutable_grad().reset();
}

void lt_manual_seed(uint64_t seed) { at::manual_seed(seed); }

void lt_randn_release(int64_t n) { at::Tensor x = at::randn({n}); }

void lt_rand_release(int64_t n) { at::Tensor x = at::rand({n}); }

}  // extern "C"
