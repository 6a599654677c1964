/* bench_ops_linalg_conv.c - the linear-algebra / convolution family beside libtorch, in one run:
 *   C1  conv2d forward, ResNet-style: input 8x64x56x56 float32, weight 64x64x3x3, stride 1, padding 1
 *   C2  the same, forward + backward (y.sum() back to input and weight)
 *   C1s, C2s  the same on one thread (both libraries), timed as process CPU time: on a machine shared
 *             with other jobs, wall time on one thread mostly measures the scheduler
 *   E1  einsum "ij,jk,kl->il" over (1000,10), (10,1000), (1000,10): left to right costs 2e7
 *       multiply-adds, (jk,kl) first 2e5; both libraries pick their order themselves.
 * Times are medians (ms), ctorch and libtorch alternating; ratio > 1 means ctorch is faster.
 * Target (issue 6): at least libtorch's speed on each. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_timing.h"
#ifdef CTORCH_BENCH_LIBTORCH
#include "libtorch_anchor.h"
#include "libtorch_ops_linalg_conv.h"
#endif

#define REPS 7

/* median_pair with process CPU time instead of wall time (one-thread rows). */
static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static void median_pair_cpu(void (*ct)(void*), void (*anchor)(void*), void* ctx, int warmup, int reps, double* ct_s,
                            double* anchor_s) {
  double tc[MAX_REPS], ta[MAX_REPS];
  for (int i = 0; i < warmup; ++i) {
    ct(ctx);
    if (anchor) anchor(ctx);
  }
  for (int i = 0; i < reps; ++i) {
    double t0 = cpu_s();
    ct(ctx);
    double t1 = cpu_s();
    if (anchor) anchor(ctx);
    tc[i] = t1 - t0;
    ta[i] = cpu_s() - t1;
  }
  *ct_s = median(tc, reps);
  *anchor_s = anchor ? median(ta, reps) : 0.0;
}

typedef struct {
  ct_tensor *x, *w, *a, *b, *c;
  void *lx, *lw, *la, *lb, *lc;
  int backward;
} job;

static float* random_floats(int64_t n, unsigned seed) {
  float* p = malloc((size_t)n * sizeof *p);
  srand(seed);
  for (int64_t i = 0; i < n; ++i) p[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  return p;
}

static ct_tensor* ct_from(float* data, const int64_t* sizes, size_t ndim, int grad) {
  ct_tensor *view = NULL, *t = NULL;
  CHECK(ct_tensor_from_blob(data, sizes, NULL, ndim, CT_FLOAT32, NULL, NULL, &view));
  CHECK(ct_tensor_clone(view, &t));
  ct_tensor_release(view);
  if (grad) CHECK(ct_tensor_set_requires_grad(t, 1));
  return t;
}

static void ct_conv(void* p) {
  job* j = p;
  ct_conv2d_options o = CT_CONV2D_OPTIONS_DEFAULT;
  o.padding[0] = o.padding[1] = 1;
  ct_tensor* y = NULL;
  CHECK(ct_tensor_conv2d(j->x, j->w, NULL, &o, &y));
  if (j->backward) {
    ct_tensor* s = NULL;
    CHECK(ct_tensor_sum(y, NULL, 0, 0, &s));
    CHECK(ct_tensor_backward(s, NULL, 0));
    CHECK(ct_tensor_set_grad(j->x, NULL));
    CHECK(ct_tensor_set_grad(j->w, NULL));
    ct_tensor_release(s);
  }
  ct_tensor_release(y);
}

static void ct_einsum(void* p) {
  job* j = p;
  const ct_tensor* ops[3] = {j->a, j->b, j->c};
  ct_tensor* r = NULL;
  CHECK(ct_tensor_einsum("ij,jk,kl->il", ops, 3, &r));
  ct_tensor_release(r);
}

#ifdef CTORCH_BENCH_LIBTORCH
static void lt_conv(void* p) {
  job* j = p;
  lt_lc_conv2d(j->lx, j->lw, j->backward);
}
static void lt_einsum(void* p) {
  job* j = p;
  lt_lc_einsum3(j->la, j->lb, j->lc);
}
#endif

static void row(const char* id, const char* what, double ct, double lt) {
  char a[32] = "-", r[16] = "-";
  if (lt > 0) {
    snprintf(a, sizeof a, "%.3f", lt * 1e3);
    snprintf(r, sizeof r, "%.2f", lt / ct);
  }
  printf("%-3s %-52s %10.3f %10s  %6s   %s\n", id, what, ct * 1e3, a, r, lt == 0 || ct <= lt ? "ok" : "MISS");
}

int main(void) {
  const int32_t threads = bench_begin("bench_ops_linalg_conv", REPS, "libtorch / ctorch time");
  printf("\n%-3s %-52s %10s %10s  %6s   target >= libtorch\n", "row", "measurement", "ctorch ms", "libtorch", "ratio");
  const int64_t xs[4] = {8, 64, 56, 56}, ws[4] = {64, 64, 3, 3};
  const int64_t as[2] = {1000, 10}, bs[2] = {10, 1000};
  float* xd = random_floats(8 * 64 * 56 * 56, 1);
  float* wd = random_floats(64 * 64 * 9, 2);
  float* ad = random_floats(10000, 3);
  float* bd = random_floats(10000, 4);
  float* cd = random_floats(10000, 5);
  for (int run = 0; run < 4; ++run) {
    const int backward = run % 2, single = run / 2;
    CHECK(ct_set_num_threads(single ? 1 : threads));
#ifdef CTORCH_BENCH_LIBTORCH
    lt_set_threads(single ? 1 : threads);
#endif
    job j = {0};
    j.backward = backward;
    j.x = ct_from(xd, xs, 4, backward);
    j.w = ct_from(wd, ws, 4, backward);
#ifdef CTORCH_BENCH_LIBTORCH
    j.lx = lt_lc_tensor(xd, xs, 4, backward);
    j.lw = lt_lc_tensor(wd, ws, 4, backward);
#endif
    double c, a;
#ifdef CTORCH_BENCH_LIBTORCH
    (single ? median_pair_cpu : median_pair)(ct_conv, lt_conv, &j, 2, REPS, &c, &a);
    lt_lc_release(j.lx);
    lt_lc_release(j.lw);
#else
    (single ? median_pair_cpu : median_pair)(ct_conv, NULL, &j, 2, REPS, &c, &a);
#endif
    static const char* ids[4] = {"C1", "C2", "C1s", "C2s"};
    static const char* names[4] = {"conv2d 8x64x56x56 * 64x64x3x3 p1, forward",
                                   "conv2d 8x64x56x56 * 64x64x3x3 p1, forward+backward",
                                   "conv2d forward, 1 thread (CPU time)",
                                   "conv2d forward+backward, 1 thread (CPU time)"};
    row(ids[run], names[run], c, a);
    ct_tensor_release(j.x);
    ct_tensor_release(j.w);
  }
  CHECK(ct_set_num_threads(threads));
#ifdef CTORCH_BENCH_LIBTORCH
  lt_set_threads(threads);
#endif
  {
    job j = {0};
    j.a = ct_from(ad, as, 2, 0);
    j.b = ct_from(bd, bs, 2, 0);
    j.c = ct_from(cd, as, 2, 0);
    double c, a;
#ifdef CTORCH_BENCH_LIBTORCH
    j.la = lt_lc_tensor(ad, as, 2, 0);
    j.lb = lt_lc_tensor(bd, bs, 2, 0);
    j.lc = lt_lc_tensor(cd, as, 2, 0);
    median_pair(ct_einsum, lt_einsum, &j, 2, 15, &c, &a);
    lt_lc_release(j.la);
    lt_lc_release(j.lb);
    lt_lc_release(j.lc);
#else
    median_pair(ct_einsum, NULL, &j, 2, 15, &c, &a);
#endif
    row("E1", "einsum ij,jk,kl->il (1000x10, 10x1000, 1000x10)", c, a);
    ct_tensor_release(j.a);
    ct_tensor_release(j.b);
    ct_tensor_release(j.c);
  }
  free(xd), free(wd), free(ad), free(bd), free(cd);
  return 0;
}
