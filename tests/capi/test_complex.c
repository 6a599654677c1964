/* Complex tensors through the C ABI: C's complex layout in and out, the part views, arithmetic and
 * promotion, the complex number operand, item, printing, DLPack, and the refusals. */
#include <math.h>
#include <string.h>

#include "capi_test.h"

/* A complex64 tensor from (real, imaginary) float pairs. */
static ct_tensor* c64(const float* pairs, const int64_t* sizes, size_t ndim) {
  ct_tensor* t = NULL;
  return ct_tensor_from_data(pairs, sizes, ndim, CT_COMPLEX64, &t) == CT_OK ? t : NULL;
}

static void test_complex_dtypes_have_names_sizes_and_promotion(void) {
  CHECK_STR_EQ(ct_dtype_name(CT_COMPLEX64), "complex64");
  CHECK(ct_dtype_itemsize(CT_COMPLEX128) == 16);
  ct_dtype d;
  CHECK_OK(ct_promote_types(CT_COMPLEX64, CT_FLOAT64, &d));
  CHECK(d == CT_COMPLEX128);
  CHECK_OK(ct_promote_types(CT_INT64, CT_COMPLEX64, &d));
  CHECK(d == CT_COMPLEX64);
  int ok = 1;
  CHECK_OK(ct_can_cast(CT_COMPLEX64, CT_FLOAT64, &ok));
  CHECK(ok == 0);
  CHECK_OK(ct_can_cast(CT_FLOAT64, CT_COMPLEX64, &ok));
  CHECK(ok == 1);
}

static void test_view_as_real_reads_the_pairs(void) {
  const float v[] = {1, 2, 3, -4};
  ct_tensor* z = c64(v, S(2));
  ct_tensor *r = NULL, *re = NULL, *im = NULL, *back = NULL;
  CHECK_OK(ct_tensor_view_as_real(z, &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(2, 2), 1, 2, 3, -4);
  CHECK_OK(ct_tensor_real(z, &re));
  CHECK_TENSOR(re, CT_FLOAT32, S(2), 1, 3);
  CHECK_OK(ct_tensor_imag(z, &im));
  CHECK_TENSOR(im, CT_FLOAT32, S(2), 2, -4);
  CHECK_OK(ct_tensor_view_as_complex(r, &back));
  double a = 0, b = 0;
  ct_tensor* second = NULL;
  CHECK_OK(ct_tensor_select(back, 0, 1, &second));
  CHECK_OK(ct_tensor_item_complex(second, &a, &b));
  CHECK(a == 3 && b == -4);
  /* A write through the real view is seen through the complex tensor. */
  float* p = NULL;
  CHECK_OK(ct_tensor_data_ptr(r, (void**)&p));
  p[1] = 7;
  CHECK_OK(ct_tensor_data_ptr(z, (void**)&p));
  CHECK(p[1] == 7);
  RELEASE(z, r, re, im, back, second);
}

static void test_products_and_promotion(void) {
  const float v[] = {1, 2, 3, -1};
  ct_tensor* z = c64(v, S(2));
  ct_tensor* x = T(CT_FLOAT64, S(2), 2, 0.5);
  ct_tensor *p = NULL, *q = NULL, *pr = NULL, *n = NULL, *ni = NULL, *m = NULL, *mr = NULL, *i = NULL, *ir = NULL;
  CHECK_OK(ct_tensor_mul(z, z, &p));  /* (1+2i)^2 = -3+4i, (3-i)^2 = 8-6i */
  CHECK_OK(ct_tensor_view_as_real(p, &pr));
  CHECK_TENSOR(pr, CT_FLOAT32, S(2, 2), -3, 4, 8, -6);
  CHECK_OK(ct_tensor_mul(z, x, &q));  /* complex64 with float64: complex128 */
  ct_dtype d;
  CHECK_OK(ct_tensor_dtype(q, &d));
  CHECK(d == CT_COMPLEX128);
  /* A complex number operand promotes as a Python number: int64 * 1i is complex64. */
  ct_tensor* k = T(CT_INT64, S(2), 1, 2);
  CHECK_OK(ct_tensor_complex_scalar(0, 1, &n));
  CHECK_OK(ct_tensor_mul(k, n, &ni));
  CHECK_OK(ct_tensor_dtype(ni, &d));
  CHECK(d == CT_COMPLEX64);
  /* matmul on cgemm: [1+2i, 3-i] @ [1+2i, 3-i]^T = (-3+4i) + (8-6i) */
  CHECK_OK(ct_tensor_matmul(z, z, &m));
  double a = 0, b = 0;
  CHECK_OK(ct_tensor_item_complex(m, &a, &b));
  CHECK(a == 5 && b == -2);
  CHECK_OK(ct_tensor_abs(z, &mr));
  CHECK_TENSOR_NEAR(mr, CT_FLOAT32, 1e-6, S(2), 2.2360680, 3.1622777);
  CHECK_OK(ct_tensor_angle(z, &i));
  CHECK_TENSOR_NEAR(i, CT_FLOAT32, 1e-6, S(2), 1.1071487, -0.32175055);
  ct_tensor* c = NULL;
  CHECK_OK(ct_tensor_conj(z, &c));
  CHECK_OK(ct_tensor_view_as_real(c, &ir));
  CHECK_TENSOR(ir, CT_FLOAT32, S(2, 2), 1, -2, 3, 1);
  RELEASE(z, x, p, q, pr, k, n, ni, m, mr, i, c, ir);
}

static void test_item_and_printing(void) {
  const float v[] = {1.5f, -2};
  ct_tensor* z = c64(v, S(1));
  ct_scalar s;
  CHECK_STATUS(ct_tensor_item(z, &s), CT_ERROR_DTYPE);
  CHECK_ERROR_CONTAINS("ct_tensor_item_complex");
  double a = 0, b = 0;
  CHECK_OK(ct_tensor_item_complex(z, &a, &b));
  CHECK(a == 1.5 && b == -2);
  CHECK_STATUS(ct_tensor_item_complex(z, NULL, &b), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_item_complex(NULL, &a, &b), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_complex_scalar(0, 1, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* empty = c64(v, S(0));
  CHECK_STATUS(ct_tensor_item_complex(empty, &a, &b), CT_ERROR_SHAPE);
  ct_tensor_release(empty);
  char* str = NULL;
  CHECK_OK(ct_tensor_to_string(z, &str));
  CHECK_STR_EQ(str, "tensor([1.5000-2.j])");
  ct_string_release(str);
  ct_tensor* x = T(CT_FLOAT32, S(1), 4);
  CHECK_OK(ct_tensor_item_complex(x, &a, &b));
  CHECK(a == 4 && b == 0);
  RELEASE(z, x);
}

static void test_refusals_name_the_operator_and_dtype(void) {
  const float v[] = {1, 2, 3, 4};
  ct_tensor* z = c64(v, S(2));
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* out = NULL;
  CHECK_STATUS(ct_tensor_lt(z, z, &out), CT_ERROR_DTYPE);
  CHECK_ERROR_CONTAINS("complex64");
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_view_as_complex(x, &out), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("last dimension of size 2");
  CHECK_STATUS(ct_tensor_imag(x, &out), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_view_as_real(x, &out), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_floor(z, &out), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_amax(z, NULL, 0, 0, &out), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  RELEASE(z, x);
}

/* rand and randn draw both parts: uniform on [0, 1), and normal with variance 1/2. */
/* The pointwise math on complex numbers: sin(1 + i) = sin 1 cosh 1 + i cos 1 sinh 1, sin(inf) is
 * NaN + 0i (C99), and isfinite looks at both parts. */
static void test_pointwise_math(void) {
  const float v[] = {1, 1, INFINITY, 0};
  ct_tensor *z = c64(v, S(2)), *s = NULL, *r = NULL, *fin = NULL;
  CHECK_OK(ct_tensor_sin(z, &s));
  CHECK_OK(ct_tensor_view_as_real(s, &r));
  CHECK_TENSOR_NEAR(r, CT_FLOAT32, 1e-6, S(2, 2), sin(1.0) * cosh(1.0), cos(1.0) * sinh(1.0), NAN, 0);
  CHECK_OK(ct_tensor_isfinite(z, &fin));
  CHECK_TENSOR(fin, CT_BOOL, S(2), 1, 0);
  RELEASE(z, s, r, fin);
}

/* [1+2i, 3-i]: squared [-3+4i, 8-6i]; running sums [1+2i, 4+i]; variance (real) var(1, 3) +
 * var(2, -1) = 2 + 4.5. */
/* scatter_reduce on complex numbers: both entries of z = [1+2i, 3-i] go to position 0, so prod
 * gives (1+2i)(1+2i)(3-i) = -5+15i there and keeps 3-i; mean without self gives (4+i)/2. amax is
 * refused: complex numbers have no order. */
static void test_scatter_reduce(void) {
  const float v[] = {1, 2, 3, -1};
  ct_tensor *z = c64(v, S(2)), *index = T(CT_INT64, S(2), 0, 0), *p = NULL, *pr = NULL, *m = NULL, *mr = NULL;
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_scatter_reduce(z, 0, index, z, "prod", 1, &p));
  CHECK_OK(ct_tensor_view_as_real(p, &pr));
  CHECK_TENSOR(pr, CT_FLOAT32, S(2, 2), -5, 15, 3, -1);
  CHECK_OK(ct_tensor_scatter_reduce(z, 0, index, z, "mean", 0, &m));
  CHECK_OK(ct_tensor_view_as_real(m, &mr));
  CHECK_TENSOR(mr, CT_FLOAT32, S(2, 2), 2, 0.5, 3, -1);
  CHECK_STATUS(ct_tensor_scatter_reduce(z, 0, index, z, "amax", 1, &out), CT_ERROR_DTYPE);
  CHECK_ERROR_CONTAINS("no order");
  CHECK(out == NULL);
  RELEASE(z, index, p, pr, m, mr);
}

static void test_powers_running_sums_and_variance(void) {
  const float v[] = {1, 2, 3, -1};
  ct_tensor *z = c64(v, S(2)), *sq = NULL, *sqr = NULL, *run = NULL, *runr = NULL, *var = NULL;
  const ct_scalar two = SF(2.0);
  CHECK_OK(ct_tensor_pow_scalar(z, &two, &sq));
  CHECK_OK(ct_tensor_view_as_real(sq, &sqr));
  CHECK_TENSOR(sqr, CT_FLOAT32, S(2, 2), -3, 4, 8, -6);
  CHECK_OK(ct_tensor_cumsum(z, 0, NULL, &run));
  CHECK_OK(ct_tensor_view_as_real(run, &runr));
  CHECK_TENSOR(runr, CT_FLOAT32, S(2, 2), 1, 2, 4, 1);
  CHECK_OK(ct_tensor_var_correction(z, NULL, 0, NULL, 0, &var));
  CHECK_TENSOR_NEAR(var, CT_FLOAT32, 1e-6, S(), 6.5);
  RELEASE(z, sq, sqr, run, runr, var);
}

static void test_random_complex_tensors(void) {
  const int64_t n = 4096;
  ct_tensor *u = NULL, *z = NULL, *parts = NULL, *lo = NULL, *hi = NULL, *sq = NULL, *mean = NULL;
  CHECK_OK(ct_manual_seed(3));
  CHECK_OK(ct_tensor_rand(&n, 1, CT_COMPLEX128, NULL, NULL, &u));
  ct_dtype d;
  CHECK_OK(ct_tensor_dtype(u, &d));
  CHECK(d == CT_COMPLEX128);
  CHECK_OK(ct_tensor_view_as_real(u, &parts));
  CHECK_OK(ct_tensor_amin(parts, NULL, 0, 0, &lo));
  CHECK_OK(ct_tensor_amax(parts, NULL, 0, 0, &hi));
  ct_scalar a, b;
  CHECK_OK(ct_tensor_item(lo, &a));
  CHECK_OK(ct_tensor_item(hi, &b));
  CHECK(a.f >= 0 && b.f < 1);
  CHECK_OK(ct_tensor_randn(&n, 1, CT_COMPLEX64, NULL, NULL, &z));
  CHECK_OK(ct_tensor_abs(z, &sq));
  ct_tensor* sq2 = NULL;
  CHECK_OK(ct_tensor_mul(sq, sq, &sq2));
  CHECK_OK(ct_tensor_mean(sq2, NULL, 0, 0, &mean));
  ct_scalar m;
  CHECK_OK(ct_tensor_item(mean, &m));
  CHECK(fabs(m.f - 1.0) < 0.1); /* E|z|^2 = 1; 4096 draws give about 1 +- 0.016 */
  RELEASE(u, z, parts, lo, hi, sq, sq2, mean);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_complex_dtypes_have_names_sizes_and_promotion),
    CAPI_TEST(test_view_as_real_reads_the_pairs),
    CAPI_TEST(test_products_and_promotion),
    CAPI_TEST(test_item_and_printing),
    CAPI_TEST(test_refusals_name_the_operator_and_dtype),
    CAPI_TEST(test_random_complex_tensors),
    CAPI_TEST(test_pointwise_math),
    CAPI_TEST(test_powers_running_sums_and_variance),
    CAPI_TEST(test_scatter_reduce),
};
CAPI_MAIN(TESTS)
