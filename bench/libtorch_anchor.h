/* libtorch_anchor.h - libtorch's ATen, measured in the same run as ctorch by bench_core when the
 * build finds libtorch (Debian's libtorch-dev). Tensors are opaque pointers to at::Tensor. */
#ifndef CTORCH_BENCH_LIBTORCH_ANCHOR_H
#define CTORCH_BENCH_LIBTORCH_ANCHOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

const char* lt_version(void);
void lt_set_threads(int n);
/* A float32 tensor copying data: 1-D of n elements when cols is 0, else n x cols. */
void* lt_from_floats(const float* data, int64_t n, int64_t cols);
void lt_release(void* t);
/* iters times: c = at::add(a, b), then c is destroyed. */
void lt_add_release(void* a, void* b, int iters);
void lt_mm(void* a, void* b);
float lt_sum(void* a);
/* A float32 leaf that requires grad, copying data (as lt_from_floats). */
void* lt_param(const float* data, int64_t n, int64_t cols);
/* iters times: (x * w + b).sum().backward(), then w and b's grads reset. */
void lt_small_steps(void* x, void* w, void* b, int iters);
/* One step of bench_autograd's MLP: three addmm (+ relu), mean(out^2), backward, grads reset. */
void lt_mlp_step(void* x, void** params);
void lt_manual_seed(uint64_t seed);
/* A float32 at::randn({n}) / at::rand({n}) from the default CPU generator, then destroyed. */
void lt_randn_release(int64_t n);
void lt_rand_release(int64_t n);

#ifdef __cplusplus
}
#endif

#endif
