// libtorch_ops_linalg_conv.cpp - the libtorch side of bench_ops_linalg_conv.
#include "libtorch_ops_linalg_conv.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

namespace {
at::Tensor& t(void* p) { return *static_cast<at::Tensor*>(p); }
}  // namespace

extern "C" {

void* lt_lc_tensor(const float* data, const int64_t* sizes, int ndim, int grad) {
  at::Tensor x = at::from_blob(const_cast<float*>(data), at::IntArrayRef(sizes, ndim), at::kFloat).clone();
  if (grad) x.set_requires_grad(true);
  return new at::Tensor(x);
}

void lt_lc_release(void* p) { delete static_cast<at::Tensor*>(p); }

void lt_lc_conv2d(void* x, void* w, int backward) {
  at::Tensor y = at::conv2d(t(x), t(w), {}, 1, 1);
  if (backward) {
    y.sum().backward();
    t(x).mutable_grad().reset();
    t(w).mutable_grad().reset();
  }
}

void lt_lc_einsum3(void* a, void* b, void* c) { at::Tensor r = at::einsum("ij,jk,kl->il", {t(a), t(b), t(c)}); }

}  // extern "C"
