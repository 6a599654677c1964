/* bench_ops_nn.c - the nn family beside libtorch, in one run:
 *   N1  softmax over (4096, 1024) float32, dim -1      N2  log_softmax, the same
 *   N3  layer_norm over (4096, 1024) with weight and bias
 *   N4  scaled_dot_product_attention, batch 8, 8 heads, 512 tokens, 64 dims, float32, no mask
 *   N5  the same, causal
 * softmax and layer_norm are memory-bound (one read pass and one write pass: GB/s = 2 * 16 MiB / time);
 * attention is bound by its two matrix products (GFLOP/s counts 4 * B * H * L * S * E).
 * Target (issue 6): at least libtorch's speed on each. */
#include <stdio.h>
#include <string.h>

#include "bench_timing.h"
#ifdef CTORCH_BENCH_LIBTORCH
#include "libtorch_anchor.h"
#include "libtorch_ops_nn.h"
#endif

#define REPS 31
#define ROWS 4096
#define COLS 1024

typedef struct {
  int which; /* 0 softmax, 1 log_softmax, 2 layer_norm, 3 attention, 4 causal attention */
  ct_tensor *x, *w, *b, *q, *k, *v;
  void *lx, *lw, *lb, *lq, *lk, *lv;
} job;

static ct_tensor* randn(const int64_t* sizes, size_t n) {
  ct_tensor* t = NULL;
  CHECK(ct_tensor_randn(sizes, n, CT_FLOAT32, NULL, NULL, &t));
  return t;
}

static void ct_run(void* p) {
  const job* j = p;
  ct_tensor* y = NULL;
  const int64_t last[1] = {COLS};
  switch (j->which) {
    case 0: CHECK(ct_tensor_softmax(j->x, -1, NULL, &y)); break;
    case 1: CHECK(ct_tensor_log_softmax(j->x, -1, NULL, &y)); break;
    case 2: CHECK(ct_tensor_layer_norm(j->x, last, 1, j->w, j->b, 1e-5, &y)); break;
    default: CHECK(ct_tensor_scaled_dot_product_attention(j->q, j->k, j->v, NULL, 0.0, j->which == 4, NULL, NULL, &y));
  }
  ct_tensor_release(y);
}

#ifdef CTORCH_BENCH_LIBTORCH
static void lt_run(void* p) {
  const job* j = p;
  switch (j->which) {
    case 0: lt_nn_softmax(j->lx); break;
    case 1: lt_nn_log_softmax(j->lx); break;
    case 2: lt_nn_layer_norm(j->lx, j->lw, j->lb); break;
    default: lt_nn_attention(j->lq, j->lk, j->lv, j->which == 4);
  }
}
#endif

static void row(const char* id, const char* what, double ct, double anchor, const char* unit) {
  char a[32] = "-", r[16] = "-";
  if (anchor > 0) {
    snprintf(a, sizeof a, "%.2f", anchor);
    snprintf(r, sizeof r, "%.2f", ct / anchor);
  }
  printf("%-3s %-44s %10.2f %10s  %-7s %6s   %s\n", id, what, ct, a, unit, r,
         anchor == 0 || ct >= anchor ? "ok" : "MISS");
}

int main(void) {
  bench_begin("bench_ops_nn", REPS, "ctorch / libtorch throughput (> 1: ctorch is faster)");
  printf("\n%-3s %-44s %10s %10s  %-7s %6s   target >= libtorch\n", "row", "measurement", "ctorch", "libtorch",
         "unit", "ratio");
  const int64_t mat[2] = {ROWS, COLS}, vec[1] = {COLS}, qkv[4] = {8, 8, 512, 64};
  job j;
  memset(&j, 0, sizeof j);
  j.x = randn(mat, 2);
  j.w = randn(vec, 1);
  j.b = randn(vec, 1);
  j.q = randn(qkv, 4);
  j.k = randn(qkv, 4);
  j.v = randn(qkv, 4);
#ifdef CTORCH_BENCH_LIBTORCH
  j.lx = lt_nn_randn(mat, 2);
  j.lw = lt_nn_randn(vec, 1);
  j.lb = lt_nn_randn(vec, 1);
  j.lq = lt_nn_randn(qkv, 4);
  j.lk = lt_nn_randn(qkv, 4);
  j.lv = lt_nn_randn(qkv, 4);
#endif
  static const char* ids[5] = {"N1", "N2", "N3", "N4", "N5"};
  static const char* names[5] = {"softmax (4096, 1024) float32, dim -1", "log_softmax (4096, 1024) float32, dim -1",
                                 "layer_norm (4096, 1024), weight and bias", "sdpa (8, 8, 512, 64) float32",
                                 "sdpa (8, 8, 512, 64) float32, causal"};
  const double bytes = 2.0 * ROWS * COLS * 4, flops = 4.0 * 8 * 8 * 512 * 512 * 64;
  for (int w = 0; w < 5; ++w) {
    j.which = w;
    double c, a;
#ifdef CTORCH_BENCH_LIBTORCH
    median_pair(ct_run, lt_run, &j, 3, REPS, &c, &a);
#else
    median_pair(ct_run, NULL, &j, 3, REPS, &c, &a);
#endif
    const double work = w < 3 ? bytes / 1e9 : flops / 1e9;
    row(ids[w], names[w], work / c, a > 0 ? work / a : 0, w < 3 ? "GB/s" : "GFLOP/s");
    printf("    %-44s %10.3f %10.3f  ms\n", "", c * 1e3, a * 1e3);
  }
  ct_tensor* all[6] = {j.x, j.w, j.b, j.q, j.k, j.v};
  for (int i = 0; i < 6; ++i) ct_tensor_release(all[i]);
#ifdef CTORCH_BENCH_LIBTORCH
  void* lall[6] = {j.lx, j.lw, j.lb, j.lq, j.lk, j.lv};
  for (int i = 0; i < 6; ++i) lt_release(lall[i]);
#endif
  return 0;
}
