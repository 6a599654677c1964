/* libtorch_ops_linalg_conv.h - libtorch's side of bench_ops_linalg_conv (see libtorch_anchor.h). */
#ifndef CTORCH_BENCH_LIBTORCH_OPS_LINALG_CONV_H
#define CTORCH_BENCH_LIBTORCH_OPS_LINALG_CONV_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A float32 tensor of the given sizes copying data; requires_grad when grad is nonzero. */
void* lt_lc_tensor(const float* data, const int64_t* sizes, int ndim, int grad);
void lt_lc_release(void* t);
/* y = conv2d(x, w, stride 1, padding 1), destroyed; with backward: y.sum().backward(), grads reset. */
void lt_lc_conv2d(void* x, void* w, int backward);
/* torch.einsum("ij,jk,kl->il", a, b, c), destroyed. */
void lt_lc_einsum3(void* a, void* b, void* c);

#ifdef __cplusplus
}
#endif

#endif
