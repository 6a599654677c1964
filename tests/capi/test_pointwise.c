/* Pointwise family: unary math, rounding, predicates, activations, binary and ternary operators. */
#include <math.h>

#include "capi_test.h"

typedef ct_status (*unary_fn)(const ct_tensor*, ct_tensor**);
typedef ct_status (*binary_fn)(const ct_tensor*, const ct_tensor*, ct_tensor**);

/* ---- Unary operators: in = [-0.5, 0.25, 2.5] (float32) ---- */

static const struct {
  const char* name;
  unary_fn fn;
  double out[3];
  double tol;
  ct_dtype int_dtype; /* result dtype for an int32 input; CT_BOOL with is_pred */
  int is_pred;
} UNARY[] = {
    {"exp2", ct_tensor_exp2, {0.70710678, 1.18920712, 5.65685425}, 1e-6, CT_FLOAT32, 0},
    {"expm1", ct_tensor_expm1, {-0.39346934, 0.28402542, 11.18249396}, 1e-6, CT_FLOAT32, 0},
    {"log1p", ct_tensor_log1p, {-0.69314718, 0.22314355, 1.25276297}, 1e-6, CT_FLOAT32, 0},
    {"log2", ct_tensor_log2, {NAN, -2, 1.32192809}, 1e-6, CT_FLOAT32, 0},
    {"log10", ct_tensor_log10, {NAN, -0.60205999, 0.39794001}, 1e-6, CT_FLOAT32, 0},
    {"tan", ct_tensor_tan, {-0.54630249, 0.25534192, -0.74702230}, 1e-6, CT_FLOAT32, 0},
    {"asin", ct_tensor_asin, {-0.52359878, 0.25268026, NAN}, 1e-6, CT_FLOAT32, 0},
    {"acos", ct_tensor_acos, {2.09439510, 1.31811607, NAN}, 1e-6, CT_FLOAT32, 0},
    {"atan", ct_tensor_atan, {-0.46364761, 0.24497866, 1.19028995}, 1e-6, CT_FLOAT32, 0},
    {"sinh", ct_tensor_sinh, {-0.52109531, 0.25261232, 6.05020448}, 1e-5, CT_FLOAT32, 0},
    {"cosh", ct_tensor_cosh, {1.12762597, 1.03141310, 6.13228948}, 1e-5, CT_FLOAT32, 0},
    {"asinh", ct_tensor_asinh, {-0.48121183, 0.24746646, 1.64723115}, 1e-6, CT_FLOAT32, 0},
    {"acosh", ct_tensor_acosh, {NAN, NAN, 1.56679924}, 1e-6, CT_FLOAT32, 0},
    {"atanh", ct_tensor_atanh, {-0.54930614, 0.25541281, NAN}, 1e-6, CT_FLOAT32, 0},
    {"erf", ct_tensor_erf, {-0.52049988, 0.27632639, 0.99959305}, 1e-6, CT_FLOAT32, 0},
    {"erfc", ct_tensor_erfc, {1.52049988, 0.72367361, 0.00040695}, 1e-6, CT_FLOAT32, 0},
    {"erfinv", ct_tensor_erfinv, {-0.47693628, 0.22531206, NAN}, 1e-6, CT_FLOAT32, 0},
    {"reciprocal", ct_tensor_reciprocal, {-2, 4, 0.4}, 1e-7, CT_FLOAT32, 0},
    {"floor", ct_tensor_floor, {-1, 0, 2}, 0, CT_INT32, 0},
    {"ceil", ct_tensor_ceil, {-0, 1, 3}, 0, CT_INT32, 0},
    {"round", ct_tensor_round, {-0, 0, 2}, 0, CT_INT32, 0}, /* half to even */
    {"trunc", ct_tensor_trunc, {-0, 0, 2}, 0, CT_INT32, 0},
    {"sign", ct_tensor_sign, {-1, 1, 1}, 0, CT_INT32, 0},
    {"square", ct_tensor_square, {0.25, 0.0625, 6.25}, 0, CT_INT32, 0},
    {"isnan", ct_tensor_isnan, {0, 0, 0}, 0, CT_BOOL, 1},
    {"isinf", ct_tensor_isinf, {0, 0, 0}, 0, CT_BOOL, 1},
    {"isfinite", ct_tensor_isfinite, {1, 1, 1}, 0, CT_BOOL, 1},
    {"logical_not", ct_tensor_logical_not, {0, 0, 0}, 0, CT_BOOL, 1},
    {"silu", ct_tensor_silu, {-0.18877033, 0.14054413, 2.31035455}, 1e-6, CT_FLOAT32, 0},
    {"mish", ct_tensor_mish, {-0.22074377, 0.16957241, 2.47139230}, 1e-6, CT_FLOAT32, 0},
    {"selu", ct_tensor_selu, {-0.69175819, 0.26267525, 2.62675247}, 1e-6, CT_FLOAT32, 0},
    {"hardsigmoid", ct_tensor_hardsigmoid, {0.41666667, 0.54166667, 0.91666667}, 1e-6, CT_FLOAT32, 0},
    {"hardswish", ct_tensor_hardswish, {-0.20833333, 0.13541667, 2.29166667}, 1e-6, CT_FLOAT32, 0},
};
#define N_UNARY (sizeof UNARY / sizeof *UNARY)

static void test_unary_float32_values(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), -0.5, 0.25, 2.5);
  for (size_t i = 0; i < N_UNARY; ++i) {
    capi_context = UNARY[i].name;
    ct_tensor* out = NULL;
    CHECK_OK(UNARY[i].fn(a, &out));
    CHECK_TENSOR_ARRAY(out, UNARY[i].is_pred ? CT_BOOL : CT_FLOAT32, S(3), UNARY[i].out, 3, UNARY[i].tol);
    ct_tensor_release(out);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_unary_dtype_rules_on_int32(void) {
  /* Float math gives float32; rounding keeps int32; the activations refuse integers. */
  ct_tensor* a = T(CT_INT32, S(3), -2, 0, 3);
  for (size_t i = 0; i < N_UNARY; ++i) {
    capi_context = UNARY[i].name;
    ct_tensor* out = NULL;
    const ct_status st = UNARY[i].fn(a, &out);
    const int activation = UNARY[i].fn == ct_tensor_silu || UNARY[i].fn == ct_tensor_mish ||
                           UNARY[i].fn == ct_tensor_selu || UNARY[i].fn == ct_tensor_hardsigmoid ||
                           UNARY[i].fn == ct_tensor_hardswish;
    if (activation) {
      CHECK(st == CT_ERROR_DTYPE);
      CHECK(out == NULL);
      continue;
    }
    CHECK(st == CT_OK);
    CHECK_META(out, UNARY[i].int_dtype, S(3));
    ct_tensor_release(out);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_unary_null_released_and_meta(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(3, 2), CT_FLOAT64, "meta", &m));
  for (size_t i = 0; i < N_UNARY; ++i) {
    capi_context = UNARY[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(UNARY[i].fn(NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(UNARY[i].fn(a, NULL), CT_ERROR_INVALID_ARGUMENT);
    ct_tensor* r = capi_released();
    out = SENTINEL;
    CHECK_STATUS(UNARY[i].fn(r, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_OK(UNARY[i].fn(m, &out));
    CHECK_META(out, UNARY[i].is_pred ? CT_BOOL : CT_FLOAT64, S(3, 2));
    ct_tensor_release(out);
  }
  capi_context = NULL;
  RELEASE(a, m);
}

static void test_rounding_refuses_bool_and_frac_integers(void) {
  ct_tensor* b = T(CT_BOOL, S(2), 1, 0);
  ct_tensor* i = T(CT_INT64, S(2), 5, -5);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_floor(b, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_frac(i, &out), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_round_decimals(i, 1, &out), CT_ERROR_DTYPE);
  CHECK_OK(ct_tensor_square(b, &out));
  CHECK_TENSOR(out, CT_INT64, S(2), 1, 0);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_bitwise_not(b, &out));
  CHECK_TENSOR(out, CT_BOOL, S(2), 0, 1);
  ct_tensor_release(out);
  CHECK_OK(ct_tensor_bitwise_not(i, &out));
  CHECK_TENSOR(out, CT_INT64, S(2), -6, 4);
  ct_tensor_release(out);
  RELEASE(b, i);
}

static void test_round_decimals_and_frac(void) {
  ct_tensor* a = T(CT_FLOAT64, S(4), 1.2345, -2.5, 1250, 0.125);
  ct_tensor *r2 = NULL, *rm2 = NULL, *f = NULL;
  CHECK_OK(ct_tensor_round_decimals(a, 2, &r2));
  CHECK_TENSOR_NEAR(r2, CT_FLOAT64, 1e-12, S(4), 1.23, -2.5, 1250, 0.12);
  CHECK_OK(ct_tensor_round_decimals(a, -2, &rm2));
  CHECK_TENSOR(rm2, CT_FLOAT64, S(4), 0, -0, 1200, 0);
  CHECK_OK(ct_tensor_frac(a, &f));
  CHECK_TENSOR_NEAR(f, CT_FLOAT64, 1e-12, S(4), 0.2345, -0.5, 0, 0.125);
  RELEASE(a, r2, rm2, f);
}

static void test_nan_to_num_defaults_and_values(void) {
  ct_tensor* a = T(CT_FLOAT16, S(4), NAN, INFINITY, -INFINITY, 1.5);
  ct_tensor *d = NULL, *v = NULL;
  CHECK_OK(ct_tensor_nan_to_num(a, NULL, NULL, NULL, &d));
  CHECK_TENSOR(d, CT_FLOAT16, S(4), 0, 65504, -65504, 1.5);
  const double nan = -1, posinf = 100;
  CHECK_OK(ct_tensor_nan_to_num(a, &nan, &posinf, NULL, &v));
  CHECK_TENSOR(v, CT_FLOAT16, S(4), -1, 100, -65504, 1.5);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_nan_to_num(NULL, NULL, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  RELEASE(a, d, v);
}

static void test_clamp_min_max(void) {
  ct_tensor* a = T(CT_INT32, S(4), -3, 0, 2, 5);
  const ct_scalar lo = SI(0), hi = SF(2.5);
  ct_tensor *mn = NULL, *mx = NULL;
  CHECK_OK(ct_tensor_clamp_min(a, &lo, &mn));
  CHECK_TENSOR(mn, CT_INT32, S(4), 0, 0, 2, 5);
  CHECK_OK(ct_tensor_clamp_max(a, &hi, &mx));
  CHECK_TENSOR(mx, CT_FLOAT32, S(4), -3, 0, 2, 2.5); /* a float bound promotes */
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_clamp_min(a, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  ct_tensor* b = T(CT_BOOL, S(1), 1);
  CHECK_STATUS(ct_tensor_clamp_max(b, &lo, &out), CT_ERROR_DTYPE);
  RELEASE(a, mn, mx, b);
}

/* ---- Activations with parameters ---- */

static void test_parametrized_activations(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), -2, 0.5, 30);
  ct_tensor *g = NULL, *gt = NULL, *sp = NULL, *e = NULL, *lr = NULL, *ht = NULL;
  CHECK_OK(ct_tensor_gelu(a, NULL, &g));
  CHECK_TENSOR_NEAR(g, CT_FLOAT32, 1e-6, S(3), -0.04550026, 0.34573123, 30);
  CHECK_OK(ct_tensor_gelu(a, "tanh", &gt));
  CHECK_TENSOR_NEAR(gt, CT_FLOAT32, 1e-6, S(3), -0.04540230, 0.34571401, 30);
  CHECK_OK(ct_tensor_softplus(a, 2, 20, &sp)); /* 30 * 2 > 20: x itself */
  CHECK_TENSOR_NEAR(sp, CT_FLOAT32, 1e-6, S(3), 0.00907496, 0.65663084, 30);
  CHECK_OK(ct_tensor_elu(a, 1.5, 2, 0.5, &e));
  CHECK_TENSOR_NEAR(e, CT_FLOAT32, 1e-6, S(3), -1.89636167, 1, 60);
  CHECK_OK(ct_tensor_leaky_relu(a, 0.1, &lr));
  CHECK_TENSOR_NEAR(lr, CT_FLOAT32, 1e-7, S(3), -0.2, 0.5, 30);
  CHECK_OK(ct_tensor_hardtanh(a, -1, 2, &ht));
  CHECK_TENSOR(ht, CT_FLOAT32, S(3), -1, 0.5, 2);
  RELEASE(a, g, gt, sp, e, lr, ht);
}

/* relu's gradient: 0 where self <= threshold, else grad_output as it came (an infinite one too). */
static void test_threshold_backward(void) {
  ct_tensor* grad = T(CT_FLOAT32, S(4), INFINITY, 1, -2, 3);
  ct_tensor* self = T(CT_FLOAT64, S(4), -1, 0.5, 0.25, 2);
  const ct_scalar quarter = SF(0.25);
  ct_tensor *out = NULL, *bad = NULL;
  CHECK_OK(ct_tensor_threshold_backward(grad, self, &quarter, &out));
  CHECK_TENSOR(out, CT_FLOAT64, S(4), 0, 1, 0, 3); /* promoted to float64 */
  ct_tensor* other = T(CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_STATUS(ct_tensor_threshold_backward(grad, other, &quarter, &bad), CT_ERROR_SHAPE);
  CHECK(bad == NULL);
  CHECK_CONTAINS(ct_last_error(), "threshold_backward");
  RELEASE(grad, self, out, other);
}

/* gelu (erf form) against x/2 (1 + erf(x / sqrt 2)) in double over [-12, 12] and at extremes. float32
   rounds erf near -1 to 6e-8, so for x < 0 the error allowed grows to |x| 3e-8 (PyTorch's is
   larger); elsewhere 2 ulp. Huge negative inputs give +0 (as x/2 + x/2 erf rounds), huge positive
   ones x, tiny ones x/2; the bytes are the same on one thread and two (the AVX-512, AVX2 and
   baseline loops compute the same bits; see Note [CPU capability dispatch]). */
static void test_gelu_matches_double_at_extreme_inputs(void) {
  enum { N = 48011 };
  static float x[N], got[2][N];
  const float edges[] = {-1e30f, -3e38f, -100.0f, -20.0f, -13.5f, -10.0f, -5.5f, -1e-30f, -0.0f, 0.0f,
                         1e-30f, 1e-40f, -1e-40f, 1e-5f, 20.0f, 3e38f};
  const int ne = (int)(sizeof edges / sizeof edges[0]);
  for (int i = 0; i < ne; ++i) x[i] = edges[i];
  for (int i = ne; i < N; ++i) x[i] = -12.0f + 24.0f * (float)(i - ne) / (float)(N - ne);
  int32_t old = 1;
  CHECK_OK(ct_get_num_threads(&old));
  ct_tensor *a = NULL, *g[2] = {NULL, NULL};
  CHECK_OK(ct_tensor_from_data(x, SZ(N), 1, CT_FLOAT32, &a));
  for (int threads = 1; threads <= 2; ++threads) {
    CHECK_OK(ct_set_num_threads(threads));
    CHECK_OK(ct_tensor_gelu(a, "none", &g[threads - 1]));
    CHECK_OK(ct_tensor_copy_to(g[threads - 1], got[threads - 1], sizeof got[0]));
  }
  CHECK_OK(ct_set_num_threads(old));
  CHECK(memcmp(got[0], got[1], sizeof got[0]) == 0);
  for (int i = 0; i < N; ++i) {
    const double xi = x[i], want = 0.5 * xi * (1.0 + erf(xi / sqrt(2.0)));
    const double tol = 2.4e-7 * fabs(want) + (xi < 0 ? 3e-8 * fabs(xi) : 0.0) + 1e-45;
    if (!(fabs(got[0][i] - want) <= tol)) {
      fprintf(stderr, "gelu(%.9g) = %.9g, want %.9g\n", xi, got[0][i], want);
      CHECK(0);
    }
  }
  CHECK(got[0][0] == 0.0f && !signbit(got[0][0])); /* -1e30 */
  CHECK(got[0][ne - 1] == 3e38f);
  CHECK(got[0][10] == 0.5e-30f);
  RELEASE(a, g[0], g[1]);
}

static void test_activation_bad_arguments(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* i = T(CT_INT64, S(2), 1, 2);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_gelu(a, "fast", &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("approximate");
  CHECK_STATUS(ct_tensor_gelu(i, "none", &out), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_softplus(NULL, 1, 20, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_elu(a, 1, 1, 1, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_leaky_relu(i, 0.1, &out), CT_ERROR_DTYPE);
  CHECK_OK(ct_tensor_hardtanh(i, -1, 1, &out)); /* hardtanh takes signed integers */
  CHECK_TENSOR(out, CT_INT64, S(2), 1, 1);
  RELEASE(a, i, out);
}

/* ---- Binary operators ---- */

/* a = [7, -7, 5.5, -1] and b = [2, 2, -2, 3] (float32). */
static const struct {
  const char* name;
  binary_fn fn;
  double f32[4];
  int is_logical;
} BINARY[] = {
    {"atan2", ct_tensor_atan2, {1.29249667, -1.29249667, 1.91956733, -0.32175055}, 0},
    {"hypot", ct_tensor_hypot, {7.28010988, 7.28010988, 5.85234996, 3.16227766}, 0},
    {"fmod", ct_tensor_fmod, {1, -1, 1.5, -1}, 0},
    {"remainder", ct_tensor_remainder, {1, 1, -0.5, 2}, 0},
    {"floor_divide", ct_tensor_floor_divide, {3, -4, -3, -1}, 0},
    {"logical_and", ct_tensor_logical_and, {1, 1, 1, 1}, 1},
    {"logical_or", ct_tensor_logical_or, {1, 1, 1, 1}, 1},
    {"logical_xor", ct_tensor_logical_xor, {0, 0, 0, 0}, 1},
};
#define N_BINARY (sizeof BINARY / sizeof *BINARY)

static void test_binary_float32_values(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4), 7, -7, 5.5, -1);
  ct_tensor* b = T(CT_FLOAT32, S(4), 2, 2, -2, 3);
  for (size_t i = 0; i < N_BINARY; ++i) {
    capi_context = BINARY[i].name;
    ct_tensor* out = NULL;
    CHECK_OK(BINARY[i].fn(a, b, &out));
    CHECK_TENSOR_ARRAY(out, BINARY[i].is_logical ? CT_BOOL : CT_FLOAT32, S(4), BINARY[i].f32, 4, 1e-6);
    ct_tensor_release(out);
  }
  capi_context = NULL;
  RELEASE(a, b);
}

static void test_binary_bad_arguments(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* b = T(CT_FLOAT32, S(2), 1, 2);
  binary_fn all[] = {ct_tensor_atan2, ct_tensor_hypot, ct_tensor_fmod, ct_tensor_remainder,
                     ct_tensor_floor_divide, ct_tensor_bitwise_and, ct_tensor_bitwise_or, ct_tensor_bitwise_xor,
                     ct_tensor_bitwise_left_shift, ct_tensor_bitwise_right_shift, ct_tensor_logical_and,
                     ct_tensor_logical_or, ct_tensor_logical_xor};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i) {
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(all[i](NULL, b, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(all[i](a, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(all[i](a, b, NULL), CT_ERROR_INVALID_ARGUMENT);
    out = SENTINEL;
    CHECK_STATUS(all[i](a, b, &out), i >= 5 && i <= 9 ? CT_ERROR_DTYPE : CT_ERROR_SHAPE);
    CHECK(out == NULL);
  }
  RELEASE(a, b);
}

static void test_integer_division_by_zero_is_an_error(void) {
  ct_tensor* a = T(CT_INT32, S(3), 7, -7, 1);
  ct_tensor* b = T(CT_INT32, S(3), 2, 0, 1);
  binary_fn div_like[] = {ct_tensor_fmod, ct_tensor_remainder, ct_tensor_floor_divide};
  for (size_t i = 0; i < 3; ++i) {
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(div_like[i](a, b, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_ERROR_CONTAINS("ZeroDivisionError");
  }
  RELEASE(a, b);
}

static void test_integer_division_and_scalars(void) {
  ct_tensor* a = T(CT_INT8, S(4), 7, -7, -128, 5);
  ct_tensor* b = T(CT_INT8, S(4), 2, 2, -1, -3);
  ct_tensor *fd = NULL, *rm = NULL, *fm = NULL, *fms = NULL, *rms = NULL, *fds = NULL;
  CHECK_OK(ct_tensor_floor_divide(a, b, &fd));
  CHECK_TENSOR(fd, CT_INT8, S(4), 3, -4, -128, -2); /* -128 // -1 wraps, as in PyTorch */
  CHECK_OK(ct_tensor_remainder(a, b, &rm));
  CHECK_TENSOR(rm, CT_INT8, S(4), 1, 1, 0, -1);
  CHECK_OK(ct_tensor_fmod(a, b, &fm));
  CHECK_TENSOR(fm, CT_INT8, S(4), 1, -1, 0, 2);
  const ct_scalar three = SI(3), half = SF(1.5);
  CHECK_OK(ct_tensor_fmod_scalar(a, &three, &fms));
  CHECK_TENSOR(fms, CT_INT8, S(4), 1, -1, -2, 2);
  CHECK_OK(ct_tensor_remainder_scalar(a, &half, &rms));
  CHECK_TENSOR(rms, CT_FLOAT32, S(4), 1, 0.5, 1, 0.5);
  CHECK_OK(ct_tensor_floor_divide_scalar(a, &three, &fds));
  CHECK_TENSOR(fds, CT_INT8, S(4), 2, -3, -43, 1);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_fmod_scalar(a, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  RELEASE(a, b, fd, rm, fm, fms, rms, fds);
}

static void test_bitwise_operators(void) {
  ct_tensor* a = T(CT_INT16, S(4), 12, -1, 5, 1);
  ct_tensor* b = T(CT_INT16, S(4), 10, 3, 1, 15);
  ct_tensor *and_ = NULL, *or_ = NULL, *xor_ = NULL, *l = NULL, *r = NULL, *wide = NULL;
  CHECK_OK(ct_tensor_bitwise_and(a, b, &and_));
  CHECK_TENSOR(and_, CT_INT16, S(4), 8, 3, 1, 1);
  CHECK_OK(ct_tensor_bitwise_or(a, b, &or_));
  CHECK_TENSOR(or_, CT_INT16, S(4), 14, -1, 5, 15);
  CHECK_OK(ct_tensor_bitwise_xor(a, b, &xor_));
  CHECK_TENSOR(xor_, CT_INT16, S(4), 6, -4, 4, 14);
  CHECK_OK(ct_tensor_bitwise_left_shift(a, b, &l));
  CHECK_TENSOR(l, CT_INT16, S(4), 12288, -8, 10, -32768);
  CHECK_OK(ct_tensor_bitwise_right_shift(a, b, &r));
  CHECK_TENSOR(r, CT_INT16, S(4), 0, -1, 2, 0);
  ct_tensor* big = T(CT_INT16, S(4), 16, -2, 40, 16);
  CHECK_OK(ct_tensor_bitwise_left_shift(a, big, &wide)); /* counts out of range give 0 */
  CHECK_TENSOR(wide, CT_INT16, S(4), 0, 0, 0, 0);
  ct_tensor* fl = T(CT_FLOAT32, S(1), 1);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_bitwise_and(fl, fl, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("integer");
  ct_tensor_release(fl);
  RELEASE(a, b, and_, or_, xor_, l, r, big, wide);
}

/* ---- Ternary operators ---- */

static void test_lerp_scalar_and_tensor(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* e = T(CT_FLOAT32, S(2), 3, 6);
  ct_tensor* w = T(CT_FLOAT32, S(2, 1), 0, 1);
  const ct_scalar q = SF(0.25);
  ct_tensor *ls = NULL, *lt = NULL;
  CHECK_OK(ct_tensor_lerp(a, e, &q, &ls));
  CHECK_TENSOR(ls, CT_FLOAT32, S(2), 1.5, 3);
  CHECK_OK(ct_tensor_lerp_tensor(a, e, w, &lt));
  CHECK_TENSOR(lt, CT_FLOAT32, S(2, 2), 1, 2, 3, 6);
  ct_tensor* d = T(CT_FLOAT64, S(2), 3, 6);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_lerp(a, d, &q, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("end");
  CHECK_STATUS(ct_tensor_lerp(a, e, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_lerp_tensor(a, e, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* s3 = T(CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_STATUS(ct_tensor_lerp(a, s3, &q, &out), CT_ERROR_SHAPE);
  RELEASE(a, e, w, ls, lt, d, s3);
}

static void test_addcmul_addcdiv(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 1, 1);
  ct_tensor* t1 = T(CT_FLOAT32, S(3), 2, 4, 6);
  ct_tensor* t2 = T(CT_FLOAT32, S(1), 2);
  const ct_scalar v = SF(0.5);
  ct_tensor *m1 = NULL, *m2 = NULL, *d1 = NULL;
  CHECK_OK(ct_tensor_addcmul(a, t1, t2, NULL, &m1));
  CHECK_TENSOR(m1, CT_FLOAT32, S(3), 5, 9, 13);
  CHECK_OK(ct_tensor_addcmul(a, t1, t2, &v, &m2));
  CHECK_TENSOR(m2, CT_FLOAT32, S(3), 3, 5, 7);
  CHECK_OK(ct_tensor_addcdiv(a, t1, t2, &v, &d1));
  CHECK_TENSOR(d1, CT_FLOAT32, S(3), 1.5, 2, 2.5);
  ct_tensor* i1 = T(CT_INT32, S(3), 1, 2, 3);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_addcdiv(a, i1, i1, NULL, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_addcmul(NULL, t1, t2, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_addcmul(a, t1, capi_released(), NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* s2 = T(CT_FLOAT32, S(2), 1, 2);
  CHECK_STATUS(ct_tensor_addcdiv(a, s2, t2, NULL, &out), CT_ERROR_SHAPE);
  RELEASE(a, t1, t2, m1, m2, d1, i1, s2);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_unary_float32_values),
    CAPI_TEST(test_unary_dtype_rules_on_int32),
    CAPI_TEST(test_unary_null_released_and_meta),
    CAPI_TEST(test_rounding_refuses_bool_and_frac_integers),
    CAPI_TEST(test_round_decimals_and_frac),
    CAPI_TEST(test_nan_to_num_defaults_and_values),
    CAPI_TEST(test_clamp_min_max),
    CAPI_TEST(test_parametrized_activations),
    CAPI_TEST(test_threshold_backward),
    CAPI_TEST(test_gelu_matches_double_at_extreme_inputs),
    CAPI_TEST(test_activation_bad_arguments),
    CAPI_TEST(test_binary_float32_values),
    CAPI_TEST(test_binary_bad_arguments),
    CAPI_TEST(test_integer_division_by_zero_is_an_error),
    CAPI_TEST(test_integer_division_and_scalars),
    CAPI_TEST(test_bitwise_operators),
    CAPI_TEST(test_lerp_scalar_and_tensor),
    CAPI_TEST(test_addcmul_addcdiv),
};
CAPI_MAIN(TESTS)
