/*
 * capi_fault_sweep.h - the C ABI tests under allocation-failure injection (docs/reliability.md).
 *
 * With CAPI_FAULT_SWEEP=K in the environment, in a build configured with CTORCH_FAULT_INJECTION,
 * capi_run runs each selected test first in a child process that counts the allocations the
 * library makes for it (A), then once per point n in a child of its own whose n-th allocation
 * fails: every n in 1..A when A <= K, else K points spread evenly over 1..A (fewer for a test of
 * millions of allocations: see CAPI_FAULT_SWEEP_REPLAYED). A point passes when
 *   - the test passes anyway, or it failed after the injected failure and the library accounted
 *     for that failure first (ct_testing_failure_accounted_for): a ct_* function reported that
 *     memory ran out, or the library dropped something on purpose (a cache entry, a profiler
 *     span). A wrong value with nothing accounted, or another status first on the thread whose
 *     allocation failed, fails it;
 *   - afterwards, with injection off, a small computation with autograd gives the exact answer:
 *     the library keeps working;
 *   - the child neither crashes nor hangs, and the sanitizers report nothing.
 * Leaks are not judged here: a test abandoned at a failed check keeps its handles, and no count
 * can tell those from the library's own (tests/fault/test_alloc_failure.c judges leaks).
 *
 * The injection hooks are looked up with dlsym, so the tests keep linking through ctorch.h alone.
 */
#ifndef CAPI_FAULT_SWEEP_H
#define CAPI_FAULT_SWEEP_H

#if defined(__unix__)
#include <dlfcn.h>

/* About how many allocations the points of one test replay together, at most. */
#define CAPI_FAULT_SWEEP_REPLAYED INT64_C(16000000)

typedef struct capi_fault_hooks {
  void (*fail_allocation)(int64_t n, int persistent);
  int64_t (*allocations)(void);
  int64_t (*failed_allocations)(void);
  int (*failure_accounted_for)(void);
} capi_fault_hooks;

static inline int capi_fault_hooks_find(capi_fault_hooks* h) {
  void* self = dlopen(NULL, RTLD_NOW);
  if (!self) return 0;
  /* dlsym returns an object pointer; memcpy converts it to a function pointer portably. */
  void* f = dlsym(self, "ct_testing_fail_allocation");
  void* a = dlsym(self, "ct_testing_allocations");
  void* d = dlsym(self, "ct_testing_failed_allocations");
  void* m = dlsym(self, "ct_testing_failure_accounted_for");
  if (!f || !a || !d || !m) return 0;
  memcpy(&h->fail_allocation, &f, sizeof f);
  memcpy(&h->allocations, &a, sizeof a);
  memcpy(&h->failed_allocations, &d, sizeof d);
  memcpy(&h->failure_accounted_for, &m, sizeof m);
  return 1;
}

/* (x * x).sum() and x @ x with x = [[1, 2], [3, 4]] requiring grad: 30, [[7, 10], [15, 22]] and
   a gradient of 2x, all exact in float32. 1 when every call succeeds with these values. */
static inline int capi_library_still_works(void) {
  static const float xs[4] = {1, 2, 3, 4}, mm[4] = {7, 10, 15, 22}, grad[4] = {2, 4, 6, 8};
  static const int64_t sizes[2] = {2, 2};
  ct_tensor *x = NULL, *sq = NULL, *s = NULL, *m = NULL, *g = NULL;
  float got_s = 0, got_m[4] = {0}, got_g[4] = {0};
  int ok = ct_tensor_from_data(xs, sizes, 2, CT_FLOAT32, &x) == CT_OK && ct_tensor_set_requires_grad(x, 1) == CT_OK &&
           ct_tensor_mul(x, x, &sq) == CT_OK && ct_tensor_sum(sq, NULL, 0, 0, &s) == CT_OK &&
           ct_tensor_matmul(x, x, &m) == CT_OK && ct_tensor_backward(s, NULL, 0) == CT_OK &&
           ct_tensor_grad(x, &g) == CT_OK && g && ct_tensor_copy_to(s, &got_s, sizeof got_s) == CT_OK &&
           ct_tensor_copy_to(m, got_m, sizeof got_m) == CT_OK && ct_tensor_copy_to(g, got_g, sizeof got_g) == CT_OK &&
           got_s == 30 && memcmp(got_m, mm, sizeof mm) == 0 && memcmp(got_g, grad, sizeof grad) == 0;
  ct_tensor_release(g);
  ct_tensor_release(m);
  ct_tensor_release(s);
  ct_tensor_release(sq);
  ct_tensor_release(x);
  return ok;
}

/* Runs t in a child whose n-th allocation fails (n == 0: none fails, but each is counted) and
   ends the child: exit status 0 when the point passes (see the top of this file). Writes the
   allocation count to fd for the counting run. */
static inline void capi_fault_child(const capi_test* t, const capi_fault_hooks* h, int64_t n, int fd) {
  alarm(120); /* a hang is a finding too: SIGALRM reports it */
  capi_quiet = 1;
  h->fail_allocation(n ? n : INT64_MAX, 0);
  const int passed = capi_run_one(t);
  const int64_t counted = h->allocations(), fired = h->failed_allocations();
  const int accounted = h->failure_accounted_for();
  h->fail_allocation(0, 0);
  int ok = 1;
  if (n == 0) {
    ok = passed && write(fd, &counted, sizeof counted) == (ssize_t)sizeof counted;
    if (!passed) printf("%s: fails without injection: %s\n", t->name, capi_first_failure);
  } else if (!passed && !fired) {
    printf("%s: allocation %lld: failed before the injected failure: %s\n", t->name, (long long)n,
           capi_first_failure);
    ok = 0;
  } else if (!passed && accounted != 1) {
    printf("%s: allocation %lld failed, and %s: %s\n", t->name, (long long)n,
           accounted == 0 ? "the first failure reported after it was not about memory"
                       : "no call reported a failure, yet the test failed",
           capi_first_failure);
    ok = 0;
  }
  if (ok && !capi_library_still_works()) {
    printf("%s: allocation %lld failed, and afterwards a computation gave a wrong answer or failed [last error: %s]\n",
           t->name, (long long)n, ct_last_error());
    ok = 0;
  }
  fflush(stdout);
  _exit(ok ? 0 : 1);
}

/* 1 when the child for point n passed; a crash or a sanitizer's exit status fails it. */
static inline int capi_fault_point(const capi_test* t, const capi_fault_hooks* h, int64_t n, int fd) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) capi_fault_child(t, h, n, fd);
  int wst = 0;
  waitpid(pid, &wst, 0);
  if (WIFSIGNALED(wst))
    printf("%s: allocation %lld: crashed (signal %d)\n", t->name, (long long)n, WTERMSIG(wst));
  else if (WEXITSTATUS(wst) > 1)
    printf("%s: allocation %lld: exit status %d (a sanitizer's report is above)\n", t->name, (long long)n,
           WEXITSTATUS(wst));
  return WIFEXITED(wst) && WEXITSTATUS(wst) == 0;
}

/* Sweeps one test with at most k points; 1 when every point passed. Adds the points to *swept. */
static inline int capi_fault_sweep(const capi_test* t, const capi_fault_hooks* h, int64_t k, int64_t* swept) {
  int fds[2];
  if (pipe(fds) != 0) return 0;
  int64_t total = 0;
  const int counted = capi_fault_point(t, h, 0, fds[1]) && read(fds[0], &total, sizeof total) == (ssize_t)sizeof total;
  close(fds[0]);
  close(fds[1]);
  if (!counted) return 0;
  /* A point replays the test up to its n-th allocation, n/2 of the total on average: a test of
     millions of allocations gets fewer than k points, to keep the sweep's time bounded. */
  int64_t points = total < k ? total : k;
  if (total > 0 && points > 2 * CAPI_FAULT_SWEEP_REPLAYED / total) points = 2 * CAPI_FAULT_SWEEP_REPLAYED / total;
  if (points < 1 && total > 0) points = 1;
  int ok = 1;
  for (int64_t i = 0; i < points; ++i) {
    const int64_t n = points == total ? i + 1 : points == 1 ? 1 : 1 + i * (total - 1) / (points - 1);
    ok &= capi_fault_point(t, h, n, -1);
  }
  *swept += points;
  printf("%s: %lld allocations, %lld failed in turn%s\n", t->name, (long long)total, (long long)points,
         ok ? "" : ": FAILED");
  return ok;
}
#endif /* __unix__ */

#endif /* CAPI_FAULT_SWEEP_H */
