/* Elementwise operators: binary, tensor-scalar, in-place, unary, where, clamp. */
#include "capi_test.h"

typedef ct_status (*binary_fn)(const ct_tensor*, const ct_tensor*, ct_tensor**);
typedef ct_status (*scalar_fn)(const ct_tensor*, const ct_scalar*, ct_tensor**);
typedef ct_status (*inplace_fn)(ct_tensor*, const ct_tensor*);
typedef ct_status (*inplace_scalar_fn)(ct_tensor*, const ct_scalar*);
typedef ct_status (*unary_fn)(const ct_tensor*, ct_tensor**);

/* ---- Binary operators ---- */

/* a = [1, -2, 3, 4] and b = [1, 2, 0, 0.5] (float32); a = [7, -7, 6, 0] and b = [2, 2, 6, 5] (int32). */
static const struct {
  const char* name;
  binary_fn fn;
  int is_cmp;
  double f32[4];
  ct_dtype int_dtype;
  double i32[4];
} BINARY[] = {
    {"add", ct_tensor_add, 0, {2, 0, 3, 4.5}, CT_INT32, {9, -5, 12, 5}},
    {"sub", ct_tensor_sub, 0, {0, -4, 3, 3.5}, CT_INT32, {5, -9, 0, -5}},
    {"mul", ct_tensor_mul, 0, {1, -4, 0, 2}, CT_INT32, {14, -14, 36, 0}},
    {"div", ct_tensor_div, 0, {1, -1, INFINITY, 8}, CT_FLOAT32, {3.5, -3.5, 1, 0}},
    {"pow", ct_tensor_pow, 0, {1, 4, 1, 2}, CT_INT32, {49, 49, 46656, 0}},
    {"maximum", ct_tensor_maximum, 0, {1, 2, 3, 4}, CT_INT32, {7, 2, 6, 5}},
    {"minimum", ct_tensor_minimum, 0, {1, -2, 0, 0.5}, CT_INT32, {2, -7, 6, 0}},
    {"eq", ct_tensor_eq, 1, {1, 0, 0, 0}, CT_BOOL, {0, 0, 1, 0}},
    {"ne", ct_tensor_ne, 1, {0, 1, 1, 1}, CT_BOOL, {1, 1, 0, 1}},
    {"lt", ct_tensor_lt, 1, {0, 1, 0, 0}, CT_BOOL, {0, 1, 0, 1}},
    {"le", ct_tensor_le, 1, {1, 1, 0, 0}, CT_BOOL, {0, 1, 1, 1}},
    {"gt", ct_tensor_gt, 1, {0, 0, 1, 1}, CT_BOOL, {1, 0, 0, 0}},
    {"ge", ct_tensor_ge, 1, {1, 0, 1, 1}, CT_BOOL, {1, 0, 1, 0}},
};
#define N_BINARY (sizeof BINARY / sizeof *BINARY)

static void test_binary_ops_float32_values(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4), 1, -2, 3, 4);
  ct_tensor* b = T(CT_FLOAT32, S(4), 1, 2, 0, 0.5);
  for (size_t i = 0; i < N_BINARY; ++i) {
    capi_context = BINARY[i].name;
    ct_tensor* out = NULL;
    CHECK_OK(BINARY[i].fn(a, b, &out));
    CHECK_TENSOR_ARRAY(out, BINARY[i].is_cmp ? CT_BOOL : CT_FLOAT32, S(4), BINARY[i].f32, 4, 0.0);
    ct_tensor_release(out);
  }
  capi_context = NULL;
  RELEASE(a, b);
}

static void test_binary_ops_int32_values_and_dtypes(void) {
  ct_tensor* a = T(CT_INT32, S(4), 7, -7, 6, 0);
  ct_tensor* b = T(CT_INT32, S(4), 2, 2, 6, 5);
  for (size_t i = 0; i < N_BINARY; ++i) {
    capi_context = BINARY[i].name;
    ct_tensor* out = NULL;
    CHECK_OK(BINARY[i].fn(a, b, &out));
    CHECK_TENSOR_ARRAY(out, BINARY[i].int_dtype, S(4), BINARY[i].i32, 4, 0.0);
    ct_tensor_release(out);
  }
  capi_context = NULL;
  RELEASE(a, b);
}

static void test_binary_ops_on_meta_give_meta_with_broadcast_sizes(void) {
  ct_tensor *a = NULL, *b = NULL;
  CHECK_OK(ct_tensor_empty(S(4, 1), CT_INT32, "meta", &a));
  CHECK_OK(ct_tensor_empty(S(3), CT_FLOAT32, "meta", &b));
  for (size_t i = 0; i < N_BINARY; ++i) {
    capi_context = BINARY[i].name;
    ct_tensor* out = NULL;
    CHECK_OK(BINARY[i].fn(a, b, &out));
    CHECK_META(out, BINARY[i].is_cmp ? CT_BOOL : CT_FLOAT32, S(4, 3));
    ct_device_type dev = CT_DEVICE_CPU;
    int32_t idx = 0;
    CHECK_OK(ct_tensor_device(out, &dev, &idx));
    CHECK(dev == CT_DEVICE_META);
    ct_tensor_release(out);
  }
  capi_context = NULL;
  RELEASE(a, b);
}

static void test_binary_ops_null_input_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  for (size_t i = 0; i < N_BINARY; ++i) {
    capi_context = BINARY[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(BINARY[i].fn(NULL, a, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(BINARY[i].fn(a, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_binary_ops_null_out_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  for (size_t i = 0; i < N_BINARY; ++i) {
    capi_context = BINARY[i].name;
    CHECK_STATUS(BINARY[i].fn(a, a, NULL), CT_ERROR_INVALID_ARGUMENT);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_binary_ops_released_input_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  for (size_t i = 0; i < N_BINARY; ++i) {
    capi_context = BINARY[i].name;
    ct_tensor* r = capi_released();
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(BINARY[i].fn(r, a, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    r = capi_released();
    out = SENTINEL;
    CHECK_STATUS(BINARY[i].fn(a, r, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_binary_ops_non_broadcastable_is_shape_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* b = T(CT_FLOAT32, S(2), 1, 2);
  for (size_t i = 0; i < N_BINARY; ++i) {
    capi_context = BINARY[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(BINARY[i].fn(a, b, &out), CT_ERROR_SHAPE);
    CHECK(out == NULL);
    CHECK_ERROR_CONTAINS(BINARY[i].name);
    CHECK_ERROR_CONTAINS("[2, 3]");
    CHECK_ERROR_CONTAINS("[2]");
  }
  capi_context = NULL;
  RELEASE(a, b);
}

static void test_binary_ops_mixed_devices_is_device_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(2), CT_FLOAT32, "meta", &m));
  for (size_t i = 0; i < N_BINARY; ++i) {
    capi_context = BINARY[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(BINARY[i].fn(a, m, &out), CT_ERROR_DEVICE);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(BINARY[i].fn(m, a, &out), CT_ERROR_DEVICE);
    CHECK(out == NULL);
  }
  capi_context = NULL;
  RELEASE(a, m);
}

static void test_sub_of_bools_is_dtype_error(void) {
  ct_tensor* a = T(CT_BOOL, S(2), 1, 0);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_sub(a, a, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  ct_scalar t = SB(1);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_sub_scalar(a, &t, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_broadcast_column_plus_row(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4, 1), 0, 10, 20, 30);
  ct_tensor* b = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor *out = NULL, *out2 = NULL;
  CHECK_OK(ct_tensor_add(a, b, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(4, 3), 1, 2, 3, 11, 12, 13, 21, 22, 23, 31, 32, 33);
  CHECK_OK(ct_tensor_sub(b, a, &out2)); /* also when the smaller rank comes first */
  CHECK_TENSOR(out2, CT_FLOAT32, S(4, 3), 1, 2, 3, -9, -8, -7, -19, -18, -17, -29, -28, -27);
  RELEASE(a, b, out, out2);
}

static void test_broadcast_three_dims(void) {
  ct_tensor* a = T(CT_INT64, S(2, 1, 2), 1, 2, 3, 4);
  ct_tensor* b = T(CT_INT64, S(3, 1), 10, 20, 30);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_add(a, b, &out));
  CHECK_TENSOR(out, CT_INT64, S(2, 3, 2), 11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34);
  RELEASE(a, b, out);
}

static void test_broadcast_with_empty_dim(void) {
  ct_tensor* a = TE(CT_FLOAT32, S(0, 3));
  ct_tensor* b = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* c = T(CT_FLOAT32, S(1), 1);
  ct_tensor* e = TE(CT_FLOAT32, S(0));
  ct_tensor *out = NULL, *out2 = NULL;
  CHECK_OK(ct_tensor_mul(a, b, &out));
  CHECK_META(out, CT_FLOAT32, S(0, 3));
  CHECK_OK(ct_tensor_add(e, c, &out2));
  CHECK_META(out2, CT_FLOAT32, S(0));
  RELEASE(a, b, c, e, out, out2);
}

static void test_binary_ops_read_strided_views(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* col = T(CT_FLOAT32, S(3, 1), 1, 1, 1);
  ct_tensor* b = T(CT_FLOAT32, S(2), 100, 200);
  ct_tensor *t = NULL, *out = NULL, *ex = NULL, *out2 = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t)); /* [[1, 4], [2, 5], [3, 6]] */
  CHECK_OK(ct_tensor_add(t, b, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(3, 2), 101, 204, 102, 205, 103, 206);
  CHECK_OK(ct_tensor_expand(col, S(3, 2), &ex)); /* stride 0 */
  CHECK_OK(ct_tensor_mul(t, ex, &out2));
  CHECK_TENSOR(out2, CT_FLOAT32, S(3, 2), 1, 4, 2, 5, 3, 6);
  RELEASE(a, col, b, t, out, ex, out2);
}

/* ---- Type promotion ---- */

static void check_add_promotion(const char* file, int line, ct_tensor* a, ct_tensor* b, ct_dtype want,
                                const int64_t* sizes, size_t ndim, const double* vals, size_t n) {
  ct_tensor* out = NULL;
  ct_status st = ct_tensor_add(a, b, &out);
  if (capi_check_status(file, line, "ct_tensor_add(a, b, &out)", st, CT_OK))
    capi_check_tensor(file, line, "a + b", out, want, sizes, ndim, vals, n, 0.0);
  ct_tensor_release(out);
  ct_tensor_release(a);
  ct_tensor_release(b);
}

#define CHECK_ADD(a, b, want, sz, ...)                                                               \
  do {                                                                                               \
    check_add_promotion(__FILE__, __LINE__, (a), (b), (want), sz, ((const double[]){__VA_ARGS__}),    \
                        sizeof((const double[]){__VA_ARGS__}) / sizeof(double));                     \
    if (capi_failed_now) return;                                                                     \
  } while (0)

static void test_add_int32_and_float16_is_float16(void) {
  CHECK_ADD(T(CT_INT32, S(2), 1, 2), T(CT_FLOAT16, S(2), 0.5, 1.5), CT_FLOAT16, S(2), 1.5, 3.5);
  CHECK_ADD(T(CT_FLOAT16, S(2), 0.5, 1.5), T(CT_INT32, S(2), 1, 2), CT_FLOAT16, S(2), 1.5, 3.5);
}

static void test_add_promotes_dimensioned_dtypes(void) {
  CHECK_ADD(T(CT_INT32, S(2), 1, 2), T(CT_INT64, S(2), 10, 20), CT_INT64, S(2), 11, 22);
  CHECK_ADD(T(CT_UINT8, S(2), 200, 1), T(CT_INT8, S(2), -1, -2), CT_INT16, S(2), 199, -1);
  CHECK_ADD(T(CT_FLOAT16, S(1), 1.5), T(CT_BFLOAT16, S(1), 2.5), CT_FLOAT32, S(1), 4);
  CHECK_ADD(T(CT_INT64, S(1), 3), T(CT_FLOAT32, S(1), 0.5), CT_FLOAT32, S(1), 3.5);
  CHECK_ADD(T(CT_FLOAT32, S(1), 0.5), T(CT_FLOAT64, S(1), 0.25), CT_FLOAT64, S(1), 0.75);
  CHECK_ADD(T(CT_BOOL, S(2), 1, 0), T(CT_INT8, S(2), 5, 5), CT_INT8, S(2), 6, 5);
  CHECK_ADD(T(CT_BOOL, S(3), 1, 0, 1), T(CT_BOOL, S(3), 1, 0, 0), CT_BOOL, S(3), 1, 0, 1);
}

static void test_add_uint8_and_zero_dim_int64_is_uint8(void) {
  /* The 0-dim tensor has the same category, so it does not count; uint8 wraps. */
  CHECK_ADD(T(CT_UINT8, S(2), 250, 10), T(CT_INT64, S0, 10), CT_UINT8, S(2), 4, 20);
  CHECK_ADD(T(CT_INT64, S0, 10), T(CT_UINT8, S(2), 250, 10), CT_UINT8, S(2), 4, 20);
}

static void test_add_zero_dim_of_same_category_does_not_count(void) {
  CHECK_ADD(T(CT_INT32, S(2), 1, 2), T(CT_INT64, S0, 5), CT_INT32, S(2), 6, 7);
  CHECK_ADD(T(CT_FLOAT16, S(2), 1, 2), T(CT_FLOAT64, S0, 0.5), CT_FLOAT16, S(2), 1.5, 2.5);
  CHECK_ADD(T(CT_INT32, S(1), 1), T(CT_BOOL, S0, 1), CT_INT32, S(1), 2);
}

static void test_add_zero_dim_of_higher_category_counts(void) {
  CHECK_ADD(T(CT_INT32, S(2), 1, 2), T(CT_FLOAT64, S0, 0.5), CT_FLOAT64, S(2), 1.5, 2.5);
  CHECK_ADD(T(CT_INT8, S(1), 1), T(CT_FLOAT16, S0, 0.5), CT_FLOAT16, S(1), 1.5);
  CHECK_ADD(T(CT_BOOL, S(1), 1), T(CT_INT32, S0, 5), CT_INT32, S(1), 6);
}

static void test_add_of_two_zero_dims_promotes_normally(void) {
  CHECK_ADD(T(CT_INT32, S0, 1), T(CT_INT64, S0, 2), CT_INT64, S0, 3);
  CHECK_ADD(T(CT_FLOAT32, S0, 1), T(CT_FLOAT64, S0, 0.5), CT_FLOAT64, S0, 1.5);
}

static void test_add_one_element_1d_is_dimensioned(void) {
  /* A [1] tensor is dimensioned: float64 [1] + float32 [2] is float64 (broadcast to [2]). */
  CHECK_ADD(T(CT_FLOAT64, S(1), 0.5), T(CT_FLOAT32, S(2), 1, 2), CT_FLOAT64, S(2), 1.5, 2.5);
}

static void test_div_of_integers_is_float32(void) {
  ct_tensor* a = T(CT_INT64, S(3), 7, -7, 1);
  ct_tensor* b = T(CT_INT64, S(3), 2, 2, 3);
  ct_tensor* c = T(CT_UINT8, S(1), 3);
  ct_tensor *out = NULL, *out2 = NULL;
  CHECK_OK(ct_tensor_div(a, b, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(3), 3.5, -3.5, (double)(1.0f / 3.0f));
  CHECK_OK(ct_tensor_div(c, c, &out2));
  CHECK_TENSOR(out2, CT_FLOAT32, S(1), 1);
  RELEASE(a, b, c, out, out2);
}

static void test_div_keeps_floating_dtype(void) {
  ct_tensor* a = T(CT_FLOAT16, S(2), 3, 1);
  ct_tensor* b = T(CT_FLOAT16, S(2), 2, 4);
  ct_tensor* c = T(CT_INT32, S(2), 3, 1);
  ct_tensor* d = T(CT_FLOAT64, S(2), 2, 4);
  ct_tensor *out = NULL, *out2 = NULL;
  CHECK_OK(ct_tensor_div(a, b, &out));
  CHECK_TENSOR(out, CT_FLOAT16, S(2), 1.5, 0.25);
  CHECK_OK(ct_tensor_div(c, d, &out2));
  CHECK_TENSOR(out2, CT_FLOAT64, S(2), 1.5, 0.25);
  RELEASE(a, b, c, d, out, out2);
}

static void test_div_of_integers_by_zero_gives_inf_and_nan(void) {
  ct_tensor* a = T(CT_INT32, S(3), 1, -1, 0);
  ct_tensor* z = T(CT_INT32, S(3), 0, 0, 0);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_div(a, z, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(3), INFINITY, -INFINITY, NAN);
  RELEASE(a, z, out);
}

static void test_int_tensor_compared_with_float_scalar_compares_as_float(void) {
  /* 1 == 1.5 is false: the scalar must not be truncated to the tensor's integer dtype. */
  ct_tensor* a = T(CT_INT32, S(2), 1, 2);
  ct_scalar s = SF(1.5);
  ct_tensor *eq = NULL, *lt = NULL, *ge = NULL;
  CHECK_OK(ct_tensor_eq_scalar(a, &s, &eq));
  CHECK_TENSOR(eq, CT_BOOL, S(2), 0, 0);
  CHECK_OK(ct_tensor_lt_scalar(a, &s, &lt));
  CHECK_TENSOR(lt, CT_BOOL, S(2), 1, 0);
  CHECK_OK(ct_tensor_ge_scalar(a, &s, &ge));
  CHECK_TENSOR(ge, CT_BOOL, S(2), 0, 1);
  RELEASE(a, eq, lt, ge);
}

static void test_uint8_plus_negative_int_scalar_wraps(void) {
  ct_tensor* a = T(CT_UINT8, S(2), 0, 5);
  ct_scalar m1 = SI(-1);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_add_scalar(a, &m1, &out));
  CHECK_TENSOR(out, CT_UINT8, S(2), 255, 4);
  RELEASE(a, out);
}

static void test_int_tensor_pow_float_scalar_is_float32(void) {
  ct_tensor* a = T(CT_INT32, S(2), 4, 9);
  ct_scalar half = SF(0.5);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_pow_scalar(a, &half, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2), 2, 3);
  RELEASE(a, out);
}

static void test_comparisons_of_mixed_dtypes_give_bool(void) {
  ct_tensor* a = T(CT_INT32, S(3), 1, 2, 3);
  ct_tensor* b = T(CT_FLOAT32, S(3), 1.5, 1.5, 3);
  ct_tensor *lt = NULL, *eq = NULL;
  CHECK_OK(ct_tensor_lt(a, b, &lt));
  CHECK_TENSOR(lt, CT_BOOL, S(3), 1, 0, 0);
  CHECK_OK(ct_tensor_eq(a, b, &eq));
  CHECK_TENSOR(eq, CT_BOOL, S(3), 0, 0, 1);
  RELEASE(a, b, lt, eq);
}

static void test_comparisons_with_nan(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), NAN, 1);
  ct_tensor* b = T(CT_FLOAT32, S(2), NAN, NAN);
  ct_tensor *eq = NULL, *ne = NULL, *le = NULL;
  CHECK_OK(ct_tensor_eq(a, b, &eq));
  CHECK_TENSOR(eq, CT_BOOL, S(2), 0, 0);
  CHECK_OK(ct_tensor_ne(a, b, &ne));
  CHECK_TENSOR(ne, CT_BOOL, S(2), 1, 1);
  CHECK_OK(ct_tensor_le(a, b, &le));
  CHECK_TENSOR(le, CT_BOOL, S(2), 0, 0);
  RELEASE(a, b, eq, ne, le);
}

static void test_maximum_and_minimum_propagate_nan(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, NAN, 5);
  ct_tensor* b = T(CT_FLOAT32, S(3), NAN, 2, 4);
  ct_tensor *mx = NULL, *mn = NULL;
  CHECK_OK(ct_tensor_maximum(a, b, &mx));
  CHECK_TENSOR(mx, CT_FLOAT32, S(3), NAN, NAN, 5);
  CHECK_OK(ct_tensor_minimum(a, b, &mn));
  CHECK_TENSOR(mn, CT_FLOAT32, S(3), NAN, NAN, 4);
  RELEASE(a, b, mx, mn);
}

static void test_pow_float_base_int_exponent_is_float(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 2, -3);
  ct_tensor* b = T(CT_INT32, S(2), 3, 2);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_pow(a, b, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2), 8, 9);
  RELEASE(a, b, out);
}

/* ---- Tensor-scalar operators ---- */

/* a = [1, -2, 2, 4] (float32), s = 2; a = [7, -7, 6, 0] (int32), s = 2. */
static const struct {
  const char* name;
  scalar_fn fn;
  int is_cmp;
  double f32[4];
  ct_dtype int_dtype;
  double i32[4];
} SCALAR[] = {
    {"add_scalar", ct_tensor_add_scalar, 0, {3, 0, 4, 6}, CT_INT32, {9, -5, 8, 2}},
    {"sub_scalar", ct_tensor_sub_scalar, 0, {-1, -4, 0, 2}, CT_INT32, {5, -9, 4, -2}},
    {"mul_scalar", ct_tensor_mul_scalar, 0, {2, -4, 4, 8}, CT_INT32, {14, -14, 12, 0}},
    {"div_scalar", ct_tensor_div_scalar, 0, {0.5, -1, 1, 2}, CT_FLOAT32, {3.5, -3.5, 3, 0}},
    {"pow_scalar", ct_tensor_pow_scalar, 0, {1, 4, 4, 16}, CT_INT32, {49, 49, 36, 0}},
    {"eq_scalar", ct_tensor_eq_scalar, 1, {0, 0, 1, 0}, CT_BOOL, {0, 0, 0, 0}},
    {"ne_scalar", ct_tensor_ne_scalar, 1, {1, 1, 0, 1}, CT_BOOL, {1, 1, 1, 1}},
    {"lt_scalar", ct_tensor_lt_scalar, 1, {1, 1, 0, 0}, CT_BOOL, {0, 1, 0, 1}},
    {"le_scalar", ct_tensor_le_scalar, 1, {1, 1, 1, 0}, CT_BOOL, {0, 1, 0, 1}},
    {"gt_scalar", ct_tensor_gt_scalar, 1, {0, 0, 0, 1}, CT_BOOL, {1, 0, 1, 0}},
    {"ge_scalar", ct_tensor_ge_scalar, 1, {0, 0, 1, 1}, CT_BOOL, {1, 0, 1, 0}},
};
#define N_SCALAR (sizeof SCALAR / sizeof *SCALAR)

static void test_scalar_ops_float32_values(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4), 1, -2, 2, 4);
  ct_scalar two_i = SI(2), two_f = SF(2.0);
  for (size_t i = 0; i < N_SCALAR; ++i) {
    capi_context = SCALAR[i].name;
    ct_tensor *out = NULL, *out2 = NULL;
    CHECK_OK(SCALAR[i].fn(a, &two_i, &out));
    CHECK_TENSOR_ARRAY(out, SCALAR[i].is_cmp ? CT_BOOL : CT_FLOAT32, S(4), SCALAR[i].f32, 4, 0.0);
    CHECK_OK(SCALAR[i].fn(a, &two_f, &out2));
    CHECK_TENSOR_ARRAY(out2, SCALAR[i].is_cmp ? CT_BOOL : CT_FLOAT32, S(4), SCALAR[i].f32, 4, 0.0);
    RELEASE(out, out2);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_scalar_ops_int32_with_int_scalar_stay_int32(void) {
  ct_tensor* a = T(CT_INT32, S(4), 7, -7, 6, 0);
  ct_scalar two = SI(2);
  for (size_t i = 0; i < N_SCALAR; ++i) {
    capi_context = SCALAR[i].name;
    ct_tensor* out = NULL;
    CHECK_OK(SCALAR[i].fn(a, &two, &out));
    CHECK_TENSOR_ARRAY(out, SCALAR[i].int_dtype, S(4), SCALAR[i].i32, 4, 0.0);
    ct_tensor_release(out);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_int32_tensor_plus_float_scalar_is_float32(void) {
  ct_tensor* a = T(CT_INT32, S(3), 7, -7, 0);
  ct_scalar half = SF(0.5);
  ct_tensor *out = NULL, *cmp = NULL;
  CHECK_OK(ct_tensor_add_scalar(a, &half, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(3), 7.5, -6.5, 0.5);
  CHECK_OK(ct_tensor_gt_scalar(a, &half, &cmp));
  CHECK_TENSOR(cmp, CT_BOOL, S(3), 1, 0, 0);
  RELEASE(a, out, cmp);
}

static void test_scalar_keeps_floating_tensor_dtype(void) {
  ct_tensor* h = T(CT_FLOAT16, S(2), 1, 2);
  ct_tensor* d = T(CT_FLOAT64, S(2), 1, 2);
  ct_scalar v = SF(0.25), i = SI(3);
  ct_tensor *oh = NULL, *od = NULL, *oi = NULL;
  CHECK_OK(ct_tensor_mul_scalar(h, &v, &oh));
  CHECK_TENSOR(oh, CT_FLOAT16, S(2), 0.25, 0.5);
  CHECK_OK(ct_tensor_add_scalar(d, &v, &od));
  CHECK_TENSOR(od, CT_FLOAT64, S(2), 1.25, 2.25);
  CHECK_OK(ct_tensor_add_scalar(h, &i, &oi));
  CHECK_TENSOR(oi, CT_FLOAT16, S(2), 4, 5);
  RELEASE(h, d, oh, od, oi);
}

static void test_bool_tensor_plus_int_scalar_is_int64(void) {
  ct_tensor* b = T(CT_BOOL, S(2), 1, 0);
  ct_scalar one = SI(1), yes = SB(1);
  ct_tensor *out = NULL, *out2 = NULL;
  CHECK_OK(ct_tensor_add_scalar(b, &one, &out));
  CHECK_TENSOR(out, CT_INT64, S(2), 2, 1);
  CHECK_OK(ct_tensor_add_scalar(b, &yes, &out2));
  CHECK_TENSOR(out2, CT_BOOL, S(2), 1, 1);
  RELEASE(b, out, out2);
}

static void test_bool_scalar_counts_as_one(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_scalar yes = SB(1);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_add_scalar(a, &yes, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2), 2, 3);
  RELEASE(a, out);
}

static void test_int_tensor_div_int_scalar_is_float32(void) {
  ct_tensor* a = T(CT_INT16, S(2), 3, -4);
  ct_scalar two = SI(2);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_div_scalar(a, &two, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2), 1.5, -2);
  RELEASE(a, out);
}

static void test_scalar_ops_null_arguments_are_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_scalar s = SI(1);
  ct_scalar bad = SI(1);
  bad.kind = (ct_scalar_kind)7;
  for (size_t i = 0; i < N_SCALAR; ++i) {
    capi_context = SCALAR[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(SCALAR[i].fn(NULL, &s, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(SCALAR[i].fn(a, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(SCALAR[i].fn(a, &bad, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(SCALAR[i].fn(a, &s, NULL), CT_ERROR_INVALID_ARGUMENT);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_scalar_ops_released_input_is_invalid_argument(void) {
  ct_scalar s = SI(1);
  for (size_t i = 0; i < N_SCALAR; ++i) {
    capi_context = SCALAR[i].name;
    ct_tensor* r = capi_released();
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(SCALAR[i].fn(r, &s, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
}

static void test_scalar_ops_on_meta_give_meta(void) {
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(2, 5), CT_INT32, "meta", &m));
  ct_scalar half = SF(0.5);
  for (size_t i = 0; i < N_SCALAR; ++i) {
    capi_context = SCALAR[i].name;
    ct_tensor* out = NULL;
    CHECK_OK(SCALAR[i].fn(m, &half, &out));
    CHECK_META(out, SCALAR[i].is_cmp ? CT_BOOL : CT_FLOAT32, S(2, 5));
    ct_tensor_release(out);
  }
  capi_context = NULL;
  ct_tensor_release(m);
}

/* ---- In-place operators ---- */

/* self = [1, 2, 3] OP [2, 4, 8] (float32); self = [1, 2, 3] OP 2. */
static const struct {
  const char* name;
  inplace_fn fn;
  double vals[3];
  const char* sname;
  inplace_scalar_fn sfn;
  double svals[3];
} INPLACE[] = {
    {"add_", ct_tensor_add_, {3, 6, 11}, "add_scalar_", ct_tensor_add_scalar_, {3, 4, 5}},
    {"sub_", ct_tensor_sub_, {-1, -2, -5}, "sub_scalar_", ct_tensor_sub_scalar_, {-1, 0, 1}},
    {"mul_", ct_tensor_mul_, {2, 8, 24}, "mul_scalar_", ct_tensor_mul_scalar_, {2, 4, 6}},
    {"div_", ct_tensor_div_, {0.5, 0.5, 0.375}, "div_scalar_", ct_tensor_div_scalar_, {0.5, 1, 1.5}},
};
#define N_INPLACE (sizeof INPLACE / sizeof *INPLACE)

static void test_inplace_ops_write_into_self(void) {
  ct_tensor* b = T(CT_FLOAT32, S(3), 2, 4, 8);
  ct_scalar two = SI(2);
  for (size_t i = 0; i < N_INPLACE; ++i) {
    capi_context = INPLACE[i].name;
    ct_tensor* self = T(CT_FLOAT32, S(3), 1, 2, 3);
    void *before = NULL, *after = NULL;
    CHECK_OK(ct_tensor_data_ptr(self, &before));
    CHECK_OK(INPLACE[i].fn(self, b));
    CHECK_OK(ct_tensor_data_ptr(self, &after));
    CHECK(before == after);
    CHECK_TENSOR_ARRAY(self, CT_FLOAT32, S(3), INPLACE[i].vals, 3, 0.0);
    ct_tensor_release(self);

    capi_context = INPLACE[i].sname;
    self = T(CT_FLOAT32, S(3), 1, 2, 3);
    CHECK_OK(INPLACE[i].sfn(self, &two));
    CHECK_TENSOR_ARRAY(self, CT_FLOAT32, S(3), INPLACE[i].svals, 3, 0.0);
    ct_tensor_release(self);
  }
  capi_context = NULL;
  ct_tensor_release(b);
}

static void test_inplace_is_seen_through_views(void) {
  ct_tensor* base = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor *row = NULL, *t = NULL;
  ct_tensor* b = T(CT_FLOAT32, S(2), 10, 20);
  CHECK_OK(ct_tensor_select(base, 0, 1, &row)); /* [3, 4] */
  CHECK_OK(ct_tensor_add_(row, b));
  CHECK_TENSOR(base, CT_FLOAT32, S(2, 2), 1, 2, 13, 24);
  CHECK_OK(ct_tensor_transpose(base, 0, 1, &t)); /* [[1, 13], [2, 24]] */
  CHECK_OK(ct_tensor_mul_(t, b));                 /* rows of base scaled by 10 and 20 */
  CHECK_TENSOR(t, CT_FLOAT32, S(2, 2), 10, 260, 20, 480);
  CHECK_TENSOR(base, CT_FLOAT32, S(2, 2), 10, 20, 260, 480);
  RELEASE(base, row, t, b);
}

static void test_inplace_broadcasts_other_into_self(void) {
  ct_tensor* self = T(CT_INT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* b = T(CT_INT32, S(3), 10, 20, 30);
  ct_tensor* z = T(CT_INT32, S0, 2);
  CHECK_OK(ct_tensor_add_(self, b));
  CHECK_TENSOR(self, CT_INT32, S(2, 3), 11, 22, 33, 14, 25, 36);
  CHECK_OK(ct_tensor_mul_(self, z));
  CHECK_TENSOR(self, CT_INT32, S(2, 3), 22, 44, 66, 28, 50, 72);
  RELEASE(self, b, z);
}

static void test_inplace_with_self_as_other(void) {
  ct_tensor* self = T(CT_FLOAT64, S(3), 1, 2, 3);
  CHECK_OK(ct_tensor_add_(self, self));
  CHECK_TENSOR(self, CT_FLOAT64, S(3), 2, 4, 6);
  CHECK_OK(ct_tensor_mul_(self, self));
  CHECK_TENSOR(self, CT_FLOAT64, S(3), 4, 16, 36);
  ct_tensor_release(self);
}

static void test_inplace_broadcast_growing_self_is_shape_error(void) {
  ct_tensor* b = T(CT_FLOAT32, S(2, 3), 1, 1, 1, 1, 1, 1);
  for (size_t i = 0; i < N_INPLACE; ++i) {
    capi_context = INPLACE[i].name;
    ct_tensor* self = T(CT_FLOAT32, S(3), 1, 2, 3);
    CHECK_STATUS(INPLACE[i].fn(self, b), CT_ERROR_SHAPE);
    CHECK_TENSOR(self, CT_FLOAT32, S(3), 1, 2, 3);
    ct_tensor_release(self);
  }
  capi_context = NULL;
  ct_tensor_release(b);
}

static void test_inplace_non_broadcastable_is_shape_error(void) {
  ct_tensor* self = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* b = T(CT_FLOAT32, S(2), 1, 1);
  CHECK_STATUS(ct_tensor_add_(self, b), CT_ERROR_SHAPE);
  CHECK_TENSOR(self, CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  RELEASE(self, b);
}

static void test_int_tensor_add_float_is_dtype_error_and_unchanged(void) {
  ct_tensor* b = T(CT_FLOAT32, S(3), 0.5, 0.5, 0.5);
  ct_scalar half = SF(0.5);
  for (size_t i = 0; i < N_INPLACE; ++i) {
    capi_context = INPLACE[i].name;
    ct_tensor* self = T(CT_INT32, S(3), 1, 2, 3);
    CHECK_STATUS(INPLACE[i].fn(self, b), CT_ERROR_DTYPE);
    CHECK_TENSOR(self, CT_INT32, S(3), 1, 2, 3);
    capi_context = INPLACE[i].sname;
    CHECK_STATUS(INPLACE[i].sfn(self, &half), CT_ERROR_DTYPE);
    CHECK_TENSOR(self, CT_INT32, S(3), 1, 2, 3);
    ct_tensor_release(self);
  }
  capi_context = NULL;
  ct_tensor_release(b);
}

static void test_int_tensor_div_int_inplace_is_dtype_error(void) {
  /* True division gives float32, which cannot go into an int32 self. */
  ct_tensor* self = T(CT_INT32, S(2), 4, 6);
  ct_tensor* b = T(CT_INT32, S(2), 2, 2);
  ct_scalar two = SI(2);
  CHECK_STATUS(ct_tensor_div_(self, b), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_div_scalar_(self, &two), CT_ERROR_DTYPE);
  CHECK_TENSOR(self, CT_INT32, S(2), 4, 6);
  RELEASE(self, b);
}

static void test_inplace_same_category_casts_to_self_dtype(void) {
  ct_tensor* self = T(CT_INT32, S(2), 1, 2);
  ct_tensor* b = T(CT_INT64, S(2), 10, 20);
  ct_tensor* fself = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* fb = T(CT_FLOAT64, S(2), 0.5, 0.25);
  ct_tensor* ib = T(CT_INT8, S(2), 3, 3);
  CHECK_OK(ct_tensor_add_(self, b));
  CHECK_TENSOR(self, CT_INT32, S(2), 11, 22);
  CHECK_OK(ct_tensor_add_(fself, fb));
  CHECK_TENSOR(fself, CT_FLOAT32, S(2), 1.5, 2.25);
  CHECK_OK(ct_tensor_mul_(fself, ib)); /* an integer other goes into a float self */
  CHECK_TENSOR(fself, CT_FLOAT32, S(2), 4.5, 6.75);
  RELEASE(self, b, fself, fb, ib);
}

static void test_bool_self_with_int_other_is_dtype_error(void) {
  ct_tensor* self = T(CT_BOOL, S(2), 1, 0);
  ct_tensor* b = T(CT_INT32, S(2), 1, 1);
  ct_scalar one = SI(1);
  CHECK_STATUS(ct_tensor_add_(self, b), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_add_scalar_(self, &one), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_sub_(self, self), CT_ERROR_DTYPE);
  CHECK_TENSOR(self, CT_BOOL, S(2), 1, 0);
  RELEASE(self, b);
}

static void test_inplace_null_and_released_are_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_scalar s = SI(1);
  ct_scalar bad = SI(1);
  bad.kind = (ct_scalar_kind)9;
  for (size_t i = 0; i < N_INPLACE; ++i) {
    capi_context = INPLACE[i].name;
    CHECK_STATUS(INPLACE[i].fn(NULL, a), CT_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(INPLACE[i].fn(a, NULL), CT_ERROR_INVALID_ARGUMENT);
    ct_tensor* r = capi_released();
    CHECK_STATUS(INPLACE[i].fn(r, a), CT_ERROR_INVALID_ARGUMENT);
    r = capi_released();
    CHECK_STATUS(INPLACE[i].fn(a, r), CT_ERROR_INVALID_ARGUMENT);
    capi_context = INPLACE[i].sname;
    CHECK_STATUS(INPLACE[i].sfn(NULL, &s), CT_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(INPLACE[i].sfn(a, NULL), CT_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(INPLACE[i].sfn(a, &bad), CT_ERROR_INVALID_ARGUMENT);
    r = capi_released();
    CHECK_STATUS(INPLACE[i].sfn(r, &s), CT_ERROR_INVALID_ARGUMENT);
  }
  capi_context = NULL;
  CHECK_TENSOR(a, CT_FLOAT32, S(2), 1, 2);
  ct_tensor_release(a);
}

static void test_inplace_mixed_devices_is_device_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(2), CT_FLOAT32, "meta", &m));
  for (size_t i = 0; i < N_INPLACE; ++i) {
    capi_context = INPLACE[i].name;
    CHECK_STATUS(INPLACE[i].fn(a, m), CT_ERROR_DEVICE);
    CHECK_STATUS(INPLACE[i].fn(m, a), CT_ERROR_DEVICE);
  }
  capi_context = NULL;
  CHECK_TENSOR(a, CT_FLOAT32, S(2), 1, 2);
  RELEASE(a, m);
}

/* ---- Unary operators ---- */

static const struct {
  const char* name;
  unary_fn fn;
  double in[3];
  double out[3];
  double tol;
} UNARY[] = {
    {"neg", ct_tensor_neg, {1, -2, 0}, {-1, 2, 0}, 0},
    {"abs", ct_tensor_abs, {-1.5, 2, 0}, {1.5, 2, 0}, 0},
    {"exp", ct_tensor_exp, {0, 1, -1}, {1, 2.718281828459045, 0.36787944117144233}, 2e-6},
    {"log", ct_tensor_log, {1, 2.718281828459045, 0}, {0, 1, -INFINITY}, 2e-6},
    {"sqrt", ct_tensor_sqrt, {4, 9, 2}, {2, 3, 1.4142135623730951}, 2e-6},
    {"rsqrt", ct_tensor_rsqrt, {4, 0.25, 1}, {0.5, 2, 1}, 2e-6},
    {"sin", ct_tensor_sin, {0, 1.5707963267948966, 0.5235987755982988}, {0, 1, 0.5}, 2e-6},
    {"cos", ct_tensor_cos, {0, 3.141592653589793, 1.0471975511965976}, {1, -1, 0.5}, 2e-6},
    {"tanh", ct_tensor_tanh, {0, 1, -1}, {0, 0.7615941559557649, -0.7615941559557649}, 2e-6},
    {"sigmoid", ct_tensor_sigmoid, {0, 2, -2}, {0.5, 0.8807970779778823, 0.11920292202211755}, 2e-6},
    {"relu", ct_tensor_relu, {-1, 0, 2.5}, {0, 0, 2.5}, 0},
};
#define N_UNARY (sizeof UNARY / sizeof *UNARY)

static void test_unary_ops_float32_values(void) {
  for (size_t i = 0; i < N_UNARY; ++i) {
    capi_context = UNARY[i].name;
    ct_tensor* a = T(CT_FLOAT32, S(3), UNARY[i].in[0], UNARY[i].in[1], UNARY[i].in[2]);
    ct_tensor* out = NULL;
    CHECK_OK(UNARY[i].fn(a, &out));
    CHECK_TENSOR_ARRAY(out, CT_FLOAT32, S(3), UNARY[i].out, 3, UNARY[i].tol);
    RELEASE(a, out);
  }
}

static void test_unary_ops_float64_values_keep_float64(void) {
  for (size_t i = 0; i < N_UNARY; ++i) {
    capi_context = UNARY[i].name;
    ct_tensor* a = T(CT_FLOAT64, S(3), UNARY[i].in[0], UNARY[i].in[1], UNARY[i].in[2]);
    ct_tensor* out = NULL;
    CHECK_OK(UNARY[i].fn(a, &out));
    CHECK_TENSOR_ARRAY(out, CT_FLOAT64, S(3), UNARY[i].out, 3, UNARY[i].tol > 0 ? 1e-12 : 0.0);
    RELEASE(a, out);
  }
}

static void test_unary_ops_on_strided_view(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), -1, 2, -3, 4);
  ct_tensor *t = NULL, *out = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  CHECK_OK(ct_tensor_relu(t, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2, 2), 0, 0, 2, 4);
  RELEASE(a, t, out);
}

static void test_unary_domain_edges(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), -1, 0);
  ct_tensor *l = NULL, *s = NULL, *r = NULL;
  CHECK_OK(ct_tensor_log(a, &l));
  CHECK_TENSOR(l, CT_FLOAT32, S(2), NAN, -INFINITY);
  CHECK_OK(ct_tensor_sqrt(a, &s));
  CHECK_TENSOR(s, CT_FLOAT32, S(2), NAN, 0);
  CHECK_OK(ct_tensor_rsqrt(a, &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(2), NAN, INFINITY);
  RELEASE(a, l, s, r);
}

static void test_neg_abs_relu_keep_integer_dtype(void) {
  ct_tensor* a = T(CT_INT32, S(3), -2, 3, 0);
  ct_tensor* u = T(CT_UINT8, S(2), 0, 200);
  ct_tensor* i8 = T(CT_INT8, S(2), -5, 5);
  ct_tensor *n = NULL, *ab = NULL, *r = NULL, *uab = NULL, *ab8 = NULL;
  CHECK_OK(ct_tensor_neg(a, &n));
  CHECK_TENSOR(n, CT_INT32, S(3), 2, -3, 0);
  CHECK_OK(ct_tensor_abs(a, &ab));
  CHECK_TENSOR(ab, CT_INT32, S(3), 2, 3, 0);
  CHECK_OK(ct_tensor_relu(a, &r));
  CHECK_TENSOR(r, CT_INT32, S(3), 0, 3, 0);
  CHECK_OK(ct_tensor_abs(u, &uab));
  CHECK_TENSOR(uab, CT_UINT8, S(2), 0, 200);
  CHECK_OK(ct_tensor_abs(i8, &ab8));
  CHECK_TENSOR(ab8, CT_INT8, S(2), 5, 5);
  RELEASE(a, u, i8, n, ab, r, uab, ab8);
}

static void test_float_unary_of_integers_and_bools_is_float32(void) {
  static const unary_fn float_ops[] = {ct_tensor_exp,  ct_tensor_log, ct_tensor_sqrt,    ct_tensor_rsqrt,
                                       ct_tensor_sin,  ct_tensor_cos, ct_tensor_tanh,    ct_tensor_sigmoid};
  ct_tensor* i = T(CT_INT64, S(2), 1, 4);
  ct_tensor* b = T(CT_BOOL, S(2), 1, 0);
  for (size_t k = 0; k < sizeof float_ops / sizeof *float_ops; ++k) {
    ct_tensor *oi = NULL, *ob = NULL;
    CHECK_OK(float_ops[k](i, &oi));
    CHECK_META(oi, CT_FLOAT32, S(2));
    CHECK_OK(float_ops[k](b, &ob));
    CHECK_META(ob, CT_FLOAT32, S(2));
    RELEASE(oi, ob);
  }
  ct_tensor *s = NULL, *sb = NULL;
  CHECK_OK(ct_tensor_sqrt(i, &s));
  CHECK_TENSOR(s, CT_FLOAT32, S(2), 1, 2);
  CHECK_OK(ct_tensor_exp(b, &sb));
  CHECK_TENSOR_NEAR(sb, CT_FLOAT32, 2e-6, S(2), 2.718281828459045, 1);
  RELEASE(i, b, s, sb);
}

static void test_unary_keeps_half_dtypes(void) {
  ct_tensor* h = T(CT_FLOAT16, S(2), 4, 0.25);
  ct_tensor* bf = T(CT_BFLOAT16, S(2), -1, 2);
  ct_tensor *sh = NULL, *rb = NULL;
  CHECK_OK(ct_tensor_sqrt(h, &sh));
  CHECK_TENSOR(sh, CT_FLOAT16, S(2), 2, 0.5);
  CHECK_OK(ct_tensor_relu(bf, &rb));
  CHECK_TENSOR(rb, CT_BFLOAT16, S(2), 0, 2);
  RELEASE(h, bf, sh, rb);
}

static void test_neg_of_bool_is_dtype_error(void) {
  ct_tensor* b = T(CT_BOOL, S(2), 1, 0);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_neg(b, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("neg");
  CHECK_ERROR_CONTAINS("bool");
  ct_tensor_release(b);
}

static void test_relu_of_bool_is_dtype_error(void) {
  ct_tensor* b = T(CT_BOOL, S(2), 1, 0);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_relu(b, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  ct_tensor_release(b);
}

static void test_unary_ops_null_arguments_are_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  for (size_t i = 0; i < N_UNARY; ++i) {
    capi_context = UNARY[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(UNARY[i].fn(NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(UNARY[i].fn(a, NULL), CT_ERROR_INVALID_ARGUMENT);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_unary_ops_released_input_is_invalid_argument(void) {
  for (size_t i = 0; i < N_UNARY; ++i) {
    capi_context = UNARY[i].name;
    ct_tensor* r = capi_released();
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(UNARY[i].fn(r, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
}

static void test_unary_ops_on_meta_give_meta(void) {
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(3, 2), CT_INT32, "meta", &m));
  for (size_t i = 0; i < N_UNARY; ++i) {
    capi_context = UNARY[i].name;
    ct_tensor* out = NULL;
    int keeps = UNARY[i].fn == ct_tensor_neg || UNARY[i].fn == ct_tensor_abs || UNARY[i].fn == ct_tensor_relu;
    CHECK_OK(UNARY[i].fn(m, &out));
    CHECK_META(out, keeps ? CT_INT32 : CT_FLOAT32, S(3, 2));
    ct_tensor_release(out);
  }
  capi_context = NULL;
  ct_tensor_release(m);
}

/* ---- where ---- */

static void test_where_selects_elementwise(void) {
  ct_tensor* c = T(CT_BOOL, S(3), 1, 0, 1);
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* b = T(CT_FLOAT32, S(3), 10, 20, 30);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_where(c, a, b, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(3), 1, 20, 3);
  RELEASE(c, a, b, out);
}

static void test_where_broadcasts_all_three(void) {
  ct_tensor* c = T(CT_BOOL, S(2, 1), 1, 0);
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* b = T(CT_FLOAT32, S0, -1);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_where(c, a, b, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2, 3), 1, 2, 3, -1, -1, -1);
  RELEASE(c, a, b, out);
}

static void test_where_promotes_a_and_b(void) {
  ct_tensor* c = T(CT_BOOL, S(2), 1, 0);
  ct_tensor* i = T(CT_INT32, S(2), 1, 2);
  ct_tensor* f = T(CT_FLOAT32, S(2), 0.5, 0.5);
  ct_tensor* l = T(CT_INT64, S(2), 7, 8);
  ct_tensor* d0 = T(CT_FLOAT64, S0, 0.25);
  ct_tensor *o1 = NULL, *o2 = NULL, *o3 = NULL;
  CHECK_OK(ct_tensor_where(c, i, f, &o1));
  CHECK_TENSOR(o1, CT_FLOAT32, S(2), 1, 0.5);
  CHECK_OK(ct_tensor_where(c, l, i, &o2));
  CHECK_TENSOR(o2, CT_INT64, S(2), 7, 2);
  CHECK_OK(ct_tensor_where(c, f, d0, &o3)); /* 0-dim of the same category does not count */
  CHECK_TENSOR(o3, CT_FLOAT32, S(2), 0.5, 0.25);
  RELEASE(c, i, f, l, d0, o1, o2, o3);
}

static void test_where_non_bool_cond_is_dtype_error(void) {
  ct_tensor* c = T(CT_UINT8, S(2), 1, 0);
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_where(c, a, a, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  RELEASE(c, a);
}

static void test_where_non_broadcastable_is_shape_error(void) {
  ct_tensor* c = T(CT_BOOL, S(3), 1, 0, 1);
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_where(c, a, a, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  RELEASE(c, a);
}

static void test_where_null_arguments_and_mixed_devices(void) {
  ct_tensor* c = T(CT_BOOL, S(2), 1, 0);
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(2), CT_FLOAT32, "meta", &m));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_where(NULL, a, a, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_where(c, NULL, a, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_where(c, a, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_where(c, a, a, NULL), CT_ERROR_INVALID_ARGUMENT);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_where(c, a, m, &out), CT_ERROR_DEVICE);
  CHECK(out == NULL);
  RELEASE(c, a, m);
}

static void test_where_released_input_is_invalid_argument(void) {
  ct_tensor* c = T(CT_BOOL, S(2), 1, 0);
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* out = SENTINEL;
  ct_tensor* r = capi_released();
  CHECK_STATUS(ct_tensor_where(r, a, a, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  r = capi_released();
  CHECK_STATUS(ct_tensor_where(c, r, a, &out), CT_ERROR_INVALID_ARGUMENT);
  r = capi_released();
  CHECK_STATUS(ct_tensor_where(c, a, r, &out), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(c, a);
}

/* ---- clamp ---- */

static void test_clamp_bounds_values(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4), -2, 0.5, 3, NAN);
  ct_scalar lo = SI(-1), hi = SI(1), zero = SF(0);
  ct_tensor *both = NULL, *low = NULL, *high = NULL;
  CHECK_OK(ct_tensor_clamp(a, &lo, &hi, &both));
  CHECK_TENSOR(both, CT_FLOAT32, S(4), -1, 0.5, 1, NAN);
  CHECK_OK(ct_tensor_clamp(a, &zero, NULL, &low));
  CHECK_TENSOR(low, CT_FLOAT32, S(4), 0, 0.5, 3, NAN);
  CHECK_OK(ct_tensor_clamp(a, NULL, &zero, &high));
  CHECK_TENSOR(high, CT_FLOAT32, S(4), -2, 0, 0, NAN);
  RELEASE(a, both, low, high);
}

static void test_clamp_lo_above_hi_gives_hi(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), -2, 0.5, 3);
  ct_scalar lo = SI(2), hi = SI(1);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_clamp(a, &lo, &hi, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(3), 1, 1, 1);
  RELEASE(a, out);
}

static void test_clamp_promotes_like_scalars(void) {
  ct_tensor* a = T(CT_INT32, S(3), -5, 0, 5);
  ct_scalar lo = SI(-2), hi = SI(2), half = SF(0.5);
  ct_tensor *i = NULL, *f = NULL;
  CHECK_OK(ct_tensor_clamp(a, &lo, &hi, &i));
  CHECK_TENSOR(i, CT_INT32, S(3), -2, 0, 2);
  CHECK_OK(ct_tensor_clamp(a, &half, NULL, &f));
  CHECK_TENSOR(f, CT_FLOAT32, S(3), 0.5, 0.5, 5);
  RELEASE(a, i, f);
}

static void test_clamp_bad_arguments(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* b = T(CT_BOOL, S(2), 1, 0);
  ct_scalar lo = SI(0);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_clamp(a, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_clamp(NULL, &lo, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_clamp(a, &lo, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_clamp(b, &lo, NULL, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  RELEASE(a, b);
}

static void test_clamp_released_input_is_invalid_argument(void) {
  ct_scalar lo = SI(0);
  ct_tensor* r = capi_released();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_clamp(r, &lo, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
}

/* a.add_(a.t()) reads a through another layout while writing it: the result must equal a + a.t(). */
static void test_add_inplace_with_transposed_alias_of_self_matches_out_of_place(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor* at = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &at));
  CHECK_OK(ct_tensor_add_(a, at));
  CHECK_TENSOR_ARRAY(a, CT_FLOAT32, S(2, 2), ((const double[]){2, 5, 5, 8}), 4, 0.0);
  RELEASE(at, a);
}

/* An expanded view maps several elements to one location: writing it in place is refused. */
static void test_add_inplace_into_expanded_view_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1, 3), 1, 2, 3);
  ct_tensor* e = NULL;
  ct_tensor* one = T(CT_FLOAT32, S(2, 3), 1, 1, 1, 1, 1, 1);
  CHECK_OK(ct_tensor_expand(a, S(2, 3), &e));
  CHECK_STATUS(ct_tensor_add_(e, one), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("share one memory location");
  CHECK_TENSOR_ARRAY(a, CT_FLOAT32, S(1, 3), ((const double[]){1, 2, 3}), 3, 0.0);
  RELEASE(one, e, a);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_binary_ops_float32_values),
    CAPI_TEST(test_binary_ops_int32_values_and_dtypes),
    CAPI_TEST(test_binary_ops_on_meta_give_meta_with_broadcast_sizes),
    CAPI_TEST(test_binary_ops_null_input_is_invalid_argument),
    CAPI_TEST(test_binary_ops_null_out_is_invalid_argument),
    CAPI_TEST(test_binary_ops_released_input_is_invalid_argument),
    CAPI_TEST(test_binary_ops_non_broadcastable_is_shape_error),
    CAPI_TEST(test_binary_ops_mixed_devices_is_device_error),
    CAPI_TEST(test_sub_of_bools_is_dtype_error),
    CAPI_TEST(test_broadcast_column_plus_row),
    CAPI_TEST(test_broadcast_three_dims),
    CAPI_TEST(test_broadcast_with_empty_dim),
    CAPI_TEST(test_binary_ops_read_strided_views),
    CAPI_TEST(test_add_int32_and_float16_is_float16),
    CAPI_TEST(test_add_promotes_dimensioned_dtypes),
    CAPI_TEST(test_add_uint8_and_zero_dim_int64_is_uint8),
    CAPI_TEST(test_add_zero_dim_of_same_category_does_not_count),
    CAPI_TEST(test_add_zero_dim_of_higher_category_counts),
    CAPI_TEST(test_add_of_two_zero_dims_promotes_normally),
    CAPI_TEST(test_add_one_element_1d_is_dimensioned),
    CAPI_TEST(test_div_of_integers_is_float32),
    CAPI_TEST(test_div_keeps_floating_dtype),
    CAPI_TEST(test_div_of_integers_by_zero_gives_inf_and_nan),
    CAPI_TEST(test_int_tensor_compared_with_float_scalar_compares_as_float),
    CAPI_TEST(test_uint8_plus_negative_int_scalar_wraps),
    CAPI_TEST(test_int_tensor_pow_float_scalar_is_float32),
    CAPI_TEST(test_comparisons_of_mixed_dtypes_give_bool),
    CAPI_TEST(test_comparisons_with_nan),
    CAPI_TEST(test_maximum_and_minimum_propagate_nan),
    CAPI_TEST(test_pow_float_base_int_exponent_is_float),
    CAPI_TEST(test_scalar_ops_float32_values),
    CAPI_TEST(test_scalar_ops_int32_with_int_scalar_stay_int32),
    CAPI_TEST(test_int32_tensor_plus_float_scalar_is_float32),
    CAPI_TEST(test_scalar_keeps_floating_tensor_dtype),
    CAPI_TEST(test_bool_tensor_plus_int_scalar_is_int64),
    CAPI_TEST(test_bool_scalar_counts_as_one),
    CAPI_TEST(test_int_tensor_div_int_scalar_is_float32),
    CAPI_TEST(test_scalar_ops_null_arguments_are_invalid_argument),
    CAPI_TEST(test_scalar_ops_released_input_is_invalid_argument),
    CAPI_TEST(test_scalar_ops_on_meta_give_meta),
    CAPI_TEST(test_inplace_ops_write_into_self),
    CAPI_TEST(test_inplace_is_seen_through_views),
    CAPI_TEST(test_inplace_broadcasts_other_into_self),
    CAPI_TEST(test_inplace_with_self_as_other),
    CAPI_TEST(test_inplace_broadcast_growing_self_is_shape_error),
    CAPI_TEST(test_inplace_non_broadcastable_is_shape_error),
    CAPI_TEST(test_int_tensor_add_float_is_dtype_error_and_unchanged),
    CAPI_TEST(test_int_tensor_div_int_inplace_is_dtype_error),
    CAPI_TEST(test_inplace_same_category_casts_to_self_dtype),
    CAPI_TEST(test_bool_self_with_int_other_is_dtype_error),
    CAPI_TEST(test_inplace_null_and_released_are_invalid_argument),
    CAPI_TEST(test_inplace_mixed_devices_is_device_error),
    CAPI_TEST(test_unary_ops_float32_values),
    CAPI_TEST(test_unary_ops_float64_values_keep_float64),
    CAPI_TEST(test_unary_ops_on_strided_view),
    CAPI_TEST(test_unary_domain_edges),
    CAPI_TEST(test_add_inplace_with_transposed_alias_of_self_matches_out_of_place),
    CAPI_TEST(test_add_inplace_into_expanded_view_is_invalid_argument),
    CAPI_TEST(test_neg_abs_relu_keep_integer_dtype),
    CAPI_TEST(test_float_unary_of_integers_and_bools_is_float32),
    CAPI_TEST(test_unary_keeps_half_dtypes),
    CAPI_TEST(test_neg_of_bool_is_dtype_error),
    CAPI_TEST(test_relu_of_bool_is_dtype_error),
    CAPI_TEST(test_unary_ops_null_arguments_are_invalid_argument),
    CAPI_TEST(test_unary_ops_released_input_is_invalid_argument),
    CAPI_TEST(test_unary_ops_on_meta_give_meta),
    CAPI_TEST(test_where_selects_elementwise),
    CAPI_TEST(test_where_broadcasts_all_three),
    CAPI_TEST(test_where_promotes_a_and_b),
    CAPI_TEST(test_where_non_bool_cond_is_dtype_error),
    CAPI_TEST(test_where_non_broadcastable_is_shape_error),
    CAPI_TEST(test_where_null_arguments_and_mixed_devices),
    CAPI_TEST(test_where_released_input_is_invalid_argument),
    CAPI_TEST(test_clamp_bounds_values),
    CAPI_TEST(test_clamp_lo_above_hi_gives_hi),
    CAPI_TEST(test_clamp_promotes_like_scalars),
    CAPI_TEST(test_clamp_bad_arguments),
    CAPI_TEST(test_clamp_released_input_is_invalid_argument),
};
CAPI_MAIN(TESTS)
