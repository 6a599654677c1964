/* bench_ops_reduce.c - the reduce family's measurements beside libtorch, in one run:
 *   S1  topk of 1M float32, k = 1000, largest (a selection: two passes and a small sort)
 *   S2  sort of 1M float32 (stable; a radix sort of packed keys)
 *   S3  logsumexp over the rows of (4096, 1024) float32
 *   S4  var over the rows of (4096, 1024) float32
 *   S5  cumsum of 4M int32 (a 1-D scan into int64, the input converted as it is read)
 *   S6  max.dim over the rows of (4096, 1024) float32: values and indices (argmax, then gather)
 *   S7  nansum over the rows of (4096, 1024) float32 (where NaN -> 0, then sum)
 * Target (issue 6): at least libtorch's speed on each. */
#include <stdio.h>
#include <string.h>

#include "bench_timing.h"
#ifdef CTORCH_BENCH_LIBTORCH
#include "libtorch_anchor.h"
#include "libtorch_ops_reduce.h"
#endif

#define REPS 15

typedef struct {
  int kind;       /* 0 topk, 1 sort, 2 logsumexp, 3 var, 4 cumsum, 5 max.dim, 6 nansum */
  ct_tensor* ct;  /* the input, in ctorch */
  void* lt;       /* the input, in libtorch */
} job;

static void ct_run(void* p) {
  const job* j = p;
  ct_tensor *a = NULL, *b = NULL;
  const int64_t dim1 = 1;
  switch (j->kind) {
    case 0: CHECK(ct_tensor_topk(j->ct, 1000, -1, 1, 1, &a, &b)); break;
    case 1: CHECK(ct_tensor_sort(j->ct, -1, 0, &a, &b)); break;
    case 2: CHECK(ct_tensor_logsumexp(j->ct, &dim1, 1, 0, &a)); break;
    case 3: CHECK(ct_tensor_var(j->ct, &dim1, 1, 1.0, 0, &a)); break;
    case 4: CHECK(ct_tensor_cumsum(j->ct, 0, NULL, &a)); break;
    case 5: CHECK(ct_tensor_max_dim(j->ct, 1, 0, &a, &b)); break;
    default: CHECK(ct_tensor_nansum(j->ct, &dim1, 1, 0, NULL, &a)); break;
  }
  ct_tensor_release(a);
  ct_tensor_release(b);
}

#ifdef CTORCH_BENCH_LIBTORCH
static void lt_run(void* p) {
  const job* j = p;
  switch (j->kind) {
    case 0: lt_reduce_topk(j->lt, 1000); break;
    case 1: lt_reduce_sort(j->lt); break;
    case 2: lt_reduce_logsumexp(j->lt); break;
    case 3: lt_reduce_var(j->lt); break;
    case 4: lt_reduce_cumsum(j->lt); break;
    case 5: lt_reduce_max_dim(j->lt); break;
    default: lt_reduce_nansum(j->lt); break;
  }
}
#endif

/* Uniform floats in [-1, 1) from a fixed linear congruential sequence: distinct enough for sorting. */
static float* random_floats(int64_t n) {
  float* x = malloc((size_t)n * sizeof *x);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (float)((double)(s >> 11) / (double)(1ull << 53) * 2.0 - 1.0);
  }
  return x;
}

int main(void) {
  bench_begin("bench_ops_reduce", REPS, "libtorch time / ctorch time (> 1: ctorch faster)");
  printf("\n%-3s %-44s %10s %10s  %-4s %6s   target\n", "row", "measurement", "ctorch", "libtorch", "unit", "ratio");
  const int64_t n1 = 1 << 20, rows = 4096, cols = 1024;
  float* v = random_floats(n1);
  float* m = random_floats(rows * cols);
  const int64_t s1[1] = {n1}, s2[2] = {rows, cols};
  /* S5's int32 input: m * 1000, converted by each library. */
  float* w = malloc((size_t)(rows * cols) * sizeof *w);
  for (int64_t i = 0; i < rows * cols; ++i) w[i] = m[i] * 1000.0f;
  const int64_t s5[1] = {rows * cols};
  ct_tensor *cv = NULL, *cm = NULL, *cw = NULL, *ci = NULL;
  CHECK(ct_tensor_from_data(v, s1, 1, CT_FLOAT32, &cv));
  CHECK(ct_tensor_from_data(m, s2, 2, CT_FLOAT32, &cm));
  CHECK(ct_tensor_from_data(w, s5, 1, CT_FLOAT32, &cw));
  CHECK(ct_tensor_to(cw, CT_INT32, &ci));
  const char* ids[7] = {"S1", "S2", "S3", "S4", "S5", "S6", "S7"};
  const char* names[7] = {"topk 1M float32, k = 1000, largest", "sort 1M float32", "logsumexp (4096, 1024) over dim 1",
                          "var (4096, 1024) over dim 1", "cumsum 4M int32 -> int64",
                          "max.dim (4096, 1024) dim 1, values + indices", "nansum (4096, 1024) over dim 1"};
  for (int kind = 0; kind < 7; ++kind) {
    job j = {kind, kind < 2 ? cv : kind == 4 ? ci : cm, NULL};
    double c, a = 0;
#ifdef CTORCH_BENCH_LIBTORCH
    if (kind != 4) {
      j.lt = kind < 2 ? lt_from_floats(v, n1, 0) : lt_from_floats(m, rows, cols);
    } else {
      void* f = lt_from_floats(w, rows * cols, 0);
      j.lt = lt_reduce_int32(f);
      lt_release(f);
    }
    median_pair(ct_run, lt_run, &j, 2, REPS, &c, &a);
    lt_release(j.lt);
#else
    median_pair(ct_run, NULL, &j, 2, REPS, &c, &a);
#endif
    char as[32] = "-", r[16] = "-";
    if (a > 0) {
      snprintf(as, sizeof as, "%.3f", a * 1e3);
      snprintf(r, sizeof r, "%.2f", a / c);
    }
    printf("%-3s %-44s %10.3f %10s  %-4s %6s   %-12s %s\n", ids[kind], names[kind], c * 1e3, as, "ms", r,
           ">= libtorch", a == 0 || c <= a ? "ok" : "MISS");
  }
  ct_tensor_release(cv);
  ct_tensor_release(cm);
  ct_tensor_release(cw);
  ct_tensor_release(ci);
  free(v);
  free(m);
  free(w);
  return 0;
}
