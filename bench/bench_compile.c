/* bench_compile.c - ct_compile measured: two chains compiled against eager ctorch and libtorch
 * eager (when found), the cold compile latency of a 50-operator graph, the warm per-call cost of
 * the guard check and dispatch beyond the kernels, and the recompiles of automatic dynamic shapes.
 *
 *   build/bench/bench_compile [threads]    (scripts/bench.sh builds and runs it)
 *
 * Medians; ratios are anchor time / ctorch time (higher is better for ctorch). Targets from the
 * issue are printed beside the figures; nothing here asserts on time (DESIGN.md §13). */
#include <string.h>

#include "bench_timing.h"
#ifdef CTORCH_BENCH_LIBTORCH
#include "libtorch_compile.h"
#endif

#define N (16 * 1024 * 1024)
#define ROWS 16384
#define COLS 1024

static ct_scalar number(double v) {
  ct_scalar s = {CT_SCALAR_FLOAT, 0, v};
  return s;
}

/* x * sigmoid(x) + sin(y) * 0.5 - z */
static ct_status pointwise(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  ct_tensor *s = NULL, *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  ct_scalar half = number(0.5);
  ct_status st = ct_tensor_sigmoid(in[0], &s);
  if (!st) st = ct_tensor_mul(in[0], s, &a);
  if (!st) st = ct_tensor_sin(in[1], &b);
  if (!st) st = ct_tensor_mul_scalar(b, &half, &c);
  if (!st) st = ct_tensor_add(a, c, &d);
  if (!st) st = ct_tensor_sub(d, in[2], &out[0]);
  ct_tensor_release(s), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(d);
  return st;
}

/* layer_norm written out: y = x - mean(x); v = mean(y * y); y * rsqrt(v + 1e-5) * w + b, over
 * the last dim. */
static ct_status norm_chain(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  const int64_t last = -1;
  ct_scalar eps = number(1e-5);
  ct_tensor *m = NULL, *y = NULL, *yy = NULL, *v = NULL, *ve = NULL, *r = NULL, *yr = NULL, *yw = NULL;
  ct_status st = ct_tensor_mean(in[0], &last, 1, 1, &m);
  if (!st) st = ct_tensor_sub(in[0], m, &y);
  if (!st) st = ct_tensor_mul(y, y, &yy);
  if (!st) st = ct_tensor_mean(yy, &last, 1, 1, &v);
  if (!st) st = ct_tensor_add_scalar(v, &eps, &ve);
  if (!st) st = ct_tensor_rsqrt(ve, &r);
  if (!st) st = ct_tensor_mul(y, r, &yr);
  if (!st) st = ct_tensor_mul(yr, in[1], &yw);
  if (!st) st = ct_tensor_add(yw, in[2], &out[0]);
  ct_tensor_release(m), ct_tensor_release(y), ct_tensor_release(yy), ct_tensor_release(v), ct_tensor_release(ve);
  ct_tensor_release(r), ct_tensor_release(yr), ct_tensor_release(yw);
  return st;
}

/* 50 operators: 25 rounds of x = sin(x) * 1.01 over one small tensor. */
static ct_status fifty_ops(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  ct_scalar k = number(1.01);
  ct_tensor* x = NULL;
  ct_status st = ct_tensor_retain((ct_tensor*)in[0]);
  x = (ct_tensor*)in[0];
  for (int i = 0; i < 25 && !st; ++i) {
    ct_tensor *s = NULL, *m = NULL;
    st = ct_tensor_sin(x, &s);
    if (!st) st = ct_tensor_mul_scalar(s, &k, &m);
    ct_tensor_release(s), ct_tensor_release(x);
    x = m;
  }
  if (st) {
    ct_tensor_release(x);
    return st;
  }
  out[0] = x;
  return CT_OK;
}

/* x + y, for the per-call overhead. */
static ct_status add2(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  return ct_tensor_add(in[0], in[1], &out[0]);
}

typedef struct {
  ct_traced_fn fn;
  ct_compiled* compiled;
  const ct_tensor* in[3];
  size_t n_in;
  void* lt_in[3];
  int lt_which;
} Case;

static void run_eager(void* p) {
  Case* c = p;
  ct_tensor* out = NULL;
  CHECK(c->fn(NULL, c->in, c->n_in, &out, 1));
  ct_tensor_release(out);
}
static void run_compiled(void* p) {
  Case* c = p;
  ct_tensor* out = NULL;
  CHECK(ct_compiled_call(c->compiled, c->in, c->n_in, &out, 1));
  ct_tensor_release(out);
}
#ifdef CTORCH_BENCH_LIBTORCH
static void run_libtorch(void* p) {
  Case* c = p;
  lt_compile_chain(c->lt_which, c->lt_in);
}
#endif

static ct_tensor* randn(const int64_t* sizes, size_t ndim) {
  ct_tensor* t = NULL;
  CHECK(ct_tensor_randn(sizes, ndim, CT_FLOAT32, "cpu", NULL, &t));
  return t;
}

static int64_t metric(const ct_compiled* c, const char* key) {
  char* json = NULL;
  CHECK(ct_compiled_metrics_json(c, &json));
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char* p = strstr(json, pat);
  int64_t v = p ? strtoll(p + strlen(pat), NULL, 10) : -1;
  ct_string_release(json);
  return v;
}

static void chain_row(const char* name, Case* c) {
  CHECK(ct_compile(c->fn, NULL, NULL, NULL, &c->compiled));
  double eager_s, compiled_s, torch_s = 0, unused;
  median_pair(run_compiled, run_eager, c, 2, 9, &compiled_s, &eager_s);
#ifdef CTORCH_BENCH_LIBTORCH
  median_pair(run_compiled, run_libtorch, c, 2, 9, &unused, &torch_s);
#else
  (void)unused;
#endif
  printf("%-34s %12.2f %12.2f %12.2f %10.2fx %10.2fx\n", name, torch_s * 1e3, eager_s * 1e3, compiled_s * 1e3,
         eager_s / compiled_s, torch_s / compiled_s);
  ct_compiled_release(c->compiled);
}

int main(int argc, char** argv) {
  CHECK(ct_manual_seed(0));
  if (argc > 1) CHECK(ct_set_num_threads(atoi(argv[1])));
  int threads = 0;
  CHECK(ct_get_num_threads(&threads));
  printf("ct_compile, %d threads. Times in ms (median of 9).\n", threads);
  printf("%-34s %12s %12s %12s %11s %11s\n", "chain", "torch eager", "ctorch eager", "compiled", "vs eager",
         "vs torch");
  const int64_t flat[1] = {N}, rows[2] = {ROWS, COLS}, cols[1] = {COLS};
  Case pw = {pointwise, NULL, {randn(flat, 1), randn(flat, 1), randn(flat, 1)}, 3, {NULL}, 0};
  Case ln = {norm_chain, NULL, {randn(rows, 2), randn(cols, 1), randn(cols, 1)}, 3, {NULL}, 1};
#ifdef CTORCH_BENCH_LIBTORCH
  for (int i = 0; i < 3; ++i) {
    pw.lt_in[i] = lt_compile_wrap(pw.in[i]);
    ln.lt_in[i] = lt_compile_wrap(ln.in[i]);
  }
#endif
  chain_row("x*sigmoid(x)+sin(y)*0.5-z, 16M f32", &pw);
  chain_row("layer_norm chain [16384, 1024] f32", &ln);
  printf("targets: compiled >= 2.5x eager ctorch, and faster than torch eager%s\n",
#ifdef CTORCH_BENCH_LIBTORCH
         ""
#else
         " (libtorch not found: its column is 0)"
#endif
  );

  /* Cold compile of a 50-operator graph: the first call traces, optimizes and runs it; the run
   * itself (a warm call) is subtracted. */
  const int64_t small[1] = {64};
  ct_tensor* x = randn(small, 1);
  const ct_tensor* in1[1] = {x};
  double cold[MAX_REPS], warm[MAX_REPS];
  for (int r = 0; r < 9; ++r) {
    ct_compiled* c = NULL;
    ct_tensor* out = NULL;
    CHECK(ct_compile(fifty_ops, NULL, NULL, NULL, &c));
    double t0 = now_s();
    CHECK(ct_compiled_call(c, in1, 1, &out, 1));
    double t1 = now_s();
    ct_tensor_release(out);
    CHECK(ct_compiled_call(c, in1, 1, &out, 1));
    warm[r] = now_s() - t1;
    cold[r] = t1 - t0;
    ct_tensor_release(out);
    ct_compiled_release(c);
  }
  printf("\ncold compile of a 50-op graph: %.2f ms (first call %.2f ms, warm call %.3f ms); target < 50 ms\n",
         (median(cold, 9) - median(warm, 9)) * 1e3, median(cold, 9) * 1e3, median(warm, 9) * 1e3);

  /* Warm per-call overhead: ct_compiled_call(x + y) against ct_tensor_add(x, y) on 4 elements. */
  const int64_t four[1] = {4};
  ct_tensor *a = randn(four, 1), *b = randn(four, 1);
  Case ov = {add2, NULL, {a, b}, 2, {NULL}, 0};
  ct_compile_options* o = NULL;
  CHECK(ct_compile_options_create(&o));
  CHECK(ct_compile_options_set_option(o, "fusion", "false"));
  CHECK(ct_compile(add2, NULL, NULL, o, &ov.compiled));
  ct_compile_options_release(o);
  const int calls = 20000;
  double tc[MAX_REPS], te[MAX_REPS];
  for (int r = 0; r < 9; ++r) {
    double t0 = now_s();
    for (int i = 0; i < calls; ++i) run_compiled(&ov);
    double t1 = now_s();
    for (int i = 0; i < calls; ++i) run_eager(&ov);
    te[r] = (now_s() - t1) / calls;
    tc[r] = (t1 - t0) / calls;
  }
  const double per_call = median(tc, 9), per_eager = median(te, 9);
  printf("warm call of x + y on 4 elements: compiled %.0f ns, eager %.0f ns: overhead %.0f ns; target < 1000 ns\n",
         per_call * 1e9, per_eager * 1e9, (per_call - per_eager) * 1e9);
  ct_compiled_release(ov.compiled);

  /* Automatic dynamic: 20 calls where only the batch size changes. */
  ct_compiled* dyn = NULL;
  CHECK(ct_compile(pointwise, NULL, NULL, NULL, &dyn));
  for (int64_t batch = 1; batch <= 20; ++batch) {
    const int64_t sz[2] = {batch * 3, 128};
    ct_tensor *p = randn(sz, 2), *q = randn(sz, 2), *r = randn(sz, 2), *out = NULL;
    const ct_tensor* in3[3] = {p, q, r};
    CHECK(ct_compiled_call(dyn, in3, 3, &out, 1));
    ct_tensor_release(p), ct_tensor_release(q), ct_tensor_release(r), ct_tensor_release(out);
  }
  printf("20 calls, only the batch size changing: %lld compiles, %lld recompile(s); target 1 recompile\n",
         (long long)metric(dyn, "compiles"), (long long)metric(dyn, "recompiles"));
  ct_compiled_release(dyn);

  for (int i = 0; i < 3; ++i) {
    ct_tensor_release((ct_tensor*)pw.in[i]), ct_tensor_release((ct_tensor*)ln.in[i]);
#ifdef CTORCH_BENCH_LIBTORCH
    lt_compile_free(pw.lt_in[i]), lt_compile_free(ln.lt_in[i]);
#endif
  }
  ct_tensor_release(x), ct_tensor_release(a), ct_tensor_release(b);
  return 0;
}
