/* libtorch_ops_reduce.h - libtorch's side of bench_ops_reduce (tensors from lt_from_floats in
 * libtorch_anchor.h); each call computes one result and destroys it. */
#ifndef CTORCH_BENCH_LIBTORCH_OPS_REDUCE_H
#define CTORCH_BENCH_LIBTORCH_OPS_REDUCE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void lt_reduce_topk(void* a, int64_t k);      /* at::topk(a, k) along the last dim, largest, sorted */
void lt_reduce_sort(void* a);                 /* at::sort(a) along the last dim */
void lt_reduce_logsumexp(void* a);            /* at::logsumexp(a, {1}) */
void lt_reduce_var(void* a);                  /* at::var(a, {1}) (unbiased) */
void* lt_reduce_int32(void* a);               /* a converted to int32, a new tensor (lt_release) */
void lt_reduce_cumsum(void* a);               /* at::cumsum(a, 0) */
void lt_reduce_max_dim(void* a);              /* at::max(a, 1): values and indices */
void lt_reduce_nansum(void* a);               /* at::nansum(a, {1}) */

#ifdef __cplusplus
}
#endif

#endif
