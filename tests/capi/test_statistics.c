/* Statistics, scans and sorting: var, std, norm, logsumexp, all, any, cumsum, sort, argsort, topk. */
#include <math.h>

#include "capi_test.h"

/* a = [[1, 2, 3], [4, 5, 6]] float32 */
static ct_tensor* mat23(void) { return T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6); }

static void test_var_std_with_correction(void) {
  ct_tensor* a = mat23();
  ct_tensor *v1 = NULL, *v0 = NULL, *all = NULL, *s1 = NULL, *k = NULL;
  CHECK_OK(ct_tensor_var(a, S(1), 1.0, 0, &v1));
  CHECK_TENSOR(v1, CT_FLOAT32, S(2), 1, 1);
  CHECK_OK(ct_tensor_var(a, S(1), 0.0, 0, &v0));
  CHECK_TENSOR_NEAR(v0, CT_FLOAT32, 1e-6, S(2), 2.0 / 3, 2.0 / 3);
  CHECK_OK(ct_tensor_var(a, NULL, 0, 1.0, 0, &all));
  CHECK_TENSOR(all, CT_FLOAT32, S0, 3.5);
  CHECK_OK(ct_tensor_std(a, S(0), 1.0, 0, &s1));
  CHECK_TENSOR_NEAR(s1, CT_FLOAT32, 1e-6, S(3), sqrt(4.5), sqrt(4.5), sqrt(4.5));
  CHECK_OK(ct_tensor_std(a, S(-1), 1.0, 1, &k));
  CHECK_TENSOR(k, CT_FLOAT32, S(2, 1), 1, 1);
  RELEASE(a, v1, v0, all, s1, k);
}

static void test_var_of_one_element_is_nan(void) {
  ct_tensor* a = T(CT_FLOAT64, S(1), 5);
  ct_tensor* v = NULL;
  CHECK_OK(ct_tensor_var(a, NULL, 0, 1.0, 0, &v));
  CHECK_TENSOR(v, CT_FLOAT64, S0, NAN);
  RELEASE(a, v);
}

static void test_var_errors(void) {
  ct_tensor* a = mat23();
  ct_tensor* i = T(CT_INT32, S(2), 1, 2);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_var(i, NULL, 0, 1.0, 0, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("var");
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_std(NULL, NULL, 0, 1.0, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_var(a, NULL, 0, 1.0, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_var(a, NULL, 2, 1.0, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_var(a, S(2), 1.0, 0, &out), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_std(a, S(1, 1), 1.0, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  RELEASE(a, i);
}

static void test_norm(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 3, -4, 0, 1);
  ct_tensor *n2 = NULL, *ninf = NULL, *n1 = NULL, *n0 = NULL, *all = NULL;
  CHECK_OK(ct_tensor_norm(a, 2.0, S(1), 0, &n2));
  CHECK_TENSOR(n2, CT_FLOAT32, S(2), 5, 1);
  CHECK_OK(ct_tensor_norm(a, INFINITY, S(1), 1, &ninf));
  CHECK_TENSOR(ninf, CT_FLOAT32, S(2, 1), 4, 1);
  CHECK_OK(ct_tensor_norm(a, 1.0, S(0), 0, &n1));
  CHECK_TENSOR(n1, CT_FLOAT32, S(2), 3, 5);
  CHECK_OK(ct_tensor_norm(a, 0.0, NULL, 0, 0, &n0));
  CHECK_TENSOR(n0, CT_FLOAT32, S0, 3);
  CHECK_OK(ct_tensor_norm(a, 2.0, NULL, 0, 0, &all));
  CHECK_TENSOR_NEAR(all, CT_FLOAT32, 1e-6, S0, sqrt(26.0));
  RELEASE(a, n2, ninf, n1, n0, all);
}

static void test_norm_errors(void) {
  ct_tensor* i = T(CT_INT64, S(2), 3, 4);
  ct_tensor* e = TE(CT_FLOAT32, S(0));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_norm(i, 2.0, NULL, 0, 0, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_norm(e, INFINITY, NULL, 0, 0, &out), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_norm(NULL, 2.0, NULL, 0, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(i, e);
}

static void test_logsumexp_is_stable(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 1000, 1000, 0, 0);
  ct_tensor* i = T(CT_INT32, S(2), 0, 0);
  ct_tensor *r = NULL, *ri = NULL;
  CHECK_OK(ct_tensor_logsumexp(a, S(1), 0, &r));
  CHECK_TENSOR_NEAR(r, CT_FLOAT32, 1e-4, S(2), 1000 + log(2.0), log(2.0));
  CHECK_OK(ct_tensor_logsumexp(i, NULL, 0, 0, &ri));
  CHECK_TENSOR_NEAR(ri, CT_FLOAT32, 1e-6, S0, log(2.0));
  RELEASE(a, i, r, ri);
}

static void test_all_any(void) {
  ct_tensor* a = T(CT_INT32, S(2, 2), 1, 0, 1, 1);
  ct_tensor* u = T(CT_UINT8, S(2), 1, 2);
  ct_tensor *all0 = NULL, *any1 = NULL, *all = NULL, *anyk = NULL, *allu = NULL;
  const int64_t d0 = 0, d1 = 1;
  CHECK_OK(ct_tensor_all(a, &d0, 0, &all0));
  CHECK_TENSOR(all0, CT_BOOL, S(2), 1, 0);
  CHECK_OK(ct_tensor_any(a, &d1, 0, &any1));
  CHECK_TENSOR(any1, CT_BOOL, S(2), 1, 1);
  CHECK_OK(ct_tensor_all(a, NULL, 0, &all));
  CHECK_TENSOR(all, CT_BOOL, S0, 0);
  CHECK_OK(ct_tensor_any(a, &d1, 1, &anyk));
  CHECK_TENSOR(anyk, CT_BOOL, S(2, 1), 1, 1);
  CHECK_OK(ct_tensor_all(u, NULL, 0, &allu));
  CHECK_TENSOR(allu, CT_UINT8, S0, 1);
  RELEASE(a, u, all0, any1, all, anyk, allu);
}

static void test_all_any_errors(void) {
  ct_tensor* a = T(CT_BOOL, S(2), 1, 0);
  ct_tensor* out = SENTINEL;
  const int64_t bad = 1;
  CHECK_STATUS(ct_tensor_any(a, &bad, 0, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_all(NULL, NULL, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_all(a, NULL, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a);
}

static void test_cumsum(void) {
  ct_tensor* a = T(CT_INT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor *r1 = NULL, *r0 = NULL;
  const ct_dtype f64 = CT_FLOAT64, b = CT_BOOL;
  CHECK_OK(ct_tensor_cumsum(a, 1, NULL, &r1));
  CHECK_TENSOR(r1, CT_INT64, S(2, 3), 1, 3, 6, 4, 9, 15);
  CHECK_OK(ct_tensor_cumsum(a, -2, &f64, &r0));
  CHECK_TENSOR(r0, CT_FLOAT64, S(2, 3), 1, 2, 3, 5, 7, 9);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_cumsum(a, 2, NULL, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_cumsum(a, 0, &b, &out), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_cumsum(NULL, 0, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, r1, r0);
}

static void test_sort_is_stable_with_nan_last(void) {
  ct_tensor* a = T(CT_FLOAT32, S(6), 3, NAN, 1, 3, -INFINITY, 1);
  ct_tensor *v = NULL, *i = NULL, *vd = NULL, *id = NULL, *as = NULL;
  CHECK_OK(ct_tensor_sort(a, 0, 0, &v, &i));
  CHECK_TENSOR(v, CT_FLOAT32, S(6), -INFINITY, 1, 1, 3, 3, NAN);
  CHECK_TENSOR(i, CT_INT64, S(6), 4, 2, 5, 0, 3, 1);
  CHECK_OK(ct_tensor_sort(a, -1, 1, &vd, &id));
  CHECK_TENSOR(vd, CT_FLOAT32, S(6), NAN, 3, 3, 1, 1, -INFINITY);
  CHECK_TENSOR(id, CT_INT64, S(6), 1, 0, 3, 2, 5, 4);
  CHECK_OK(ct_tensor_argsort(a, 0, 0, &as));
  CHECK_TENSOR(as, CT_INT64, S(6), 4, 2, 5, 0, 3, 1);
  RELEASE(a, v, i, vd, id, as);
}

static void test_sort_along_dim0(void) {
  ct_tensor* a = T(CT_INT16, S(3, 2), 5, -1, 2, 7, 9, 0);
  ct_tensor *v = NULL, *i = NULL;
  CHECK_OK(ct_tensor_sort(a, 0, 1, &v, &i));
  CHECK_TENSOR(v, CT_INT16, S(3, 2), 9, 7, 5, 0, 2, -1);
  CHECK_TENSOR(i, CT_INT64, S(3, 2), 2, 1, 0, 2, 1, 0);
  RELEASE(a, v, i);
}

static void test_sort_errors_leave_both_outputs_null(void) {
  ct_tensor* a = mat23();
  ct_tensor *v = SENTINEL, *i = SENTINEL;
  CHECK_STATUS(ct_tensor_sort(a, 2, 0, &v, &i), CT_ERROR_INDEX);
  CHECK(v == NULL && i == NULL);
  v = SENTINEL;
  CHECK_STATUS(ct_tensor_sort(a, 0, 0, &v, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK(v == NULL);
  i = SENTINEL;
  CHECK_STATUS(ct_tensor_sort(NULL, 0, 0, &v, &i), CT_ERROR_INVALID_ARGUMENT);
  CHECK(v == NULL && i == NULL);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_argsort(a, -3, 0, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  RELEASE(a);
}

static void test_topk(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 4), 1, 5, 3, 5, 0, -2, 8, 4);
  ct_tensor *v = NULL, *i = NULL, *vs = NULL, *is = NULL;
  CHECK_OK(ct_tensor_topk(a, 2, 1, 1, 1, &v, &i));
  CHECK_TENSOR(v, CT_FLOAT32, S(2, 2), 5, 5, 8, 4);
  CHECK_TENSOR(i, CT_INT64, S(2, 2), 1, 3, 2, 3);
  CHECK_OK(ct_tensor_topk(a, 1, 0, 0, 0, &vs, &is));
  CHECK_TENSOR(vs, CT_FLOAT32, S(1, 4), 0, -2, 3, 4);
  CHECK_TENSOR(is, CT_INT64, S(1, 4), 1, 1, 0, 1);
  RELEASE(a, v, i, vs, is);
}

static void test_topk_of_a_long_row_selects(void) {
  enum { N = 100000 };
  static float data[N];
  for (int j = 0; j < N; ++j) data[j] = (float)((j * 7919) % N);  /* a permutation of 0..N-1 */
  ct_tensor *a = NULL, *v = NULL, *i = NULL;
  CHECK_OK(ct_tensor_from_data(data, S(N), CT_FLOAT32, &a));
  CHECK_OK(ct_tensor_topk(a, 3, 0, 1, 1, &v, &i));
  CHECK_TENSOR(v, CT_FLOAT32, S(3), N - 1, N - 2, N - 3);
  RELEASE(a, v, i);
}

/* Same dtype, sizes and bytes; both are made contiguous first. */
static int same_bytes(const ct_tensor* a, const ct_tensor* b) {
  ct_tensor *ca = NULL, *cb = NULL;
  ct_dtype da, db;
  size_t nda = 0, ndb = 0;
  int64_t sa[8], sb[8], na = 0, nb = 0;
  void *pa = NULL, *pb = NULL;
  int same = ct_tensor_contiguous(a, &ca) == CT_OK && ct_tensor_contiguous(b, &cb) == CT_OK &&
             ct_tensor_dtype(ca, &da) == CT_OK && ct_tensor_dtype(cb, &db) == CT_OK && da == db &&
             ct_tensor_ndim(ca, &nda) == CT_OK && ct_tensor_ndim(cb, &ndb) == CT_OK && nda == ndb && nda <= 8 &&
             ct_tensor_sizes(ca, sa, nda) == CT_OK && ct_tensor_sizes(cb, sb, ndb) == CT_OK &&
             memcmp(sa, sb, nda * sizeof(int64_t)) == 0 && ct_tensor_numel(ca, &na) == CT_OK &&
             ct_tensor_numel(cb, &nb) == CT_OK && na == nb && ct_tensor_data_ptr(ca, &pa) == CT_OK &&
             ct_tensor_data_ptr(cb, &pb) == CT_OK && memcmp(pa, pb, (size_t)na * capi_itemsize(da)) == 0;
  ct_tensor_release(ca);
  ct_tensor_release(cb);
  return same;
}

/* rows x n values of dtype dt with what selection gets wrong: ties (row 0 holds few distinct
   values), and for floats NaNs, infinities of both signs, and zeros of both signs. */
static ct_tensor* selection_input(ct_dtype dt, int64_t rows, int64_t n) {
  const int floating = dt == CT_FLOAT32 || dt == CT_FLOAT64 || dt == CT_FLOAT16 || dt == CT_BFLOAT16;
  double* v = (double*)malloc((size_t)(rows * n) * sizeof(double));
  uint32_t state = 12345u;
  for (int64_t i = 0; i < rows * n; ++i) {
    state = state * 1664525u + 1013904223u;
    const int64_t r = i / n;
    const double u = (double)(state >> 8) / 16777216.0; /* [0, 1) */
    double x = floating ? (u - 0.5) * 200.0 : floor((u - 0.5) * 200.0);
    if (r % 4 == 0) x = floor(u * 5.0) - 2.0;                    /* heavy ties */
    if (floating && r % 4 == 1 && (state >> 4) % 17 == 0) x = NAN;
    if (floating && r % 4 == 2 && (state >> 4) % 13 == 0) x = (state & 1) ? INFINITY : -INFINITY;
    if (floating && r % 4 == 3 && (state >> 4) % 3 == 0) x = (state & 1) ? 0.0 : -0.0;
    v[i] = x;
  }
  ct_tensor *d = NULL, *t = NULL;
  if (ct_tensor_from_data(v, SZ(rows, n), 2, CT_FLOAT64, &d) != CT_OK || ct_tensor_to(d, dt, &t) != CT_OK) t = NULL;
  ct_tensor_release(d);
  free(v);
  return t;
}

/* topk must return exactly the first k of the stable sort, values and indices, NaN above +inf and
   ties toward the smaller index: for k from 1 to 16 (the small-k path), 31 to 33 (its bound) and k
   near n (the general path), largest and smallest, along the last dim and along dim 0. */
static void test_topk_is_the_head_of_the_stable_sort(void) {
  const ct_dtype dtypes[] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT32, CT_INT64, CT_INT8, CT_INT16, CT_UINT8};
  const int64_t lengths[] = {16, 40, 300, 2055};
  for (size_t di = 0; di < sizeof dtypes / sizeof dtypes[0]; ++di)
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; ++li) {
      const int64_t n = lengths[li];
      ct_tensor* a = selection_input(dtypes[di], 8, n);
      ct_tensor* at = NULL;
      CHECK(a != NULL);
      CHECK_OK(ct_tensor_transpose(a, 0, 1, &at));
      const int64_t ks[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 31, 32, 33, n / 2, n - 1, n};
      for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki)
        for (int largest = 0; largest <= 1; ++largest)
          for (int along0 = 0; along0 <= 1; ++along0) {
            const int64_t k = ks[ki], dim = along0 ? 0 : 1;
            const ct_tensor* in = along0 ? at : a;
            if (k > n) continue;
            ct_tensor *v = NULL, *i = NULL, *sv = NULL, *si = NULL, *hv = NULL, *hi = NULL;
            CHECK_OK(ct_tensor_topk(in, k, dim, largest, 1, &v, &i));
            CHECK_OK(ct_tensor_sort(in, dim, largest, &sv, &si));
            CHECK_OK(ct_tensor_narrow(sv, dim, 0, k, &hv));
            CHECK_OK(ct_tensor_narrow(si, dim, 0, k, &hi));
            if (!same_bytes(v, hv) || !same_bytes(i, hi)) {
              fprintf(stderr, "topk differs from sort: %s n=%lld k=%lld largest=%d dim=%lld\n", ct_dtype_name(dtypes[di]),
                      (long long)n, (long long)k, largest, (long long)dim);
              CHECK(0);
            }
            RELEASE(v, i, sv, si, hv, hi);
          }
      RELEASE(a, at);
    }
}

/* kthvalue along the last dim is the k-th of the stable ascending sort too (its small-k path). */
static void test_kthvalue_is_the_kth_of_the_stable_sort(void) {
  ct_tensor* a = selection_input(CT_FLOAT32, 8, 2055);
  ct_tensor *sv = NULL, *si = NULL;
  CHECK(a != NULL);
  CHECK_OK(ct_tensor_sort(a, 1, 0, &sv, &si));
  for (int64_t k = 1; k <= 40; ++k) {
    ct_tensor *outs[2] = {NULL, NULL}, *kv = NULL, *ki = NULL;
    const ct_value args[] = {VT(a), VI(k), VI(1)};
    CHECK_OK(ct_op_call("kthvalue", args, 3, outs, 2));
    ct_tensor *v = outs[0], *i = outs[1];
    CHECK_OK(ct_tensor_select(sv, 1, k - 1, &kv));
    CHECK_OK(ct_tensor_select(si, 1, k - 1, &ki));
    CHECK(same_bytes(v, kv) && same_bytes(i, ki));
    RELEASE(v, i, kv, ki);
  }
  RELEASE(a, sv, si);
}

/* Rows are split among threads, never a row: the same bytes on one thread and on two. */
static void test_topk_same_bytes_on_one_and_two_threads(void) {
  int32_t old = 1;
  CHECK_OK(ct_get_num_threads(&old));
  ct_tensor* a = selection_input(CT_FLOAT32, 256, 2048);
  ct_tensor *v1 = NULL, *i1 = NULL, *v2 = NULL, *i2 = NULL;
  CHECK(a != NULL);
  CHECK_OK(ct_set_num_threads(1));
  CHECK_OK(ct_tensor_topk(a, 8, 1, 1, 1, &v1, &i1));
  CHECK_OK(ct_set_num_threads(2));
  CHECK_OK(ct_tensor_topk(a, 8, 1, 1, 1, &v2, &i2));
  CHECK_OK(ct_set_num_threads(old));
  CHECK(same_bytes(v1, v2) && same_bytes(i1, i2));
  RELEASE(a, v1, i1, v2, i2);
}

static void test_topk_errors(void) {
  ct_tensor* a = mat23();
  ct_tensor* b = T(CT_BOOL, S(2), 1, 0);
  ct_tensor *v = SENTINEL, *i = SENTINEL;
  CHECK_STATUS(ct_tensor_topk(a, 4, 1, 1, 1, &v, &i), CT_ERROR_INDEX);
  CHECK(v == NULL && i == NULL);
  CHECK_ERROR_CONTAINS("topk");
  CHECK_STATUS(ct_tensor_topk(a, -1, 1, 1, 1, &v, &i), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_topk(a, 1, 2, 1, 1, &v, &i), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_topk(b, 1, 0, 1, 1, &v, &i), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_topk(a, 1, 0, 1, 1, NULL, &i), CT_ERROR_INVALID_ARGUMENT);
  CHECK(i == NULL);
  RELEASE(a, b);
}

static void test_released_input_is_invalid_argument(void) {
  ct_tensor* a = mat23();
  ct_tensor_release(a);
  ct_tensor *out = SENTINEL, *v = SENTINEL, *i = SENTINEL;
  CHECK_STATUS(ct_tensor_var(a, NULL, 0, 1.0, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_logsumexp(a, NULL, 0, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_sort(a, 0, 0, &v, &i), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL && v == NULL && i == NULL);
}

static void test_on_meta(void) {
  ct_tensor *m = NULL, *v = NULL, *s = NULL, *si = NULL, *tv = NULL, *ti = NULL, *c = NULL;
  CHECK_OK(ct_tensor_empty(S(4, 5), CT_FLOAT32, "meta", &m));
  CHECK_OK(ct_tensor_var(m, S(1), 1.0, 1, &v));
  CHECK_META(v, CT_FLOAT32, S(4, 1));
  CHECK_OK(ct_tensor_sort(m, 0, 0, &s, &si));
  CHECK_META(s, CT_FLOAT32, S(4, 5));
  CHECK_META(si, CT_INT64, S(4, 5));
  CHECK_OK(ct_tensor_topk(m, 3, 1, 1, 1, &tv, &ti));
  CHECK_META(tv, CT_FLOAT32, S(4, 3));
  CHECK_META(ti, CT_INT64, S(4, 3));
  CHECK_OK(ct_tensor_cumsum(m, 1, NULL, &c));
  CHECK_META(c, CT_FLOAT32, S(4, 5));
  RELEASE(m, v, s, si, tv, ti, c);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_var_std_with_correction),
    CAPI_TEST(test_var_of_one_element_is_nan),
    CAPI_TEST(test_var_errors),
    CAPI_TEST(test_norm),
    CAPI_TEST(test_norm_errors),
    CAPI_TEST(test_logsumexp_is_stable),
    CAPI_TEST(test_all_any),
    CAPI_TEST(test_all_any_errors),
    CAPI_TEST(test_cumsum),
    CAPI_TEST(test_sort_is_stable_with_nan_last),
    CAPI_TEST(test_sort_along_dim0),
    CAPI_TEST(test_sort_errors_leave_both_outputs_null),
    CAPI_TEST(test_topk),
    CAPI_TEST(test_topk_of_a_long_row_selects),
    CAPI_TEST_SWEPT(test_topk_is_the_head_of_the_stable_sort, 16),
    CAPI_TEST(test_kthvalue_is_the_kth_of_the_stable_sort),
    CAPI_TEST(test_topk_same_bytes_on_one_and_two_threads),
    CAPI_TEST(test_topk_errors),
    CAPI_TEST(test_released_input_is_invalid_argument),
    CAPI_TEST(test_on_meta),
};
CAPI_MAIN(TESTS)
