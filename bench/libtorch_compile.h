/* libtorch_compile.h - libtorch's side of bench_compile: the same chains in libtorch eager, on
 * copies of ctorch's inputs (opaque pointers to at::Tensor). */
#ifndef CTORCH_BENCH_LIBTORCH_COMPILE_H
#define CTORCH_BENCH_LIBTORCH_COMPILE_H

#include "ctorch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A float32 at::Tensor holding a copy of t (a contiguous CPU float32 tensor). */
void* lt_compile_wrap(const ct_tensor* t);
void lt_compile_free(void* t);
/* Runs chain `which` (0: x*sigmoid(x)+sin(y)*0.5-z; 1: the layer_norm chain of bench_compile.c)
 * on in[0..3) and drops the result. */
void lt_compile_chain(int which, void** in);

#ifdef __cplusplus
}
#endif

#endif
