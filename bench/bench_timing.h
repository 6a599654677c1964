/* bench_timing.h - what the benchmark programs share: failing loudly on a ctorch error, a
 * monotonic clock, medians, and timing ctorch alternately with its anchor. */
#ifndef CTORCH_BENCH_TIMING_H
#define CTORCH_BENCH_TIMING_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ctorch.h"
#ifdef CTORCH_BENCH_LIBTORCH
#include "libtorch_anchor.h"
#endif

#define MAX_REPS 32

static void fail(const char* what, ct_status s) {
  fprintf(stderr, "benchmark: %s failed: %s: %s\n", what, ct_status_name(s), ct_last_error());
  exit(1);
}
#define CHECK(call)                   \
  do {                                \
    ct_status s_ = (call);            \
    if (s_ != CT_OK) fail(#call, s_); \
  } while (0)

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

static double median(double* t, int n) {
  qsort(t, (size_t)n, sizeof t[0], cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Median seconds of ctorch's call and of the anchor's (NULL: none, *anchor_s = 0), timed
 * alternately so that a change in machine load during the run affects both alike. reps <= MAX_REPS. */
static inline void median_pair(void (*ct)(void*), void (*anchor)(void*), void* ctx, int warmup, int reps,
                        double* ct_s, double* anchor_s) {
  double tc[MAX_REPS], ta[MAX_REPS];
  for (int i = 0; i < warmup; ++i) {
    ct(ctx);
    if (anchor) anchor(ctx);
  }
  for (int i = 0; i < reps; ++i) {
    double t0 = now_s();
    ct(ctx);
    double t1 = now_s();
    if (anchor) anchor(ctx);
    tc[i] = t1 - t0;
    ta[i] = now_s() - t1;
  }
  *ct_s = median(tc, reps);
  *anchor_s = anchor ? median(ta, reps) : 0.0;
}

/* Initializes ctorch, prints the program's banner (its name, the repetitions, what its ratio
 * means) and the anchor's line, gives libtorch ctorch's thread count, and returns that count. */
static inline int32_t bench_begin(const char* program, int reps, const char* ratio) {
  CHECK(ct_init(CT_ABI_VERSION));
  int32_t threads = 0;
  CHECK(ct_get_num_threads(&threads));
  printf("ctorch %s %s: median of %d runs, %d threads; ratio = %s\n", ct_version(), program, reps, (int)threads, ratio);
#ifdef CTORCH_BENCH_LIBTORCH
  lt_set_threads(threads);
  printf("anchor: libtorch %s in this process (OMP_WAIT_POLICY=%s)\n", lt_version(),
         getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "unset");
#else
  printf("anchor: none (libtorch not built in: install libtorch-dev)\n");
#endif
  return threads;
}

#endif
