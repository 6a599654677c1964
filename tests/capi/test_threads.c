/* test_threads.c - the threading promises of ctorch.h: distinct handles from many threads,
 * concurrent reads of one tensor, thread-local error messages, reference counts under contention,
 * and compiled kernels switching to C++ while threads call them. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "capi_test.h"

enum { kThreads = 8, kIters = 300 };

static ct_tensor* shared_a; /* read by every thread at once */
static ct_tensor* shared_b;

typedef struct {
  int id;
  int failures;
  char first_error[256];
} worker;

static void note(worker* w, const char* what) {
  if (w->failures++ == 0) snprintf(w->first_error, sizeof w->first_error, "%s: %s", what, ct_last_error());
}

/* Each thread computes (a @ b).sum() and a + b on the shared inputs, plus its own tensors. */
static void* compute(void* arg) {
  worker* w = (worker*)arg;
  for (int i = 0; i < kIters; ++i) {
    ct_tensor *m = NULL, *s = NULL, *own = NULL, *sum = NULL;
    ct_scalar v;
    if (ct_tensor_matmul(shared_a, shared_b, &m) != CT_OK) note(w, "matmul");
    if (ct_tensor_sum(m, NULL, 0, 0, &s) != CT_OK || ct_tensor_item(s, &v) != CT_OK) note(w, "sum");
    else if (v.f != 8 * 8 * 8 * 6.0) note(w, "wrong sum"); /* every entry of a@b is 8 * 2 * 3 */
    if (ct_tensor_full(S(64), &(ct_scalar){CT_SCALAR_INT, w->id, 0}, CT_INT32, NULL, &own) != CT_OK) note(w, "full");
    if (ct_tensor_add(own, own, &sum) != CT_OK) note(w, "add");
    int32_t out[64];
    if (ct_tensor_copy_to(sum, out, sizeof out) != CT_OK || out[63] != 2 * w->id) note(w, "own values");
    RELEASE(sum, own, s, m);
  }
  return NULL;
}

/* One thread keeps failing with a shape error while another fails with a dtype error: each sees
 * its own message. */
static void* fail_with(void* arg) {
  worker* w = (worker*)arg;
  for (int i = 0; i < kIters; ++i) {
    ct_tensor* out = NULL;
    if (w->id == 0) {
      if (ct_tensor_mm(shared_a, shared_a, &out) != CT_ERROR_SHAPE || !strstr(ct_last_error(), "mm: inner sizes"))
        note(w, "shape message");
    } else {
      ct_tensor* flag = NULL;
      if (ct_tensor_gt(shared_a, shared_a, &flag) != CT_OK) note(w, "gt");
      if (ct_tensor_neg(flag, &out) != CT_ERROR_DTYPE || !strstr(ct_last_error(), "neg: not supported for bool"))
        note(w, "dtype message");
      ct_tensor_release(flag);
    }
    ct_tensor_release(out);
  }
  return NULL;
}

/* Retain and release one handle from many threads: the count must end where it started. */
static void* retain_release(void* arg) {
  worker* w = (worker*)arg;
  for (int i = 0; i < 10000; ++i) {
    if (ct_tensor_retain(shared_a) != CT_OK) note(w, "retain");
    ct_tensor_release(shared_a);
  }
  return NULL;
}

static void run_threads(void* (*fn)(void*), worker* ws, int n) {
  pthread_t t[kThreads];
  for (int i = 0; i < n; ++i) {
    ws[i].id = i;
    ws[i].failures = 0;
    ws[i].first_error[0] = '\0';
    pthread_create(&t[i], NULL, fn, &ws[i]);
  }
  for (int i = 0; i < n; ++i) pthread_join(t[i], NULL);
}

static void setup(void) {
  CHECK_OK(ct_tensor_full(S(8, 8), &(ct_scalar){CT_SCALAR_FLOAT, 0, 2.0}, CT_FLOAT32, NULL, &shared_a));
  CHECK_OK(ct_tensor_full(S(8, 8), &(ct_scalar){CT_SCALAR_FLOAT, 0, 3.0}, CT_FLOAT32, NULL, &shared_b));
}

static void test_many_threads_compute_on_shared_inputs(void) {
  setup();
  worker ws[kThreads];
  run_threads(compute, ws, kThreads);
  for (int i = 0; i < kThreads; ++i) {
    if (ws[i].failures) printf("  thread %d: %d failures, first: %s\n", i, ws[i].failures, ws[i].first_error);
    CHECK(ws[i].failures == 0);
  }
  RELEASE(shared_b, shared_a);
}

static void test_error_messages_are_thread_local(void) {
  setup();
  ct_tensor* narrow = NULL;
  CHECK_OK(ct_tensor_narrow(shared_a, 1, 0, 3, &narrow)); /* [8, 3]: mm with itself fails */
  ct_tensor_release(shared_a);
  shared_a = narrow;
  worker ws[2];
  run_threads(fail_with, ws, 2);
  for (int i = 0; i < 2; ++i) {
    if (ws[i].failures) printf("  thread %d: %s\n", i, ws[i].first_error);
    CHECK(ws[i].failures == 0);
  }
  RELEASE(shared_b, shared_a);
}

static void test_concurrent_retain_and_release_keep_the_count(void) {
  setup();
  worker ws[kThreads];
  run_threads(retain_release, ws, kThreads);
  for (int i = 0; i < kThreads; ++i) CHECK(ws[i].failures == 0);
  ct_tensor* probe = NULL;
  CHECK_OK(ct_tensor_clone(shared_a, &probe)); /* still alive and readable */
  RELEASE(probe, shared_b, shared_a);
}

/* x * sigmoid(x) * rsqrt(mean(x * x, -1) + 1e-6): one fused kernel with a reduction. */
static ct_status gated_norm(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  const int64_t last = -1;
  ct_scalar eps = {CT_SCALAR_FLOAT, 0, 1e-6};
  ct_tensor *sg = NULL, *g = NULL, *sq = NULL, *ms = NULL, *me = NULL, *r = NULL;
  ct_status st = ct_tensor_sigmoid(in[0], &sg);
  if (!st) st = ct_tensor_mul(in[0], sg, &g);
  if (!st) st = ct_tensor_mul(in[0], in[0], &sq);
  if (!st) st = ct_tensor_mean(sq, &last, 1, 1, &ms);
  if (!st) st = ct_tensor_add_scalar(ms, &eps, &me);
  if (!st) st = ct_tensor_rsqrt(me, &r);
  if (!st) st = ct_tensor_mul(g, r, &out[0]);
  RELEASE(r, me, ms, sq, g, sg);
  return st;
}

static ct_compiled* shared_fn;
static ct_tensor* shared_want; /* gated_norm(shared_a), eager */

static int same_floats(const ct_tensor* a, const ct_tensor* b) {
  float x[33 * 70], y[33 * 70];
  return !ct_tensor_copy_to(a, x, sizeof x) && !ct_tensor_copy_to(b, y, sizeof y) && !memcmp(x, y, sizeof x);
}

/* Calls shared_fn, whose kernel the background builder replaces while the threads run. */
static void* call_compiled(void* arg) {
  worker* w = (worker*)arg;
  for (int i = 0; i < 40; ++i) {
    ct_tensor* got = NULL;
    const ct_tensor* in[1] = {shared_a};
    if (ct_compiled_call(shared_fn, in, 1, &got, 1) != CT_OK) note(w, "call");
    else if (!same_floats(got, shared_want)) note(w, "bits differ from eager");
    ct_tensor_release(got);
  }
  return NULL;
}

static void test_kernels_switch_to_cpp_while_threads_call_them(void) {
  char dir[] = "/tmp/ctorch_kernels_XXXXXX"; /* empty: the compiler runs while the threads call */
  CHECK(mkdtemp(dir) != NULL);
  CHECK(setenv("CTORCH_CACHE_DIR", dir, 1) == 0);
  CHECK_OK(ct_tensor_randn(S(33, 70), CT_FLOAT32, "cpu", NULL, &shared_a));
  const ct_tensor* in[1] = {shared_a};
  CHECK_OK(gated_norm(NULL, in, 1, &shared_want, 1));
  ct_compile_options* o = NULL;
  CHECK_OK(ct_compile_options_create(&o));
  CHECK_OK(ct_compile_options_set_option(o, "cpp_kernels_hot_ms", "0"));
  CHECK_OK(ct_compile(gated_norm, NULL, NULL, o, &shared_fn));
  ct_compile_options_release(o);
  worker ws[kThreads];
  run_threads(call_compiled, ws, kThreads);
  ct_compile_wait_kernels();
  run_threads(call_compiled, ws, 2); /* now on the C++ kernel */
  for (int i = 0; i < kThreads; ++i) {
    if (ws[i].failures) printf("  thread %d: %d failures, first: %s\n", i, ws[i].failures, ws[i].first_error);
    CHECK(ws[i].failures == 0);
  }
  char* g = NULL;
  CHECK_OK(ct_compiled_graph(shared_fn, 0, &g));
  CHECK(strstr(g, "fused_cpp[") != NULL);
  ct_string_release(g);
  ct_compiled_release(shared_fn);
  RELEASE(shared_want, shared_a);
  unsetenv("CTORCH_CACHE_DIR");
  char cmd[64];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_many_threads_compute_on_shared_inputs),
    CAPI_TEST(test_error_messages_are_thread_local),
    CAPI_TEST(test_concurrent_retain_and_release_keep_the_count),
    CAPI_TEST(test_kernels_switch_to_cpp_while_threads_call_them),
};

CAPI_MAIN(TESTS)
