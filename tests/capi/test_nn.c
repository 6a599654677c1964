/* The nn family: softmax, normalization, cross entropy, mse and attention, with bad inputs. */
#include "capi_test.h"

static void test_softmax_rows_sum_to_one(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 0, 0, 0);
  ct_tensor *s = NULL, *ls = NULL;
  const double z = exp(1.0) + exp(2.0) + exp(3.0);
  CHECK_OK(ct_tensor_softmax(a, -1, NULL, &s));
  CHECK_TENSOR_NEAR(s, CT_FLOAT32, 1e-6, S(2, 3), exp(1.0) / z, exp(2.0) / z, exp(3.0) / z, 1.0 / 3, 1.0 / 3, 1.0 / 3);
  CHECK_OK(ct_tensor_log_softmax(a, 1, NULL, &ls));
  CHECK_TENSOR_NEAR(ls, CT_FLOAT32, 1e-6, S(2, 3), 1 - log(z), 2 - log(z), 3 - log(z), -log(3.0), -log(3.0), -log(3.0));
  RELEASE(a, s, ls);
}

/* rows x n float32 values in [-50, 50) from a fixed sequence, some -inf; row 0 all -inf, row 1
   holding 1e30s (a shift by the maximum keeps them finite), row 2 a NaN, row 3 a +inf. */
enum { kRows = 67, kCols = 1031 };
static float rows_data[kRows * kCols];
static ct_tensor* rows_input(void) {
  uint32_t state = 777u;
  for (int i = 0; i < kRows * kCols; ++i) {
    state = state * 1664525u + 1013904223u;
    rows_data[i] = (float)((double)(state >> 8) / 16777216.0 * 100.0 - 50.0);
    if ((state >> 4) % 23 == 0) rows_data[i] = -INFINITY;
  }
  for (int j = 0; j < kCols; ++j) rows_data[j] = -INFINITY;
  for (int j = 0; j < kCols; j += 3) rows_data[kCols + j] = 1e30f;
  rows_data[2 * kCols + 5] = NAN;
  rows_data[3 * kCols + 9] = INFINITY;
  ct_tensor* t = NULL;
  if (ct_tensor_from_data(rows_data, SZ(kRows, kCols), 2, CT_FLOAT32, &t) != CT_OK) return NULL;
  return t;
}

/* Each element within 1e-6 relative of softmax (or log_softmax) computed in double, NaN where it is
   NaN (a row of -inf, or holding NaN or +inf, is NaN throughout). */
static int softmax_near_double(const ct_tensor* y, int take_log) {
  static float got[kRows * kCols];
  if (ct_tensor_copy_to(y, got, sizeof got) != CT_OK) return 0;
  for (int r = 0; r < kRows; ++r) {
    const float* x = rows_data + r * kCols;
    double mx = -INFINITY, sum = 0;
    int nan = 0;
    for (int j = 0; j < kCols; ++j) {
      nan |= isnan(x[j]);
      if (x[j] > mx) mx = x[j];
    }
    /* x - max rounded to float, as float32 softmax computes it (the rest in double): its rounding
       error, up to 4e-6 at -70, would otherwise dominate the comparison of the tiny results. */
    for (int j = 0; j < kCols; ++j) sum += exp((double)(x[j] - (float)mx));
    for (int j = 0; j < kCols; ++j) {
      const double d = (double)(x[j] - (float)mx);
      const double want = nan ? NAN : take_log ? d - log(sum) : exp(d) / sum;
      const double g = got[r * kCols + j];
      if (isnan(want) != isnan(g) || (isinf(want) && want != g) ||
          (isfinite(want) && fabs(g - want) > 1e-6 * fabs(want) + 1e-37)) {
        fprintf(stderr, "%s row %d col %d: %.9g, want %.9g\n", take_log ? "log_softmax" : "softmax", r, j, g, want);
        return 0;
      }
    }
  }
  return 1;
}

static int same_bytes(const ct_tensor* a, const ct_tensor* b, size_t nbytes) {
  char* x = (char*)malloc(nbytes);
  char* y = (char*)malloc(nbytes);
  const int same = ct_tensor_copy_to(a, x, nbytes) == CT_OK && ct_tensor_copy_to(b, y, nbytes) == CT_OK &&
                   memcmp(x, y, nbytes) == 0;
  free(x);
  free(y);
  return same;
}

static void test_softmax_and_log_softmax_match_double_with_infinities_and_nan(void) {
  int32_t old = 1;
  CHECK_OK(ct_get_num_threads(&old));
  ct_tensor* a = rows_input();
  CHECK(a != NULL);
  ct_tensor* y[2][2] = {{NULL, NULL}, {NULL, NULL}}; /* [threads - 1][log] */
  for (int threads = 1; threads <= 2; ++threads) {
    CHECK_OK(ct_set_num_threads(threads));
    CHECK_OK(ct_tensor_softmax(a, 1, NULL, &y[threads - 1][0]));
    CHECK_OK(ct_tensor_log_softmax(a, 1, NULL, &y[threads - 1][1]));
  }
  CHECK_OK(ct_set_num_threads(old));
  CHECK(softmax_near_double(y[0][0], 0));
  CHECK(softmax_near_double(y[0][1], 1));
  /* Rows are split among threads, never a row's sums: the same bytes on one thread and two. */
  CHECK(same_bytes(y[0][0], y[1][0], sizeof rows_data));
  CHECK(same_bytes(y[0][1], y[1][1], sizeof rows_data));
  RELEASE(a, y[0][0], y[0][1], y[1][0], y[1][1]);
}

static void test_softmax_dtype_converts_integers(void) {
  ct_tensor* a = T(CT_INT64, S(2), 0, 0);
  ct_tensor* s = NULL;
  const ct_dtype f64 = CT_FLOAT64;
  CHECK_OK(ct_tensor_softmax(a, 0, &f64, &s));
  CHECK_TENSOR(s, CT_FLOAT64, S(2), 0.5, 0.5);
  CHECK_STATUS(ct_tensor_softmax(a, 0, NULL, &s), CT_ERROR_DTYPE);
  CHECK(s == NULL);
  CHECK_ERROR_CONTAINS("softmax");
  RELEASE(a);
}

static void test_softmax_bad_arguments(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* s = NULL;
  CHECK_STATUS(ct_tensor_softmax(NULL, 0, NULL, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_softmax(a, 0, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_log_softmax(a, 1, NULL, &s), CT_ERROR_INDEX);
  CHECK(s == NULL);
  RELEASE(a);
}

static void test_layer_norm_normalizes_rows(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 2, 2, 2);
  ct_tensor* w = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* b = T(CT_FLOAT32, S(3), 0, 0, 1);
  ct_tensor *plain = NULL, *affine = NULL;
  const double r = 1 / sqrt(2.0 / 3 + 1e-5);
  CHECK_OK(ct_tensor_layer_norm(x, S(3), NULL, NULL, 1e-5, &plain));
  CHECK_TENSOR_NEAR(plain, CT_FLOAT32, 1e-6, S(2, 3), -r, 0, r, 0, 0, 0);
  CHECK_OK(ct_tensor_layer_norm(x, S(3), w, b, 1e-5, &affine));
  CHECK_TENSOR_NEAR(affine, CT_FLOAT32, 1e-6, S(2, 3), -r, 0, 3 * r + 1, 0, 0, 1);
  RELEASE(x, w, b, plain, affine);
}

/* layer_norm of kRows x kCols float32 rows against float64, weight and bias given: rows centred
   on 0 (the one-pass variance), rows whose mean is 0.8 and 35 standard deviations (the second
   pass; see Note [layer_norm's variance in one pass]), rows with an infinity or a NaN (NaN
   throughout); and the same bytes on one thread and two. */
static void test_layer_norm_matches_double_on_both_variance_paths(void) {
  static float x[kRows * kCols], got[2][kRows * kCols], w[kCols], b[kCols];
  uint32_t state = 99u;
  for (int i = 0; i < kRows * kCols; ++i) {
    state = state * 1664525u + 1013904223u;
    const float u = (float)((double)(state >> 8) / 16777216.0 * 100.0 - 50.0); /* std 28.9 */
    const int r = i / kCols;
    x[i] = u + (r % 3 == 1 ? 23.0f : r % 3 == 2 ? 1000.0f : 0.0f);
  }
  for (int j = 0; j < kCols; ++j) {
    w[j] = 0.5f + (float)j / kCols;
    b[j] = (float)(j % 7) - 3.0f;
  }
  x[4 * kCols + 10] = INFINITY;
  x[5 * kCols + 20] = NAN;
  int32_t old = 1;
  CHECK_OK(ct_get_num_threads(&old));
  ct_tensor *xt = NULL, *wt = NULL, *bt = NULL, *y[2] = {NULL, NULL};
  CHECK_OK(ct_tensor_from_data(x, SZ(kRows, kCols), 2, CT_FLOAT32, &xt));
  CHECK_OK(ct_tensor_from_data(w, SZ(kCols), 1, CT_FLOAT32, &wt));
  CHECK_OK(ct_tensor_from_data(b, SZ(kCols), 1, CT_FLOAT32, &bt));
  for (int threads = 1; threads <= 2; ++threads) {
    CHECK_OK(ct_set_num_threads(threads));
    CHECK_OK(ct_tensor_layer_norm(xt, S(kCols), wt, bt, 1e-5, &y[threads - 1]));
    CHECK_OK(ct_tensor_copy_to(y[threads - 1], got[threads - 1], sizeof got[0]));
  }
  CHECK_OK(ct_set_num_threads(old));
  CHECK(memcmp(got[0], got[1], sizeof got[0]) == 0);
  for (int r = 0; r < kRows; ++r) {
    const float* xr = x + r * kCols;
    double mean = 0, var = 0;
    for (int j = 0; j < kCols; ++j) mean += xr[j];
    mean /= kCols;
    for (int j = 0; j < kCols; ++j) var += (xr[j] - mean) * (xr[j] - mean);
    var /= kCols;
    /* float32 rounds x - mean at |mean| + |x|: the error grows with the mean in units of std. */
    const double tol = 1e-6 * (1.0 + fabs(mean) / sqrt(var));
    for (int j = 0; j < kCols; ++j) {
      const double want = (xr[j] - mean) / sqrt(var + 1e-5) * w[j] + b[j], g = got[0][r * kCols + j];
      if (isnan(want) != isnan(g) || (isfinite(want) && fabs(g - want) > tol * fmax(1.0, fabs(want)))) {
        fprintf(stderr, "layer_norm row %d col %d: %.9g, want %.9g\n", r, j, g, want);
        CHECK(0);
      }
    }
  }
  RELEASE(xt, wt, bt, y[0], y[1]);
}

static void test_layer_norm_bad_arguments(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* w = T(CT_FLOAT32, S(2), 1, 1);
  ct_tensor* xi = T(CT_INT32, S(3), 1, 2, 3);
  ct_tensor* out = NULL;
  CHECK_STATUS(ct_tensor_layer_norm(x, NULL, 1, NULL, NULL, 1e-5, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_layer_norm(x, S(2), NULL, NULL, 1e-5, &out), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("normalized_shape [2]");
  CHECK_STATUS(ct_tensor_layer_norm(x, S(3), w, NULL, 1e-5, &out), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_layer_norm(xi, S(3), NULL, NULL, 1e-5, &out), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_rms_norm(x, S(4), NULL, NULL, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  RELEASE(x, w, xi);
}

static void test_rms_norm_scales_by_root_mean_square(void) {
  ct_tensor* x = T(CT_FLOAT64, S(2), 3, 4);
  ct_tensor* w = T(CT_FLOAT64, S(2), 1, 2);
  ct_tensor* out = NULL;
  const double eps = 0.0, r = 1 / sqrt(12.5);
  CHECK_OK(ct_tensor_rms_norm(x, S(2), w, &eps, &out));
  CHECK_TENSOR_NEAR(out, CT_FLOAT64, 1e-12, S(2), 3 * r, 8 * r);
  RELEASE(x, w, out);
}

static void test_batch_norm_training_updates_running_stats(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2, 1), 1, 3);
  ct_tensor* rm = T(CT_FLOAT32, S(1), 0);
  ct_tensor* rv = T(CT_FLOAT32, S(1), 1);
  ct_tensor *out = NULL, *eval = NULL;
  CHECK_OK(ct_tensor_batch_norm(x, NULL, NULL, rm, rv, 1, 0.1, 0.0, &out));
  CHECK_TENSOR_NEAR(out, CT_FLOAT32, 1e-6, S(2, 1), -1, 1);
  CHECK_TENSOR_NEAR(rm, CT_FLOAT32, 1e-6, S(1), 0.2);
  CHECK_TENSOR_NEAR(rv, CT_FLOAT32, 1e-6, S(1), 1.1); /* 0.9 * 1 + 0.1 * unbiased 2 */
  CHECK_OK(ct_tensor_batch_norm(x, NULL, NULL, rm, rv, 0, 0.1, 0.0, &eval));
  CHECK_TENSOR_NEAR(eval, CT_FLOAT32, 1e-6, S(2, 1), 0.8 / sqrt(1.1), 2.8 / sqrt(1.1));
  RELEASE(x, rm, rv, out, eval);
}

static void test_batch_norm_bad_arguments(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor* one = T(CT_FLOAT32, S(1, 2), 1, 2);
  ct_tensor* rm = T(CT_FLOAT32, S(3), 0, 0, 0);
  ct_tensor* out = NULL;
  CHECK_STATUS(ct_tensor_batch_norm(x, NULL, NULL, NULL, NULL, 0, 0.1, 1e-5, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_batch_norm(one, NULL, NULL, NULL, NULL, 1, 0.1, 1e-5, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_batch_norm(x, NULL, NULL, rm, NULL, 1, 0.1, 1e-5, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  RELEASE(x, one, rm);
}

static void test_cross_entropy_of_uniform_logits_is_log_classes(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2, 3), 0, 0, 0, 0, 0, 0);
  ct_tensor* t = T(CT_INT64, S(2), 0, 2);
  ct_tensor* ignored = T(CT_INT64, S(2), 0, -100);
  ct_tensor *mean = NULL, *none = NULL, *ign = NULL, *smooth = NULL;
  CHECK_OK(ct_tensor_cross_entropy(x, t, NULL, CT_REDUCTION_MEAN, -100, 0.0, &mean));
  CHECK_TENSOR_NEAR(mean, CT_FLOAT32, 1e-6, S0, log(3.0));
  CHECK_OK(ct_tensor_cross_entropy(x, t, NULL, CT_REDUCTION_NONE, -100, 0.0, &none));
  CHECK_TENSOR_NEAR(none, CT_FLOAT32, 1e-6, S(2), log(3.0), log(3.0));
  CHECK_OK(ct_tensor_cross_entropy(x, ignored, NULL, CT_REDUCTION_SUM, -100, 0.0, &ign));
  CHECK_TENSOR_NEAR(ign, CT_FLOAT32, 1e-6, S0, log(3.0));
  CHECK_OK(ct_tensor_cross_entropy(x, t, NULL, CT_REDUCTION_MEAN, -100, 0.5, &smooth));
  CHECK_TENSOR_NEAR(smooth, CT_FLOAT32, 1e-6, S0, log(3.0));
  RELEASE(x, t, ignored, mean, none, ign, smooth);
}

static void test_cross_entropy_bad_arguments(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2, 3), 0, 0, 0, 0, 0, 0);
  ct_tensor* t = T(CT_INT64, S(2), 0, 3);
  ct_tensor* t32 = T(CT_INT32, S(2), 0, 1);
  ct_tensor* t3 = T(CT_INT64, S(3), 0, 1, 1);
  ct_tensor* out = NULL;
  CHECK_STATUS(ct_tensor_cross_entropy(x, NULL, NULL, CT_REDUCTION_MEAN, -100, 0.0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_cross_entropy(x, t, NULL, (ct_reduction)7, -100, 0.0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("reduction");
  CHECK_STATUS(ct_tensor_cross_entropy(x, t, NULL, CT_REDUCTION_MEAN, -100, 0.0, &out), CT_ERROR_INDEX);
  CHECK_ERROR_CONTAINS("out of bounds");
  CHECK_STATUS(ct_tensor_cross_entropy(x, t32, NULL, CT_REDUCTION_MEAN, -100, 0.0, &out), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_cross_entropy(x, t3, NULL, CT_REDUCTION_MEAN, -100, 0.0, &out), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_cross_entropy(x, t3, NULL, CT_REDUCTION_MEAN, -100, 2.0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  RELEASE(x, t, t32, t3);
}

static void test_mse_loss_reductions(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* b = T(CT_FLOAT32, S(2), 3, 2);
  ct_tensor *mean = NULL, *sum = NULL, *none = NULL, *bad = NULL;
  CHECK_OK(ct_tensor_mse_loss(a, b, CT_REDUCTION_MEAN, &mean));
  CHECK_TENSOR(mean, CT_FLOAT32, S0, 2);
  CHECK_OK(ct_tensor_mse_loss(a, b, CT_REDUCTION_SUM, &sum));
  CHECK_TENSOR(sum, CT_FLOAT32, S0, 4);
  CHECK_OK(ct_tensor_mse_loss(a, b, CT_REDUCTION_NONE, &none));
  CHECK_TENSOR(none, CT_FLOAT32, S(2), 4, 0);
  CHECK_STATUS(ct_tensor_mse_loss(a, NULL, CT_REDUCTION_SUM, &bad), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_mse_loss(a, b, (ct_reduction)-1, &bad), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, b, mean, sum, none);
}

/* q = 0: every key weighs the same, so each output row is the mean of value's rows; causal: row i
 * averages value rows 0..i. */
static void test_attention_averages_values(void) {
  ct_tensor* q = T(CT_FLOAT32, S(1, 2, 2), 0, 0, 0, 0);
  ct_tensor* k = T(CT_FLOAT32, S(1, 3, 2), 1, 2, 3, 4, 5, 6);
  ct_tensor* v = T(CT_FLOAT32, S(1, 3, 2), 1, 10, 2, 20, 3, 30);
  ct_tensor *out = NULL, *causal = NULL;
  CHECK_OK(ct_tensor_scaled_dot_product_attention(q, k, v, NULL, 0.0, 0, NULL, NULL, &out));
  CHECK_TENSOR_NEAR(out, CT_FLOAT32, 1e-6, S(1, 2, 2), 2, 20, 2, 20);
  CHECK_OK(ct_tensor_scaled_dot_product_attention(q, k, v, NULL, 0.0, 1, NULL, NULL, &causal));
  CHECK_TENSOR_NEAR(causal, CT_FLOAT32, 1e-6, S(1, 2, 2), 1, 10, 1.5, 15);
  RELEASE(q, k, v, out, causal);
}

/* The fused path (no grad) and the operator path (q requires grad) agree. */
static void test_attention_paths_agree(void) {
  ct_tensor* q = T(CT_FLOAT32, S(2, 2, 2), 0.5, -1, 2, 0.25, -0.5, 1, 1.5, -2);
  ct_tensor* k = T(CT_FLOAT32, S(2, 3, 2), 1, 2, -3, 0.5, 0.5, -1, 2, 1, -1, 0, 0.25, 3);
  ct_tensor* v = T(CT_FLOAT32, S(2, 3, 1), 1, 2, 3, 4, 5, 6);
  ct_tensor *fused = NULL, *traced = NULL;
  const double scale = 0.7;
  CHECK_OK(ct_tensor_scaled_dot_product_attention(q, k, v, NULL, 0.0, 1, &scale, NULL, &fused));
  CHECK_OK(ct_tensor_set_requires_grad(q, 1));
  CHECK_OK(ct_tensor_scaled_dot_product_attention(q, k, v, NULL, 0.0, 1, &scale, NULL, &traced));
  float a[4], b[4];
  CHECK_OK(ct_tensor_copy_to(fused, a, sizeof a));
  CHECK_OK(ct_tensor_copy_to(traced, b, sizeof b));
  for (int i = 0; i < 4; ++i) CHECK(fabsf(a[i] - b[i]) <= 1e-6f * (1 + fabsf(a[i])));
  RELEASE(q, k, v, fused, traced);
}

static void test_attention_bad_arguments(void) {
  ct_tensor* q = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor* k3 = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* mask = T(CT_BOOL, S(2, 2), 1, 1, 1, 0);
  ct_tensor* qi = T(CT_INT64, S(2, 2), 1, 2, 3, 4);
  ct_tensor* out = NULL;
  CHECK_STATUS(ct_tensor_scaled_dot_product_attention(NULL, q, q, NULL, 0, 0, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_scaled_dot_product_attention(q, k3, k3, NULL, 0, 0, NULL, NULL, &out), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_scaled_dot_product_attention(q, q, q, mask, 0, 1, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_scaled_dot_product_attention(q, q, q, NULL, 1.5, 0, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_scaled_dot_product_attention(qi, qi, qi, NULL, 0, 0, NULL, NULL, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  RELEASE(q, k3, mask, qi);
}

static void test_attention_dropout_follows_the_generator(void) {
  ct_tensor* q = T(CT_FLOAT32, S(4, 2), 1, 0, 0, 1, 1, 1, 0, 0);
  ct_generator* g = NULL;
  ct_tensor *a = NULL, *b = NULL;
  CHECK_OK(ct_generator_create("cpu", &g));
  CHECK_OK(ct_generator_manual_seed(g, 3));
  CHECK_OK(ct_tensor_scaled_dot_product_attention(q, q, q, NULL, 0.5, 0, NULL, g, &a));
  CHECK_OK(ct_generator_manual_seed(g, 3));
  CHECK_OK(ct_tensor_scaled_dot_product_attention(q, q, q, NULL, 0.5, 0, NULL, g, &b));
  float x[8], y[8];
  CHECK_OK(ct_tensor_copy_to(a, x, sizeof x));
  CHECK_OK(ct_tensor_copy_to(b, y, sizeof y));
  CHECK(memcmp(x, y, sizeof x) == 0);
  ct_generator_release(g);
  RELEASE(q, a, b);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_softmax_rows_sum_to_one),
    CAPI_TEST(test_softmax_dtype_converts_integers),
    CAPI_TEST(test_softmax_bad_arguments),
    CAPI_TEST(test_softmax_and_log_softmax_match_double_with_infinities_and_nan),
    CAPI_TEST(test_layer_norm_normalizes_rows),
    CAPI_TEST(test_layer_norm_matches_double_on_both_variance_paths),
    CAPI_TEST(test_layer_norm_bad_arguments),
    CAPI_TEST(test_rms_norm_scales_by_root_mean_square),
    CAPI_TEST(test_batch_norm_training_updates_running_stats),
    CAPI_TEST(test_batch_norm_bad_arguments),
    CAPI_TEST(test_cross_entropy_of_uniform_logits_is_log_classes),
    CAPI_TEST(test_cross_entropy_bad_arguments),
    CAPI_TEST(test_mse_loss_reductions),
    CAPI_TEST(test_attention_averages_values),
    CAPI_TEST(test_attention_paths_agree),
    CAPI_TEST(test_attention_bad_arguments),
    CAPI_TEST(test_attention_dropout_follows_the_generator),
};
CAPI_MAIN(TESTS)
