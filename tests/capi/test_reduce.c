/* Reductions: sum, mean, prod, amax, amin, argmax, argmin. */
#include "capi_test.h"

typedef ct_status (*reduce_fn)(const ct_tensor*, const int64_t*, size_t, int, ct_tensor**);
typedef ct_status (*arg_fn)(const ct_tensor*, const int64_t*, int, ct_tensor**);

/* a = [[1, 2, 3], [4, 5, 6]] float32 */
static ct_tensor* mat23(void) { return T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6); }

static const struct {
  const char* name;
  reduce_fn fn;
  double all;
  double dim0[3];
  double dim1[2];
} REDUCE[] = {
    {"sum", ct_tensor_sum, 21, {5, 7, 9}, {6, 15}},
    {"mean", ct_tensor_mean, 3.5, {2.5, 3.5, 4.5}, {2, 5}},
    {"prod", ct_tensor_prod, 720, {4, 10, 18}, {6, 120}},
    {"amax", ct_tensor_amax, 6, {4, 5, 6}, {3, 6}},
    {"amin", ct_tensor_amin, 1, {1, 2, 3}, {1, 4}},
};
#define N_REDUCE (sizeof REDUCE / sizeof *REDUCE)

static void test_reductions_over_all_dims(void) {
  ct_tensor* a = mat23();
  for (size_t i = 0; i < N_REDUCE; ++i) {
    capi_context = REDUCE[i].name;
    ct_tensor *all = NULL, *listed = NULL, *kept = NULL;
    CHECK_OK(REDUCE[i].fn(a, NULL, 0, 0, &all));
    CHECK_TENSOR_ARRAY(all, CT_FLOAT32, S0, &REDUCE[i].all, 1, 0.0);
    CHECK_OK(REDUCE[i].fn(a, S(1, 0), 0, &listed));
    CHECK_TENSOR_ARRAY(listed, CT_FLOAT32, S0, &REDUCE[i].all, 1, 0.0);
    CHECK_OK(REDUCE[i].fn(a, NULL, 0, 1, &kept));
    CHECK_TENSOR_ARRAY(kept, CT_FLOAT32, S(1, 1), &REDUCE[i].all, 1, 0.0);
    RELEASE(all, listed, kept);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_reductions_over_one_dim(void) {
  ct_tensor* a = mat23();
  for (size_t i = 0; i < N_REDUCE; ++i) {
    capi_context = REDUCE[i].name;
    ct_tensor *d0 = NULL, *d1 = NULL, *dm1 = NULL, *k1 = NULL, *k0 = NULL;
    CHECK_OK(REDUCE[i].fn(a, S(0), 0, &d0));
    CHECK_TENSOR_ARRAY(d0, CT_FLOAT32, S(3), REDUCE[i].dim0, 3, 0.0);
    CHECK_OK(REDUCE[i].fn(a, S(1), 0, &d1));
    CHECK_TENSOR_ARRAY(d1, CT_FLOAT32, S(2), REDUCE[i].dim1, 2, 0.0);
    CHECK_OK(REDUCE[i].fn(a, S(-1), 0, &dm1));
    CHECK_TENSOR_ARRAY(dm1, CT_FLOAT32, S(2), REDUCE[i].dim1, 2, 0.0);
    CHECK_OK(REDUCE[i].fn(a, S(1), 1, &k1));
    CHECK_TENSOR_ARRAY(k1, CT_FLOAT32, S(2, 1), REDUCE[i].dim1, 2, 0.0);
    CHECK_OK(REDUCE[i].fn(a, S(-2), 1, &k0));
    CHECK_TENSOR_ARRAY(k0, CT_FLOAT32, S(1, 3), REDUCE[i].dim0, 3, 0.0);
    RELEASE(d0, d1, dm1, k1, k0);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_reductions_of_transposed_view(void) {
  ct_tensor* a = mat23();
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t)); /* [[1, 4], [2, 5], [3, 6]] */
  for (size_t i = 0; i < N_REDUCE; ++i) {
    capi_context = REDUCE[i].name;
    ct_tensor *d0 = NULL, *d1 = NULL;
    CHECK_OK(REDUCE[i].fn(t, S(0), 0, &d0));
    CHECK_TENSOR_ARRAY(d0, CT_FLOAT32, S(2), REDUCE[i].dim1, 2, 0.0);
    CHECK_OK(REDUCE[i].fn(t, S(1), 0, &d1));
    CHECK_TENSOR_ARRAY(d1, CT_FLOAT32, S(3), REDUCE[i].dim0, 3, 0.0);
    RELEASE(d0, d1);
  }
  capi_context = NULL;
  RELEASE(a, t);
}

static void test_reductions_over_middle_dims_of_3d(void) {
  /* x[i][j][k] = 100 i + 10 j + k, sizes [2, 3, 2]; sum over dims (0, 2). */
  ct_tensor* x = T(CT_FLOAT64, S(2, 3, 2), 0, 1, 10, 11, 20, 21, 100, 101, 110, 111, 120, 121);
  ct_tensor *s = NULL, *k = NULL;
  CHECK_OK(ct_tensor_sum(x, S(0, 2), 0, &s));
  CHECK_TENSOR(s, CT_FLOAT64, S(3), 202, 242, 282);
  CHECK_OK(ct_tensor_amax(x, S(2, 0), 1, &k));
  CHECK_TENSOR(k, CT_FLOAT64, S(1, 3, 1), 101, 111, 121);
  RELEASE(x, s, k);
}

static void test_sum_and_prod_of_integers_and_bools_give_int64(void) {
  ct_tensor* i = T(CT_INT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor* u = T(CT_UINT8, S(2), 200, 100);
  ct_tensor* b = T(CT_BOOL, S(4), 1, 0, 1, 1);
  ct_tensor *si = NULL, *pi = NULL, *su = NULL, *sb = NULL, *pb = NULL, *si1 = NULL;
  CHECK_OK(ct_tensor_sum(i, NULL, 0, 0, &si));
  CHECK_TENSOR(si, CT_INT64, S0, 10);
  CHECK_OK(ct_tensor_sum(i, S(1), 0, &si1));
  CHECK_TENSOR(si1, CT_INT64, S(2), 3, 7);
  CHECK_OK(ct_tensor_prod(i, NULL, 0, 0, &pi));
  CHECK_TENSOR(pi, CT_INT64, S0, 24);
  CHECK_OK(ct_tensor_sum(u, NULL, 0, 0, &su)); /* no uint8 overflow */
  CHECK_TENSOR(su, CT_INT64, S0, 300);
  CHECK_OK(ct_tensor_sum(b, NULL, 0, 0, &sb));
  CHECK_TENSOR(sb, CT_INT64, S0, 3);
  CHECK_OK(ct_tensor_prod(b, NULL, 0, 0, &pb));
  CHECK_TENSOR(pb, CT_INT64, S0, 0);
  RELEASE(i, u, b, si, pi, su, sb, pb, si1);
}

static void test_sum_keeps_floating_dtype(void) {
  ct_tensor* h = T(CT_FLOAT16, S(3), 0.5, 1, 2);
  ct_tensor* d = T(CT_FLOAT64, S(2), 0.25, 0.5);
  ct_tensor *sh = NULL, *sd = NULL, *md = NULL;
  CHECK_OK(ct_tensor_sum(h, NULL, 0, 0, &sh));
  CHECK_TENSOR(sh, CT_FLOAT16, S0, 3.5);
  CHECK_OK(ct_tensor_sum(d, NULL, 0, 0, &sd));
  CHECK_TENSOR(sd, CT_FLOAT64, S0, 0.75);
  CHECK_OK(ct_tensor_mean(d, NULL, 0, 0, &md));
  CHECK_TENSOR(md, CT_FLOAT64, S0, 0.375);
  RELEASE(h, d, sh, sd, md);
}

static void test_sum_and_mean_of_float16_accumulate_in_float(void) {
  /* 4096 ones: a float16 accumulator would stop at 2048. */
  ct_tensor *a = NULL, *s = NULL, *m = NULL;
  CHECK_OK(ct_tensor_ones(S(4096), CT_FLOAT16, NULL, &a));
  CHECK_OK(ct_tensor_sum(a, NULL, 0, 0, &s));
  CHECK_TENSOR(s, CT_FLOAT16, S0, 4096);
  CHECK_OK(ct_tensor_mean(a, NULL, 0, 0, &m));
  CHECK_TENSOR(m, CT_FLOAT16, S0, 1);
  RELEASE(a, s, m);
}

static void test_amax_amin_keep_integer_dtype(void) {
  ct_tensor* i = T(CT_INT32, S(2, 2), -5, 2, 9, -1);
  ct_tensor *mx = NULL, *mn = NULL;
  CHECK_OK(ct_tensor_amax(i, S(0), 0, &mx));
  CHECK_TENSOR(mx, CT_INT32, S(2), 9, 2);
  CHECK_OK(ct_tensor_amin(i, NULL, 0, 0, &mn));
  CHECK_TENSOR(mn, CT_INT32, S0, -5);
  RELEASE(i, mx, mn);
}

static void test_mean_of_integers_is_dtype_error(void) {
  ct_tensor* i = T(CT_INT32, S(2), 1, 2);
  ct_tensor* b = T(CT_BOOL, S(2), 1, 0);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_mean(i, NULL, 0, 0, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("mean");
  CHECK_ERROR_CONTAINS("int32");
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_mean(b, S(0), 0, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  RELEASE(i, b);
}

static void test_amax_amin_propagate_nan(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, NAN, 3, 4, 5, 6);
  ct_tensor *mx = NULL, *mn = NULL, *all = NULL;
  CHECK_OK(ct_tensor_amax(a, S(1), 0, &mx));
  CHECK_TENSOR(mx, CT_FLOAT32, S(2), NAN, 6);
  CHECK_OK(ct_tensor_amin(a, S(1), 0, &mn));
  CHECK_TENSOR(mn, CT_FLOAT32, S(2), NAN, 4);
  CHECK_OK(ct_tensor_amax(a, NULL, 0, 0, &all));
  CHECK_TENSOR(all, CT_FLOAT32, S0, NAN);
  RELEASE(a, mx, mn, all);
}

static void test_amax_amin_on_empty_is_shape_error(void) {
  ct_tensor* e = TE(CT_FLOAT32, S(0, 3));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_amax(e, NULL, 0, 0, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_amax(e, S(0), 0, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_amin(e, S(0), 1, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  /* Reducing a non-empty dim of an empty tensor is fine: the result is empty. */
  CHECK_OK(ct_tensor_amax(e, S(1), 0, &out));
  CHECK_META(out, CT_FLOAT32, S(0));
  RELEASE(e, out);
}

static void test_sum_prod_mean_of_empty(void) {
  ct_tensor* e = TE(CT_FLOAT32, S(0));
  ct_tensor* e2 = TE(CT_FLOAT32, S(2, 0));
  ct_tensor *s = NULL, *p = NULL, *m = NULL, *s1 = NULL;
  CHECK_OK(ct_tensor_sum(e, NULL, 0, 0, &s));
  CHECK_TENSOR(s, CT_FLOAT32, S0, 0);
  CHECK_OK(ct_tensor_prod(e, NULL, 0, 0, &p));
  CHECK_TENSOR(p, CT_FLOAT32, S0, 1);
  CHECK_OK(ct_tensor_mean(e, NULL, 0, 0, &m));
  CHECK_TENSOR(m, CT_FLOAT32, S0, NAN);
  CHECK_OK(ct_tensor_sum(e2, S(1), 0, &s1));
  CHECK_TENSOR(s1, CT_FLOAT32, S(2), 0, 0);
  RELEASE(e, e2, s, p, m, s1);
}

static void test_reductions_of_zero_dim(void) {
  ct_tensor* z = T(CT_FLOAT32, S0, 4);
  for (size_t i = 0; i < N_REDUCE; ++i) {
    capi_context = REDUCE[i].name;
    ct_tensor* out = NULL;
    CHECK_OK(REDUCE[i].fn(z, NULL, 0, 0, &out));
    CHECK_TENSOR(out, CT_FLOAT32, S0, 4);
    ct_tensor_release(out);
  }
  capi_context = NULL;
  ct_tensor_release(z);
}

static void test_reductions_dim_listed_twice_is_invalid_argument(void) {
  ct_tensor* a = mat23();
  for (size_t i = 0; i < N_REDUCE; ++i) {
    capi_context = REDUCE[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(REDUCE[i].fn(a, S(1, 1), 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(REDUCE[i].fn(a, S(0, -2), 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_reductions_dim_out_of_range_is_index_error(void) {
  ct_tensor* a = mat23();
  for (size_t i = 0; i < N_REDUCE; ++i) {
    capi_context = REDUCE[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(REDUCE[i].fn(a, S(2), 0, &out), CT_ERROR_INDEX);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(REDUCE[i].fn(a, S(0, -3), 1, &out), CT_ERROR_INDEX);
    CHECK(out == NULL);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_reductions_null_arguments_are_invalid_argument(void) {
  ct_tensor* a = mat23();
  for (size_t i = 0; i < N_REDUCE; ++i) {
    capi_context = REDUCE[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(REDUCE[i].fn(NULL, NULL, 0, 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(REDUCE[i].fn(a, NULL, 0, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
    out = SENTINEL;
    CHECK_STATUS(REDUCE[i].fn(a, NULL, 1, 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_reductions_released_input_is_invalid_argument(void) {
  for (size_t i = 0; i < N_REDUCE; ++i) {
    capi_context = REDUCE[i].name;
    ct_tensor* r = capi_released();
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(REDUCE[i].fn(r, NULL, 0, 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
}

static void test_reductions_on_meta(void) {
  ct_tensor *m = NULL, *mi = NULL, *s = NULL, *si = NULL, *mx = NULL, *am = NULL;
  CHECK_OK(ct_tensor_empty(S(2, 3), CT_FLOAT32, "meta", &m));
  CHECK_OK(ct_tensor_empty(S(2, 3), CT_INT32, "meta", &mi));
  CHECK_OK(ct_tensor_sum(m, S(1), 1, &s));
  CHECK_META(s, CT_FLOAT32, S(2, 1));
  CHECK_OK(ct_tensor_sum(mi, NULL, 0, 0, &si));
  CHECK_META(si, CT_INT64, S0);
  CHECK_OK(ct_tensor_amax(mi, S(0), 0, &mx));
  CHECK_META(mx, CT_INT32, S(3));
  CHECK_OK(ct_tensor_argmax(m, SZ(1), 0, &am));
  CHECK_META(am, CT_INT64, S(2));
  RELEASE(m, mi, s, si, mx, am);
}

/* ---- Determinism across thread counts ---- */

static uint32_t lcg(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

static void test_sum_is_bitwise_identical_for_1_2_and_4_threads(void) {
  const int64_t rows = 1031, cols = 1024 + 7, n = rows * cols;
  float* data = malloc((size_t)n * sizeof(float));
  uint32_t st = 12345;
  for (int64_t i = 0; i < n; ++i) {
    float mag = (float)(lcg(&st) % 1000) / 7.0f;
    data[i] = (lcg(&st) & 1 ? mag : -mag) * ((i % 97 == 0) ? 1e4f : 1.0f);
  }
  ct_tensor* a = NULL;
  ct_status cst = ct_tensor_from_data(data, S(rows, cols), CT_FLOAT32, &a);
  free(data);
  CHECK_OK(cst);
  int32_t old = 1;
  CHECK_OK(ct_get_num_threads(&old));
  static const int32_t counts[] = {1, 2, 4};
  float all[3], mean_all[3];
  float* by_row[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3; ++k) {
    CHECK_OK(ct_set_num_threads(counts[k]));
    ct_tensor *s = NULL, *m = NULL, *r = NULL;
    CHECK_OK(ct_tensor_sum(a, NULL, 0, 0, &s));
    CHECK_OK(ct_tensor_copy_to(s, &all[k], sizeof(float)));
    CHECK_OK(ct_tensor_mean(a, NULL, 0, 0, &m));
    CHECK_OK(ct_tensor_copy_to(m, &mean_all[k], sizeof(float)));
    CHECK_OK(ct_tensor_sum(a, S(0), 0, &r));
    by_row[k] = malloc((size_t)cols * sizeof(float));
    CHECK_OK(ct_tensor_copy_to(r, by_row[k], (size_t)cols * sizeof(float)));
    RELEASE(s, m, r);
  }
  CHECK_OK(ct_set_num_threads(old));
  ct_tensor_release(a);
  int same = memcmp(&all[0], &all[1], sizeof(float)) == 0 && memcmp(&all[0], &all[2], sizeof(float)) == 0;
  int same_mean = memcmp(&mean_all[0], &mean_all[1], sizeof(float)) == 0 &&
                  memcmp(&mean_all[0], &mean_all[2], sizeof(float)) == 0;
  int same_rows = memcmp(by_row[0], by_row[1], (size_t)cols * sizeof(float)) == 0 &&
                  memcmp(by_row[0], by_row[2], (size_t)cols * sizeof(float)) == 0;
  for (int k = 0; k < 3; ++k) free(by_row[k]);
  CHECK(same);
  CHECK(same_mean);
  CHECK(same_rows);
}

/* ---- argmax / argmin ---- */

static void test_argmax_argmin_flattened(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 5, 5, 7, 0, 7);
  ct_tensor *mx = NULL, *mn = NULL, *kmx = NULL;
  CHECK_OK(ct_tensor_argmax(a, NULL, 0, &mx));
  CHECK_TENSOR(mx, CT_INT64, S0, 3);
  CHECK_OK(ct_tensor_argmin(a, NULL, 0, &mn));
  CHECK_TENSOR(mn, CT_INT64, S0, 4);
  CHECK_OK(ct_tensor_argmax(a, NULL, 1, &kmx));
  CHECK_TENSOR(kmx, CT_INT64, S(1, 1), 3);
  RELEASE(a, mx, mn, kmx);
}

static void test_argmax_argmin_over_dim_take_first(void) {
  ct_tensor* a = T(CT_INT32, S(2, 3), 1, 5, 5, 7, 0, 7);
  ct_tensor *mx1 = NULL, *mn1 = NULL, *mx0 = NULL, *k = NULL, *neg = NULL;
  CHECK_OK(ct_tensor_argmax(a, SZ(1), 0, &mx1));
  CHECK_TENSOR(mx1, CT_INT64, S(2), 1, 0);
  CHECK_OK(ct_tensor_argmin(a, SZ(1), 0, &mn1));
  CHECK_TENSOR(mn1, CT_INT64, S(2), 0, 1);
  CHECK_OK(ct_tensor_argmax(a, SZ(0), 0, &mx0));
  CHECK_TENSOR(mx0, CT_INT64, S(3), 1, 0, 1);
  CHECK_OK(ct_tensor_argmin(a, SZ(1), 1, &k));
  CHECK_TENSOR(k, CT_INT64, S(2, 1), 0, 1);
  CHECK_OK(ct_tensor_argmax(a, SZ(-1), 0, &neg));
  CHECK_TENSOR(neg, CT_INT64, S(2), 1, 0);
  RELEASE(a, mx1, mn1, mx0, k, neg);
}

static void test_argmax_argmin_of_transposed_view(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 5, 5, 7, 0, 7);
  ct_tensor *t = NULL, *mx = NULL, *flat = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t)); /* [[1, 7], [5, 0], [5, 7]] */
  CHECK_OK(ct_tensor_argmax(t, SZ(0), 0, &mx));
  CHECK_TENSOR(mx, CT_INT64, S(2), 1, 0);
  CHECK_OK(ct_tensor_argmax(t, NULL, 0, &flat)); /* row-major index into the view */
  CHECK_TENSOR(flat, CT_INT64, S0, 1);
  RELEASE(a, t, mx, flat);
}

static void test_argmax_argmin_count_nan_as_extreme(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4), 1, NAN, 3, NAN);
  ct_tensor *mx = NULL, *mn = NULL;
  CHECK_OK(ct_tensor_argmax(a, NULL, 0, &mx));
  CHECK_TENSOR(mx, CT_INT64, S0, 1);
  CHECK_OK(ct_tensor_argmin(a, NULL, 0, &mn));
  CHECK_TENSOR(mn, CT_INT64, S0, 1);
  RELEASE(a, mx, mn);
}

static void test_argmax_argmin_errors(void) {
  static const struct {
    const char* name;
    arg_fn fn;
  } fns[] = {{"argmax", ct_tensor_argmax}, {"argmin", ct_tensor_argmin}};
  ct_tensor* a = mat23();
  ct_tensor* e = TE(CT_FLOAT32, S(0, 3));
  for (size_t i = 0; i < 2; ++i) {
    capi_context = fns[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(fns[i].fn(NULL, NULL, 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(fns[i].fn(a, NULL, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(a, SZ(2), 0, &out), CT_ERROR_INDEX);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(a, SZ(-3), 0, &out), CT_ERROR_INDEX);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(e, NULL, 0, &out), CT_ERROR_SHAPE);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(e, SZ(0), 0, &out), CT_ERROR_SHAPE);
    CHECK(out == NULL);
  }
  capi_context = NULL;
  RELEASE(a, e);
}

static void test_argmax_argmin_released_input_is_invalid_argument(void) {
  static const arg_fn fns[] = {ct_tensor_argmax, ct_tensor_argmin};
  for (size_t i = 0; i < 2; ++i) {
    capi_context = i ? "argmin" : "argmax";
    ct_tensor* r = capi_released();
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(fns[i](r, NULL, 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_reductions_over_all_dims),
    CAPI_TEST(test_reductions_over_one_dim),
    CAPI_TEST(test_reductions_of_transposed_view),
    CAPI_TEST(test_reductions_over_middle_dims_of_3d),
    CAPI_TEST(test_sum_and_prod_of_integers_and_bools_give_int64),
    CAPI_TEST(test_sum_keeps_floating_dtype),
    CAPI_TEST(test_sum_and_mean_of_float16_accumulate_in_float),
    CAPI_TEST(test_amax_amin_keep_integer_dtype),
    CAPI_TEST(test_mean_of_integers_is_dtype_error),
    CAPI_TEST(test_amax_amin_propagate_nan),
    CAPI_TEST(test_amax_amin_on_empty_is_shape_error),
    CAPI_TEST(test_sum_prod_mean_of_empty),
    CAPI_TEST(test_reductions_of_zero_dim),
    CAPI_TEST(test_reductions_dim_listed_twice_is_invalid_argument),
    CAPI_TEST(test_reductions_dim_out_of_range_is_index_error),
    CAPI_TEST(test_reductions_null_arguments_are_invalid_argument),
    CAPI_TEST(test_reductions_released_input_is_invalid_argument),
    CAPI_TEST(test_reductions_on_meta),
    CAPI_TEST(test_sum_is_bitwise_identical_for_1_2_and_4_threads),
    CAPI_TEST(test_argmax_argmin_flattened),
    CAPI_TEST(test_argmax_argmin_over_dim_take_first),
    CAPI_TEST(test_argmax_argmin_of_transposed_view),
    CAPI_TEST(test_argmax_argmin_count_nan_as_extreme),
    CAPI_TEST(test_argmax_argmin_errors),
    CAPI_TEST(test_argmax_argmin_released_input_is_invalid_argument),
};
CAPI_MAIN(TESTS)
