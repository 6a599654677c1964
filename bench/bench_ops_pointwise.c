/* bench_ops_pointwise.c - float32 transcendental pointwise operators beside libtorch, in one run:
 * exp, sigmoid, tanh, erf, gelu (exact and tanh), silu, softplus, elu, mish, log1p, expm1 on 4M
 * contiguous float32 (randn * 3; |randn * 3| for log1p), with 2 threads (or the default count)
 * and with 1. Each is memory-bound once the math vectorizes (GB/s = read + write = 2 * 16 MiB /
 * time). ctorch's float32 math is src/ops/cpu/vec_math.h; libtorch's is Sleef. Two rows add a
 * float32 tensor to a float16 and to an int32 one, and one takes exp of the int32 one: the
 * promotion each library does as its loop reads the input (GB/s counts the inputs and the float32
 * result).
 * Target: at least libtorch's speed on each. Run with OMP_WAIT_POLICY=PASSIVE. */
#include <stdio.h>
#include <string.h>

#include "bench_timing.h"
#ifdef CTORCH_BENCH_LIBTORCH
#include "libtorch_anchor.h"
#include "libtorch_ops_pointwise.h"
#endif

#define REPS 21
#define N (4 * 1024 * 1024)
#define NOPS 15

static const char* names[NOPS] = {"exp", "sigmoid", "tanh", "erf", "gelu", "gelu (tanh)", "silu", "softplus",
                                  "elu", "mish", "log1p (x >= 0)", "expm1", "add f32 + f16", "add f32 + i32",
                                  "exp of i32"};
/* Bytes each row moves per element: one float32 in and out, or the mixed adds' two inputs. */
static const int bytes[NOPS] = {8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 10, 12, 8};

typedef struct {
  int which;
  ct_tensor *x, *xp, *xh, *xi;
  void *lx, *lxp, *lxh, *lxi;
} job;

static void ct_run(void* p) {
  const job* j = p;
  ct_tensor* y = NULL;
  switch (j->which) {
    case 0: CHECK(ct_tensor_exp(j->x, &y)); break;
    case 1: CHECK(ct_tensor_sigmoid(j->x, &y)); break;
    case 2: CHECK(ct_tensor_tanh(j->x, &y)); break;
    case 3: CHECK(ct_tensor_erf(j->x, &y)); break;
    case 4: CHECK(ct_tensor_gelu(j->x, "none", &y)); break;
    case 5: CHECK(ct_tensor_gelu(j->x, "tanh", &y)); break;
    case 6: CHECK(ct_tensor_silu(j->x, &y)); break;
    case 7: CHECK(ct_tensor_softplus(j->x, 1.0, 20.0, &y)); break;
    case 8: CHECK(ct_tensor_elu(j->x, 1.0, 1.0, 1.0, &y)); break;
    case 9: CHECK(ct_tensor_mish(j->x, &y)); break;
    case 10: CHECK(ct_tensor_log1p(j->xp, &y)); break;
    case 11: CHECK(ct_tensor_expm1(j->x, &y)); break;
    case 12: CHECK(ct_tensor_add(j->x, j->xh, &y)); break;
    case 13: CHECK(ct_tensor_add(j->x, j->xi, &y)); break;
    default: CHECK(ct_tensor_exp(j->xi, &y)); break;
  }
  ct_tensor_release(y);
}

#ifdef CTORCH_BENCH_LIBTORCH
static void lt_run(void* p) {
  const job* j = p;
  if (j->which == 14) lt_pw_run(0, j->lxi); /* exp of int32 */
  else if (j->which >= 12) lt_pw_add(j->lx, j->which == 12 ? j->lxh : j->lxi);
  else lt_pw_run(j->which, j->which == 10 ? j->lxp : j->lx);
}
#endif

static void row(const char* id, const char* what, double ct, double anchor) {
  char a[32] = "-", r[16] = "-";
  if (anchor > 0) {
    snprintf(a, sizeof a, "%.2f", anchor);
    snprintf(r, sizeof r, "%.2f", ct / anchor);
  }
  printf("%-4s %-30s %10.2f %10s  %-5s %6s   %s\n", id, what, ct, a, "GB/s", r,
         anchor == 0 || ct >= anchor ? "ok" : "MISS");
}

int main(void) {
  int32_t threads = bench_begin("bench_ops_pointwise", REPS, "ctorch / libtorch throughput (> 1: ctorch is faster)");
  if (threads > 2) threads = 2; /* the machines this runs on share their cores; measure 2 and 1 */
  const int64_t n[1] = {N};
  const ct_scalar three = {CT_SCALAR_FLOAT, 0, 3.0};
  job j;
  memset(&j, 0, sizeof j);
  ct_tensor* r = NULL;
  CHECK(ct_tensor_randn(n, 1, CT_FLOAT32, NULL, NULL, &r));
  CHECK(ct_tensor_mul_scalar(r, &three, &j.x));
  CHECK(ct_tensor_abs(j.x, &j.xp));
  CHECK(ct_tensor_to(j.x, CT_FLOAT16, &j.xh));
  CHECK(ct_tensor_to(j.x, CT_INT32, &j.xi));
  ct_tensor_release(r);
#ifdef CTORCH_BENCH_LIBTORCH
  j.lx = lt_pw_randn(N, 3.0, 0);
  j.lxp = lt_pw_randn(N, 3.0, 1);
  j.lxh = lt_pw_cast(j.lx, 0);
  j.lxi = lt_pw_cast(j.lx, 1);
#endif
  for (int32_t t = threads; t >= 1; --t) {
    CHECK(ct_set_num_threads(t));
#ifdef CTORCH_BENCH_LIBTORCH
    lt_set_threads(t);
#endif
    printf("\n%d thread%s, 4M elements\n%-4s %-30s %10s %10s  %-5s %6s   target >= libtorch\n", t, t == 1 ? "" : "s",
           "row", "measurement", "ctorch", "libtorch", "unit", "ratio");
    for (int w = 0; w < NOPS; ++w) {
      j.which = w;
      double c, a;
#ifdef CTORCH_BENCH_LIBTORCH
      median_pair(ct_run, lt_run, &j, 3, REPS, &c, &a);
#else
      median_pair(ct_run, NULL, &j, 3, REPS, &c, &a);
#endif
      char id[8];
      snprintf(id, sizeof id, "P%d", w + 1);
      const double gb = (double)bytes[w] * N / 1e9;
      row(id, names[w], gb / c, a > 0 ? gb / a : 0);
      printf("     %-30s %10.3f %10.3f  ms\n", "", c * 1e3, a * 1e3);
    }
  }
  ct_tensor_release(j.x);
  ct_tensor_release(j.xp);
  ct_tensor_release(j.xh);
  ct_tensor_release(j.xi);
#ifdef CTORCH_BENCH_LIBTORCH
  lt_release(j.lx);
  lt_release(j.lxp);
  lt_release(j.lxh);
  lt_release(j.lxi);
#endif
  return 0;
}
