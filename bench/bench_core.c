/*
 * bench_core.c - ctorch's core operations against their anchors, one table from one run.
 *
 * Each row is measured with 1 and 2 threads (ct_set_num_threads for ctorch, openblas_set_num_threads
 * for raw BLAS, 1 or 2 pthreads splitting the range for plain loops), reported as the median of
 * several repetitions after a warm-up, timed with clock_gettime(CLOCK_MONOTONIC); ctorch and its
 * anchor are timed alternately, so a change in machine load affects both alike.
 *
 *   1  ct_tensor_add + ct_tensor_release, 1-element float32     vs the 100 ns target
 *   1B the same add boxed: ct_op_call("add.Tensor") and ct_op_call_op (a ct_op_find handle, the
 *      bindings' generated methods)                              vs ct_tensor_add (1.3x target)
 *   2  ct_tensor_add, 16M float32, new output each call          vs c[i] = a[i] + b[i] (-O3 loop)
 *   3  ct_tensor_matmul 1024 and 2048 float32                    vs cblas_sgemm
 *   4  ct_tensor_sum, 16M float32                                vs an 8-accumulator loop
 *   1L-4L the same four against libtorch (at::add, at::mm, at::sum), when the build found it
 *
 * Ratios are ctorch / anchor in throughput (higher is better), except row 1: ns / 100 ns, and
 * row 1B: boxed time / typed time.
 * No assertions: targets are printed beside the ratios (DESIGN.md §13).
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <ctorch.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_timing.h"

#ifdef CTORCH_BENCH_LIBTORCH
#include "libtorch_anchor.h"
#endif

#define N_BIG (16 * 1024 * 1024)

/* Median seconds of one call of fn(ctx), over reps timed calls after warmup untimed ones. */
static double median_s(void (*fn)(void*), void* ctx, int warmup, int reps) {
  double t[MAX_REPS];
  for (int i = 0; i < warmup; ++i) fn(ctx);
  for (int i = 0; i < reps; ++i) {
    double t0 = now_s();
    fn(ctx);
    t[i] = now_s() - t0;
  }
  return median(t, reps);
}

static float* alloc_floats(size_t n) {
  float* p = aligned_alloc(64, n * sizeof(float));
  if (!p) {
    fprintf(stderr, "bench_core: out of memory\n");
    exit(1);
  }
  return p;
}

static ct_tensor* tensor_from(const float* data, const int64_t* sizes, size_t ndim) {
  ct_tensor* t = NULL;
  CHECK(ct_tensor_from_data(data, sizes, ndim, CT_FLOAT32, &t));
  return t;
}

/* ---- Plain loops (the anchors), split over 1 or 2 pthreads ---- */

typedef struct {
  const float *a, *b;
  float* c;
  size_t begin, end;
  float partial; /* sums */
} loop_part;

static void* add_loop(void* p) {
  loop_part* w = p;
  const float* restrict a = w->a;
  const float* restrict b = w->b;
  float* restrict c = w->c;
  for (size_t i = w->begin; i < w->end; ++i) c[i] = a[i] + b[i];
  return NULL;
}

/* Eight independent accumulators: what a fair hand-written sum looks like. */
static void* sum8_loop(void* p) {
  loop_part* w = p;
  const float* restrict a = w->a;
  float acc[8] = {0};
  size_t i = w->begin;
  for (; i + 8 <= w->end; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += a[i + j];
  for (; i < w->end; ++i) acc[0] += a[i];
  w->partial = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  return NULL;
}

/* One accumulator: latency bound, printed for reference. */
static void* sum1_loop(void* p) {
  loop_part* w = p;
  float acc = 0;
  for (size_t i = w->begin; i < w->end; ++i) acc += w->a[i];
  w->partial = acc;
  return NULL;
}

/* Runs fn over [0, n) on nthreads threads (the caller's thread included); returns the sum of partials. */
static float run_split(void* (*fn)(void*), int nthreads, const float* a, const float* b, float* c, size_t n) {
  loop_part parts[2] = {{0}};
  pthread_t tid[2];
  for (int t = 0; t < nthreads; ++t) {
    parts[t] = (loop_part){a, b, c, n * (size_t)t / (size_t)nthreads, n * (size_t)(t + 1) / (size_t)nthreads, 0};
  }
  for (int t = 1; t < nthreads; ++t) pthread_create(&tid[t], NULL, fn, &parts[t]);
  fn(&parts[0]);
  float total = parts[0].partial;
  for (int t = 1; t < nthreads; ++t) {
    pthread_join(tid[t], NULL);
    total += parts[t].partial;
  }
  return total;
}

/* ---- Timed bodies ---- */

typedef struct {
  ct_tensor *a, *b; /* ctorch inputs */
  const float *pa, *pb;
  float* pc; /* anchor buffers */
  size_t n;
  int threads, inner; /* inner: calls per timed repetition (row 1) */
  volatile float sink;
  void *la, *lb; /* libtorch inputs (rows 1L-4L) */
  const ct_op* add_op; /* row 1B */
} job;

static void ct_add_release(void* p) {
  job* j = p;
  for (int i = 0; i < j->inner; ++i) {
    ct_tensor* c = NULL;
    ct_status s = ct_tensor_add(j->a, j->b, &c);
    if (s != CT_OK) fail("ct_tensor_add", s);
    ct_tensor_release(c);
  }
}
static void boxed_add(job* j, int by_handle) {
  ct_value args[2];
  memset(args, 0, sizeof args);
  args[0].kind = CT_VALUE_TENSOR, args[0].tensor = j->a;
  args[1].kind = CT_VALUE_TENSOR, args[1].tensor = j->b;
  for (int i = 0; i < j->inner; ++i) {
    ct_tensor* c = NULL;
    ct_status s = by_handle ? ct_op_call_op(j->add_op, args, 2, &c, 1) : ct_op_call("add.Tensor", args, 2, &c, 1);
    if (s != CT_OK) fail(by_handle ? "ct_op_call_op" : "ct_op_call", s);
    ct_tensor_release(c);
  }
}
static void op_call_add_release(void* p) { boxed_add(p, 0); }
static void op_call_op_add_release(void* p) { boxed_add(p, 1); }
static void loop_add(void* p) {
  job* j = p;
  run_split(add_loop, j->threads, j->pa, j->pb, j->pc, j->n);
}
static void ct_matmul(void* p) {
  job* j = p;
  ct_tensor* c = NULL;
  CHECK(ct_tensor_matmul(j->a, j->b, &c));
  ct_tensor_release(c);
}
static void blas_sgemm(void* p) {
  job* j = p;
  int n = (int)j->n;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, j->pa, n, j->pb, n, 0.0f, j->pc, n);
}
static void ct_sum(void* p) {
  job* j = p;
  ct_tensor* s = NULL;
  CHECK(ct_tensor_sum(j->a, NULL, 0, 0, &s));
  ct_tensor_release(s);
}
static void loop_sum8(void* p) {
  job* j = p;
  j->sink = run_split(sum8_loop, j->threads, j->pa, NULL, NULL, j->n);
}
static void loop_sum1(void* p) {
  job* j = p;
  j->sink = run_split(sum1_loop, j->threads, j->pa, NULL, NULL, j->n);
}

#ifdef CTORCH_BENCH_LIBTORCH
static void lt_add_job(void* p) {
  job* j = p;
  lt_add_release(j->la, j->lb, j->inner);
}
static void lt_mm_job(void* p) {
  job* j = p;
  lt_mm(j->la, j->lb);
}
static void lt_sum_job(void* p) {
  job* j = p;
  j->sink = lt_sum(j->la);
}
#endif

static void set_threads(int n) {
  CHECK(ct_set_num_threads(n));
  openblas_set_num_threads(n);
#ifdef CTORCH_BENCH_LIBTORCH
  lt_set_threads(n);
#endif
}

static float ct_sum_value(ct_tensor* a) {
  ct_tensor* s = NULL;
  float v;
  CHECK(ct_tensor_sum(a, NULL, 0, 0, &s));
  CHECK(ct_tensor_copy_to(s, &v, sizeof v));
  ct_tensor_release(s);
  return v;
}

/* ---- Table ---- */

static void row(const char* id, const char* what, int threads, const char* unit, double ct, double anchor,
                double ratio, const char* target, int met) {
  printf("%-3s %-38s %3d %10.2f %10.2f  %-9s %6.2f  %-9s %s\n", id, what, threads, ct, anchor, unit, ratio, target,
         met ? "ok" : "MISS");
}

int main(void) {
  const int thread_counts[2] = {1, 2};
  double matmul_maxdiff = 0.0;
  job j;
  memset(&j, 0, sizeof j);
  CHECK(ct_init(CT_ABI_VERSION));
  double start = now_s();

  printf("ctorch %s bench_core: median of repetitions after warm-up (CLOCK_MONOTONIC)\n", ct_version());
  printf("ratio = ctorch / anchor in throughput (higher is better); row 1: ns per call / 100 ns;\n");
  printf("rows nL: the anchor is libtorch in this process, ratio >= 1 means ctorch is faster");
#ifdef CTORCH_BENCH_LIBTORCH
  printf(" (libtorch %s, OMP_WAIT_POLICY=%s)", lt_version(), getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "unset");
#endif
  printf("\n\n");
  printf("%-3s %-38s %3s %10s %10s  %-9s %6s  %-9s %s\n", "row", "measurement", "thr", "ctorch", "anchor", "unit",
         "ratio", "target", "");

  /* Row 1: dispatch overhead. */
  {
    const float one = 1.0f, two = 2.0f;
    const int64_t sizes[1] = {1};
    j.a = tensor_from(&one, sizes, 1);
    j.b = tensor_from(&two, sizes, 1);
    j.inner = 100000;
    for (int k = 0; k < 2; ++k) {
      set_threads(thread_counts[k]);
      double ns = median_s(ct_add_release, &j, 1, 11) / j.inner * 1e9;
      row("1", "add+release, 1-elem float32", thread_counts[k], "ns/call", ns, 100.0, ns / 100.0, "<= 100 ns",
          ns <= 100.0);
    }
    /* Row 1B: the boxed entry points against the typed one, alternately, on one thread. */
    CHECK(ct_op_find("add.Tensor", &j.add_op));
    set_threads(1);
    {
      double typed_s, boxed_s;
      median_pair(op_call_add_release, ct_add_release, &j, 1, 11, &boxed_s, &typed_s);
      row("1B", "ct_op_call(name) vs ct_tensor_add", 1, "ns/call", boxed_s / j.inner * 1e9,
          typed_s / j.inner * 1e9, boxed_s / typed_s, "<= 1.30", boxed_s <= 1.3 * typed_s);
      median_pair(op_call_op_add_release, ct_add_release, &j, 1, 11, &boxed_s, &typed_s);
      row("1B", "ct_op_call_op(add) vs ct_tensor_add", 1, "ns/call", boxed_s / j.inner * 1e9,
          typed_s / j.inner * 1e9, boxed_s / typed_s, "<= 1.30", boxed_s <= 1.3 * typed_s);
    }
#ifdef CTORCH_BENCH_LIBTORCH
    j.la = lt_from_floats(&one, 1, 0);
    j.lb = lt_from_floats(&two, 1, 0);
    for (int k = 0; k < 2; ++k) {
      set_threads(thread_counts[k]);
      double ct_s, lt_s;
      median_pair(ct_add_release, lt_add_job, &j, 1, 11, &ct_s, &lt_s);
      const double ct = ct_s / j.inner * 1e9, lt = lt_s / j.inner * 1e9;
      row("1L", "add+release vs libtorch at::add", thread_counts[k], "ns/call", ct, lt, lt / ct, ">= 1.00", lt >= ct);
    }
    lt_release(j.la);
    lt_release(j.lb);
#else
    printf("%-3s %-38s (libtorch not built in: install libtorch-dev for rows 1L-4L)\n", "", "");
#endif
    ct_tensor_release(j.a);
    ct_tensor_release(j.b);
  }

  /* Rows 2 and 4 share 16M-element inputs. */
  const int64_t big[1] = {N_BIG};
  float* pa = alloc_floats(N_BIG);
  float* pb = alloc_floats(N_BIG);
  float* pc = alloc_floats(N_BIG);
  for (size_t i = 0; i < N_BIG; ++i) {
    pa[i] = (float)(i % 1000) * 0.001f; /* sums stay exact enough to compare */
    pb[i] = (float)(i % 7) - 3.0f;
    pc[i] = 0.0f;
  }
  ct_tensor* ta = tensor_from(pa, big, 1);
  ct_tensor* tb = tensor_from(pb, big, 1);

  /* Row 2: memory-bound elementwise add, 3 arrays x 4 bytes per element. */
  {
    const double bytes = 3.0 * 4.0 * N_BIG;
    j = (job){.a = ta, .b = tb, .pa = pa, .pb = pb, .pc = pc, .n = N_BIG, .inner = 1};
    for (int k = 0; k < 2; ++k) {
      j.threads = thread_counts[k];
      set_threads(j.threads);
      double ct_s, anchor_s;
      median_pair(ct_add_release, loop_add, &j, 2, 15, &ct_s, &anchor_s);
      double ct = bytes / ct_s / 1e9, anchor = bytes / anchor_s / 1e9;
      row("2", "add 16M float32, new output", j.threads, "GB/s", ct, anchor, ct / anchor, ">= 0.85",
          ct / anchor >= 0.85);
    }
#ifdef CTORCH_BENCH_LIBTORCH
    j.la = lt_from_floats(pa, N_BIG, 0);
    j.lb = lt_from_floats(pb, N_BIG, 0);
    for (int k = 0; k < 2; ++k) {
      j.threads = thread_counts[k];
      set_threads(j.threads);
      double ct_s, lt_s;
      median_pair(ct_add_release, lt_add_job, &j, 2, 15, &ct_s, &lt_s);
      const double ct = bytes / ct_s / 1e9, lt = bytes / lt_s / 1e9;
      row("2L", "add 16M float32 vs libtorch at::add", j.threads, "GB/s", ct, lt, ct / lt, ">= 1.00", ct >= lt);
    }
    lt_release(j.la);
    lt_release(j.lb);
#endif
  }

  /* Row 3: matrix products through OpenBLAS. */
  for (int m = 0; m < 2; ++m) {
    const int n = m == 0 ? 1024 : 2048;
    const int64_t sizes[2] = {n, n};
    const size_t nn = (size_t)n * (size_t)n;
    const double flops = 2.0 * n * (double)n * n;
    float* ma = alloc_floats(nn);
    float* mb = alloc_floats(nn);
    float* mc = alloc_floats(nn);
    for (size_t i = 0; i < nn; ++i) {
      ma[i] = (float)((i * 7) % 13) * 0.1f - 0.6f;
      mb[i] = (float)((i * 5) % 11) * 0.1f - 0.5f;
      mc[i] = 0.0f;
    }
    j = (job){.a = tensor_from(ma, sizes, 2), .b = tensor_from(mb, sizes, 2), .pa = ma, .pb = mb, .pc = mc, .n = (size_t)n};
    char what[64];
    snprintf(what, sizeof what, "matmul %dx%d float32", n, n);
    for (int k = 0; k < 2; ++k) {
      j.threads = thread_counts[k];
      set_threads(j.threads);
      double ct_s, anchor_s;
      median_pair(ct_matmul, blas_sgemm, &j, 1, n == 1024 ? 15 : 7, &ct_s, &anchor_s);
      double ct = flops / ct_s / 1e9, anchor = flops / anchor_s / 1e9;
      row("3", what, j.threads, "GFLOP/s", ct, anchor, ct / anchor, ">= 0.95", ct / anchor >= 0.95);
    }
#ifdef CTORCH_BENCH_LIBTORCH
    j.la = lt_from_floats(ma, n, n);
    j.lb = lt_from_floats(mb, n, n);
    snprintf(what, sizeof what, "matmul %d vs libtorch at::mm", n);
    for (int k = 0; k < 2; ++k) {
      j.threads = thread_counts[k];
      set_threads(j.threads);
      double ct_s, lt_s;
      median_pair(ct_matmul, lt_mm_job, &j, 1, n == 1024 ? 15 : 7, &ct_s, &lt_s);
      const double ct = flops / ct_s / 1e9, lt = flops / lt_s / 1e9;
      row("3L", what, j.threads, "GFLOP/s", ct, lt, ct / lt, ">= 1.00", ct >= lt);
    }
    lt_release(j.la);
    lt_release(j.lb);
#endif
    if (n == 1024) { /* mc holds sgemm's product: compare ctorch's with it */
      ct_tensor* c = NULL;
      float* out = alloc_floats(nn);
      CHECK(ct_tensor_matmul(j.a, j.b, &c));
      CHECK(ct_tensor_copy_to(c, out, sizeof(float) * nn));
      for (size_t i = 0; i < nn; ++i) {
        double d = (double)out[i] - (double)mc[i];
        if (d < 0) d = -d;
        if (d > matmul_maxdiff) matmul_maxdiff = d;
      }
      ct_tensor_release(c);
      free(out);
    }
    ct_tensor_release(j.a);
    ct_tensor_release(j.b);
    free(ma);
    free(mb);
    free(mc);
  }

  /* Row 4: reduction, 4 bytes per element read. */
  {
    const double bytes = 4.0 * N_BIG;
    double naive[2];
    float ct_value[2];
    j = (job){.a = ta, .pa = pa, .n = N_BIG};
    for (int k = 0; k < 2; ++k) {
      j.threads = thread_counts[k];
      set_threads(j.threads);
      ct_value[k] = ct_sum_value(ta);
      double ct_s, anchor_s;
      median_pair(ct_sum, loop_sum8, &j, 2, 15, &ct_s, &anchor_s);
      double ct = bytes / ct_s / 1e9, anchor = bytes / anchor_s / 1e9;
      naive[k] = bytes / median_s(loop_sum1, &j, 1, 5) / 1e9;
      row("4", "sum 16M float32 vs 8-accumulator loop", j.threads, "GB/s", ct, anchor, ct / anchor, ">= 0.85",
          ct / anchor >= 0.85);
    }
#ifdef CTORCH_BENCH_LIBTORCH
    j.la = lt_from_floats(pa, N_BIG, 0);
    for (int k = 0; k < 2; ++k) {
      j.threads = thread_counts[k];
      set_threads(j.threads);
      double ct_s, lt_s;
      median_pair(ct_sum, lt_sum_job, &j, 2, 15, &ct_s, &lt_s);
      const double ct = bytes / ct_s / 1e9, lt = bytes / lt_s / 1e9;
      row("4L", "sum 16M float32 vs libtorch at::sum", j.threads, "GB/s", ct, lt, ct / lt, ">= 1.00", ct >= lt);
    }
    lt_release(j.la);
#endif
    printf("%-3s %-38s naive 1-accumulator loop: %.2f GB/s (1 thr), %.2f GB/s (2 thr)\n", "", "", naive[0],
           naive[1]);
    printf("%-3s %-38s 1- and 2-thread ctorch sums bitwise equal: %s (%.9g, %.9g)\n", "", "",
           memcmp(&ct_value[0], &ct_value[1], sizeof(float)) == 0 ? "yes" : "NO", ct_value[0], ct_value[1]);
  }

  /* Sanity: ctorch computed what the anchors computed (outside the timings). */
  {
    ct_tensor* c = NULL;
    CHECK(ct_tensor_add(ta, tb, &c));
    float* out = alloc_floats(N_BIG);
    CHECK(ct_tensor_copy_to(c, out, sizeof(float) * N_BIG));
    run_split(add_loop, 1, pa, pb, pc, N_BIG);
    int same = memcmp(out, pc, sizeof(float) * N_BIG) == 0;
    ct_tensor_release(c);
    free(out);
    printf("\ncheck: add equals the plain loop bitwise: %s; matmul 1024 max |ctorch - sgemm| = %.3g\n",
           same ? "yes" : "NO", matmul_maxdiff);
    printf("total time %.1f s\n", now_s() - start);
  }

  ct_tensor_release(ta);
  ct_tensor_release(tb);
  free(pa);
  free(pb);
  free(pc);
  return 0;
}
