/* bench_autograd.c - the cost of one forward + backward step through ctorch's C ABI, beside
 * libtorch's C++ API doing the same step in this process (when the build found libtorch).
 *
 *   row A1: y = (x * w + b).sum() on 1-element float32 tensors, w and b requiring grad: the
 *           per-step overhead of recording and running a graph (microseconds per step).
 *   row A2: a 3-layer MLP 784-256-128-10 (relu), batch 64, float32, loss = mean(out^2): forward
 *           and backward, gradients reset each step (milliseconds per step).
 * Timings are medians of repetitions after warm-up, ctorch and libtorch timed alternately. Not a
 * test: nothing is asserted (DESIGN.md §13). Run it with scripts/bench.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_timing.h"
#include "ctorch.h"
#ifdef CTORCH_BENCH_LIBTORCH
#include "libtorch_anchor.h"
#endif

#define REPS 15

/* A float32 tensor of the given sizes filled with a fixed pseudo-random pattern in [-scale, scale]. */
static ct_tensor* pattern_tensor(const int64_t* sizes, size_t ndim, float scale, float** data_out) {
  int64_t n = 1;
  for (size_t i = 0; i < ndim; ++i) n *= sizes[i];
  float* data = malloc((size_t)n * sizeof(float));
  if (!data) fail("malloc", CT_ERROR_OUT_OF_MEMORY);
  uint32_t s = 12345u + (uint32_t)n;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    data[i] = scale * ((float)(s >> 8) / (float)(1u << 24) * 2.0f - 1.0f);
  }
  ct_tensor* t;
  CHECK(ct_tensor_from_data(data, sizes, ndim, CT_FLOAT32, &t));
  if (data_out) *data_out = data;
  else free(data);
  return t;
}

/* ---- A1: the small step ---- */

typedef struct {
  ct_tensor *x, *w, *b;
  void *lx, *lw, *lb;
  int iters;
} small_job;

static void ct_small_steps(void* p) {
  small_job* j = p;
  for (int i = 0; i < j->iters; ++i) {
    ct_tensor *xw, *y, *loss;
    CHECK(ct_tensor_mul(j->x, j->w, &xw));
    CHECK(ct_tensor_add(xw, j->b, &y));
    CHECK(ct_tensor_sum(y, NULL, 0, 0, &loss));
    CHECK(ct_tensor_backward(loss, NULL, 0));
    ct_tensor_release(xw);
    ct_tensor_release(y);
    ct_tensor_release(loss);
    CHECK(ct_tensor_set_grad(j->w, NULL));
    CHECK(ct_tensor_set_grad(j->b, NULL));
  }
}

#ifdef CTORCH_BENCH_LIBTORCH
static void lt_small_job(void* p) {
  small_job* j = p;
  lt_small_steps(j->lx, j->lw, j->lb, j->iters);
}
#endif

/* ---- A2: the MLP step ---- */

enum { BATCH = 64, IN = 784, H1 = 256, H2 = 128, OUT = 10 };

typedef struct {
  ct_tensor* x;
  ct_tensor* params[6]; /* w1 [IN,H1], b1 [H1], w2, b2, w3, b3 */
  void* lx;
  void* lparams[6];
} mlp_job;

static void ct_mlp_step(void* p) {
  mlp_job* j = p;
  ct_tensor *h1, *a1, *h2, *a2, *out, *sq, *loss;
  CHECK(ct_tensor_addmm(j->params[1], j->x, j->params[0], NULL, NULL, &h1));
  CHECK(ct_tensor_relu(h1, &a1));
  CHECK(ct_tensor_addmm(j->params[3], a1, j->params[2], NULL, NULL, &h2));
  CHECK(ct_tensor_relu(h2, &a2));
  CHECK(ct_tensor_addmm(j->params[5], a2, j->params[4], NULL, NULL, &out));
  CHECK(ct_tensor_mul(out, out, &sq));
  CHECK(ct_tensor_mean(sq, NULL, 0, 0, &loss));
  CHECK(ct_tensor_backward(loss, NULL, 0));
  ct_tensor* all[7] = {h1, a1, h2, a2, out, sq, loss};
  for (int i = 0; i < 7; ++i) ct_tensor_release(all[i]);
  for (int i = 0; i < 6; ++i) CHECK(ct_tensor_set_grad(j->params[i], NULL));
}

#ifdef CTORCH_BENCH_LIBTORCH
static void lt_mlp_job(void* p) {
  mlp_job* j = p;
  lt_mlp_step(j->lx, j->lparams);
}
#endif

/* One table row; met says whether the target printed beside it holds. */
static void print_row(const char* id, const char* what, const char* unit, double ct, double anchor,
                      const char* target, int met) {
  char anchor_text[32] = "-", ratio_text[16] = "-";
  if (anchor > 0) {
    snprintf(anchor_text, sizeof anchor_text, "%.2f", anchor);
    snprintf(ratio_text, sizeof ratio_text, "%.2f", anchor / ct);
  }
  printf("%-3s %-44s %10.2f %10s  %-8s %6s   %-16s %s\n", id, what, ct, anchor_text, unit, ratio_text, target,
         met ? "ok" : "MISS");
}

int main(void) {
  CHECK(ct_init(CT_ABI_VERSION));
  printf("ctorch %s bench_autograd: median of %d repetitions after warm-up; ratio = libtorch / ctorch time\n",
         ct_version(), REPS);
#ifdef CTORCH_BENCH_LIBTORCH
  printf("anchor: libtorch %s C++ API in this process (OMP_WAIT_POLICY=%s)\n", lt_version(),
         getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "unset");
#else
  printf("anchor: none (libtorch not built in: install libtorch-dev)\n");
#endif
  printf("\n%-3s %-44s %10s %10s  %-8s %6s   target\n", "row", "measurement", "ctorch", "libtorch", "unit", "ratio");

  {
    small_job j;
    memset(&j, 0, sizeof j);
    const int64_t one[1] = {1};
    const float xv = 1.5f, wv = 0.5f, bv = -2.0f;
    CHECK(ct_tensor_from_data(&xv, one, 1, CT_FLOAT32, &j.x));
    CHECK(ct_tensor_from_data(&wv, one, 1, CT_FLOAT32, &j.w));
    CHECK(ct_tensor_from_data(&bv, one, 1, CT_FLOAT32, &j.b));
    CHECK(ct_tensor_set_requires_grad(j.w, 1));
    CHECK(ct_tensor_set_requires_grad(j.b, 1));
    j.iters = 20000;
    void (*anchor)(void*) = NULL;
#ifdef CTORCH_BENCH_LIBTORCH
    j.lx = lt_from_floats(&xv, 1, 0);
    j.lw = lt_param(&wv, 1, 0);
    j.lb = lt_param(&bv, 1, 0);
    anchor = lt_small_job;
#endif
    double ct_s, lt_s;
    median_pair(ct_small_steps, anchor, &j, 1, REPS, &ct_s, &lt_s);
    const double ct_us = ct_s / j.iters * 1e6;
    print_row("A1", "(x*w+b).sum() fwd+bwd, 1-elem float32", "us/step", ct_us, lt_s / j.iters * 1e6, "<= 6 us",
              ct_us <= 6.0);
    ct_tensor_release(j.x);
    ct_tensor_release(j.w);
    ct_tensor_release(j.b);
#ifdef CTORCH_BENCH_LIBTORCH
    lt_release(j.lx);
    lt_release(j.lw);
    lt_release(j.lb);
#endif
  }

  {
    mlp_job j;
    memset(&j, 0, sizeof j);
    const int64_t xs[2] = {BATCH, IN};
    const int64_t shapes[6][2] = {{IN, H1}, {H1, 0}, {H1, H2}, {H2, 0}, {H2, OUT}, {OUT, 0}};
    float* xdata;
    j.x = pattern_tensor(xs, 2, 1.0f, &xdata);
    void (*anchor)(void*) = NULL;
#ifdef CTORCH_BENCH_LIBTORCH
    j.lx = lt_from_floats(xdata, BATCH, IN);
    anchor = lt_mlp_job;
#endif
    free(xdata);
    for (int i = 0; i < 6; ++i) {
      float* data;
      const size_t ndim = shapes[i][1] ? 2 : 1;
      j.params[i] = pattern_tensor(shapes[i], ndim, 0.05f, &data);
      CHECK(ct_tensor_set_requires_grad(j.params[i], 1));
#ifdef CTORCH_BENCH_LIBTORCH
      j.lparams[i] = lt_param(data, shapes[i][0], shapes[i][1]);
#endif
      free(data);
    }
    double ct_s, lt_s;
    median_pair(ct_mlp_step, anchor, &j, 1, REPS, &ct_s, &lt_s);
    print_row("A2", "MLP 784-256-128-10 b64 fwd+bwd, float32", "ms/step", ct_s * 1e3, lt_s * 1e3,
              "ratio >= 1.00", lt_s == 0 || lt_s >= ct_s);
    ct_tensor_release(j.x);
    for (int i = 0; i < 6; ++i) ct_tensor_release(j.params[i]);
#ifdef CTORCH_BENCH_LIBTORCH
    lt_release(j.lx);
    for (int i = 0; i < 6; ++i) lt_release(j.lparams[i]);
#endif
  }
  return 0;
}
