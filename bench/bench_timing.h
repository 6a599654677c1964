/* bench_timing.h - what the benchmark programs share: failing loudly on a ctorch error, a
 * monotonic clock, medians, and timing ctorch alternately with its anchor. */
#ifndef CTORCH_BENCH_TIMING_H
#define CTORCH_BENCH_TIMING_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ctorch.h"

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
static void median_pair(void (*ct)(void*), void (*anchor)(void*), void* ctx, int warmup, int reps,
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

#endif
