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

#ifdef __cplusplus
}
#endif

#endif
