/* test_lapack.c - linear algebra on LAPACK through the C ABI: solvers, inverses, determinants and
 * factorizations by their typed functions, complex matrices, the eigendecomposition of general
 * matrices, their refusals (CT_ERROR_LINALG naming the batch element, shapes, dtypes, NULL handles),
 * the meta device and a derivative. */
#include <math.h>

#include "capi_test.h"

/* A = [[4, 1], [2, 3]]: det 10, inverse [[0.3, -0.1], [-0.2, 0.4]]. */
#define A_VALS 4, 1, 2, 3

static void test_solve_inv_det(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2, 2), A_VALS);
  ct_tensor* b = T(CT_FLOAT64, S(2, 1), 5, 5); /* x = [1, 1] */
  ct_tensor *x = NULL, *inv = NULL, *det = NULL, *sign = NULL, *logabs = NULL;
  CHECK_OK(ct_tensor_linalg_solve(a, b, 1, &x));
  CHECK_TENSOR_NEAR(x, CT_FLOAT64, 1e-15, S(2, 1), 1, 1);
  CHECK_OK(ct_tensor_linalg_inv(a, &inv));
  CHECK_TENSOR_NEAR(inv, CT_FLOAT64, 1e-15, S(2, 2), 0.3, -0.1, -0.2, 0.4);
  CHECK_OK(ct_tensor_linalg_det(a, &det));
  CHECK_TENSOR_NEAR(det, CT_FLOAT64, 1e-15, S(), 10);
  CHECK_OK(ct_tensor_linalg_slogdet(a, &sign, &logabs));
  CHECK_TENSOR(sign, CT_FLOAT64, S(), 1);
  CHECK_TENSOR_NEAR(logabs, CT_FLOAT64, 1e-15, S(), log(10.0));
  RELEASE(a, b, x, inv, det, sign, logabs);
}

static void test_singular_matrix_is_linalg_error_naming_the_batch_element(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2, 2, 2), A_VALS, 1, 2, 2, 4); /* the second is singular */
  ct_tensor *inv = NULL, *info = NULL;
  CHECK_STATUS(ct_tensor_linalg_inv(a, &inv), CT_ERROR_LINALG);
  CHECK_ERROR_CONTAINS("linalg.inv: (Batch element 1)");
  CHECK_ERROR_CONTAINS("singular");
  CHECK(inv == NULL);
  CHECK_OK(ct_tensor_linalg_inv_ex(a, 0, &inv, &info)); /* _ex reports instead of raising */
  CHECK_TENSOR(info, CT_INT32, S(2), 0, 2);
  RELEASE(a, inv, info);
}

static void test_cholesky_and_its_refusal(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2, 2), 4, 2, 2, 5); /* L = [[2, 0], [1, 2]] */
  ct_tensor* bad = T(CT_FLOAT64, S(2, 2), 1, 2, 2, 1);
  ct_tensor *l = NULL, *info = NULL;
  CHECK_OK(ct_tensor_linalg_cholesky(a, 0, &l));
  CHECK_TENSOR_NEAR(l, CT_FLOAT64, 1e-15, S(2, 2), 2, 0, 1, 2);
  RELEASE(l);
  CHECK_STATUS(ct_tensor_linalg_cholesky(bad, 0, &l), CT_ERROR_LINALG);
  CHECK_ERROR_CONTAINS("not positive-definite (the leading minor of order 2");
  CHECK_OK(ct_tensor_linalg_cholesky_ex(bad, 0, 0, &l, &info));
  CHECK_TENSOR(info, CT_INT32, S(), 2);
  RELEASE(a, bad, l, info);
}

static void test_eigh_svd_qr(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2, 2), 2, 1, 1, 2); /* eigenvalues 1, 3 */
  ct_tensor *w = NULL, *v = NULL, *u = NULL, *s = NULL, *vh = NULL, *q = NULL, *r = NULL, *qr = NULL;
  CHECK_OK(ct_tensor_linalg_eigh(a, "L", &w, &v));
  CHECK_TENSOR_NEAR(w, CT_FLOAT64, 1e-15, S(2), 1, 3);
  CHECK_OK(ct_tensor_linalg_svd(a, 1, NULL, &u, &s, &vh));
  CHECK_TENSOR_NEAR(s, CT_FLOAT64, 1e-15, S(2), 3, 1);
  ct_tensor* m = T(CT_FLOAT64, S(3, 2), 1, 2, 3, 4, 5, 6);
  CHECK_OK(ct_tensor_linalg_qr(m, "reduced", &q, &r));
  CHECK_OK(ct_tensor_matmul(q, r, &qr));
  CHECK_TENSOR_NEAR(qr, CT_FLOAT64, 1e-14, S(3, 2), 1, 2, 3, 4, 5, 6);
  RELEASE(q, r);
  CHECK_STATUS(ct_tensor_linalg_qr(m, "full", &q, &r), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("'reduced' (default), 'r', or 'complete'");
  CHECK_STATUS(ct_tensor_linalg_eigh(a, "X", &w, &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK(w == NULL && v == NULL);
  RELEASE(a, u, s, vh, m, qr);
}

/* svd_lowrank of the rank-1 A = [1, 2, 2]^T [2, 1], whatever the random draw: singular values
 * 3 sqrt 5 and 0, and U diag(S) V^T gives A back. pca_lowrank refuses a q above min(m, n);
 * svd_lowrank refuses float16 and a mean M that does not broadcast to A. */
static void test_randomized_low_rank_svd(void) {
  ct_tensor* a = T(CT_FLOAT64, S(3, 2), 2, 1, 4, 2, 4, 2);
  const int64_t q = 2, too_many = 3;
  ct_tensor *u = NULL, *s = NULL, *v = NULL, *us = NULL, *vt = NULL, *back = NULL;
  ct_tensor *pu = NULL, *ps = NULL, *pv = NULL;
  CHECK_OK(ct_tensor_svd_lowrank(a, &q, NULL, NULL, &u, &s, &v));
  CHECK_TENSOR_NEAR(s, CT_FLOAT64, 1e-12, S(2), 3 * sqrt(5.0), 0);
  CHECK_OK(ct_tensor_mul(u, s, &us));
  CHECK_OK(ct_tensor_transpose(v, 0, 1, &vt));
  CHECK_OK(ct_tensor_matmul(us, vt, &back));
  CHECK_TENSOR_NEAR(back, CT_FLOAT64, 1e-12, S(3, 2), 2, 1, 4, 2, 4, 2);
  CHECK_STATUS(ct_tensor_pca_lowrank(a, &too_many, 1, 2, &pu, &ps, &pv), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("min(m, n) = 2");
  CHECK(pu == NULL && ps == NULL && pv == NULL);
  ct_tensor *half = NULL, *wrong_mean = T(CT_FLOAT64, S(2, 2), 1, 2, 3, 4);
  CHECK_OK(ct_tensor_to(a, CT_FLOAT16, &half));
  CHECK_STATUS(ct_tensor_svd_lowrank(half, &q, NULL, NULL, &pu, &ps, &pv), CT_ERROR_DTYPE);
  CHECK_ERROR_CONTAINS("svd_lowrank: A is float16");
  CHECK_STATUS(ct_tensor_svd_lowrank(a, &q, NULL, wrong_mean, &pu, &ps, &pv), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("svd_lowrank");
  CHECK(pu == NULL && ps == NULL && pv == NULL);
  RELEASE(a, u, s, v, us, vt, back, half, wrong_mean);
}

/* torch 2.x's matrix_sqrth (from eigh) and polar (from the SVD): A = U H; a wide A refused. */
static void test_matrix_sqrth_and_polar(void) {
  ct_tensor* d = T(CT_FLOAT64, S(2, 2), 2, 0, 0, 9);
  ct_tensor* a = T(CT_FLOAT64, S(2, 2), 3, 0, 0, -2);
  ct_tensor* wide = T(CT_FLOAT64, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor *root = NULL, *u = NULL, *h = NULL;
  CHECK_OK(ct_tensor_linalg_matrix_sqrth(d, &root));
  CHECK_TENSOR_NEAR(root, CT_FLOAT64, 1e-15, S(2, 2), 1.4142135623730951, 0, 0, 3);
  CHECK_OK(ct_tensor_linalg_polar(a, &u, &h));
  CHECK_TENSOR_NEAR(u, CT_FLOAT64, 1e-15, S(2, 2), 1, 0, 0, -1);
  CHECK_TENSOR_NEAR(h, CT_FLOAT64, 1e-15, S(2, 2), 3, 0, 0, 2);
  RELEASE(u, h);
  u = h = NULL;
  CHECK_STATUS(ct_tensor_linalg_polar(wide, &u, &h), CT_ERROR_SHAPE);
  CHECK(u == NULL && h == NULL);
  CHECK_ERROR_CONTAINS("linalg.polar: input must have at least as many rows as columns, but got 2 by 3");
  RELEASE(d, a, wide, root);
}

/* An indefinite symmetric matrix has no Cholesky factor but an LDL^T one. */
static void test_ldl_solves_an_indefinite_system(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2, 2), 1, 2, 2, 1); /* eigenvalues 3 and -1 */
  ct_tensor* b = T(CT_FLOAT64, S(2, 1), 3, 3);       /* x = [1, 1] */
  ct_tensor *ld = NULL, *piv = NULL, *info = NULL, *x = NULL, *bad = NULL;
  CHECK_OK(ct_tensor_linalg_ldl_factor_ex(a, 0, 0, &ld, &piv, &info));
  CHECK_TENSOR(info, CT_INT32, S(), 0);
  CHECK_OK(ct_tensor_linalg_ldl_solve(ld, piv, b, 0, &x));
  CHECK_TENSOR_NEAR(x, CT_FLOAT64, 1e-15, S(2, 1), 1, 1);
  ct_tensor* wrong = T(CT_INT32, S(2), 7, 1); /* not a row of a 2 x 2 matrix */
  CHECK_STATUS(ct_tensor_linalg_ldl_solve(ld, wrong, b, 0, &bad), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("pivots ldl_factor returned");
  CHECK(bad == NULL);
  RELEASE(a, b, ld, piv, info, x, wrong);
}

static void test_lstsq_fits_a_line(void) {
  /* y = 1 + 2 t at t = 0, 1, 2, 3: the fit is exact. */
  ct_tensor* a = T(CT_FLOAT64, S(4, 2), 1, 0, 1, 1, 1, 2, 1, 3);
  ct_tensor* y = T(CT_FLOAT64, S(4, 1), 1, 3, 5, 7);
  ct_tensor *x = NULL, *res = NULL, *rank = NULL, *sv = NULL;
  CHECK_OK(ct_tensor_linalg_lstsq(a, y, NULL, "gelsd", &x, &res, &rank, &sv));
  CHECK_TENSOR_NEAR(x, CT_FLOAT64, 1e-14, S(2, 1), 1, 2);
  CHECK_TENSOR(rank, CT_INT64, S(), 2);
  RELEASE(a, y, x, res, rank, sv);
}

static void test_refusals(void) {
  ct_tensor* rect = T(CT_FLOAT64, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* ints = T(CT_INT64, S(2, 2), A_VALS);
  ct_tensor* out = NULL;
  CHECK_STATUS(ct_tensor_linalg_det(rect, &out), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("square");
  CHECK_STATUS(ct_tensor_linalg_inv(ints, &out), CT_ERROR_DTYPE);
  CHECK_ERROR_CONTAINS("float32 or float64");
  CHECK_STATUS(ct_tensor_linalg_det(NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_linalg_solve(rect, rect, 1, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  RELEASE(rect, ints);
}

static void test_meta_gives_sizes(void) {
  ct_tensor* a = NULL;
  CHECK_OK(ct_tensor_zeros(S(5, 4, 3), CT_FLOAT32, "meta", &a));
  ct_tensor *u = NULL, *s = NULL, *vh = NULL;
  CHECK_OK(ct_tensor_linalg_svd(a, 0, NULL, &u, &s, &vh));
  int64_t sizes[3];
  CHECK_OK(ct_tensor_sizes(u, sizes, 3));
  CHECK(sizes[0] == 5 && sizes[1] == 4 && sizes[2] == 3);
  CHECK_OK(ct_tensor_sizes(vh, sizes, 3));
  CHECK(sizes[0] == 5 && sizes[1] == 3 && sizes[2] == 3);
  RELEASE(a, u, s, vh);
}

/* d det(A) / dA = det(A) A^-T = [[3, -2], [-1, 4]]. */
static void test_det_gradient_is_the_cofactor_matrix(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2, 2), A_VALS);
  ct_tensor *det = NULL, *g = NULL;
  CHECK_OK(ct_tensor_set_requires_grad(a, 1));
  CHECK_OK(ct_tensor_linalg_det(a, &det));
  CHECK_OK(ct_tensor_backward(det, NULL, 0));
  CHECK_OK(ct_tensor_grad(a, &g));
  CHECK_TENSOR_NEAR(g, CT_FLOAT64, 1e-14, S(2, 2), 3, -2, -1, 4);
  RELEASE(a, det, g);
}

/* A complex128 tensor from (real, imaginary) pairs. */
static ct_tensor* c128(const double* pairs, const int64_t* sizes, size_t ndim) {
  ct_tensor* t = NULL;
  return ct_tensor_from_data(pairs, sizes, ndim, CT_COMPLEX128, &t) == CT_OK ? t : NULL;
}

/* max |a - b| over the elements; infinity when a call fails (no CHECK below accepts it). */
static double max_abs_diff(const ct_tensor* a, const ct_tensor* b) {
  ct_tensor *d = NULL, *m = NULL, *worst = NULL;
  ct_scalar w = {CT_SCALAR_FLOAT, 0, INFINITY};
  if (ct_tensor_sub(a, b, &d) != CT_OK || ct_tensor_abs(d, &m) != CT_OK ||
      ct_tensor_amax(m, NULL, 0, 0, &worst) != CT_OK || ct_tensor_item(worst, &w) != CT_OK ||
      w.kind != CT_SCALAR_FLOAT)
    w.f = INFINITY;
  ct_tensor_release(d);
  ct_tensor_release(m);
  ct_tensor_release(worst);
  return w.f;
}

/* t's dtype; an invalid value (which no CHECK below accepts) when t is not a tensor. */
static ct_dtype dtype_of(const ct_tensor* t) {
  ct_dtype d = (ct_dtype)-1;
  return ct_tensor_dtype(t, &d) == CT_OK ? d : (ct_dtype)-1;
}

/* B = [[2, i], [i, 1]]: det 2 - i^2 = 3, inverse [[1, -i], [-i, 2]] / 3; B x = [2 + i, i + 1] at
 * x = [1, 1]. */
static void test_complex_solve_inv_det(void) {
  const double b_pairs[] = {2, 0, 0, 1, 0, 1, 1, 0}, rhs_pairs[] = {2, 1, 1, 1};
  ct_tensor *b = c128(b_pairs, S(2, 2)), *rhs = c128(rhs_pairs, S(2));
  ct_tensor *det = NULL, *detr = NULL, *inv = NULL, *invr = NULL, *x = NULL, *xr = NULL, *sign = NULL, *logabs = NULL;
  CHECK_OK(ct_tensor_linalg_det(b, &det));
  CHECK_OK(ct_tensor_view_as_real(det, &detr));
  CHECK_TENSOR_NEAR(detr, CT_FLOAT64, 1e-15, S(2), 3, 0);
  CHECK_OK(ct_tensor_linalg_inv(b, &inv));
  CHECK_OK(ct_tensor_view_as_real(inv, &invr));
  CHECK_TENSOR_NEAR(invr, CT_FLOAT64, 1e-15, S(2, 2, 2), 1.0 / 3, 0, 0, -1.0 / 3, 0, -1.0 / 3, 2.0 / 3, 0);
  CHECK_OK(ct_tensor_linalg_solve(b, rhs, 1, &x));
  CHECK_OK(ct_tensor_view_as_real(x, &xr));
  CHECK_TENSOR_NEAR(xr, CT_FLOAT64, 1e-15, S(2, 2), 1, 0, 1, 0);
  /* slogdet: the sign in B's dtype (here 1 + 0i), log|det| real */
  CHECK_OK(ct_tensor_linalg_slogdet(b, &sign, &logabs));
  CHECK(dtype_of(sign) == CT_COMPLEX128 && dtype_of(logabs) == CT_FLOAT64);
  CHECK_TENSOR_NEAR(logabs, CT_FLOAT64, 1e-15, S(), log(3.0));
  RELEASE(b, rhs, det, detr, inv, invr, x, xr, sign, logabs);
}

/* The SVD and QR of a complex matrix: [[2i, 0], [0, -1]] has singular values 2 and 1 (real), and
 * Q R gives it back with R's diagonal real. */
static void test_complex_svd_and_qr(void) {
  const double pairs[] = {0, 2, 0, 0, 0, 0, -1, 0};
  ct_tensor *a = c128(pairs, S(2, 2)), *u = NULL, *sv = NULL, *vh = NULL, *q = NULL, *r = NULL, *qr = NULL;
  ct_tensor *rd = NULL, *rdi = NULL;
  CHECK_OK(ct_tensor_linalg_svd(a, 0, NULL, &u, &sv, &vh));
  CHECK(dtype_of(sv) == CT_FLOAT64 && dtype_of(u) == CT_COMPLEX128);
  CHECK_TENSOR_NEAR(sv, CT_FLOAT64, 1e-15, S(2), 2, 1);
  CHECK_OK(ct_tensor_linalg_qr(a, "reduced", &q, &r));
  CHECK_OK(ct_tensor_matmul(q, r, &qr));
  CHECK(max_abs_diff(qr, a) < 1e-15);
  CHECK_OK(ct_tensor_diagonal(r, 0, -2, -1, &rd));
  CHECK_OK(ct_tensor_imag(rd, &rdi));
  CHECK_TENSOR(rdi, CT_FLOAT64, S(2), 0, 0);
  RELEASE(a, u, sv, vh, q, r, qr, rd, rdi);
}

/* eig of a real matrix: complex results. A rotation by 90 degrees has eigenvalues i and -i (a
 * conjugate pair, the positive imaginary part first); A V = V diag(L) for the vectors. */
static void test_eig_of_a_rotation(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2, 2), 0, -1, 1, 0);
  ct_tensor *l = NULL, *v = NULL, *lr = NULL, *ac = NULL, *av = NULL, *vl = NULL;
  CHECK_OK(ct_tensor_linalg_eig(a, &l, &v));
  CHECK(dtype_of(l) == CT_COMPLEX128 && dtype_of(v) == CT_COMPLEX128);
  CHECK_OK(ct_tensor_view_as_real(l, &lr));
  CHECK_TENSOR_NEAR(lr, CT_FLOAT64, 1e-15, S(2, 2), 0, 1, 0, -1);
  CHECK_OK(ct_tensor_to(a, CT_COMPLEX128, &ac));
  CHECK_OK(ct_tensor_matmul(ac, v, &av));
  CHECK_OK(ct_tensor_mul(v, l, &vl)); /* column j times L[j] */
  CHECK(max_abs_diff(av, vl) < 1e-15);
  ct_tensor* values = NULL;
  CHECK_OK(ct_tensor_linalg_eigvals(a, &values));
  CHECK(dtype_of(values) == CT_COMPLEX128);
  RELEASE(a, l, v, lr, ac, av, vl, values);
}

/* eig refuses a NaN (LAPACK has no defined answer for it), integers, and a non-square matrix; on the
 * meta device it gives sizes and the complex dtype. */
static void test_eig_refusals_and_meta(void) {
  ct_tensor* nan = T(CT_FLOAT32, S(2, 2), 1, NAN, 0, 1);
  ct_tensor* ints = T(CT_INT64, S(2, 2), A_VALS);
  ct_tensor* rect = T(CT_FLOAT64, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor *l = NULL, *v = NULL;
  CHECK_STATUS(ct_tensor_linalg_eig(nan, &l, &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("linalg.eig: input tensor should not contain infs or NaNs");
  CHECK(l == NULL && v == NULL);
  CHECK_STATUS(ct_tensor_linalg_eigvals(ints, &l), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_linalg_eig(rect, &l, &v), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("square");
  CHECK_STATUS(ct_tensor_linalg_eig(NULL, &l, &v), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* meta = NULL;
  CHECK_OK(ct_tensor_zeros(S(5, 3, 3), CT_FLOAT32, "meta", &meta));
  CHECK_OK(ct_tensor_linalg_eig(meta, &l, &v));
  int64_t sizes[3];
  CHECK_OK(ct_tensor_sizes(l, sizes, 2));
  CHECK(sizes[0] == 5 && sizes[1] == 3 && dtype_of(l) == CT_COMPLEX64);
  CHECK_OK(ct_tensor_sizes(v, sizes, 3));
  CHECK(sizes[0] == 5 && sizes[1] == 3 && sizes[2] == 3 && dtype_of(v) == CT_COMPLEX64);
  RELEASE(nan, ints, rect, meta, l, v);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_solve_inv_det),
    CAPI_TEST(test_singular_matrix_is_linalg_error_naming_the_batch_element),
    CAPI_TEST(test_cholesky_and_its_refusal),
    CAPI_TEST(test_eigh_svd_qr),
    CAPI_TEST(test_matrix_sqrth_and_polar),
    CAPI_TEST(test_ldl_solves_an_indefinite_system),
    CAPI_TEST(test_lstsq_fits_a_line),
    CAPI_TEST(test_refusals),
    CAPI_TEST(test_meta_gives_sizes),
    CAPI_TEST(test_det_gradient_is_the_cofactor_matrix),
    CAPI_TEST(test_complex_solve_inv_det),
    CAPI_TEST(test_eig_of_a_rotation),
    CAPI_TEST(test_complex_svd_and_qr),
    CAPI_TEST(test_eig_refusals_and_meta),
    CAPI_TEST(test_randomized_low_rank_svd),
};
CAPI_MAIN(TESTS)
