/*
 * capi_test.h - a small harness for the C ABI tests in tests/capi/.
 *
 * Each test is a `static void test_...(void)` function. A failed CHECK prints one line,
 * "file:line: test_name: what failed [last error: ...]", and ends the test (the remaining checks
 * of that test are skipped). Each file registers its tests in main:
 *
 *   static const capi_test TESTS[] = {CAPI_TEST(test_x), CAPI_TEST(test_y)};
 *   CAPI_MAIN(TESTS)
 *
 * The run ends with exactly one line "N passed, M failed" (CI reads it); the exit status is
 * non-zero when a test failed. Arguments: substrings; only tests whose name contains one run, and
 * "-substring" skips the tests whose name contains it.
 * With CAPI_FORK=1 in the environment each test runs in a child process, so a crash in the
 * library is reported as that test's failure and the others still run. With CAPI_FAULT_SWEEP=K, in
 * a build with allocation-failure injection, each test runs with its allocations failing one at a
 * time (at most K points per test, fewer for a test registered with CAPI_TEST_SWEPT; see
 * capi_fault_sweep.h).
 *
 * Tensor helpers: T(dtype, S(2, 3), 1, 2, 3, 4, 5, 6) makes a tensor from values given as doubles
 * (S0 for 0-dim; TE(dtype, S(0, 3)) for zeros, e.g. an empty one); CHECK_TENSOR(t, dtype, S(2), 1, 2) checks
 * dtype, sizes and every value exactly (NaN matches NaN); CHECK_TENSOR_NEAR adds a tolerance.
 */
#ifndef CAPI_TEST_H
#define CAPI_TEST_H

#if !defined(_POSIX_C_SOURCE) && !defined(_WIN32)
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__)
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "ctorch.h"

/* ---- Registry and results ---- */

typedef struct capi_test {
  const char* name;
  void (*fn)(void);
  int64_t sweep_points; /* 0: CAPI_FAULT_SWEEP's count; else at most this many (CAPI_TEST_SWEPT) */
} capi_test;

#define CAPI_TEST(fn) {#fn, fn, 0}
/* A test whose every replay is costly for a reason other than its allocations (it runs the C++
   compiler into a fresh kernel cache, or checks a kernel over thousands of shapes) is swept at
   no more than k points: its failure paths are reached just as well, at a fraction of the time. */
#define CAPI_TEST_SWEPT(fn, k) {#fn, fn, k}

static const char* capi_current = "";
static int capi_failed_now = 0;
static const char* capi_context = NULL; /* optional extra label, e.g. the op under test */

/* In the fault sweep's children (capi_fault_sweep.h) failures are kept, not printed: the first
   one's line, for the sweep's report. */
static int capi_quiet = 0;
static char capi_first_failure[1024];

static inline void capi_report(const char* file, int line, const char* fmt, const char* a, const char* b) {
  if (capi_quiet) {
    if (!capi_failed_now) { /* the line, cut to fit */
      char* out = capi_first_failure;
      size_t k = (size_t)snprintf(out, sizeof capi_first_failure, "%s:%d: ", file, line);
      if (k < sizeof capi_first_failure)
        k += (size_t)snprintf(out + k, sizeof capi_first_failure - k, fmt, a ? a : "(null)", b ? b : "(null)");
      if (k < sizeof capi_first_failure)
        snprintf(out + k, sizeof capi_first_failure - k, " [last error: %s]", ct_last_error());
    }
    capi_failed_now = 1;
    return;
  }
  capi_failed_now = 1;
  printf("%s:%d: %s: ", file, line, capi_current);
  if (capi_context) printf("[%s] ", capi_context);
  printf(fmt, a ? a : "(null)", b ? b : "(null)");
  printf(" [last error: %s]\n", ct_last_error());
  fflush(stdout);
}

static inline int capi_check_status(const char* file, int line, const char* expr, ct_status got, ct_status want) {
  char buf[160];
  if (got == want) {
    if (want != CT_OK && ct_last_error()[0] == '\0') {
      capi_report(file, line, "%s: %s but ct_last_error() is empty", expr, ct_status_name(got));
      return 0;
    }
    return 1;
  }
  snprintf(buf, sizeof buf, "%s, expected %s", ct_status_name(got), ct_status_name(want));
  capi_report(file, line, "%s gave %s", expr, buf);
  return 0;
}

/* CHECK(cond): cond must hold. */
#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      capi_report(__FILE__, __LINE__, "CHECK(%s)%s", #cond, "");                     \
      return;                                                                         \
    }                                                                                 \
  } while (0)

/* CHECK_OK(expr): expr returns CT_OK. */
#define CHECK_OK(expr)                                                              \
  do {                                                                              \
    if (!capi_check_status(__FILE__, __LINE__, #expr, (expr), CT_OK)) return;        \
  } while (0)

/* CHECK_STATUS(expr, status): expr returns status (and, for a failure, sets a message). */
#define CHECK_STATUS(expr, status)                                                  \
  do {                                                                              \
    if (!capi_check_status(__FILE__, __LINE__, #expr, (expr), (status))) return;     \
  } while (0)

/* CHECK_STR_EQ(got, want), CHECK_CONTAINS(haystack, needle): string checks. */
#define CHECK_STR_EQ(got, want)                                                               \
  do {                                                                                        \
    const char* capi_g_ = (got);                                                              \
    const char* capi_w_ = (want);                                                             \
    if (!capi_g_ || strcmp(capi_g_, capi_w_) != 0) {                                          \
      capi_report(__FILE__, __LINE__, "got \"%s\", expected \"%s\"", capi_g_, capi_w_);       \
      return;                                                                                 \
    }                                                                                         \
  } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                          \
  do {                                                                                            \
    const char* capi_h_ = (haystack);                                                             \
    const char* capi_n_ = (needle);                                                               \
    if (!capi_h_ || !strstr(capi_h_, capi_n_)) {                                                  \
      capi_report(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", capi_h_, capi_n_);        \
      return;                                                                                     \
    }                                                                                             \
  } while (0)

/* CHECK_ERROR_CONTAINS(needle): ct_last_error() contains needle. */
#define CHECK_ERROR_CONTAINS(needle) CHECK_CONTAINS(ct_last_error(), needle)

/* A non-NULL value that is not a handle: put it in an out pointer to see that failure sets NULL. */
static char capi_sentinel_byte;
static inline void* capi_sentinel(void) { return &capi_sentinel_byte; }
#define SENTINEL ((ct_tensor*)capi_sentinel())

/* ---- Half-precision conversions (for building and reading float16/bfloat16 data) ---- */

static inline float capi_bits_to_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static inline uint32_t capi_float_to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float capi_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = ldexpf((float)man, -24);
  } else if (exp == 31) {
    v = man ? NAN : INFINITY;
  } else {
    v = ldexpf((float)(man | 0x400), (int)exp - 25);
  }
  return sign ? -v : v;
}

static inline uint16_t capi_float_to_half(float f) {
  uint32_t x = capi_float_to_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  float a = fabsf(f);
  if (isnan(f)) return (uint16_t)(sign | 0x7e00);
  if (a >= 65520.0f) return (uint16_t)(sign | 0x7c00);
  if (a < ldexpf(1.0f, -14)) { /* subnormal: units of 2^-24, round half to even */
    float q = a * 16777216.0f;
    return (uint16_t)(sign | (uint16_t)nearbyintf(q));
  }
  int e;
  float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  float scaled = ldexpf(m, 11); /* 11 significant bits */
  uint32_t mant = (uint32_t)nearbyintf(scaled);
  if (mant == 2048) {
    mant = 1024;
    e += 1;
  }
  if (e + 14 >= 31) return (uint16_t)(sign | 0x7c00);
  return (uint16_t)(sign | (uint16_t)((uint32_t)(e + 14) << 10) | (uint16_t)(mant & 0x3ff));
}

static inline float capi_bf16_to_float(uint16_t h) { return capi_bits_to_float((uint32_t)h << 16); }

static inline uint16_t capi_float_to_bf16(float f) {
  uint32_t u = capi_float_to_bits(f);
  if (isnan(f)) return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

/* ---- Element conversion between doubles and raw dtype buffers ----
 * A complex element is (v, 0) in and its real part out: T(CT_COMPLEX64, ...) makes real values. */

static inline size_t capi_itemsize(ct_dtype dt) {
  switch (dt) {
    case CT_BOOL: case CT_UINT8: case CT_INT8: return 1;
    case CT_INT16: case CT_FLOAT16: case CT_BFLOAT16: return 2;
    case CT_INT32: case CT_FLOAT32: return 4;
    case CT_INT64: case CT_FLOAT64: case CT_COMPLEX64: return 8;
    case CT_COMPLEX128: return 16;
  }
  return 0;
}

static inline void capi_store(ct_dtype dt, void* p, size_t i, double v) {
  switch (dt) {
    case CT_BOOL: ((uint8_t*)p)[i] = v != 0; break;
    case CT_UINT8: ((uint8_t*)p)[i] = (uint8_t)v; break;
    case CT_INT8: ((int8_t*)p)[i] = (int8_t)v; break;
    case CT_INT16: ((int16_t*)p)[i] = (int16_t)v; break;
    case CT_INT32: ((int32_t*)p)[i] = (int32_t)v; break;
    case CT_INT64: ((int64_t*)p)[i] = (int64_t)v; break;
    case CT_FLOAT16: ((uint16_t*)p)[i] = capi_float_to_half((float)v); break;
    case CT_BFLOAT16: ((uint16_t*)p)[i] = capi_float_to_bf16((float)v); break;
    case CT_FLOAT32: ((float*)p)[i] = (float)v; break;
    case CT_FLOAT64: ((double*)p)[i] = v; break;
    case CT_COMPLEX64: ((float*)p)[2 * i] = (float)v; ((float*)p)[2 * i + 1] = 0; break;
    case CT_COMPLEX128: ((double*)p)[2 * i] = v; ((double*)p)[2 * i + 1] = 0; break;
  }
}

static inline double capi_load(ct_dtype dt, const void* p, size_t i) {
  switch (dt) {
    case CT_BOOL: return ((const uint8_t*)p)[i];
    case CT_UINT8: return ((const uint8_t*)p)[i];
    case CT_INT8: return ((const int8_t*)p)[i];
    case CT_INT16: return ((const int16_t*)p)[i];
    case CT_INT32: return ((const int32_t*)p)[i];
    case CT_INT64: return (double)((const int64_t*)p)[i];
    case CT_FLOAT16: return capi_half_to_float(((const uint16_t*)p)[i]);
    case CT_BFLOAT16: return capi_bf16_to_float(((const uint16_t*)p)[i]);
    case CT_FLOAT32: return ((const float*)p)[i];
    case CT_FLOAT64: return ((const double*)p)[i];
    case CT_COMPLEX64: return ((const float*)p)[2 * i];
    case CT_COMPLEX128: return ((const double*)p)[2 * i];
  }
  return NAN;
}

/* ---- Making tensors ---- */

#define S(...) ((const int64_t[]){__VA_ARGS__}), (sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define S0 NULL, ((size_t)0)
/* SZ(...): only the array, for functions whose ndim is not next to sizes. */
#define SZ(...) ((const int64_t[]){__VA_ARGS__})

static inline ct_tensor* capi_make(const char* file, int line, ct_dtype dt, const int64_t* sizes, size_t ndim,
                            const double* vals, size_t nvals) {
  int64_t numel = 1;
  for (size_t d = 0; d < ndim; ++d) numel *= sizes[d];
  if (vals != NULL && numel != 0 && (size_t)numel != nvals) {
    capi_report(file, line, "T(...): %s%s", "value count differs from the sizes' numel", "");
    return NULL;
  }
  size_t bytes = (size_t)numel * capi_itemsize(dt);
  void* buf = malloc(bytes ? bytes : 1);
  for (int64_t i = 0; i < numel; ++i) capi_store(dt, buf, (size_t)i, vals ? vals[i] : 0.0);
  ct_tensor* t = NULL;
  ct_status st = ct_tensor_from_data(numel ? buf : NULL, sizes, ndim, dt, &t);
  free(buf);
  if (st != CT_OK) {
    capi_report(file, line, "T(...): ct_tensor_from_data gave %s%s", ct_status_name(st), "");
    return NULL;
  }
  return t;
}

/* T(dtype, sizes, values...): a new tensor (release it); NULL (and a failure) if it cannot be made. */
#define T(dt, sz, ...)                                                    \
  capi_make(__FILE__, __LINE__, (dt), sz, ((const double[]){__VA_ARGS__}), \
            sizeof((const double[]){__VA_ARGS__}) / sizeof(double))
/* TE(dtype, sizes): a zero-filled tensor (made with ct_tensor_from_data), e.g. one with numel 0. */
#define TE(dt, sz) capi_make(__FILE__, __LINE__, (dt), sz, NULL, 0)

/* A handle that was released: make a tensor and release it. Create nothing else before using it. */
static inline ct_tensor* capi_released(void) {
  ct_tensor* t = NULL;
  const float v = 1.0f;
  const int64_t n = 1;
  if (ct_tensor_from_data(&v, &n, 1, CT_FLOAT32, &t) != CT_OK) return NULL;
  ct_tensor_release(t);
  return t;
}

/* ---- Checking tensors ---- */

static inline int capi_check_tensor(const char* file, int line, const char* expr, const ct_tensor* t, ct_dtype dt,
                             const int64_t* sizes, size_t ndim, const double* vals, size_t nvals, double tol) {
  char msg[512];
  size_t got_ndim = 0;
  ct_dtype got_dt;
  if (t == NULL) {
    capi_report(file, line, "%s is NULL%s", expr, "");
    return 0;
  }
  if (ct_tensor_dtype(t, &got_dt) != CT_OK || ct_tensor_ndim(t, &got_ndim) != CT_OK) {
    capi_report(file, line, "%s: cannot read dtype/ndim%s", expr, "");
    return 0;
  }
  if (got_dt != dt) {
    snprintf(msg, sizeof msg, "dtype %s, expected %s", ct_dtype_name(got_dt), ct_dtype_name(dt));
    capi_report(file, line, "%s: %s", expr, msg);
    return 0;
  }
  int64_t got_sizes[64];
  if (got_ndim > 64 || ct_tensor_sizes(t, got_sizes, got_ndim) != CT_OK) {
    capi_report(file, line, "%s: cannot read sizes%s", expr, "");
    return 0;
  }
  int same = got_ndim == ndim;
  for (size_t d = 0; same && d < ndim; ++d) same = got_sizes[d] == sizes[d];
  if (!same) {
    int k = snprintf(msg, sizeof msg, "sizes [");
    for (size_t d = 0; d < got_ndim && k < 200; ++d) k += snprintf(msg + k, sizeof msg - (size_t)k, "%s%lld", d ? ", " : "", (long long)got_sizes[d]);
    k += snprintf(msg + k, sizeof msg - (size_t)k, "], expected [");
    for (size_t d = 0; d < ndim && k < 400; ++d) k += snprintf(msg + k, sizeof msg - (size_t)k, "%s%lld", d ? ", " : "", (long long)sizes[d]);
    snprintf(msg + k, sizeof msg - (size_t)k, "]");
    capi_report(file, line, "%s: %s", expr, msg);
    return 0;
  }
  if (vals == NULL) return 1; /* sizes and dtype only */
  int64_t numel = 1;
  for (size_t d = 0; d < ndim; ++d) numel *= sizes[d];
  if ((size_t)numel != nvals && numel != 0) {
    capi_report(file, line, "%s: %s", expr, "test bug: value count differs from numel");
    return 0;
  }
  size_t bytes = (size_t)numel * capi_itemsize(dt);
  void* buf = malloc(bytes ? bytes : 1);
  ct_status st = ct_tensor_copy_to(t, bytes ? buf : NULL, bytes);
  if (st != CT_OK) {
    free(buf);
    capi_report(file, line, "%s: ct_tensor_copy_to gave %s", expr, ct_status_name(st));
    return 0;
  }
  for (int64_t i = 0; i < numel; ++i) {
    double g = capi_load(dt, buf, (size_t)i), w = vals[i];
    int ok = (isnan(g) && isnan(w)) || g == w || (tol > 0 && fabs(g - w) <= tol * (1.0 + fabs(w)));
    if (!ok) {
      snprintf(msg, sizeof msg, "element %lld is %.17g, expected %.17g", (long long)i, g, w);
      free(buf);
      capi_report(file, line, "%s: %s", expr, msg);
      return 0;
    }
  }
  free(buf);
  return 1;
}

/* CHECK_TENSOR(t, dtype, sizes, values...): dtype, sizes and values (exact; NaN matches NaN). */
#define CHECK_TENSOR(t, dt, sz, ...)                                                                      \
  do {                                                                                                    \
    if (!capi_check_tensor(__FILE__, __LINE__, #t, (t), (dt), sz, ((const double[]){__VA_ARGS__}),         \
                           sizeof((const double[]){__VA_ARGS__}) / sizeof(double), 0.0))                   \
      return;                                                                                             \
  } while (0)

/* CHECK_TENSOR_NEAR(t, dtype, tol, sizes, values...): |got - want| <= tol * (1 + |want|). */
#define CHECK_TENSOR_NEAR(t, dt, tol, sz, ...)                                                            \
  do {                                                                                                    \
    if (!capi_check_tensor(__FILE__, __LINE__, #t, (t), (dt), sz, ((const double[]){__VA_ARGS__}),         \
                           sizeof((const double[]){__VA_ARGS__}) / sizeof(double), (tol)))                 \
      return;                                                                                             \
  } while (0)

/* CHECK_TENSOR_ARRAY(t, dtype, sizes, values, n, tol): like CHECK_TENSOR with values in an array. */
#define CHECK_TENSOR_ARRAY(t, dt, sz, arr, n, tol)                                                   \
  do {                                                                                               \
    if (!capi_check_tensor(__FILE__, __LINE__, #t, (t), (dt), sz, (arr), (n), (tol))) return;        \
  } while (0)

/* CHECK_META(t, dtype, sizes): dtype and sizes only (for meta and empty tensors). */
#define CHECK_META(t, dt, sz)                                                                    \
  do {                                                                                           \
    if (!capi_check_tensor(__FILE__, __LINE__, #t, (t), (dt), sz, NULL, 0, 0.0)) return;          \
  } while (0)

/* Release several handles (NULL entries are fine). */
#define RELEASE(...)                                                                   \
  do {                                                                                 \
    ct_tensor* capi_r_[] = {__VA_ARGS__};                                              \
    for (size_t capi_i_ = 0; capi_i_ < sizeof capi_r_ / sizeof *capi_r_; ++capi_i_)    \
      ct_tensor_release(capi_r_[capi_i_]);                                             \
  } while (0)

/* Scalars. */
static inline ct_scalar SI(int64_t v) { ct_scalar s = {CT_SCALAR_INT, v, 0.0}; return s; }
static inline ct_scalar SF(double v) { ct_scalar s = {CT_SCALAR_FLOAT, 0, v}; return s; }
static inline ct_scalar SB(int v) { ct_scalar s = {CT_SCALAR_BOOL, v ? 1 : 0, 0.0}; return s; }

/* Boxed values for ct_op_call: VT(tensor), VI(int), VF(float), VINTS(array, n), VSTR(string), VNONE(). */
static inline ct_value capi_value(ct_value_kind kind) {
  ct_value v;
  memset(&v, 0, sizeof v);
  v.kind = kind;
  return v;
}
static inline ct_value VT(const ct_tensor* t) { ct_value v = capi_value(CT_VALUE_TENSOR); v.tensor = t; return v; }
static inline ct_value VI(int64_t i) { ct_value v = capi_value(CT_VALUE_INT); v.i = i; return v; }
static inline ct_value VF(double f) { ct_value v = capi_value(CT_VALUE_FLOAT); v.f = f; return v; }
static inline ct_value VINTS(const int64_t* ints, size_t n) {
  ct_value v = capi_value(CT_VALUE_INTS);
  v.ints = ints;
  v.len = n;
  return v;
}
static inline ct_value VSTR(const char* s) { ct_value v = capi_value(CT_VALUE_STRING); v.str = s; return v; }
static inline ct_value VNONE(void) { return capi_value(CT_VALUE_NONE); }

/* ---- Running ---- */

static inline int capi_selected(const char* name, int argc, char** argv) {
  int has_include = 0, included = 0;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-') {
      if (strstr(name, argv[i] + 1)) return 0;
    } else {
      has_include = 1;
      if (strstr(name, argv[i])) included = 1;
    }
  }
  return !has_include || included;
}

static inline int capi_run_one(const capi_test* t) {
  capi_current = t->name;
  capi_failed_now = 0;
  capi_context = NULL;
  t->fn();
  capi_context = NULL;
  return !capi_failed_now;
}

#include "capi_fault_sweep.h"

static inline int capi_run(const capi_test* tests, size_t n, int argc, char** argv) {
  int passed = 0, failed = 0;
  int use_fork = 0;
  const char* env = getenv("CAPI_FORK");
  if (env && env[0] && env[0] != '0') use_fork = 1;
#if defined(__unix__)
  const char* sweep_env = getenv("CAPI_FAULT_SWEEP");
  const int64_t sweep = sweep_env ? strtoll(sweep_env, NULL, 10) : 0;
  capi_fault_hooks hooks;
  int64_t swept = 0;
  if (sweep && !capi_fault_hooks_find(&hooks)) {
    printf("CAPI_FAULT_SWEEP needs a library built with CTORCH_FAULT_INJECTION=ON\n0 passed, 1 failed\n");
    return 1;
  }
#endif
  {
    ct_status st = ct_init(CT_ABI_VERSION);
    if (st != CT_OK) {
      printf("%s:%d: setup: ct_init(CT_ABI_VERSION) gave %s [last error: %s]\n", __FILE__, __LINE__,
             ct_status_name(st), ct_last_error());
      ++failed;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (!capi_selected(tests[i].name, argc, argv)) continue;
    int ok;
#if defined(__unix__)
    if (sweep > 0) {
      const int64_t points = tests[i].sweep_points && tests[i].sweep_points < sweep ? tests[i].sweep_points : sweep;
      ok = capi_fault_sweep(&tests[i], &hooks, points, &swept);
    } else if (use_fork) {
      fflush(stdout);
      pid_t pid = fork();
      if (pid == 0) _exit(capi_run_one(&tests[i]) ? 0 : 1);
      int wst = 0;
      waitpid(pid, &wst, 0);
      ok = WIFEXITED(wst) && WEXITSTATUS(wst) == 0;
      if (WIFSIGNALED(wst)) printf("%s: crashed (signal %d)\n", tests[i].name, WTERMSIG(wst));
    } else
#endif
    {
      (void)use_fork;
      ok = capi_run_one(&tests[i]);
    }
    if (ok) ++passed; else ++failed;
  }
#if defined(__unix__)
  if (sweep > 0) printf("fault sweep: %lld allocation points\n", (long long)swept);
#endif
  printf("%d passed, %d failed\n", passed, failed);
  fflush(stdout);
  return failed ? 1 : 0;
}

#define CAPI_MAIN(tests) \
  int main(int argc, char** argv) { return capi_run(tests, sizeof(tests) / sizeof((tests)[0]), argc, argv); }

#endif /* CAPI_TEST_H */
