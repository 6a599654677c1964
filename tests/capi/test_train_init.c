/* test_train_init.c - gradient clipping (torch's formula, inf norm, no grads, refusals) and the
 * initializers: torch's fans and gains, bounds and moments of each distribution, reproducibility by
 * seed, grad-requiring parameters, and every documented failure. */
#include "capi_test.h"

static ct_tensor* leaf(ct_dtype dt, const int64_t* sizes, size_t ndim, const double* v, size_t n) {
  ct_tensor* t = capi_make(__FILE__, __LINE__, dt, sizes, ndim, v, n);
  if (t && ct_tensor_set_requires_grad(t, 1) != CT_OK) {
    ct_tensor_release(t);
    return NULL;
  }
  return t;
}

static int give_grad(ct_tensor* p, ct_dtype dt, const int64_t* sizes, size_t ndim, const double* v, size_t n) {
  ct_tensor* g = capi_make(__FILE__, __LINE__, dt, sizes, ndim, v, n);
  int ok = g && ct_tensor_set_grad(p, g) == CT_OK;
  ct_tensor_release(g);
  return ok;
}

static double* values_of(const ct_tensor* t, int64_t* n) {
  ct_tensor* d = NULL;
  if (ct_tensor_numel(t, n) != CT_OK || ct_tensor_to(t, CT_FLOAT64, &d) != CT_OK) return NULL;
  double* v = malloc(sizeof(double) * (size_t)(*n ? *n : 1));
  if (ct_tensor_copy_to(d, v, sizeof(double) * (size_t)*n) != CT_OK) {
    free(v);
    v = NULL;
  }
  ct_tensor_release(d);
  return v;
}

static void test_clip_grad_norm_scales_to_max_norm(void) {
  const double v0[] = {0, 0, 0}, g1[] = {3, 4, 0}, g2[] = {12, 0, 0};
  ct_tensor* a = leaf(CT_FLOAT64, S(3), v0, 3);
  ct_tensor* b = leaf(CT_FLOAT64, S(3), v0, 3);
  ct_tensor* c = leaf(CT_FLOAT64, S(3), v0, 3); /* no grad: skipped */
  CHECK(give_grad(a, CT_FLOAT64, S(3), g1, 3) && give_grad(b, CT_FLOAT64, S(3), g2, 3));
  const ct_tensor* ps[3] = {a, b, c};
  double total = 0;
  CHECK_OK(ct_clip_grad_norm(ps, 3, 1.0, 2.0, &total));
  CHECK(fabs(total - 13.0) < 1e-12); /* sqrt(5^2 + 12^2) */
  ct_tensor* g = NULL;
  CHECK_OK(ct_tensor_grad(a, &g));
  const double coef = 1.0 / (13.0 + 1e-6) * 1.0;
  CHECK_TENSOR_NEAR(g, CT_FLOAT64, 1e-15, S(3), 3 * coef, 4 * coef, 0);
  ct_tensor_release(g);
  /* within the bound: multiplied by 1 */
  CHECK_OK(ct_clip_grad_norm(ps, 3, 100.0, 2.0, &total));
  CHECK_OK(ct_tensor_grad(b, &g));
  CHECK_TENSOR_NEAR(g, CT_FLOAT64, 1e-15, S(3), 12 * coef, 0, 0);
  ct_tensor_release(g);
  /* inf norm: the largest absolute value; 1-norm: the sum */
  CHECK(give_grad(a, CT_FLOAT64, S(3), g1, 3) && give_grad(b, CT_FLOAT64, S(3), g2, 3));
  CHECK_OK(ct_clip_grad_norm(ps, 3, 1e9, INFINITY, &total));
  CHECK(total == 12.0);
  CHECK_OK(ct_clip_grad_norm(ps, 3, 1e9, 1.0, &total));
  CHECK(total == 19.0);
  CHECK_OK(ct_clip_grad_norm(ps, 3, 1e9, 1.0, NULL));
  /* no grads at all: 0 */
  CHECK_OK(ct_clip_grad_norm(ps + 2, 1, 1.0, 2.0, &total));
  CHECK(total == 0.0);
  CHECK_OK(ct_clip_grad_norm(NULL, 0, 1.0, 2.0, &total));
  RELEASE(a, b, c);
}

static void test_clip_grad_norm_refuses_bad_input(void) {
  const double v[] = {1, 2};
  ct_tensor* a = leaf(CT_FLOAT64, S(2), v, 2);
  ct_tensor* b = leaf(CT_FLOAT32, S(2), v, 2);
  CHECK(give_grad(a, CT_FLOAT64, S(2), v, 2) && give_grad(b, CT_FLOAT32, S(2), v, 2));
  const ct_tensor* ps[2] = {a, b};
  CHECK_STATUS(ct_clip_grad_norm(ps, 2, 1.0, 2.0, NULL), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_clip_grad_norm(ps, 1, -1.0, 2.0, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_clip_grad_norm(ps, 1, NAN, 2.0, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_clip_grad_norm(ps, 1, 1.0, NAN, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_clip_grad_norm(ps, 1, 1.0, -2.0, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_clip_grad_norm(NULL, 2, 1.0, 2.0, NULL), CT_ERROR_INVALID_ARGUMENT);
  const ct_tensor* with_null[2] = {a, NULL};
  CHECK_STATUS(ct_clip_grad_norm(with_null, 2, 1.0, 2.0, NULL), CT_ERROR_INVALID_ARGUMENT);
  /* a grad on another device (meta stands in for one) */
  ct_tensor *m = NULL, *mg = NULL;
  CHECK_OK(ct_tensor_zeros(S(2), CT_FLOAT64, "meta", &m));
  CHECK_OK(ct_tensor_zeros(S(2), CT_FLOAT64, "meta", &mg));
  CHECK_OK(ct_tensor_set_requires_grad(m, 1));
  CHECK_OK(ct_tensor_set_grad(m, mg));
  const ct_tensor* mixed[2] = {a, m};
  CHECK_STATUS(ct_clip_grad_norm(mixed, 2, 1.0, 2.0, NULL), CT_ERROR_DEVICE);
  RELEASE(a, b, m, mg);
}

static void test_clip_grad_value_clamps(void) {
  const double v[] = {0, 0, 0}, g[] = {-3, 0.5, 7};
  ct_tensor* a = leaf(CT_FLOAT32, S(3), v, 3);
  CHECK(give_grad(a, CT_FLOAT32, S(3), g, 3));
  const ct_tensor* ps[1] = {a};
  CHECK_OK(ct_clip_grad_value(ps, 1, 1.0));
  ct_tensor* got = NULL;
  CHECK_OK(ct_tensor_grad(a, &got));
  CHECK_TENSOR(got, CT_FLOAT32, S(3), -1, 0.5, 1);
  CHECK_STATUS(ct_clip_grad_value(ps, 1, -1.0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_clip_grad_value(ps, 1, NAN), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_clip_grad_value(NULL, 1, 1.0), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, got);
}

static void test_fans_are_torchs(void) {
  ct_tensor *lin = NULL, *conv = NULL, *vec = NULL;
  CHECK_OK(ct_tensor_empty(S(16, 8), CT_FLOAT32, NULL, &lin));
  CHECK_OK(ct_tensor_empty(S(32, 3, 5, 7), CT_FLOAT32, NULL, &conv));
  CHECK_OK(ct_tensor_empty(S(4), CT_FLOAT32, NULL, &vec));
  int64_t fi = 0, fo = 0;
  CHECK_OK(ct_init_calculate_fan_in_and_fan_out(lin, &fi, &fo));
  CHECK(fi == 8 && fo == 16);
  CHECK_OK(ct_init_calculate_fan_in_and_fan_out(conv, &fi, &fo));
  CHECK(fi == 3 * 35 && fo == 32 * 35);
  CHECK_STATUS(ct_init_calculate_fan_in_and_fan_out(vec, &fi, &fo), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_init_calculate_fan_in_and_fan_out(lin, NULL, &fo), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_calculate_fan_in_and_fan_out(NULL, &fi, &fo), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(lin, conv, vec);
}

static void test_gains_are_torchs(void) {
  double g = 0;
  CHECK_OK(ct_init_calculate_gain("relu", 0, &g));
  CHECK(g == sqrt(2.0));
  CHECK_OK(ct_init_calculate_gain("tanh", 0, &g));
  CHECK(g == 5.0 / 3);
  CHECK_OK(ct_init_calculate_gain("conv2d", 0, &g));
  CHECK(g == 1);
  CHECK_OK(ct_init_calculate_gain("leaky_relu", 0.2, &g));
  CHECK(g == sqrt(2.0 / (1 + 0.2 * 0.2)));
  CHECK_OK(ct_init_calculate_gain("selu", 0, &g));
  CHECK(g == 0.75);
  CHECK_STATUS(ct_init_calculate_gain("swish", 0, &g), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("leaky_relu");
  CHECK_STATUS(ct_init_calculate_gain(NULL, 0, &g), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_calculate_gain("relu", 0, NULL), CT_ERROR_INVALID_ARGUMENT);
}

/* Bounds, mean and standard deviation of 200 x 300 draws. */
static void test_initializers_have_torchs_distributions(void) {
  ct_tensor* w = NULL;
  CHECK_OK(ct_tensor_empty(S(200, 300), CT_FLOAT32, NULL, &w));
  CHECK_OK(ct_tensor_set_requires_grad(w, 1)); /* initializers run with grad mode off */
  const double fan_in = 300, fan_out = 200;
  struct {
    int which;
    double bound, std;
  } cases[] = {
      {0, sqrt(3.0) * sqrt(2.0) / sqrt(fan_in), sqrt(2.0) / sqrt(fan_in)},              /* kaiming_uniform relu */
      {1, INFINITY, sqrt(2.0) / sqrt(fan_out)},                                        /* kaiming_normal fan_out */
      {2, sqrt(3.0) * 2 * sqrt(2.0 / (fan_in + fan_out)), 2 * sqrt(2.0 / (fan_in + fan_out))}, /* xavier_uniform */
      {3, INFINITY, sqrt(2.0 / (fan_in + fan_out))},                                   /* xavier_normal */
  };
  for (int k = 0; k < 4; ++k) {
    switch (cases[k].which) {
      case 0: CHECK_OK(ct_init_kaiming_uniform_(w, 0, "fan_in", "relu", NULL)); break;
      case 1: CHECK_OK(ct_init_kaiming_normal_(w, 0, "fan_out", "relu", NULL)); break;
      case 2: CHECK_OK(ct_init_xavier_uniform_(w, 2.0, NULL)); break;
      default: CHECK_OK(ct_init_xavier_normal_(w, 1.0, NULL)); break;
    }
    int64_t n = 0;
    double* v = values_of(w, &n);
    CHECK(v);
    double sum = 0, sq = 0, maxabs = 0;
    for (int64_t i = 0; i < n; ++i) {
      sum += v[i];
      sq += v[i] * v[i];
      maxabs = fabs(v[i]) > maxabs ? fabs(v[i]) : maxabs;
    }
    free(v);
    const double mean = sum / n, std = sqrt(sq / n - mean * mean);
    CHECK(maxabs <= cases[k].bound);
    CHECK(fabs(mean) < 0.01 * cases[k].std * 10);
    CHECK(fabs(std - cases[k].std) < 0.02 * cases[k].std);
  }
  ct_tensor_release(w);
}

static void test_same_seed_same_numbers(void) {
  ct_generator *g1 = NULL, *g2 = NULL;
  ct_tensor *a = NULL, *b = NULL, *ba = NULL, *bb = NULL;
  CHECK_OK(ct_generator_create(NULL, &g1));
  CHECK_OK(ct_generator_create(NULL, &g2));
  CHECK_OK(ct_generator_manual_seed(g1, 42));
  CHECK_OK(ct_generator_manual_seed(g2, 42));
  CHECK_OK(ct_tensor_empty(S(64, 3, 3, 3), CT_FLOAT32, NULL, &a));
  CHECK_OK(ct_tensor_empty(S(64, 3, 3, 3), CT_FLOAT32, NULL, &b));
  CHECK_OK(ct_tensor_empty(S(64), CT_FLOAT32, NULL, &ba));
  CHECK_OK(ct_tensor_empty(S(64), CT_FLOAT32, NULL, &bb));
  CHECK_OK(ct_init_linear_(a, ba, g1));
  CHECK_OK(ct_init_linear_(b, bb, g2));
  int64_t n = 0, m = 0;
  double *va = values_of(a, &n), *vb = values_of(b, &n);
  double *wa = values_of(ba, &m), *wb = values_of(bb, &m);
  CHECK(va && vb && wa && wb);
  CHECK(memcmp(va, vb, sizeof(double) * (size_t)n) == 0 && memcmp(wa, wb, sizeof(double) * (size_t)m) == 0);
  /* Linear/Conv default: both bounded by 1 / sqrt(fan_in) */
  const double bound = 1 / sqrt(27.0);
  for (int64_t i = 0; i < n; ++i) CHECK(fabs(va[i]) <= bound);
  for (int64_t i = 0; i < m; ++i) CHECK(fabs(wa[i]) <= bound);
  free(va), free(vb), free(wa), free(wb);
  /* a further draw from g1 differs: the generator advanced */
  CHECK_OK(ct_init_uniform_(a, -1, 1, g1));
  CHECK_OK(ct_init_uniform_(b, -1, 1, g1));
  va = values_of(a, &n), vb = values_of(b, &n);
  CHECK(memcmp(va, vb, sizeof(double) * (size_t)n) != 0);
  free(va), free(vb);
  CHECK_OK(ct_init_normal_(a, 3.0, 0.0, g1));
  va = values_of(a, &n);
  CHECK(va[0] == 3.0 && va[n - 1] == 3.0);
  free(va);
  ct_generator_release(g1);
  ct_generator_release(g2);
  RELEASE(a, b, ba, bb);
}

static void test_initializers_refuse_bad_input(void) {
  ct_tensor *w = NULL, *vec = NULL, *ints = NULL, *meta = NULL, *empty = NULL;
  ct_generator* dead = NULL;
  CHECK_OK(ct_generator_create(NULL, &dead));
  ct_generator_release(dead);
  CHECK_OK(ct_tensor_empty(S(4, 4), CT_FLOAT32, NULL, &w));
  CHECK_OK(ct_tensor_empty(S(4), CT_FLOAT32, NULL, &vec));
  CHECK_OK(ct_tensor_zeros(S(4, 4), CT_INT32, NULL, &ints));
  CHECK_OK(ct_tensor_empty(S(4, 4), CT_FLOAT32, "meta", &meta));
  CHECK_OK(ct_tensor_empty(S(0, 4), CT_FLOAT32, NULL, &empty));
  CHECK_STATUS(ct_init_uniform_(NULL, 0, 1, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_uniform_(w, 1, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_uniform_(w, 0, INFINITY, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_normal_(w, 0, -1, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_uniform_(w, 0, 1, dead), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_uniform_(ints, 0, 1, NULL), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_init_uniform_(meta, 0, 1, NULL), CT_ERROR_DEVICE);
  CHECK_STATUS(ct_init_xavier_uniform_(vec, 1, NULL), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_init_xavier_normal_(vec, 1, NULL), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_init_kaiming_uniform_(vec, 0, NULL, NULL, NULL), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_init_kaiming_normal_(w, 0, "fan_sideways", NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("fan_out");
  CHECK_STATUS(ct_init_kaiming_uniform_(w, 0, NULL, "swish", NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_linear_(vec, NULL, NULL), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_init_linear_(w, ints, NULL), CT_ERROR_DTYPE);
  /* an inference tensor: writable inside inference mode only, as for in-place operators */
  ct_tensor* inf = NULL;
  ct_grad_mode prev;
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_INFERENCE, &prev));
  ct_status made = ct_tensor_empty(S(4, 4), CT_FLOAT32, NULL, &inf);
  ct_status inside = made == CT_OK ? ct_init_xavier_normal_(inf, 1, NULL) : made;
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK_OK(inside);
  CHECK_STATUS(ct_init_xavier_normal_(inf, 1, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("inference");
  ct_tensor_release(inf);
  CHECK_OK(ct_init_kaiming_uniform_(empty, 0, NULL, NULL, NULL)); /* no elements: nothing to do */
  CHECK_OK(ct_init_kaiming_normal_(w, 0, NULL, NULL, NULL));      /* NULLs: fan_in, leaky_relu */
  RELEASE(w, vec, ints, meta, empty);
}

/* orthogonal_: Q^T Q = gain^2 I over [rows, rest]; trunc_normal_ within its bounds; sparse_'s zeros
 * per column; eye_ and dirac_ exactly; and the refusals. */
static void test_structured_initializers(void) {
  ct_tensor *q = NULL, *t = NULL, *s = NULL, *e = NULL, *d = NULL;
  CHECK_OK(ct_manual_seed(4));
  CHECK_OK(ct_tensor_empty(S(6, 2, 2), CT_FLOAT64, NULL, &q)); /* [6, 4] flattened: tall */
  CHECK_OK(ct_init_orthogonal_(q, 1.5, NULL));
  int64_t n = 0;
  double* v = values_of(q, &n);
  for (int i = 0; v && i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double dot = 0;
      for (int r = 0; r < 6; ++r) dot += v[r * 4 + i] * v[r * 4 + j];
      CHECK(fabs(dot - (i == j ? 2.25 : 0)) < 1e-12);
    }
  free(v);
  CHECK_OK(ct_tensor_empty(S(5000), CT_FLOAT32, NULL, &t));
  CHECK_OK(ct_init_trunc_normal_(t, 1.0, 3.0, -0.5, 2.0, NULL));
  v = values_of(t, &n);
  for (int64_t i = 0; v && i < n; ++i) CHECK(v[i] >= -0.5 && v[i] <= 2.0);
  free(v);
  CHECK_OK(ct_tensor_empty(S(8, 5), CT_FLOAT64, NULL, &s));
  CHECK_OK(ct_init_sparse_(s, 0.3, 0.5, NULL)); /* ceil(2.4) = 3 zeros per column */
  v = values_of(s, &n);
  for (int c = 0; v && c < 5; ++c) {
    int zeros = 0;
    for (int r = 0; r < 8; ++r) zeros += v[r * 5 + c] == 0;
    CHECK(zeros == 3);
  }
  free(v);
  CHECK_OK(ct_tensor_empty(S(2, 3), CT_FLOAT32, NULL, &e));
  CHECK_OK(ct_init_eye_(e));
  v = values_of(e, &n);
  CHECK(v && v[0] == 1 && v[1] == 0 && v[4] == 1 && v[5] == 0);
  free(v);
  CHECK_OK(ct_tensor_empty(S(4, 2, 3), CT_FLOAT64, NULL, &d));
  CHECK_OK(ct_init_dirac_(d, 2)); /* out 4 in 2 groups: d < min(2, 2); centers at index 1 */
  v = values_of(d, &n);
  double sum = 0;
  for (int64_t i = 0; v && i < n; ++i) sum += v[i];
  CHECK(v && sum == 4 && v[(0 * 2 + 0) * 3 + 1] == 1 && v[(1 * 2 + 1) * 3 + 1] == 1 && v[(2 * 2 + 0) * 3 + 1] == 1 &&
        v[(3 * 2 + 1) * 3 + 1] == 1);
  free(v);
  CHECK_STATUS(ct_init_dirac_(d, 3), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("divisible");
  CHECK_STATUS(ct_init_dirac_(e, 1), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_init_eye_(d), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_init_orthogonal_(t, 1.0, NULL), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_init_orthogonal_(q, NAN, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_trunc_normal_(t, 0, 1, 2, 1, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_trunc_normal_(t, 0, -1, -2, 2, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_sparse_(s, 1.5, 0.01, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_init_sparse_(t, 0.5, 0.01, NULL), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_init_eye_(NULL), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(q, t, s, e, d);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_clip_grad_norm_scales_to_max_norm),
    CAPI_TEST(test_clip_grad_norm_refuses_bad_input),
    CAPI_TEST(test_clip_grad_value_clamps),
    CAPI_TEST(test_fans_are_torchs),
    CAPI_TEST(test_gains_are_torchs),
    CAPI_TEST(test_initializers_have_torchs_distributions),
    CAPI_TEST(test_same_seed_same_numbers),
    CAPI_TEST(test_initializers_refuse_bad_input),
    CAPI_TEST(test_structured_initializers),
};
CAPI_MAIN(TESTS)
