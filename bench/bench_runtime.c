/* bench_runtime.c - the runtime's measurements beside libtorch, in one run:
 *   R1  randn of 16M float32 (GB/s written), R2  rand of 16M float32, R1s/R2s the same on one thread,
 *   R3  process start to first operator result: startup_ctorch (a C program linked to libctorch)
 *       against startup_libtorch (the same program over ATen), each spawned and waited for.
 * Targets (issue 5): randn at least libtorch's throughput; start-up under 20 ms. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_timing.h"
#ifdef CTORCH_BENCH_LIBTORCH
#include "libtorch_anchor.h"
#endif

#define REPS 9
#define N (16 * 1024 * 1024)

extern char** environ;

typedef struct {
  int normal;
} draw_job;

static void set_threads(int n) {
  CHECK(ct_set_num_threads(n));
#ifdef CTORCH_BENCH_LIBTORCH
  lt_set_threads(n);
#endif
}

static void ct_draw(void* p) {
  const draw_job* j = p;
  const int64_t n[1] = {N};
  ct_tensor* t = NULL;
  CHECK(j->normal ? ct_tensor_randn(n, 1, CT_FLOAT32, NULL, NULL, &t) : ct_tensor_rand(n, 1, CT_FLOAT32, NULL, NULL, &t));
  ct_tensor_release(t);
}

#ifdef CTORCH_BENCH_LIBTORCH
static void lt_draw(void* p) {
  const draw_job* j = p;
  if (j->normal) lt_randn_release(N);
  else lt_rand_release(N);
}
#endif

/* Seconds from spawning path to its exit, stdout discarded; exits on failure. */
static double run_once(const char* path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  char* argv[] = {(char*)path, NULL};
  pid_t pid;
  const double t0 = now_s();
  if (posix_spawn(&pid, path, &fa, NULL, argv, environ) != 0) {
    fprintf(stderr, "bench_runtime: cannot start %s\n", path);
    exit(1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const double t = now_s() - t0;
  posix_spawn_file_actions_destroy(&fa);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_runtime: %s failed\n", path);
    exit(1);
  }
  return t;
}

static double startup_median(const char* path) {
  double t[MAX_REPS];
  run_once(path); /* warm the page cache */
  for (int i = 0; i < 15; ++i) t[i] = run_once(path);
  return median(t, 15);
}

static void row(const char* id, const char* what, double ct, double anchor, const char* unit, int higher_is_better,
                const char* target, int met) {
  char a[32] = "-", r[16] = "-";
  if (anchor > 0) {
    snprintf(a, sizeof a, "%.2f", anchor);
    snprintf(r, sizeof r, "%.2f", higher_is_better ? ct / anchor : anchor / ct);
  }
  printf("%-3s %-40s %10.2f %10s  %-5s %6s   %-18s %s\n", id, what, ct, a, unit, r, target, met ? "ok" : "MISS");
}

int main(void) {
  CHECK(ct_init(CT_ABI_VERSION));
  int32_t threads = 0;
  CHECK(ct_get_num_threads(&threads));
  printf("ctorch %s bench_runtime: median of %d (start-up: 15) runs; ratio > 1 means ctorch is faster; %d threads\n",
         ct_version(), REPS, threads);
#ifdef CTORCH_BENCH_LIBTORCH
  printf("anchor: libtorch %s in this process, and startup_libtorch (OMP_WAIT_POLICY=%s)\n", lt_version(),
         getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "unset");
#else
  printf("anchor: none (libtorch not built in: install libtorch-dev)\n");
#endif
  printf("\n%-3s %-40s %10s %10s  %-5s %6s   target\n", "row", "measurement", "ctorch", "libtorch", "unit", "ratio");
  const double gb = (double)N * 4 / 1e9;
  const char* names[2][2] = {{"rand 16M float32 (written)", "randn 16M float32 (written)"},
                              {"rand 16M float32, 1 thread", "randn 16M float32, 1 thread"}};
  const char* ids[2][2] = {{"R2", "R1"}, {"R2s", "R1s"}};
  for (int single = 0; single <= 1; ++single) {
    set_threads(single ? 1 : threads);
    for (int normal = 1; normal >= 0; --normal) {
      draw_job j = {normal};
      double c, a;
#ifdef CTORCH_BENCH_LIBTORCH
      median_pair(ct_draw, lt_draw, &j, 2, REPS, &c, &a);
#else
      median_pair(ct_draw, NULL, &j, 2, REPS, &c, &a);
#endif
      row(ids[single][normal], names[single][normal], gb / c, a > 0 ? gb / a : 0, "GB/s", 1, ">= libtorch",
          a == 0 || gb / c >= gb / a);
    }
  }
  set_threads(threads);
  const double sc = startup_median(STARTUP_CTORCH) * 1e3;
#ifdef STARTUP_LIBTORCH
  const double sa = startup_median(STARTUP_LIBTORCH) * 1e3;
#else
  const double sa = 0;
#endif
  row("R3", "process start to first op result", sc, sa, "ms", 0, "< 20 ms", sc < 20);
  return 0;
}
