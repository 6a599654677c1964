/* Matrix products: mm, bmm, matmul, addmm. */
#include "capi_test.h"

typedef ct_status (*mat_fn)(const ct_tensor*, const ct_tensor*, ct_tensor**);

/* A = [[1, 2, 3], [4, 5, 6]], B = [[7, 8], [9, 10], [11, 12]], A @ B = [[58, 64], [139, 154]]. */
#define A_VALS 1, 2, 3, 4, 5, 6
#define B_VALS 7, 8, 9, 10, 11, 12
#define AB_VALS 58, 64, 139, 154

/* c[bt] = a[bt] @ b[bt] for row-major [n, k] and [k, m] blocks. */
static void ref_bmm(const double* a, const double* b, double* c, int64_t batch, int64_t n, int64_t k, int64_t m) {
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p) s += a[t * n * k + i * k + p] * b[t * k * m + p * m + j];
        c[t * n * m + i * m + j] = s;
      }
}

static ct_tensor* from_doubles(ct_dtype dt, const double* v, const int64_t* sizes, size_t ndim) {
  int64_t numel = 1;
  for (size_t d = 0; d < ndim; ++d) numel *= sizes[d];
  return capi_make(__FILE__, __LINE__, dt, sizes, ndim, v, (size_t)numel);
}

/* ---- mm ---- */

static void test_mm_values_for_each_dtype(void) {
  static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_INT32, CT_INT64, CT_FLOAT16, CT_BFLOAT16, CT_INT16};
  for (size_t i = 0; i < sizeof dts / sizeof *dts; ++i) {
    capi_context = ct_dtype_name(dts[i]);
    ct_tensor* a = T(dts[i], S(2, 3), A_VALS);
    ct_tensor* b = T(dts[i], S(3, 2), B_VALS);
    ct_tensor* c = NULL;
    CHECK_OK(ct_tensor_mm(a, b, &c));
    CHECK_TENSOR(c, dts[i], S(2, 2), AB_VALS);
    RELEASE(a, b, c);
  }
}

static void test_mm_promotes_input_dtypes(void) {
  ct_tensor* a = T(CT_INT32, S(2, 3), A_VALS);
  ct_tensor* b = T(CT_FLOAT32, S(3, 2), B_VALS);
  ct_tensor* d = T(CT_FLOAT64, S(3, 2), B_VALS);
  ct_tensor *c = NULL, *e = NULL;
  CHECK_OK(ct_tensor_mm(a, b, &c));
  CHECK_TENSOR(c, CT_FLOAT32, S(2, 2), AB_VALS);
  CHECK_OK(ct_tensor_mm(b, a, &e)); /* [3, 2] @ [2, 3] */
  CHECK_TENSOR(e, CT_FLOAT32, S(3, 3), 39, 54, 69, 49, 68, 87, 59, 82, 105);
  RELEASE(c, e);
  CHECK_OK(ct_tensor_mm(a, d, &c));
  CHECK_TENSOR(c, CT_FLOAT64, S(2, 2), AB_VALS);
  RELEASE(a, b, d, c);
}

static void test_mm_of_transposed_views(void) {
  static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_INT32, CT_FLOAT16};
  for (size_t i = 0; i < sizeof dts / sizeof *dts; ++i) {
    capi_context = ct_dtype_name(dts[i]);
    ct_tensor* a = T(dts[i], S(2, 3), A_VALS);
    ct_tensor* b = T(dts[i], S(3, 2), B_VALS);
    ct_tensor* at_store = T(dts[i], S(3, 2), 1, 4, 2, 5, 3, 6);     /* A^T, contiguous */
    ct_tensor* bt_store = T(dts[i], S(2, 3), 7, 9, 11, 8, 10, 12);  /* B^T, contiguous */
    ct_tensor *at = NULL, *bt = NULL, *c1 = NULL, *c2 = NULL, *c3 = NULL;
    CHECK_OK(ct_tensor_transpose(at_store, 0, 1, &at)); /* A as a transposed view */
    CHECK_OK(ct_tensor_transpose(bt_store, 0, 1, &bt)); /* B as a transposed view */
    CHECK_OK(ct_tensor_mm(at, b, &c1));
    CHECK_TENSOR(c1, dts[i], S(2, 2), AB_VALS);
    CHECK_OK(ct_tensor_mm(a, bt, &c2));
    CHECK_TENSOR(c2, dts[i], S(2, 2), AB_VALS);
    CHECK_OK(ct_tensor_mm(at, bt, &c3));
    CHECK_TENSOR(c3, dts[i], S(2, 2), AB_VALS);
    RELEASE(a, b, at_store, bt_store, at, bt, c1, c2, c3);
  }
}

static void test_mm_of_narrowed_and_expanded_views(void) {
  static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_INT64};
  for (size_t i = 0; i < sizeof dts / sizeof *dts; ++i) {
    capi_context = ct_dtype_name(dts[i]);
    ct_tensor* aw = T(dts[i], S(2, 4), 1, 2, 3, 99, 4, 5, 6, 99);             /* row stride 4 */
    ct_tensor* bw = T(dts[i], S(4, 3), -1, -1, -1, 7, 8, 99, 9, 10, 99, 11, 12, 99); /* offset, stride 3 */
    ct_tensor* row = T(dts[i], S(1, 3), 1, 2, 3);
    ct_tensor *a = NULL, *b0 = NULL, *b = NULL, *ex = NULL, *c = NULL, *ce = NULL;
    CHECK_OK(ct_tensor_narrow(aw, 1, 0, 3, &a));
    CHECK_OK(ct_tensor_narrow(bw, 0, 1, 3, &b0));
    CHECK_OK(ct_tensor_narrow(b0, 1, 0, 2, &b));
    CHECK_OK(ct_tensor_mm(a, b, &c));
    CHECK_TENSOR(c, dts[i], S(2, 2), AB_VALS);
    CHECK_OK(ct_tensor_expand(row, S(2, 3), &ex)); /* stride 0 rows */
    CHECK_OK(ct_tensor_mm(ex, b, &ce));
    CHECK_TENSOR(ce, dts[i], S(2, 2), 58, 64, 58, 64);
    RELEASE(aw, bw, row, a, b0, b, ex, c, ce);
  }
}

static void test_mm_larger_than_a_block(void) {
  /* 67 x 45 @ 45 x 33 with small integers: exact in every accumulator. */
  const int64_t n = 67, k = 45, m = 33;
  double* av = malloc((size_t)(n * k) * sizeof(double));
  double* bv = malloc((size_t)(k * m) * sizeof(double));
  double* cv = malloc((size_t)(n * m) * sizeof(double));
  for (int64_t i = 0; i < n * k; ++i) av[i] = (double)((i * 7) % 5 - 2);
  for (int64_t i = 0; i < k * m; ++i) bv[i] = (double)((i * 3) % 7 - 3);
  ref_bmm(av, bv, cv, 1, n, k, m);
  static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_INT32};
  for (size_t i = 0; i < sizeof dts / sizeof *dts && !capi_failed_now; ++i) {
    capi_context = ct_dtype_name(dts[i]);
    ct_tensor* a = from_doubles(dts[i], av, SZ(n, k), 2);
    ct_tensor* b = from_doubles(dts[i], bv, SZ(k, m), 2);
    ct_tensor* c = NULL;
    ct_status st = ct_tensor_mm(a, b, &c);
    if (capi_check_status(__FILE__, __LINE__, "ct_tensor_mm(a, b, &c)", st, CT_OK))
      capi_check_tensor(__FILE__, __LINE__, "c", c, dts[i], SZ(n, m), 2, cv, (size_t)(n * m), 0.0);
    RELEASE(a, b, c);
  }
  free(av);
  free(bv);
  free(cv);
}

static void test_mm_with_zero_sizes(void) {
  ct_tensor* a = TE(CT_FLOAT32, S(2, 0));
  ct_tensor* b = TE(CT_FLOAT32, S(0, 3));
  ct_tensor* a0 = TE(CT_FLOAT64, S(0, 3));
  ct_tensor* b3 = T(CT_FLOAT64, S(3, 2), B_VALS);
  ct_tensor *c = NULL, *d = NULL;
  CHECK_OK(ct_tensor_mm(a, b, &c)); /* k = 0: zeros */
  CHECK_TENSOR(c, CT_FLOAT32, S(2, 3), 0, 0, 0, 0, 0, 0);
  CHECK_OK(ct_tensor_mm(a0, b3, &d));
  CHECK_META(d, CT_FLOAT64, S(0, 2));
  RELEASE(a, b, a0, b3, c, d);
}

static void test_mm_float16_accumulates_in_float(void) {
  /* 4096 ones: a float16 accumulator would stop at 2048 (2048 + 1 rounds back to 2048). */
  ct_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  CHECK_OK(ct_tensor_ones(S(1, 4096), CT_FLOAT16, NULL, &a));
  CHECK_OK(ct_tensor_ones(S(4096, 1), CT_FLOAT16, NULL, &b));
  CHECK_OK(ct_tensor_mm(a, b, &c));
  CHECK_TENSOR(c, CT_FLOAT16, S(1, 1), 4096);
  RELEASE(a, b);
  CHECK_OK(ct_tensor_ones(S(1, 4096), CT_BFLOAT16, NULL, &a));
  CHECK_OK(ct_tensor_ones(S(4096, 1), CT_BFLOAT16, NULL, &b));
  CHECK_OK(ct_tensor_mm(a, b, &d));
  CHECK_TENSOR(d, CT_BFLOAT16, S(1, 1), 4096);
  RELEASE(a, b, c, d);
}

static void test_mm_huge_result_is_out_of_memory(void) {
  ct_tensor* one = T(CT_FLOAT32, S(1, 1), 1);
  ct_tensor *col = NULL, *row = NULL;
  CHECK_OK(ct_tensor_expand(one, S((int64_t)1 << 30, 1), &col)); /* views: no memory */
  CHECK_OK(ct_tensor_expand(one, S(1, (int64_t)1 << 30), &row));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_mm(col, row, &out), CT_ERROR_OUT_OF_MEMORY); /* 2^60 floats */
  CHECK(out == NULL);
  RELEASE(one, col, row);
}

static void test_mm_inner_size_mismatch_is_shape_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), A_VALS);
  ct_tensor* b = TE(CT_FLOAT32, S(4, 2));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_mm(a, b, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("mm");
  CHECK_ERROR_CONTAINS("[2, 3]");
  CHECK_ERROR_CONTAINS("[4, 2]");
  RELEASE(a, b);
}

static void test_mm_wrong_ndim_is_shape_error(void) {
  ct_tensor* v = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), A_VALS);
  ct_tensor* b3 = TE(CT_FLOAT32, S(1, 3, 2));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_mm(a, v, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_mm(a, b3, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  RELEASE(v, a, b3);
}

/* ---- bmm ---- */

static void test_bmm_multiplies_each_batch(void) {
  double av[12], bv[12], cv[8];
  for (int i = 0; i < 12; ++i) av[i] = i - 3;
  for (int i = 0; i < 12; ++i) bv[i] = (i * 5) % 7;
  ref_bmm(av, bv, cv, 2, 2, 3, 2);
  static const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_INT32};
  for (size_t i = 0; i < sizeof dts / sizeof *dts; ++i) {
    capi_context = ct_dtype_name(dts[i]);
    ct_tensor* a = from_doubles(dts[i], av, SZ(2, 2, 3), 3);
    ct_tensor* b = from_doubles(dts[i], bv, SZ(2, 3, 2), 3);
    ct_tensor* c = NULL;
    CHECK_OK(ct_tensor_bmm(a, b, &c));
    CHECK_TENSOR_ARRAY(c, dts[i], S(2, 2, 2), cv, 8, 0.0);
    RELEASE(a, b, c);
  }
}

static void test_bmm_of_permuted_views(void) {
  /* b stored as [3, 2, 2] (k, batch, m) and permuted to [2, 3, 2]. */
  double av[12], bv[12], bperm[12], cv[8];
  for (int i = 0; i < 12; ++i) av[i] = i % 4;
  for (int i = 0; i < 12; ++i) bv[i] = i - 6; /* logical [batch][k][m] */
  for (int t = 0; t < 2; ++t)
    for (int p = 0; p < 3; ++p)
      for (int j = 0; j < 2; ++j) bperm[p * 4 + t * 2 + j] = bv[t * 6 + p * 2 + j];
  ref_bmm(av, bv, cv, 2, 2, 3, 2);
  ct_tensor* a = from_doubles(CT_FLOAT32, av, SZ(2, 2, 3), 3);
  ct_tensor* bs = from_doubles(CT_FLOAT32, bperm, SZ(3, 2, 2), 3);
  ct_tensor *b = NULL, *c = NULL;
  CHECK_OK(ct_tensor_permute(bs, S(1, 0, 2), &b));
  CHECK_OK(ct_tensor_bmm(a, b, &c));
  CHECK_TENSOR_ARRAY(c, CT_FLOAT32, S(2, 2, 2), cv, 8, 0.0);
  RELEASE(a, bs, b, c);
}

static void test_bmm_shape_errors(void) {
  ct_tensor* a = TE(CT_FLOAT32, S(2, 2, 3));
  ct_tensor* b_batch = TE(CT_FLOAT32, S(3, 3, 2));
  ct_tensor* b_inner = TE(CT_FLOAT32, S(2, 4, 2));
  ct_tensor* m2 = TE(CT_FLOAT32, S(3, 2));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_bmm(a, b_batch, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_bmm(a, b_inner, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_bmm(a, m2, &out), CT_ERROR_SHAPE); /* bmm does not broadcast */
  CHECK(out == NULL);
  RELEASE(a, b_batch, b_inner, m2);
}

/* ---- matmul ---- */

static void test_matmul_of_two_vectors_is_a_dot_product(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* b = T(CT_FLOAT32, S(3), 4, 5, 6);
  ct_tensor* c = NULL;
  CHECK_OK(ct_tensor_matmul(a, b, &c));
  CHECK_TENSOR(c, CT_FLOAT32, S0, 32);
  RELEASE(a, b, c);
}

static void test_matmul_matrix_and_vector(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2, 3), A_VALS);
  ct_tensor* v3 = T(CT_FLOAT64, S(3), 1, 1, 1);
  ct_tensor* v2 = T(CT_FLOAT64, S(2), 1, 1);
  ct_tensor *mv = NULL, *vm = NULL;
  CHECK_OK(ct_tensor_matmul(a, v3, &mv));
  CHECK_TENSOR(mv, CT_FLOAT64, S(2), 6, 15);
  CHECK_OK(ct_tensor_matmul(v2, a, &vm));
  CHECK_TENSOR(vm, CT_FLOAT64, S(3), 5, 7, 9);
  RELEASE(a, v3, v2, mv, vm);
}

static void test_matmul_of_matrices_is_mm(void) {
  ct_tensor* a = T(CT_INT32, S(2, 3), A_VALS);
  ct_tensor* b = T(CT_INT32, S(3, 2), B_VALS);
  ct_tensor* c = NULL;
  CHECK_OK(ct_tensor_matmul(a, b, &c));
  CHECK_TENSOR(c, CT_INT32, S(2, 2), AB_VALS);
  RELEASE(a, b, c);
}

static void test_matmul_batched_and_vector(void) {
  double av[12], bv[12];
  for (int i = 0; i < 12; ++i) av[i] = i;
  for (int i = 0; i < 12; ++i) bv[i] = 12 - i;
  ct_tensor* a = from_doubles(CT_FLOAT32, av, SZ(2, 2, 3), 3);
  ct_tensor* b = from_doubles(CT_FLOAT32, bv, SZ(2, 3, 2), 3);
  ct_tensor* v = T(CT_FLOAT32, S(3), 1, 0, -1);
  ct_tensor *bv_out = NULL, *vb_out = NULL;
  CHECK_OK(ct_tensor_matmul(a, v, &bv_out)); /* [2, 2, 3] @ [3] -> [2, 2]: a[..., 0] - a[..., 2] */
  CHECK_TENSOR(bv_out, CT_FLOAT32, S(2, 2), -2, -2, -2, -2);
  CHECK_OK(ct_tensor_matmul(v, b, &vb_out)); /* [3] @ [2, 3, 2] -> [2, 2]: b[:, 0, :] - b[:, 2, :] */
  CHECK_TENSOR(vb_out, CT_FLOAT32, S(2, 2), 4, 4, 4, 4);
  RELEASE(a, b, v, bv_out, vb_out);
}

static void test_matmul_broadcasts_batch_dims(void) {
  /* a [2, 1, 2, 3] @ b [3, 3, 2] -> [2, 3, 2, 2]; out[i][j] = a[i][0] @ b[j]. */
  double av[12], bv[18], want[24];
  for (int i = 0; i < 12; ++i) av[i] = i - 5;
  for (int i = 0; i < 18; ++i) bv[i] = (i * 7) % 11 - 4;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) ref_bmm(av + i * 6, bv + j * 6, want + (i * 3 + j) * 4, 1, 2, 3, 2);
  ct_tensor* a = from_doubles(CT_FLOAT64, av, SZ(2, 1, 2, 3), 4);
  ct_tensor* b = from_doubles(CT_FLOAT64, bv, SZ(3, 3, 2), 3);
  ct_tensor* c = NULL;
  CHECK_OK(ct_tensor_matmul(a, b, &c));
  CHECK_TENSOR_ARRAY(c, CT_FLOAT64, S(2, 3, 2, 2), want, 24, 0.0);
  RELEASE(a, b, c);
}

static void test_matmul_matrix_broadcasts_against_batch(void) {
  /* [2, 3] @ [4, 3, 2] -> [4, 2, 2] */
  double av[6] = {A_VALS}, bv[24], want[16];
  for (int i = 0; i < 24; ++i) bv[i] = i % 5;
  for (int t = 0; t < 4; ++t) ref_bmm(av, bv + t * 6, want + t * 4, 1, 2, 3, 2);
  ct_tensor* a = from_doubles(CT_FLOAT32, av, SZ(2, 3), 2);
  ct_tensor* b = from_doubles(CT_FLOAT32, bv, SZ(4, 3, 2), 3);
  ct_tensor* c = NULL;
  CHECK_OK(ct_tensor_matmul(a, b, &c));
  CHECK_TENSOR_ARRAY(c, CT_FLOAT32, S(4, 2, 2), want, 16, 0.0);
  RELEASE(a, b, c);
}

static void test_matmul_shape_errors(void) {
  ct_tensor* z = T(CT_FLOAT32, S0, 1);
  ct_tensor* v3 = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* v4 = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
  ct_tensor* a = TE(CT_FLOAT32, S(2, 2, 3));
  ct_tensor* b = TE(CT_FLOAT32, S(3, 3, 2));
  ct_tensor* m = TE(CT_FLOAT32, S(8, 5));
  ct_tensor* n = TE(CT_FLOAT32, S(4, 6));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_matmul(z, v3, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_matmul(v3, z, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_matmul(v3, v4, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_matmul(a, b, &out), CT_ERROR_SHAPE); /* batch 2 vs 3 */
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_matmul(m, n, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("matmul");
  CHECK_ERROR_CONTAINS("[8, 5]");
  CHECK_ERROR_CONTAINS("[4, 6]");
  RELEASE(z, v3, v4, a, b, m, n);
}

/* ---- addmm ---- */

static void test_addmm_scales_and_broadcasts_self(void) {
  ct_tensor* self = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), A_VALS);
  ct_tensor* b = T(CT_FLOAT32, S(3, 2), B_VALS);
  ct_scalar beta = SF(0.5), alpha = SI(2);
  ct_tensor *c = NULL, *d = NULL;
  CHECK_OK(ct_tensor_addmm(self, a, b, &beta, &alpha, &c));
  CHECK_TENSOR(c, CT_FLOAT32, S(2, 2), 116.5, 129, 278.5, 309);
  CHECK_OK(ct_tensor_addmm(self, a, b, NULL, NULL, &d)); /* beta = alpha = 1 */
  CHECK_TENSOR(d, CT_FLOAT32, S(2, 2), 59, 66, 140, 156);
  RELEASE(self, a, b, c, d);
}

static void test_addmm_full_self_and_integers(void) {
  ct_tensor* self = T(CT_INT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor* a = T(CT_INT32, S(2, 3), A_VALS);
  ct_tensor* b = T(CT_INT32, S(3, 2), B_VALS);
  ct_scalar beta = SI(2), alpha = SI(3);
  ct_tensor* c = NULL;
  CHECK_OK(ct_tensor_addmm(self, a, b, &beta, &alpha, &c));
  CHECK_TENSOR(c, CT_INT32, S(2, 2), 176, 196, 423, 470);
  RELEASE(self, a, b, c);
}

static void test_addmm_with_zero_beta_ignores_nan_in_self(void) {
  ct_tensor* self = T(CT_FLOAT64, S(2, 2), NAN, NAN, INFINITY, NAN);
  ct_tensor* a = T(CT_FLOAT64, S(2, 3), A_VALS);
  ct_tensor* b = T(CT_FLOAT64, S(3, 2), B_VALS);
  ct_scalar beta = SI(0);
  ct_tensor* c = NULL;
  CHECK_OK(ct_tensor_addmm(self, a, b, &beta, NULL, &c));
  CHECK_TENSOR(c, CT_FLOAT64, S(2, 2), AB_VALS);
  RELEASE(self, a, b, c);
}

static void test_addmm_with_transposed_inputs(void) {
  ct_tensor* self = T(CT_FLOAT64, S(1), 1);
  ct_tensor* at_store = T(CT_FLOAT64, S(3, 2), 1, 4, 2, 5, 3, 6);
  ct_tensor* bt_store = T(CT_FLOAT64, S(2, 3), 7, 9, 11, 8, 10, 12);
  ct_tensor *at = NULL, *bt = NULL, *c = NULL;
  CHECK_OK(ct_tensor_transpose(at_store, 0, 1, &at));
  CHECK_OK(ct_tensor_transpose(bt_store, 0, 1, &bt));
  CHECK_OK(ct_tensor_addmm(self, at, bt, NULL, NULL, &c));
  CHECK_TENSOR(c, CT_FLOAT64, S(2, 2), 59, 65, 140, 155);
  RELEASE(self, at_store, bt_store, at, bt, c);
}

static void test_addmm_shape_errors(void) {
  ct_tensor* self3 = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* self = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), A_VALS);
  ct_tensor* b = T(CT_FLOAT32, S(3, 2), B_VALS);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_addmm(self3, a, b, NULL, NULL, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_addmm(self, a, a, NULL, NULL, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  RELEASE(self3, self, a, b);
}

/* ---- Errors common to every product ---- */

static ct_status addmm_default(const ct_tensor* a, const ct_tensor* b, ct_tensor** out) {
  ct_tensor* self = NULL;
  if (a && b) {
    ct_dtype dt = CT_FLOAT32, dtb = CT_FLOAT32;
    ct_device_type dev = CT_DEVICE_CPU;
    int32_t idx;
    /* A released a or b: call without making a tensor, so that the released slot is not reused. */
    if (ct_tensor_dtype(a, &dt) != CT_OK || ct_tensor_dtype(b, &dtb) != CT_OK ||
        ct_tensor_device(a, &dev, &idx) != CT_OK)
      return ct_tensor_addmm(a, a, b, NULL, NULL, out);
    /* self: a 1-element tensor of a's dtype and device, broadcast to the product */
    if (ct_tensor_zeros(S(1), dt, dev == CT_DEVICE_META ? "meta" : "cpu", &self) != CT_OK) return CT_ERROR_INTERNAL;
  }
  ct_status st = ct_tensor_addmm(self ? self : a, a, b, NULL, NULL, out);
  ct_tensor_release(self);
  return st;
}

static const struct {
  const char* name;
  mat_fn fn;
  int ndim; /* operand ndim used below */
} PRODUCTS[] = {
    {"mm", ct_tensor_mm, 2}, {"bmm", ct_tensor_bmm, 3}, {"matmul", ct_tensor_matmul, 2}, {"addmm", addmm_default, 2},
};
#define N_PRODUCTS (sizeof PRODUCTS / sizeof *PRODUCTS)

static ct_tensor* operand(ct_dtype dt, int ndim, const char* device) {
  ct_tensor* t = NULL;
  if (ndim == 3) {
    if (ct_tensor_ones(S(2, 2, 2), dt, device, &t) != CT_OK) return NULL;
  } else {
    if (ct_tensor_ones(S(2, 2), dt, device, &t) != CT_OK) return NULL;
  }
  return t;
}

static void test_products_null_inputs_are_invalid_argument(void) {
  for (size_t i = 0; i < N_PRODUCTS; ++i) {
    capi_context = PRODUCTS[i].name;
    ct_tensor* a = operand(CT_FLOAT32, PRODUCTS[i].ndim, "cpu");
    CHECK(a != NULL);
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(PRODUCTS[i].fn(NULL, a, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(PRODUCTS[i].fn(a, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    ct_tensor_release(a);
  }
}

static void test_products_null_out_is_invalid_argument(void) {
  for (size_t i = 0; i < N_PRODUCTS; ++i) {
    capi_context = PRODUCTS[i].name;
    ct_tensor* a = operand(CT_FLOAT32, PRODUCTS[i].ndim, "cpu");
    CHECK(a != NULL);
    CHECK_STATUS(PRODUCTS[i].fn(a, a, NULL), CT_ERROR_INVALID_ARGUMENT);
    ct_tensor_release(a);
  }
}

static void test_matmul_null_out_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  CHECK_STATUS(ct_tensor_matmul(a, a, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(a);
}

static void test_products_released_inputs_are_invalid_argument(void) {
  for (size_t i = 0; i < N_PRODUCTS; ++i) {
    capi_context = PRODUCTS[i].name;
    ct_tensor* a = operand(CT_FLOAT32, PRODUCTS[i].ndim, "cpu");
    CHECK(a != NULL);
    ct_tensor* r = capi_released();
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(PRODUCTS[i].fn(a, r, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    r = capi_released();
    out = SENTINEL;
    CHECK_STATUS(PRODUCTS[i].fn(r, a, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    ct_tensor_release(a);
  }
  /* addmm's self argument */
  ct_tensor* m = operand(CT_FLOAT32, 2, "cpu");
  ct_tensor* r = capi_released();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_addmm(r, m, m, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_addmm(NULL, m, m, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(m);
}

static void test_products_of_bool_are_dtype_error(void) {
  for (size_t i = 0; i < N_PRODUCTS; ++i) {
    capi_context = PRODUCTS[i].name;
    ct_tensor* a = operand(CT_BOOL, PRODUCTS[i].ndim, "cpu");
    CHECK(a != NULL);
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(PRODUCTS[i].fn(a, a, &out), CT_ERROR_DTYPE);
    CHECK(out == NULL);
    ct_tensor_release(a);
  }
}

static void test_products_mixed_devices_are_device_error(void) {
  for (size_t i = 0; i < 3; ++i) { /* mm, bmm, matmul */
    capi_context = PRODUCTS[i].name;
    ct_tensor* a = operand(CT_FLOAT32, PRODUCTS[i].ndim, "cpu");
    ct_tensor* m = operand(CT_FLOAT32, PRODUCTS[i].ndim, "meta");
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(PRODUCTS[i].fn(a, m, &out), CT_ERROR_DEVICE);
    CHECK(out == NULL);
    RELEASE(a, m);
  }
  capi_context = "addmm";
  ct_tensor* a = operand(CT_FLOAT32, 2, "cpu");
  ct_tensor* m = operand(CT_FLOAT32, 2, "meta");
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_addmm(m, a, a, NULL, NULL, &out), CT_ERROR_DEVICE);
  CHECK(out == NULL);
  RELEASE(a, m);
}

static void test_products_on_meta_give_meta(void) {
  ct_tensor *a = NULL, *b = NULL, *ba = NULL, *bb = NULL, *v = NULL, *self = NULL;
  CHECK_OK(ct_tensor_empty(S(2, 3), CT_FLOAT32, "meta", &a));
  CHECK_OK(ct_tensor_empty(S(3, 5), CT_FLOAT32, "meta", &b));
  CHECK_OK(ct_tensor_empty(S(4, 2, 3), CT_FLOAT16, "meta", &ba));
  CHECK_OK(ct_tensor_empty(S(4, 3, 5), CT_FLOAT16, "meta", &bb));
  CHECK_OK(ct_tensor_empty(S(3), CT_FLOAT32, "meta", &v));
  CHECK_OK(ct_tensor_empty(S(5), CT_FLOAT32, "meta", &self));
  ct_tensor *mm = NULL, *bmm = NULL, *mv = NULL, *am = NULL;
  CHECK_OK(ct_tensor_mm(a, b, &mm));
  CHECK_META(mm, CT_FLOAT32, S(2, 5));
  CHECK_OK(ct_tensor_bmm(ba, bb, &bmm));
  CHECK_META(bmm, CT_FLOAT16, S(4, 2, 5));
  CHECK_OK(ct_tensor_matmul(a, v, &mv));
  CHECK_META(mv, CT_FLOAT32, S(2));
  CHECK_OK(ct_tensor_addmm(self, a, b, NULL, NULL, &am));
  CHECK_META(am, CT_FLOAT32, S(2, 5));
  RELEASE(a, b, ba, bb, v, self, mm, bmm, mv, am);
}

/* matrix_power by repeated products, matrix_exp of a nilpotent and a diagonal matrix exactly. */
static void test_matrix_power_and_exp(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2, 2), 1, 1, 0, 1); /* [[1, 1], [0, 1]]: A^n = [[1, n], [0, 1]] */
  ct_tensor *p = NULL, *e = NULL, *d = NULL, *ed = NULL, *bad = NULL;
  CHECK_OK(ct_tensor_matrix_power(a, 13, &p));
  CHECK_TENSOR(p, CT_FLOAT64, S(2, 2), 1, 13, 0, 1);
  RELEASE(p);
  CHECK_OK(ct_tensor_matrix_power(a, 0, &p));
  CHECK_TENSOR(p, CT_FLOAT64, S(2, 2), 1, 0, 0, 1);
  ct_tensor* n = T(CT_FLOAT64, S(2, 2), 0, 2, 0, 0); /* nilpotent: exp(N) = I + N */
  CHECK_OK(ct_tensor_matrix_exp(n, &e));
  CHECK_TENSOR(e, CT_FLOAT64, S(2, 2), 1, 2, 0, 1);
  d = T(CT_FLOAT64, S(2, 2), 1, 0, 0, 0);
  CHECK_OK(ct_tensor_matrix_exp(d, &ed));
  double v[4];
  CHECK_OK(ct_tensor_copy_to(ed, v, sizeof v));
  CHECK(fabs(v[0] - exp(1.0)) < 1e-14 && v[1] == 0 && v[2] == 0 && v[3] == 1);
  CHECK_OK(ct_tensor_matrix_power(a, -3, &p)); /* the inverse's power */
  CHECK_TENSOR(p, CT_FLOAT64, S(2, 2), 1, -3, 0, 1);
  RELEASE(p);
  ct_tensor* rect = T(CT_FLOAT64, S(1, 2), 1, 2);
  CHECK_STATUS(ct_tensor_matrix_exp(rect, &bad), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("square");
  ct_tensor* ints = T(CT_INT64, S(1, 1), 3);
  CHECK_STATUS(ct_tensor_matrix_exp(ints, &bad), CT_ERROR_DTYPE);
  CHECK(bad == NULL);
  RELEASE(a, p, n, e, d, ed, rect, ints);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_mm_values_for_each_dtype),
    CAPI_TEST(test_mm_promotes_input_dtypes),
    CAPI_TEST(test_mm_of_transposed_views),
    CAPI_TEST(test_mm_of_narrowed_and_expanded_views),
    CAPI_TEST(test_mm_larger_than_a_block),
    CAPI_TEST(test_mm_with_zero_sizes),
    CAPI_TEST(test_mm_float16_accumulates_in_float),
    CAPI_TEST(test_mm_huge_result_is_out_of_memory),
    CAPI_TEST(test_mm_inner_size_mismatch_is_shape_error),
    CAPI_TEST(test_mm_wrong_ndim_is_shape_error),
    CAPI_TEST(test_bmm_multiplies_each_batch),
    CAPI_TEST(test_bmm_of_permuted_views),
    CAPI_TEST(test_bmm_shape_errors),
    CAPI_TEST(test_matmul_of_two_vectors_is_a_dot_product),
    CAPI_TEST(test_matmul_matrix_and_vector),
    CAPI_TEST(test_matmul_of_matrices_is_mm),
    CAPI_TEST(test_matmul_batched_and_vector),
    CAPI_TEST(test_matmul_broadcasts_batch_dims),
    CAPI_TEST(test_matmul_matrix_broadcasts_against_batch),
    CAPI_TEST(test_matmul_shape_errors),
    CAPI_TEST(test_addmm_scales_and_broadcasts_self),
    CAPI_TEST(test_addmm_full_self_and_integers),
    CAPI_TEST(test_addmm_with_zero_beta_ignores_nan_in_self),
    CAPI_TEST(test_addmm_with_transposed_inputs),
    CAPI_TEST(test_addmm_shape_errors),
    CAPI_TEST(test_products_null_inputs_are_invalid_argument),
    CAPI_TEST(test_products_null_out_is_invalid_argument),
    CAPI_TEST(test_matmul_null_out_is_invalid_argument),
    CAPI_TEST(test_products_released_inputs_are_invalid_argument),
    CAPI_TEST(test_products_of_bool_are_dtype_error),
    CAPI_TEST(test_products_mixed_devices_are_device_error),
    CAPI_TEST(test_products_on_meta_give_meta),
    CAPI_TEST(test_matrix_power_and_exp),
};
CAPI_MAIN(TESTS)
