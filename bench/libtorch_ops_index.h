/* libtorch_ops_index.h - libtorch's side of bench_ops_index: the same indexing calls over ATen,
 * on tensors wrapping ctorch's memory (no copies). Tensors are opaque pointers to at::Tensor. */
#ifndef CTORCH_BENCH_LIBTORCH_OPS_INDEX_H
#define CTORCH_BENCH_LIBTORCH_OPS_INDEX_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A contiguous tensor over data (not copied; data must outlive it): float32 when is_float, else int64. */
void* lt_index_wrap(void* data, const int64_t* sizes, int ndim, int is_float);
void lt_index_release(void* t);
void lt_set_threads(int n); /* libtorch_anchor.h's */
/* One call each, result destroyed. */
void lt_index_add(void* self, int64_t dim, void* index, void* source);
void lt_index_select(void* self, int64_t dim, void* index);
void lt_gather(void* self, int64_t dim, void* index);
void lt_index_put_accumulate(void* self, void* index, void* values);

#ifdef __cplusplus
}
#endif

#endif
