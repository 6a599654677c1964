/* test_compile.c - ct_compile and ct_export through the C ABI: options validation, caching and
 * guards, automatic dynamic shapes, graph breaks, the recompile limit, autograd through a compiled
 * function, C++ kernels (mode "max-autotune"), captured tensors, exported programs (dynamic dims,
 * specs, save and load) and topk with a dynamic k both ways. */
#include "capi_test.h"

#include <pthread.h>
#include <sys/stat.h>

/* ---- functions to compile ---- */

/* x * sigmoid(x) + sin(y) * 0.5 - z */
static ct_status chain(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  ct_tensor *s = NULL, *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  ct_status st = ct_tensor_sigmoid(in[0], &s);
  if (!st) st = ct_tensor_mul(in[0], s, &a);
  if (!st) st = ct_tensor_sin(in[1], &b);
  ct_scalar half = {CT_SCALAR_FLOAT, 0, 0.5};
  if (!st) st = ct_tensor_mul_scalar(b, &half, &c);
  if (!st) st = ct_tensor_add(a, c, &d);
  if (!st) st = ct_tensor_sub(d, in[2], &out[0]);
  ct_tensor_release(s), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(d);
  return st;
}

/* Three row kernels of x [R, C] and w [C]: layer norm (d * rsqrt(mean(d * d) + eps) * w with
 * d = x - mean(x)), softmax (exp(x - amax) / sum), and amin(x) per row (not keepdim). */
static ct_status row_kernels(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  const int64_t last = -1;
  ct_tensor *mu = NULL, *d = NULL, *dd = NULL, *var = NULL, *ve = NULL, *r = NULL, *dr = NULL;
  ct_tensor *m = NULL, *xm = NULL, *e = NULL, *s = NULL;
  ct_scalar eps = {CT_SCALAR_FLOAT, 0, 1e-5};
  ct_status st = ct_tensor_mean(in[0], &last, 1, 1, &mu);
  if (!st) st = ct_tensor_sub(in[0], mu, &d);
  if (!st) st = ct_tensor_mul(d, d, &dd);
  if (!st) st = ct_tensor_mean(dd, &last, 1, 1, &var);
  if (!st) st = ct_tensor_add_scalar(var, &eps, &ve);
  if (!st) st = ct_tensor_rsqrt(ve, &r);
  if (!st) st = ct_tensor_mul(d, r, &dr);
  if (!st) st = ct_tensor_mul(dr, in[1], &out[0]);
  if (!st) st = ct_tensor_amax(in[0], &last, 1, 1, &m);
  if (!st) st = ct_tensor_sub(in[0], m, &xm);
  if (!st) st = ct_tensor_exp(xm, &e);
  if (!st) st = ct_tensor_sum(e, &last, 1, 1, &s);
  if (!st) st = ct_tensor_div(e, s, &out[1]);
  if (!st) st = ct_tensor_amin(in[0], &last, 1, 0, &out[2]);
  ct_tensor_release(mu), ct_tensor_release(d), ct_tensor_release(dd), ct_tensor_release(var);
  ct_tensor_release(ve), ct_tensor_release(r), ct_tensor_release(dr), ct_tensor_release(m);
  ct_tensor_release(xm), ct_tensor_release(e), ct_tensor_release(s);
  return st;
}

/* x + y */
static ct_status add2(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  return ct_tensor_add(in[0], in[1], &out[0]);
}

/* x * w, w captured through user_data */
static ct_status scale_by_captured(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)n, (void)nout;
  return ct_tensor_mul(in[0], (const ct_tensor*)ud, &out[0]);
}

/* item() of the input: a graph break */
static ct_status reads_item(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  ct_scalar v;
  ct_status st = ct_tensor_item(in[1], &v);
  if (st) return st;
  ct_scalar k = {CT_SCALAR_FLOAT, 0, v.kind == CT_SCALAR_FLOAT ? v.f : (double)v.i};
  return ct_tensor_mul_scalar(in[0], &k, &out[0]);
}

/* sum(x * sigmoid(x)) */
static ct_status silu_sum(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  ct_tensor *s = NULL, *m = NULL;
  ct_status st = ct_tensor_sigmoid(in[0], &s);
  if (!st) st = ct_tensor_mul(in[0], s, &m);
  if (!st) st = ct_tensor_sum(m, NULL, 0, 0, &out[0]);
  ct_tensor_release(s), ct_tensor_release(m);
  return st;
}

/* sum(sigmoid(x * w) * x), w captured through user_data */
static ct_status gated_sum(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)n, (void)nout;
  ct_tensor *a = NULL, *s = NULL, *m = NULL;
  ct_status st = ct_tensor_mul(in[0], (const ct_tensor*)ud, &a);
  if (!st) st = ct_tensor_sigmoid(a, &s);
  if (!st) st = ct_tensor_mul(s, in[0], &m);
  if (!st) st = ct_tensor_sum(m, NULL, 0, 0, &out[0]);
  ct_tensor_release(a), ct_tensor_release(s), ct_tensor_release(m);
  return st;
}

/* reshape(x, [size(x, 0) * size(x, 1)]): reads sizes as integers, so they specialize */
static ct_status flatten_by_sizes(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  int64_t a = 0, b = 0;
  ct_status st = ct_tensor_size(in[0], 0, &a);
  if (!st) st = ct_tensor_size(in[0], 1, &b);
  int64_t flat = a * b;
  if (!st) st = ct_tensor_reshape(in[0], &flat, 1, &out[0]);
  return st;
}

/* topk(x, k) with k the size of in[1] (a meta tensor, kept symbolic), or, when user_data is not
 * NULL, item() of in[1] (an int64 tensor: an unbacked symbol) */
static ct_status topk_dynamic_k(void* by_item, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)n, (void)nout;
  ct_symint* k = NULL;
  ct_status st = by_item ? ct_tensor_sym_item(in[1], &k) : ct_tensor_sym_size(in[1], 0, &k);
  if (st) return st;
  ct_value args[2];
  memset(args, 0, sizeof args);
  args[0].kind = CT_VALUE_TENSOR;
  args[0].tensor = in[0];
  ct_value_set_symint(&args[1], k);
  st = ct_op_call("topk", args, 2, out, 2);
  ct_symint_release(k);
  return st;
}
static int by_item_flag;  /* its address is a non-NULL user_data */

/* calls the compiled function in user_data on its inputs */
static ct_status calls_compiled(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  return ct_compiled_call((ct_compiled*)ud, in, n, out, nout);
}

/* ---- helpers ---- */

static int64_t metric(const ct_compiled* c, const char* key) {
  char* json = NULL;
  if (ct_compiled_metrics_json(c, &json) != CT_OK) return -1;
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char* p = strstr(json, pat);
  int64_t v = p ? strtoll(p + strlen(pat), NULL, 10) : -1;
  ct_string_release(json);
  return v;
}

static ct_tensor* randn(int64_t rows, int64_t cols) {
  ct_tensor* t = NULL;
  const int64_t sizes[2] = {rows, cols};
  if (ct_tensor_randn(sizes, 2, CT_FLOAT32, "cpu", NULL, &t) != CT_OK) return NULL;
  return t;
}

/* 1 when a and b hold the same float32 values bit for bit. */
static int same_bits(const ct_tensor* a, const ct_tensor* b) {
  int64_t na = 0, nb = 0;
  if (ct_tensor_numel(a, &na) || ct_tensor_numel(b, &nb) || na != nb) return 0;
  float* x = malloc((size_t)na * sizeof(float) + 1);
  float* y = malloc((size_t)nb * sizeof(float) + 1);
  int ok = !ct_tensor_copy_to(a, x, (size_t)na * sizeof(float)) && !ct_tensor_copy_to(b, y, (size_t)nb * sizeof(float)) &&
           memcmp(x, y, (size_t)na * sizeof(float)) == 0;
  free(x), free(y);
  return ok;
}

/* ---- options ---- */

static void test_options_validate_each_value_and_list_the_known(void) {
  ct_compile_options* o = NULL;
  CHECK_OK(ct_compile_options_create(&o));
  CHECK_STATUS(ct_compile_options_set_backend(o, "inductor"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("\"fused\", \"eager\"");
  CHECK_STATUS(ct_compile_options_set_mode(o, "fast"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("max-autotune");
  CHECK_STATUS(ct_compile_options_set_option(o, "unroll", "true"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("\"fusion\"");
  CHECK_STATUS(ct_compile_options_set_option(o, "fusion", "maybe"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_compile_options_set_option(o, "fusion", "auto"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_compile_options_set_option(o, "cpp_kernels", "maybe"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("\"auto\"");
  CHECK_STATUS(ct_compile_options_set_option(o, "cpp_kernels_hot_ms", "-1"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_compile_options_set_option(o, "cpp_kernels_hot_ms", "1ms"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("milliseconds");
  CHECK_STATUS(ct_compile_options_set_recompile_limit(o, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_compile_options_set_dynamic(o, (ct_dynamic)7), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_compile_options_set_name(o, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_compile_options_set_backend(NULL, "eager"), CT_ERROR_INVALID_ARGUMENT);
  /* mode and options together: refused by ct_compile, whatever the order they were set in */
  CHECK_OK(ct_compile_options_set_option(o, "fusion", "false"));
  CHECK_OK(ct_compile_options_set_mode(o, "max-autotune"));
  ct_compiled* c = (ct_compiled*)capi_sentinel();
  CHECK_STATUS(ct_compile(add2, NULL, NULL, o, &c), CT_ERROR_INVALID_ARGUMENT);
  CHECK(c == NULL);
  CHECK_ERROR_CONTAINS("mode");
  CHECK_STATUS(ct_compile(NULL, NULL, NULL, NULL, &c), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_compile(add2, NULL, NULL, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_compile_options_release(o);
  CHECK_STATUS(ct_compile_options_set_fullgraph(o, 1), CT_ERROR_INVALID_ARGUMENT); /* released */
  ct_compile_options_release(NULL);
}

static int destroyed = 0;
static void count_destroy(void* p) {
  (void)p;
  ++destroyed;
}

static void test_destroy_runs_once_on_release_and_on_failure(void) {
  destroyed = 0;
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(add2, NULL, count_destroy, NULL, &c));
  CHECK_OK(ct_compiled_retain(c));
  ct_compiled_release(c);
  CHECK(destroyed == 0);
  ct_compiled_release(c);
  CHECK(destroyed == 1);
  ct_compile_options* o = NULL;
  CHECK_OK(ct_compile_options_create(&o));
  CHECK_OK(ct_compile_options_set_option(o, "cse", "false"));
  CHECK_OK(ct_compile_options_set_mode(o, "reduce-overhead"));
  CHECK_STATUS(ct_compile(add2, NULL, count_destroy, o, &c), CT_ERROR_INVALID_ARGUMENT);
  CHECK(destroyed == 2);
  ct_compile_options_release(o);
}

/* ---- calls ---- */

static void test_pointwise_chain_is_fused_and_matches_eager_bitwise(void) {
  ct_tensor *x = randn(37, 129), *y = randn(37, 129), *z = randn(37, 129);
  const ct_tensor* in[3] = {x, y, z};
  ct_tensor *want = NULL, *got = NULL;
  CHECK_OK(chain(NULL, in, 3, &want, 1));
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(chain, NULL, NULL, NULL, &c));
  CHECK_OK(ct_compiled_call(c, in, 3, &got, 1));
  CHECK(same_bits(got, want));
  ct_tensor_release(got);
  CHECK_OK(ct_compiled_call(c, in, 3, &got, 1)); /* the cached entry */
  CHECK(same_bits(got, want));
  CHECK(metric(c, "compiles") == 1);
  CHECK(metric(c, "calls") == 2);
  char* g = NULL;
  CHECK_OK(ct_compiled_graph(c, 0, &g));
  CHECK_CONTAINS(g, "placeholder[0]");
  CHECK_CONTAINS(g, "fused[");
  ct_string_release(g);
  CHECK_STATUS(ct_compiled_graph(c, 1, &g), CT_ERROR_INDEX);
  ct_compiled_release(c);
  ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(want), ct_tensor_release(got);
}

/* Runs row_kernels compiled with options o (NULL: the defaults) on x [rows, cols], `calls` times,
 * waiting for the background builder after each call: its three results must have eager's bits
 * every time, and after the last wait the graph shows fused_cpp kernels exactly when want_cpp.
 * (Between a call and its wait the builder may or may not be done, which is not checked.) */
static void check_row_kernels(const ct_compile_options* o, int64_t rows, int64_t cols, int calls, int want_cpp) {
  ct_tensor *x = randn(rows, cols), *w = NULL;
  CHECK_OK(ct_tensor_randn(&cols, 1, CT_FLOAT32, "cpu", NULL, &w));
  const ct_tensor* in[2] = {x, w};
  ct_tensor *want[3] = {NULL, NULL, NULL}, *got[3] = {NULL, NULL, NULL};
  CHECK_OK(row_kernels(NULL, in, 2, want, 3));
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(row_kernels, NULL, NULL, o, &c));
  for (int call = 0; call < calls; ++call) {
    CHECK_OK(ct_compiled_call(c, in, 2, got, 3));
    for (int k = 0; k < 3; ++k) {
      CHECK(same_bits(got[k], want[k]));
      ct_tensor_release(got[k]);
    }
    ct_compile_wait_kernels();
  }
  char* g = NULL;
  CHECK_OK(ct_compiled_graph(c, 0, &g));
  CHECK(!strstr(g, "fused_cpp[") == !want_cpp);
  CHECK(!strstr(g, "fused[") == !!want_cpp);
  ct_string_release(g);
  ct_compiled_release(c);
  for (int k = 0; k < 3; ++k) ct_tensor_release(want[k]);
  ct_tensor_release(x), ct_tensor_release(w);
}

/* A fresh kernel cache in dir (a mkdtemp template) as $CTORCH_CACHE_DIR, so the compiler runs;
   drop_kernel_cache removes it. */
static void use_fresh_kernel_cache(char* dir) {
  CHECK(mkdtemp(dir) != NULL);
  CHECK(setenv("CTORCH_CACHE_DIR", dir, 1) == 0);
}
static void drop_kernel_cache(const char* dir) {
  unsetenv("CTORCH_CACHE_DIR");
  char cmd[64];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

/* $CXX names a compiler that does not exist; restore_cxx(*saved) puts the old value back. */
static void break_cxx(char** saved) {
  const char* cxx = getenv("CXX");
  *saved = cxx ? strdup(cxx) : NULL;
  CHECK(setenv("CXX", "/nonexistent/c++", 1) == 0);
}
static void restore_cxx(char* saved) {
  if (saved) setenv("CXX", saved, 1);
  else unsetenv("CXX");
  free(saved);
}

static void test_cpp_kernels_have_the_tile_loops_bits(void) {
  /* Rows of 40000 fold in three blocks. */
  char dir[] = "/tmp/ctorch_kernels_XXXXXX";
  use_fresh_kernel_cache(dir);
  ct_compile_options* o = NULL;
  CHECK_OK(ct_compile_options_create(&o));
  CHECK_OK(ct_compile_options_set_mode(o, "max-autotune"));
  check_row_kernels(o, 37, 129, 1, 1);
  check_row_kernels(o, 3, 40000, 1, 1);
  check_row_kernels(o, 37, 129, 1, 1); /* now from the cache */
  /* No compiler: the tile loops run, with a warning, and the same bits. */
  char* saved = NULL;
  break_cxx(&saved);
  char blocked[96]; /* under a plain file: no directory can be made there, even by root */
  snprintf(blocked, sizeof blocked, "%s/file", dir);
  FILE* f = fopen(blocked, "w");
  CHECK(f != NULL);
  if (f) fclose(f);
  strncat(blocked, "/kernels", sizeof blocked - strlen(blocked) - 1);
  CHECK(setenv("CTORCH_CACHE_DIR", blocked, 1) == 0);
  check_row_kernels(o, 5, 33, 1, 0);
  CHECK(setenv("CTORCH_CACHE_DIR", dir, 1) == 0); /* writable, but no compiler */
  check_row_kernels(o, 6, 31, 1, 0);
  restore_cxx(saved);
  ct_compile_options_release(o);
  drop_kernel_cache(dir);
}

static void test_hot_kernels_are_built_in_the_background(void) {
  char dir[] = "/tmp/ctorch_kernels_XXXXXX";
  use_fresh_kernel_cache(dir);
  ct_compile_options* o = NULL;
  CHECK_OK(ct_compile_options_create(&o));
  CHECK_OK(ct_compile_options_set_option(o, "cpp_kernels_hot_ms", "0")); /* hot from its first call */
  check_row_kernels(o, 37, 129, 2, 1);
  CHECK_OK(ct_compile_options_set_option(o, "cpp_kernels", "false"));
  check_row_kernels(o, 37, 129, 2, 0);
  CHECK_OK(ct_compile_options_set_option(o, "cpp_kernels", "auto"));
  check_row_kernels(o, 37, 129, 2, 1);
  /* A build that fails leaves the tile loops, and a warning at the next call. */
  char* saved = NULL;
  break_cxx(&saved);
  check_row_kernels(o, 37, 129, 2, 0);
  restore_cxx(saved);
  /* Not hot yet: an hour of tile loops before a build. */
  CHECK_OK(ct_compile_options_set_option(o, "cpp_kernels_hot_ms", "3600000"));
  check_row_kernels(o, 37, 129, 2, 0);
  ct_compile_options_release(o);
  drop_kernel_cache(dir);
}

static void test_eager_backend_replays_the_graph(void) {
  ct_tensor *x = randn(5, 7), *y = randn(5, 7), *z = randn(5, 7);
  const ct_tensor* in[3] = {x, y, z};
  ct_tensor *want = NULL, *got = NULL;
  CHECK_OK(chain(NULL, in, 3, &want, 1));
  ct_compile_options* o = NULL;
  CHECK_OK(ct_compile_options_create(&o));
  CHECK_OK(ct_compile_options_set_backend(o, "eager"));
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(chain, NULL, NULL, o, &c));
  ct_compile_options_release(o);
  CHECK_OK(ct_compiled_call(c, in, 3, &got, 1));
  CHECK(same_bits(got, want));
  char* g = NULL;
  CHECK_OK(ct_compiled_graph(c, 0, &g));
  CHECK_CONTAINS(g, "sigmoid(%x0)");
  ct_string_release(g);
  ct_compiled_release(c);
  ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(want), ct_tensor_release(got);
}

static void test_automatic_dynamic_compiles_twice_for_twenty_batch_sizes(void) {
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(add2, NULL, NULL, NULL, &c));
  for (int64_t b = 2; b < 22; ++b) {
    ct_tensor *x = randn(b, 16), *y = randn(b, 16), *got = NULL, *want = NULL;
    const ct_tensor* in[2] = {x, y};
    CHECK_OK(ct_compiled_call(c, in, 2, &got, 1));
    CHECK_OK(ct_tensor_add(x, y, &want));
    CHECK(same_bits(got, want));
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(got), ct_tensor_release(want);
  }
  CHECK(metric(c, "compiles") == 2);
  CHECK(metric(c, "recompiles") == 1);
  char* g = NULL;
  CHECK_OK(ct_compiled_graph(c, 1, &g));
  CHECK_CONTAINS(g, "f32[s0, 16]");
  ct_string_release(g);
  /* a new column count is a new static size: one more entry, with that dim symbolic too */
  ct_tensor *x = randn(4, 9), *y = randn(4, 9), *got = NULL;
  const ct_tensor* in[2] = {x, y};
  CHECK_OK(ct_compiled_call(c, in, 2, &got, 1));
  CHECK(metric(c, "compiles") == 3);
  ct_compiled_release(c);
  ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(got);
}

static void test_broadcast_guard_separates_size_one(void) {
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(add2, NULL, NULL, NULL, &c));
  const int64_t rows[3] = {3, 5, 1};
  for (int i = 0; i < 3; ++i) {
    ct_tensor *x = randn(rows[i], 4), *y = randn(1, 4), *got = NULL, *want = NULL;
    const ct_tensor* in[2] = {x, y};
    CHECK_OK(ct_compiled_call(c, in, 2, &got, 1));
    CHECK_OK(ct_tensor_add(x, y, &want));
    CHECK(same_bits(got, want));
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(got), ct_tensor_release(want);
  }
  CHECK(metric(c, "compiles") == 3); /* 3 static, then s0 >= 2, then 1 (sizes 0 and 1 stay static) */
  ct_compiled_release(c);
}

static void test_dynamic_off_and_the_recompile_limit(void) {
  ct_compile_options* o = NULL;
  CHECK_OK(ct_compile_options_create(&o));
  CHECK_OK(ct_compile_options_set_dynamic(o, CT_DYNAMIC_OFF));
  CHECK_OK(ct_compile_options_set_recompile_limit(o, 3));
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(add2, NULL, NULL, o, &c));
  for (int64_t b = 2; b < 8; ++b) {
    ct_tensor *x = randn(b, 3), *y = randn(b, 3), *got = NULL, *want = NULL;
    const ct_tensor* in[2] = {x, y};
    CHECK_OK(ct_compiled_call(c, in, 2, &got, 1)); /* past the limit: eager, still right */
    CHECK_OK(ct_tensor_add(x, y, &want));
    CHECK(same_bits(got, want));
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(got), ct_tensor_release(want);
  }
  CHECK(metric(c, "compiles") == 3);
  CHECK(metric(c, "eager_calls") == 3);
  ct_compiled_release(c);
  CHECK_OK(ct_compile_options_set_fullgraph(o, 1));
  CHECK_OK(ct_compile_options_set_recompile_limit(o, 1));
  CHECK_OK(ct_compile(add2, NULL, NULL, o, &c));
  ct_tensor *x = randn(2, 3), *x2 = randn(3, 3), *got = NULL;
  const ct_tensor* in[2] = {x, x};
  const ct_tensor* in2[2] = {x2, x2};
  CHECK_OK(ct_compiled_call(c, in, 2, &got, 1));
  ct_tensor_release(got);
  got = SENTINEL;
  CHECK_STATUS(ct_compiled_call(c, in2, 2, &got, 1), CT_ERROR_RECOMPILE_LIMIT);
  CHECK(got == NULL);
  ct_compiled_release(c);
  ct_compile_options_release(o);
  ct_tensor_release(x), ct_tensor_release(x2);
}

static void test_data_read_is_a_graph_break(void) {
  ct_tensor *x = randn(4, 4), *k = T(CT_FLOAT32, S0, 3.0), *got = NULL;
  const ct_tensor* in[2] = {x, k};
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(reads_item, NULL, NULL, NULL, &c));
  CHECK_OK(ct_compiled_call(c, in, 2, &got, 1)); /* runs eagerly */
  ct_tensor *want = NULL;
  ct_scalar three = {CT_SCALAR_FLOAT, 0, 3.0};
  CHECK_OK(ct_tensor_mul_scalar(x, &three, &want));
  CHECK(same_bits(got, want));
  CHECK(metric(c, "graph_breaks") == 1);
  char* g = NULL;
  CHECK_OK(ct_compiled_graph(c, 0, &g));
  CHECK_CONTAINS(g, "graph break");
  CHECK_CONTAINS(g, "ct_tensor_item");
  ct_string_release(g);
  ct_compiled_release(c);
  ct_compile_options* o = NULL;
  CHECK_OK(ct_compile_options_create(&o));
  CHECK_OK(ct_compile_options_set_fullgraph(o, 1));
  CHECK_OK(ct_compile(reads_item, NULL, NULL, o, &c));
  ct_tensor_release(got);
  CHECK_STATUS(ct_compiled_call(c, in, 2, &got, 1), CT_ERROR_GRAPH_BREAK);
  CHECK_ERROR_CONTAINS("ct_tensor_item");
  CHECK(got == NULL);
  ct_compiled_release(c);
  ct_compile_options_release(o);
  ct_tensor_release(x), ct_tensor_release(k), ct_tensor_release(want);
}

static void test_operator_errors_reach_the_caller(void) {
  ct_tensor *x = randn(2, 3), *y = randn(4, 5), *got = SENTINEL;
  const ct_tensor* in[2] = {x, y};
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(add2, NULL, NULL, NULL, &c));
  CHECK_STATUS(ct_compiled_call(c, in, 2, &got, 1), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("add");
  CHECK(got == NULL);
  CHECK_STATUS(ct_compiled_call(c, NULL, 2, &got, 1), CT_ERROR_INVALID_ARGUMENT);
  const ct_tensor* bad[2] = {x, capi_released()};
  CHECK_STATUS(ct_compiled_call(c, bad, 2, &got, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_compiled_call(NULL, in, 2, &got, 1), CT_ERROR_INVALID_ARGUMENT);
  ct_compiled_release(c);
  CHECK_STATUS(ct_compiled_call(c, in, 2, &got, 1), CT_ERROR_INVALID_ARGUMENT); /* released */
  ct_tensor_release(x), ct_tensor_release(y);
}

static void test_gradients_through_a_compiled_function_equal_eager(void) {
  float data[30];
  for (int i = 0; i < 30; ++i) data[i] = (float)sin(i * 0.7) * 3.0f;
  ct_tensor *x1 = NULL, *x2 = NULL;
  CHECK_OK(ct_tensor_from_data(data, SZ(6, 5), 2, CT_FLOAT32, &x1));
  CHECK_OK(ct_tensor_from_data(data, SZ(6, 5), 2, CT_FLOAT32, &x2));
  CHECK_OK(ct_tensor_set_requires_grad(x1, 1));
  CHECK_OK(ct_tensor_set_requires_grad(x2, 1));
  const ct_tensor* in1[1] = {x1};
  const ct_tensor* in2[1] = {x2};
  ct_tensor *loss1 = NULL, *loss2 = NULL, *g_eager = NULL, *g_compiled = NULL;
  CHECK_OK(silu_sum(NULL, in1, 1, &loss1, 1));
  CHECK_OK(ct_tensor_backward(loss1, NULL, 0));
  CHECK_OK(ct_tensor_grad(x1, &g_eager));
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(silu_sum, NULL, NULL, NULL, &c));
  CHECK_OK(ct_compiled_call(c, in2, 1, &loss2, 1));
  CHECK(same_bits(loss2, loss1));
  CHECK_OK(ct_tensor_backward(loss2, NULL, 0));
  CHECK_OK(ct_tensor_grad(x2, &g_compiled));
  CHECK(same_bits(g_compiled, g_eager));
  ct_compiled_release(c);
  ct_tensor_release(x1), ct_tensor_release(x2), ct_tensor_release(loss1), ct_tensor_release(loss2);
  ct_tensor_release(g_eager), ct_tensor_release(g_compiled);
}

/* Runs gated_sum compiled (c) or eagerly (c NULL) on x and w, backward, and returns the grads. */
static void gated_sum_grads(ct_compiled* c, ct_tensor* x, ct_tensor* w, ct_tensor** gx, ct_tensor** gw) {
  CHECK_OK(ct_tensor_set_grad(x, NULL));
  CHECK_OK(ct_tensor_set_grad(w, NULL));
  const ct_tensor* in[1] = {x};
  ct_tensor* loss = NULL;
  CHECK_OK(c ? ct_compiled_call(c, in, 1, &loss, 1) : gated_sum(w, in, 1, &loss, 1));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_OK(ct_tensor_grad(x, gx));
  CHECK_OK(ct_tensor_grad(w, gw));
  ct_tensor_release(loss);
}

static void test_a_compiled_function_compiles_its_backward_too(void) {
  float data[30];
  for (int i = 0; i < 30; ++i) data[i] = (float)cos(i * 0.3) * 2.0f;
  ct_tensor *x = NULL, *w = T(CT_FLOAT32, S(5), 0.5, -1, 2, 0.25, 1.5);
  CHECK_OK(ct_tensor_from_data(data, SZ(6, 5), 2, CT_FLOAT32, &x));
  CHECK_OK(ct_tensor_set_requires_grad(x, 1));
  CHECK_OK(ct_tensor_set_requires_grad(w, 1));
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(gated_sum, w, NULL, NULL, &c));
  ct_tensor *gx = NULL, *gw = NULL, *want_x = NULL, *want_w = NULL;
  gated_sum_grads(NULL, x, w, &want_x, &want_w);
  gated_sum_grads(c, x, w, &gx, &gw);
  CHECK(same_bits(gx, want_x) && same_bits(gw, want_w));
  char* text = NULL;
  CHECK_OK(ct_compiled_graph(c, 0, &text));
  CHECK(strncmp(text, "forward:", 8) == 0 && strstr(text, "backward:") && strstr(text, "fused["));
  ct_string_release(text);
  ct_tensor_release(gx), ct_tensor_release(gw);

  /* The saved values go with the first backward, as in eager autograd; retain_graph keeps them. */
  const ct_tensor* in[1] = {x};
  ct_tensor* loss = NULL;
  CHECK_OK(ct_compiled_call(c, in, 1, &loss, 1));
  CHECK_OK(ct_tensor_backward(loss, NULL, CT_GRAD_RETAIN_GRAPH));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ct_last_error(), "CompiledFunctionBackward"));
  ct_tensor_release(loss);

  /* As under torch.compile, the compiled backward is not differentiable itself. */
  CHECK_OK(ct_compiled_call(c, in, 1, &loss, 1));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, CT_GRAD_CREATE_GRAPH), CT_ERROR_NOT_IMPLEMENTED);
  CHECK(strstr(ct_last_error(), "create_graph"));
  ct_tensor_release(loss);

  /* A captured tensor frozen after compiling gets no gradient. */
  CHECK_OK(ct_tensor_set_requires_grad(w, 0));
  gated_sum_grads(c, x, w, &gx, &gw);
  CHECK(same_bits(gx, want_x) && gw == NULL);
  ct_tensor_release(gx);
  ct_compiled_release(c);
  ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(want_x), ct_tensor_release(want_w);
}

static void test_captured_tensors_are_held_by_reference(void) {
  ct_tensor *w = T(CT_FLOAT32, S(3), 1, 2, 3), *x = T(CT_FLOAT32, S(3), 1, 1, 1), *got = NULL;
  const ct_tensor* in[1] = {x};
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(scale_by_captured, w, NULL, NULL, &c));
  CHECK_OK(ct_compiled_call(c, in, 1, &got, 1));
  CHECK_TENSOR(got, CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor_release(got);
  ct_scalar ten = {CT_SCALAR_INT, 10, 0};
  CHECK_OK(ct_tensor_mul_scalar_(w, &ten)); /* an optimizer step, say */
  CHECK_OK(ct_compiled_call(c, in, 1, &got, 1));
  CHECK_TENSOR(got, CT_FLOAT32, S(3), 10, 20, 30);
  ct_compiled_release(c);
  ct_tensor_release(w), ct_tensor_release(x), ct_tensor_release(got);
}

static void test_noncontiguous_inputs_get_their_own_entry(void) {
  ct_tensor *x = randn(6, 4), *xt = NULL, *y = randn(4, 6), *got = NULL, *want = NULL;
  CHECK_OK(ct_tensor_transpose(x, 0, 1, &xt));
  const ct_tensor* in[2] = {xt, y};
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(add2, NULL, NULL, NULL, &c));
  CHECK_OK(ct_compiled_call(c, in, 2, &got, 1));
  CHECK_OK(ct_tensor_add(xt, y, &want));
  CHECK(same_bits(got, want));
  ct_compiled_release(c);
  ct_tensor_release(x), ct_tensor_release(xt), ct_tensor_release(y), ct_tensor_release(got), ct_tensor_release(want);
}

static void test_size_reads_specialize(void) {
  ct_compile_options* o = NULL;
  CHECK_OK(ct_compile_options_create(&o));
  CHECK_OK(ct_compile_options_set_dynamic(o, CT_DYNAMIC_ON));
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(flatten_by_sizes, NULL, NULL, o, &c));
  for (int64_t b = 2; b < 5; ++b) {
    ct_tensor *x = randn(b, 3), *got = NULL;
    const ct_tensor* in[1] = {x};
    CHECK_OK(ct_compiled_call(c, in, 1, &got, 1));
    int64_t n = 0;
    CHECK_OK(ct_tensor_numel(got, &n));
    CHECK(n == b * 3);
    ct_tensor_release(x), ct_tensor_release(got);
  }
  CHECK(metric(c, "compiles") == 3); /* each size specialized by ct_tensor_size */
  ct_compiled_release(c);
  ct_compile_options_release(o);
}

/* ---- export ---- */

static ct_program* export_add_with_batch(void) {
  ct_tensor *x = randn(4, 3), *y = randn(4, 3);
  const ct_tensor* ex[2] = {x, y};
  ct_dynamic_shapes* ds = NULL;
  ct_program* p = NULL;
  if (ct_dynamic_shapes_create(&ds) || ct_dynamic_shapes_set_dim(ds, 0, 0, "batch", 1, 1024) ||
      ct_dynamic_shapes_set_dim(ds, 1, 0, "batch", 1, 1024) || ct_export(add2, NULL, ex, 2, 1, ds, &p))
    p = NULL;
  ct_dynamic_shapes_release(ds);
  ct_tensor_release(x), ct_tensor_release(y);
  return p;
}

static void test_exported_program_runs_every_batch_in_range(void) {
  ct_program* p = export_add_with_batch();
  CHECK(p != NULL);
  char* json = NULL;
  CHECK_OK(ct_program_json(p, &json));
  CHECK_CONTAINS(json, "\"sizes\": [\"batch\", 3]");
  ct_string_release(json);
  for (int64_t b = 1; b <= 9; b += 4) {
    ct_tensor *x = randn(b, 3), *y = randn(b, 3), *got = NULL, *want = NULL;
    const ct_tensor* in[2] = {x, y};
    CHECK_OK(ct_program_call(p, in, 2, &got, 1));
    CHECK_OK(ct_tensor_add(x, y, &want));
    CHECK(same_bits(got, want));
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(got), ct_tensor_release(want);
  }
  ct_tensor *x = randn(5, 3), *y = randn(6, 3), *z = randn(5, 4), *got = SENTINEL;
  const ct_tensor* mismatched[2] = {x, y};
  CHECK_STATUS(ct_program_call(p, mismatched, 2, &got, 1), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("batch");
  CHECK(got == NULL);
  const ct_tensor* wrong_static[2] = {z, z};
  CHECK_STATUS(ct_program_call(p, wrong_static, 2, &got, 1), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("static");
  ct_tensor* big = randn(1025, 3);
  const ct_tensor* out_of_range[2] = {big, big};
  CHECK_STATUS(ct_program_call(p, out_of_range, 2, &got, 1), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("1024");
  ct_tensor* ints = TE(CT_INT64, S(5, 3));
  const ct_tensor* wrong_dtype[2] = {ints, ints};
  CHECK_STATUS(ct_program_call(p, wrong_dtype, 2, &got, 1), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_program_call(p, mismatched, 1, &got, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_program_call(p, mismatched, 2, &got, 2), CT_ERROR_INVALID_ARGUMENT);
  ct_program_release(p);
  CHECK_STATUS(ct_program_call(p, mismatched, 2, &got, 1), CT_ERROR_INVALID_ARGUMENT); /* released */
  ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(big), ct_tensor_release(ints);
}

static void test_program_and_compiled_handles_count_and_refuse_bad_arguments(void) {
  ct_program* p = export_add_with_batch();
  CHECK(p != NULL);
  size_t n = 0;
  CHECK_OK(ct_program_num_inputs(p, &n));
  CHECK(n == 2);
  CHECK_OK(ct_program_num_outputs(p, &n));
  CHECK(n == 1);
  CHECK_STATUS(ct_program_num_inputs(p, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_program_num_outputs(NULL, &n), CT_ERROR_INVALID_ARGUMENT);
  char* text = (char*)capi_sentinel();
  CHECK_STATUS(ct_program_graph(NULL, &text), CT_ERROR_INVALID_ARGUMENT);
  CHECK(text == NULL);
  CHECK_OK(ct_program_retain(p));
  ct_program_release(p);
  CHECK_OK(ct_program_num_inputs(p, &n)); /* one reference left */
  ct_program_release(p);
  CHECK_STATUS(ct_program_retain(p), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_program_json(p, &text), CT_ERROR_INVALID_ARGUMENT);
  ct_program_release(p); /* released: a no-op */
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(add2, NULL, NULL, NULL, &c));
  CHECK_OK(ct_compiled_num_entries(c, &n));
  CHECK(n == 0);
  CHECK_STATUS(ct_compiled_num_entries(c, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_compiled_metrics_json(NULL, &text), CT_ERROR_INVALID_ARGUMENT);
  ct_compiled_release(c);
  CHECK_STATUS(ct_compiled_retain(c), CT_ERROR_INVALID_ARGUMENT);
  ct_compiled_release(NULL);
  ct_program_release(NULL);
}

static void test_program_saves_and_loads(void) {
  ct_program* p = export_add_with_batch();
  CHECK(p != NULL);
  char path[] = "/tmp/ctorch_test_program_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  CHECK_OK(ct_program_save(p, path));
  ct_program* q = NULL;
  CHECK_OK(ct_program_load(path, &q));
  remove(path);
  char *gp = NULL, *gq = NULL;
  CHECK_OK(ct_program_graph(p, &gp));
  CHECK_OK(ct_program_graph(q, &gq));
  CHECK_STR_EQ(gq, gp);
  ct_string_release(gp), ct_string_release(gq);
  ct_tensor *x = randn(7, 3), *y = randn(7, 3), *a = NULL, *b = NULL;
  const ct_tensor* in[2] = {x, y};
  CHECK_OK(ct_program_call(p, in, 2, &a, 1));
  CHECK_OK(ct_program_call(q, in, 2, &b, 1));
  CHECK(same_bits(a, b));
  char* bytes = NULL;
  size_t n = 0;
  CHECK_OK(ct_program_save_buffer(q, &bytes, &n));
  ct_program* r = (ct_program*)capi_sentinel();
  CHECK_STATUS(ct_program_load_buffer(bytes, n / 2, &r), CT_ERROR_FORMAT);
  CHECK(r == NULL);
  bytes[0] ^= 0x55;
  CHECK_STATUS(ct_program_load_buffer(bytes, n, &r), CT_ERROR_FORMAT);
  ct_string_release(bytes);
  CHECK_STATUS(ct_program_load("/nonexistent/dir/p.ctp", &r), CT_ERROR_IO);
  CHECK_STATUS(ct_program_save(p, "/nonexistent/dir/p.ctp"), CT_ERROR_IO);
  ct_program_release(p), ct_program_release(q);
  ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(a), ct_tensor_release(b);
}

/* ct_program_load reads regular files only, opened without blocking, and checks the header
 * before reading the rest (a FIFO blocked forever; /dev/zero grew until memory ran out). */
static void test_program_load_of_a_fifo_device_or_directory_is_an_io_error(void) {
  char dir[] = "/tmp/ctorch_test_program_dir_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char fifo[300];
  snprintf(fifo, sizeof fifo, "%s/p.ctp", dir);
  CHECK(mkfifo(fifo, 0600) == 0);
  ct_program* p = (ct_program*)capi_sentinel();
  CHECK_STATUS(ct_program_load(fifo, &p), CT_ERROR_IO);
  CHECK(p == NULL);
  CHECK_ERROR_CONTAINS("a FIFO");
  CHECK_STATUS(ct_program_load("/dev/zero", &p), CT_ERROR_IO);
  CHECK_ERROR_CONTAINS("a character device");
  CHECK_STATUS(ct_program_load(dir, &p), CT_ERROR_IO);
  CHECK_ERROR_CONTAINS("a directory");
  remove(fifo);
  rmdir(dir);
}

static void test_program_load_checks_the_header_of_a_file_first(void) {
  char path[] = "/tmp/ctorch_test_program_XXXXXX";
  const int fd = mkstemp(path);
  CHECK(fd >= 0);
  static const char junk[64] = "not a program, and much longer than the header";
  CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk);
  close(fd);
  ct_program* p = (ct_program*)capi_sentinel();
  CHECK_STATUS(ct_program_load(path, &p), CT_ERROR_FORMAT);
  CHECK(p == NULL);
  CHECK_ERROR_CONTAINS("not a ctorch program file");
  remove(path);
}

/* Every string of a program file is UTF-8, so every binding can decode it; anything else is a
 * format error, not a decoding error in Python. */
static void test_program_strings_that_are_not_utf8_are_format_errors(void) {
  ct_program* p = export_add_with_batch();
  char* bytes = NULL;
  size_t n = 0;
  CHECK_OK(ct_program_save_buffer(p, &bytes, &n));
  int patched = 0;
  for (size_t i = 0; i + 3 <= n && !patched; ++i)
    if (memcmp(bytes + i, "add", 3) == 0) bytes[i] = (char)0xff, patched = 1;
  CHECK(patched);
  ct_program* q = (ct_program*)capi_sentinel();
  CHECK_STATUS(ct_program_load_buffer(bytes, n, &q), CT_ERROR_FORMAT);
  CHECK(q == NULL);
  CHECK_ERROR_CONTAINS("is not valid UTF-8");
  ct_string_release(bytes);
  ct_program_release(p);
}

static void test_specializing_a_declared_dim_is_an_error(void) {
  ct_tensor* x = randn(4, 3);
  const ct_tensor* ex[1] = {x};
  ct_dynamic_shapes* ds = NULL;
  CHECK_OK(ct_dynamic_shapes_create(&ds));
  CHECK_OK(ct_dynamic_shapes_set_dim(ds, 0, 0, "batch", 1, 64));
  ct_program* p = (ct_program*)capi_sentinel();
  CHECK_STATUS(ct_export(flatten_by_sizes, NULL, ex, 1, 1, ds, &p), CT_ERROR_GUARD);
  CHECK_ERROR_CONTAINS("\"batch\" was specialized to 4");
  CHECK(p == NULL);
  CHECK_STATUS(ct_dynamic_shapes_set_dim(ds, 0, 0, "batch", 9, 3), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_dynamic_shapes_set_dim(ds, 0, 0, "", 1, 3), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_dynamic_shapes_set_dim(ds, 0, 5, "cols", 1, 64));
  CHECK_STATUS(ct_export(add2, NULL, ex, 1, 1, ds, &p), CT_ERROR_INDEX);
  ct_dynamic_shapes_release(ds);
  CHECK_STATUS(ct_export(NULL, NULL, ex, 1, 1, NULL, &p), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(x);
}

/* The values of topk(x, k) for each k in range, program against eager. */
static void check_topk_program(ct_program* p, int by_item) {
  ct_tensor* x = randn(1, 50);
  for (int64_t k = 1; k <= 50; k += 7) {
    ct_tensor* kt = NULL;
    if (by_item) {
      kt = T(CT_INT64, S0, (double)k);
    } else {
      CHECK_OK(ct_tensor_empty(SZ(k), 1, CT_FLOAT32, "meta", &kt));
    }
    const ct_tensor* in[2] = {x, kt};
    ct_tensor *got[2] = {NULL, NULL}, *want[2] = {NULL, NULL};
    CHECK_OK(ct_program_call(p, in, 2, got, 2));
    CHECK_OK(ct_tensor_topk(x, k, -1, 1, 1, &want[0], &want[1]));
    CHECK(same_bits(got[0], want[0]));
    ct_tensor_release(kt);
    for (int i = 0; i < 2; ++i) ct_tensor_release(got[i]), ct_tensor_release(want[i]);
  }
  ct_tensor_release(x);
}

static void test_topk_with_k_from_a_dynamic_meta_size(void) {
  ct_tensor *x = randn(1, 50), *k = NULL;
  CHECK_OK(ct_tensor_empty(SZ(5), 1, CT_FLOAT32, "meta", &k));
  const ct_tensor* ex[2] = {x, k};
  ct_dynamic_shapes* ds = NULL;
  CHECK_OK(ct_dynamic_shapes_create(&ds));
  CHECK_OK(ct_dynamic_shapes_set_dim(ds, 1, 0, "k", 1, 50));
  ct_program* p = NULL;
  CHECK_OK(ct_export(topk_dynamic_k, NULL, ex, 2, 2, ds, &p));
  check_topk_program(p, 0);
  /* a saved program runs the same */
  char* bytes = NULL;
  size_t n = 0;
  CHECK_OK(ct_program_save_buffer(p, &bytes, &n));
  ct_program* q = NULL;
  CHECK_OK(ct_program_load_buffer(bytes, n, &q));
  check_topk_program(q, 0);
  ct_tensor* k51 = NULL;
  CHECK_OK(ct_tensor_empty(SZ(51), 1, CT_FLOAT32, "meta", &k51));
  const ct_tensor* in[2] = {x, k51};
  ct_tensor* outs[2];
  CHECK_STATUS(ct_program_call(q, in, 2, outs, 2), CT_ERROR_SHAPE);
  ct_string_release(bytes);
  ct_program_release(p), ct_program_release(q);
  ct_dynamic_shapes_release(ds);
  ct_tensor_release(x), ct_tensor_release(k), ct_tensor_release(k51);
}

static void test_topk_with_k_from_item_is_checked_at_run_time(void) {
  ct_tensor *x = randn(1, 50), *k = T(CT_INT64, S0, 5);
  const ct_tensor* ex[2] = {x, k};
  ct_program* p = NULL;
  CHECK_OK(ct_export(topk_dynamic_k, &by_item_flag, ex, 2, 2, NULL, &p));
  char* g = NULL;
  CHECK_OK(ct_program_graph(p, &g));
  CHECK_CONTAINS(g, "item(%x1) -> u0");
  ct_string_release(g);
  check_topk_program(p, 1);
  char* bytes = NULL;
  size_t n = 0;
  CHECK_OK(ct_program_save_buffer(p, &bytes, &n));
  ct_program* q = NULL;
  CHECK_OK(ct_program_load_buffer(bytes, n, &q));
  check_topk_program(q, 1);
  ct_tensor* k99 = T(CT_INT64, S0, 99);
  const ct_tensor* in[2] = {x, k99};
  ct_tensor* outs[2];
  CHECK_STATUS(ct_program_call(q, in, 2, outs, 2), CT_ERROR_GUARD);
  CHECK_ERROR_CONTAINS("u0 = 99");
  ct_string_release(bytes);
  ct_program_release(p), ct_program_release(q);
  ct_tensor_release(x), ct_tensor_release(k), ct_tensor_release(k99);
}

static void test_a_compiled_function_inlines_into_an_export(void) {
  ct_compiled* inner = NULL;
  CHECK_OK(ct_compile(chain, NULL, NULL, NULL, &inner));
  ct_tensor *x = randn(4, 8), *y = randn(4, 8), *z = randn(4, 8);
  const ct_tensor* ex[3] = {x, y, z};
  ct_dynamic_shapes* ds = NULL;
  CHECK_OK(ct_dynamic_shapes_create(&ds));
  for (size_t i = 0; i < 3; ++i) CHECK_OK(ct_dynamic_shapes_set_dim(ds, i, 0, "batch", 1, 64));
  ct_program* p = NULL;
  CHECK_OK(ct_export(calls_compiled, inner, ex, 3, 1, ds, &p));
  char* g = NULL;
  CHECK_OK(ct_program_graph(p, &g));
  CHECK_CONTAINS(g, "sigmoid(%x0)");
  ct_string_release(g);
  CHECK(metric(inner, "calls") == 0); /* inlined, not called */
  ct_tensor *a = randn(7, 8), *b = randn(7, 8), *c = randn(7, 8), *got = NULL, *want = NULL;
  const ct_tensor* in[3] = {a, b, c};
  CHECK_OK(ct_program_call(p, in, 3, &got, 1));
  CHECK_OK(chain(NULL, in, 3, &want, 1));
  CHECK(same_bits(got, want));
  ct_program_release(p);
  ct_dynamic_shapes_release(ds);
  ct_compiled_release(inner);
  ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(a), ct_tensor_release(b);
  ct_tensor_release(c), ct_tensor_release(got), ct_tensor_release(want);
}

/* Four threads call one compiled function with their own batch sizes, so entries are compiled
 * while others run: every result must equal eager's. */
typedef struct {
  ct_compiled* fn;
  int64_t first_batch;
  int failures;
} Worker;

static void* call_from_thread(void* p) {
  Worker* w = p;
  for (int64_t b = w->first_batch; b < w->first_batch + 12; ++b) {
    ct_tensor *x = randn(b % 7 + 1, 16), *y = randn(b % 7 + 1, 16), *z = randn(b % 7 + 1, 16), *got = NULL;
    ct_tensor* want = NULL;
    const ct_tensor* in[3] = {x, y, z};
    if (ct_compiled_call(w->fn, in, 3, &got, 1) != CT_OK || chain(NULL, in, 3, &want, 1) != CT_OK ||
        !same_bits(got, want))
      ++w->failures;
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(got), ct_tensor_release(want);
  }
  return NULL;
}

static void test_a_compiled_function_is_safe_to_call_from_several_threads(void) {
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(chain, NULL, NULL, NULL, &c));
  Worker w[4];
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) {
    w[i] = (Worker){c, 3 * i, 0};
    CHECK(pthread_create(&t[i], NULL, call_from_thread, &w[i]) == 0);
  }
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
  for (int i = 0; i < 4; ++i) CHECK(w[i].failures == 0);
  CHECK(metric(c, "calls") == 48);
  ct_compiled_release(c);
}

static void test_compile_metrics_are_global_metrics_too(void) {
  CHECK(ct_has_feature("compile") == 1);
  int64_t before = 0, after = 0;
  CHECK_OK(ct_metric_get("compile.compiles", &before));
  ct_compiled* c = NULL;
  CHECK_OK(ct_compile(add2, NULL, NULL, NULL, &c));
  ct_tensor *x = randn(2, 2), *got = NULL;
  const ct_tensor* in[2] = {x, x};
  CHECK_OK(ct_compiled_call(c, in, 2, &got, 1));
  CHECK_OK(ct_metric_get("compile.compiles", &after));
  CHECK(after == before + 1);
  int64_t p95 = -1;
  CHECK_OK(ct_metric_get("compile.latency_p95_us", &p95));
  CHECK(p95 >= 0);
  ct_compiled_release(c);
  ct_tensor_release(x), ct_tensor_release(got);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_options_validate_each_value_and_list_the_known),
    CAPI_TEST(test_destroy_runs_once_on_release_and_on_failure),
    CAPI_TEST(test_pointwise_chain_is_fused_and_matches_eager_bitwise),
    CAPI_TEST_SWEPT(test_cpp_kernels_have_the_tile_loops_bits, 16),
    CAPI_TEST_SWEPT(test_hot_kernels_are_built_in_the_background, 16),
    CAPI_TEST(test_eager_backend_replays_the_graph),
    CAPI_TEST(test_automatic_dynamic_compiles_twice_for_twenty_batch_sizes),
    CAPI_TEST(test_broadcast_guard_separates_size_one),
    CAPI_TEST(test_dynamic_off_and_the_recompile_limit),
    CAPI_TEST(test_data_read_is_a_graph_break),
    CAPI_TEST(test_operator_errors_reach_the_caller),
    CAPI_TEST(test_gradients_through_a_compiled_function_equal_eager),
    CAPI_TEST(test_a_compiled_function_compiles_its_backward_too),
    CAPI_TEST(test_captured_tensors_are_held_by_reference),
    CAPI_TEST(test_noncontiguous_inputs_get_their_own_entry),
    CAPI_TEST(test_size_reads_specialize),
    CAPI_TEST(test_exported_program_runs_every_batch_in_range),
    CAPI_TEST(test_program_and_compiled_handles_count_and_refuse_bad_arguments),
    CAPI_TEST(test_program_saves_and_loads),
    CAPI_TEST(test_program_load_of_a_fifo_device_or_directory_is_an_io_error),
    CAPI_TEST(test_program_load_checks_the_header_of_a_file_first),
    CAPI_TEST(test_program_strings_that_are_not_utf8_are_format_errors),
    CAPI_TEST(test_specializing_a_declared_dim_is_an_error),
    CAPI_TEST(test_topk_with_k_from_a_dynamic_meta_size),
    CAPI_TEST(test_topk_with_k_from_item_is_checked_at_run_time),
    CAPI_TEST(test_a_compiled_function_inlines_into_an_export),
    CAPI_TEST(test_a_compiled_function_is_safe_to_call_from_several_threads),
    CAPI_TEST(test_compile_metrics_are_global_metrics_too),
};
CAPI_MAIN(TESTS)
