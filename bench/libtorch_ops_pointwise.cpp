// libtorch_ops_pointwise.cpp - libtorch's side of bench_ops_pointwise (see libtorch_ops_pointwise.h).
#include "libtorch_ops_pointwise.h"

#include <ATen/ATen.h>

namespace {
at::Tensor& t(void* p) { return *static_cast<at::Tensor*>(p); }
}  // namespace

extern "C" {

void* lt_pw_randn(int64_t n, double scale, int positive) {
  at::Tensor x = at::randn({n}, at::kFloat).mul_(scale);
  return new at::Tensor(positive ? x.abs_() : x);
}

void lt_pw_run(int which, void* p) {
  const at::Tensor& x = t(p);
  at::Tensor y;
  switch (which) {
    case 0: y = at::exp(x); break;
    case 1: y = at::sigmoid(x); break;
    case 2: y = at::tanh(x); break;
    case 3: y = at::erf(x); break;
    case 4: y = at::gelu(x); break;
    case 5: y = at::gelu(x, "tanh"); break;
    case 6: y = at::silu(x); break;
    case 7: y = at::softplus(x, 1, 20); break;
    case 8: y = at::elu(x); break;
    case 9: y = at::mish(x); break;
    case 10: y = at::log1p(x); break;
    default: y = at::expm1(x); break;
  }
}

void* lt_pw_cast(void* p, int kind) { return new at::Tensor(t(p).to(kind == 0 ? at::kHalf : at::kInt)); }

void lt_pw_add(void* x, void* y) { at::Tensor r = at::add(t(x), t(y)); }

}  // extern "C"
