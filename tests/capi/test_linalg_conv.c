/* Linear algebra, convolution and pooling: dot, outer, mv, baddbmm, einsum, linear, conv2d and the
 * 2-D pools, with their bad-input statuses. */
#include "capi_test.h"

static void test_vector_products(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* b = T(CT_FLOAT32, S(3), 4, 5, 6);
  ct_tensor* m = T(CT_FLOAT32, S(2, 3), 1, 0, 0, 0, 1, 1);
  ct_tensor *d = NULL, *o = NULL, *v = NULL;
  CHECK_OK(ct_tensor_dot(a, b, &d));
  CHECK_TENSOR(d, CT_FLOAT32, S(), 32);
  CHECK_OK(ct_tensor_outer(a, b, &o));
  CHECK_TENSOR(o, CT_FLOAT32, S(3, 3), 4, 5, 6, 8, 10, 12, 12, 15, 18);
  CHECK_OK(ct_tensor_mv(m, b, &v));
  CHECK_TENSOR(v, CT_FLOAT32, S(2), 4, 11);
  RELEASE(a, b, m, d, o, v);
}

static void test_vector_product_errors(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* b = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* c = T(CT_FLOAT64, S(3), 1, 2, 3);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_dot(a, b, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_dot(a, c, &out), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_dot(NULL, a, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_dot(a, a, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_mv(a, a, &out), CT_ERROR_SHAPE);
  RELEASE(a, b, c);
}

static void test_baddbmm_scales(void) {
  ct_tensor* self = T(CT_FLOAT32, S(1, 1, 2), 1, 2);
  ct_tensor* b1 = T(CT_FLOAT32, S(1, 1, 2), 1, 2);
  ct_tensor* b2 = T(CT_FLOAT32, S(1, 2, 2), 1, 0, 0, 1);
  const ct_scalar beta = {CT_SCALAR_FLOAT, 0, 0.5}, alpha = {CT_SCALAR_INT, 2, 0};
  ct_tensor *r = NULL, *r1 = NULL;
  CHECK_OK(ct_tensor_baddbmm(self, b1, b2, &beta, &alpha, &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(1, 1, 2), 2.5, 5);
  CHECK_OK(ct_tensor_baddbmm(self, b1, b2, NULL, NULL, &r1));
  CHECK_TENSOR(r1, CT_FLOAT32, S(1, 1, 2), 2, 4);
  CHECK_STATUS(ct_tensor_baddbmm(self, b1, NULL, NULL, NULL, &r), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(self, b1, b2, r1);
}

static void test_einsum_chain_and_errors(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2, 2), 1, 2, 3, 4);
  ct_tensor* b = T(CT_FLOAT64, S(2, 2), 1, 0, 0, 1);
  ct_tensor* c = T(CT_FLOAT64, S(2, 1), 1, 1);
  const ct_tensor* ops[3] = {a, b, c};
  ct_tensor *r = NULL, *tr = NULL;
  CHECK_OK(ct_tensor_einsum("ij,jk,kl->il", ops, 3, &r));
  CHECK_TENSOR(r, CT_FLOAT64, S(2, 1), 3, 7);
  CHECK_OK(ct_tensor_einsum("ii", ops, 1, &tr));
  CHECK_TENSOR(tr, CT_FLOAT64, S(), 5);
  CHECK_STATUS(ct_tensor_einsum("ij,jk->ik", ops, 3, &r), CT_ERROR_INVALID_ARGUMENT);
  CHECK(r == NULL);
  CHECK_STATUS(ct_tensor_einsum(NULL, ops, 2, &r), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_einsum("ij", NULL, 1, &r), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_einsum("ijk", ops, 1, &r), CT_ERROR_SHAPE);
  RELEASE(a, b, c, tr);
}

static void test_linear_with_and_without_bias(void) {
  ct_tensor* x = T(CT_FLOAT32, S(1, 2), 1, 2);
  ct_tensor* w = T(CT_FLOAT32, S(3, 2), 1, 0, 0, 1, 1, 1);
  ct_tensor* b = T(CT_FLOAT32, S(3), 10, 20, 30);
  ct_tensor *y = NULL, *z = NULL;
  CHECK_OK(ct_tensor_linear(x, w, b, &y));
  CHECK_TENSOR(y, CT_FLOAT32, S(1, 3), 11, 22, 33);
  CHECK_OK(ct_tensor_linear(x, w, NULL, &z));
  CHECK_TENSOR(z, CT_FLOAT32, S(1, 3), 1, 2, 3);
  CHECK_STATUS(ct_tensor_linear(x, b, NULL, &y), CT_ERROR_SHAPE);
  RELEASE(x, w, b, z);
}

static void test_conv2d_options(void) {
  /* One 3x3 plane, a 2x2 kernel of ones: each output sums a window. */
  ct_tensor* x = T(CT_FLOAT32, S(1, 1, 3, 3), 1, 2, 3, 4, 5, 6, 7, 8, 9);
  ct_tensor* w = T(CT_FLOAT32, S(1, 1, 2, 2), 1, 1, 1, 1);
  ct_tensor* b = T(CT_FLOAT32, S(1), 100);
  ct_tensor *y = NULL, *z = NULL;
  CHECK_OK(ct_tensor_conv2d(x, w, NULL, NULL, &y));
  CHECK_TENSOR(y, CT_FLOAT32, S(1, 1, 2, 2), 12, 16, 24, 28);
  ct_conv2d_options o = CT_CONV2D_OPTIONS_DEFAULT;
  o.stride[0] = o.stride[1] = 2;
  o.padding[0] = o.padding[1] = 1;
  CHECK_OK(ct_tensor_conv2d(x, w, b, &o, &z));
  CHECK_TENSOR(z, CT_FLOAT32, S(1, 1, 2, 2), 101, 105, 111, 128);
  RELEASE(y, z);
  o.groups = 0;
  CHECK_STATUS(ct_tensor_conv2d(x, w, NULL, &o, &y), CT_ERROR_INVALID_ARGUMENT);
  o.groups = 1;
  o.struct_size = 4;
  CHECK_STATUS(ct_tensor_conv2d(x, w, NULL, &o, &y), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_conv2d(w, x, NULL, NULL, &y), CT_ERROR_SHAPE); /* kernel larger than the input */
  CHECK_STATUS(ct_tensor_conv2d(x, b, NULL, NULL, &y), CT_ERROR_SHAPE); /* 1-D weight */
  CHECK_STATUS(ct_tensor_conv2d(NULL, w, NULL, NULL, &y), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* xi = T(CT_INT64, S(1, 1, 3, 3), 1, 2, 3, 4, 5, 6, 7, 8, 9);
  CHECK_STATUS(ct_tensor_conv2d(xi, w, NULL, NULL, &y), CT_ERROR_DTYPE);
  RELEASE(x, w, b, xi);
}

/* As in PyTorch: an empty batch or empty channels are fine, a kernel or an input plane without
   height or width is refused (a 0 x 2 kernel would give a full output from nothing). */
static void test_conv2d_of_empty_tensors(void) {
  ct_tensor* w = TE(CT_FLOAT32, S(2, 1, 2, 2));
  ct_tensor* no_batch = TE(CT_FLOAT32, S(0, 1, 3, 3));
  ct_tensor* no_rows = TE(CT_FLOAT32, S(1, 1, 0, 3));
  ct_tensor* flat_kernel = TE(CT_FLOAT32, S(2, 1, 0, 2));
  ct_tensor* x = TE(CT_FLOAT32, S(1, 1, 3, 3));
  ct_tensor* y = NULL;
  CHECK_OK(ct_tensor_conv2d(no_batch, w, NULL, NULL, &y));
  CHECK_TENSOR(y, CT_FLOAT32, S(0, 2, 2, 2));
  RELEASE(y);
  CHECK_STATUS(ct_tensor_conv2d(no_rows, w, NULL, NULL, &y), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("no height or no width");
  CHECK_STATUS(ct_tensor_conv2d(x, flat_kernel, NULL, NULL, &y), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("at least 1 x 1");
  RELEASE(w, no_batch, no_rows, flat_kernel, x);
}

static void test_pools(void) {
  ct_tensor* x = T(CT_FLOAT32, S(1, 4, 4), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
  ct_pool2d_options o = CT_POOL2D_OPTIONS_DEFAULT(2, 2);
  ct_tensor *mx = NULL, *idx = NULL, *av = NULL, *ad = NULL, *mx2 = NULL;
  CHECK_OK(ct_tensor_max_pool2d(x, &o, &mx, &idx));
  CHECK_TENSOR(mx, CT_FLOAT32, S(1, 2, 2), 6, 8, 14, 16);
  CHECK_TENSOR(idx, CT_INT64, S(1, 2, 2), 5, 7, 13, 15);
  CHECK_OK(ct_tensor_max_pool2d(x, &o, &mx2, NULL));
  CHECK_OK(ct_tensor_avg_pool2d(x, &o, 1, 0, &av));
  CHECK_TENSOR(av, CT_FLOAT32, S(1, 2, 2), 3.5, 5.5, 11.5, 13.5);
  CHECK_OK(ct_tensor_adaptive_avg_pool2d(x, 1, 2, &ad));
  CHECK_TENSOR(ad, CT_FLOAT32, S(1, 1, 2), 7.5, 9.5);
  RELEASE(mx, idx, av, ad, mx2);
  CHECK_STATUS(ct_tensor_max_pool2d(x, NULL, &mx, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_max_pool2d(x, &o, NULL, &idx), CT_ERROR_INVALID_ARGUMENT);
  o.padding[0] = 2;
  CHECK_STATUS(ct_tensor_avg_pool2d(x, &o, 1, 0, &av), CT_ERROR_INVALID_ARGUMENT);
  o.padding[0] = 0;
  o.dilation[0] = 2;
  CHECK_STATUS(ct_tensor_avg_pool2d(x, &o, 1, 0, &av), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* flat = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
  CHECK_STATUS(ct_tensor_adaptive_avg_pool2d(flat, 1, 1, &ad), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_adaptive_avg_pool2d(NULL, 1, 1, &ad), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(x, flat);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_vector_products),       CAPI_TEST(test_vector_product_errors), CAPI_TEST(test_baddbmm_scales),
    CAPI_TEST(test_einsum_chain_and_errors), CAPI_TEST(test_linear_with_and_without_bias), CAPI_TEST(test_conv2d_options), CAPI_TEST(test_conv2d_of_empty_tensors),
    CAPI_TEST(test_pools),
};
CAPI_MAIN(TESTS)
