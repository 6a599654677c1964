/* libtorch_ops_nn.h - libtorch's side of bench_ops_nn: the same operators over ATen, on tensors
 * that libtorch allocates itself (opaque pointers to at::Tensor, released with lt_release). */
#ifndef CTORCH_BENCH_LIBTORCH_OPS_NN_H
#define CTORCH_BENCH_LIBTORCH_OPS_NN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A float32 at::randn of the given sizes. */
void* lt_nn_randn(const int64_t* sizes, int ndim);
void lt_nn_softmax(void* x);
void lt_nn_log_softmax(void* x);
/* at::layer_norm over the last dim, with weight and bias. */
void lt_nn_layer_norm(void* x, void* w, void* b);
/* softmax(q k^T / sqrt(E) [+ causal mask]) v as matmul, mul_, masked_fill_, softmax, matmul: libtorch
 * 1.13 has no scaled_dot_product_attention, and this is the math its later releases run on CPU. */
void lt_nn_attention(void* q, void* k, void* v, int causal);

#ifdef __cplusplus
}
#endif

#endif
