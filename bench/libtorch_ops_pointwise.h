/* libtorch_ops_pointwise.h - libtorch's side of bench_ops_pointwise: the same pointwise operators
 * over ATen, on tensors libtorch allocates itself (opaque pointers to at::Tensor, released with
 * lt_release). */
#ifndef CTORCH_BENCH_LIBTORCH_OPS_POINTWISE_H
#define CTORCH_BENCH_LIBTORCH_OPS_POINTWISE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A float32 at::randn of n elements times scale; its absolute value when positive is nonzero. */
void* lt_pw_randn(int64_t n, double scale, int positive);
/* Runs operator `which` (the row order of bench_ops_pointwise: exp, sigmoid, tanh, erf, gelu,
 * gelu tanh, silu, softplus, elu, mish, log1p, expm1) on x and drops the result. */
void lt_pw_run(int which, void* x);
/* x converted to float16 (kind 0) or int32 (kind 1), a new tensor. */
void* lt_pw_cast(void* x, int kind);
/* x + y, dropped: the mixed-dtype rows. */
void lt_pw_add(void* x, void* y);

#ifdef __cplusplus
}
#endif

#endif
