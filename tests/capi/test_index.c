/* Indexing: index_select, gather, scatter, scatter_add, index_add, masked_fill, masked_select,
 * nonzero, index, index_put, index_put_. */
#include "capi_test.h"

/* a = [[0, 1, 2], [3, 4, 5], [6, 7, 8]] float32 */
static ct_tensor* mat33(void) { return T(CT_FLOAT32, S(3, 3), 0, 1, 2, 3, 4, 5, 6, 7, 8); }

static void test_index_select_picks_slices(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT64, S(2), 2, 0), *o = NULL, *p = NULL;
  CHECK_OK(ct_tensor_index_select(a, 0, i, &o));
  CHECK_TENSOR(o, CT_FLOAT32, S(2, 3), 6, 7, 8, 0, 1, 2);
  CHECK_OK(ct_tensor_index_select(a, -1, i, &p));
  CHECK_TENSOR(p, CT_FLOAT32, S(3, 2), 2, 0, 5, 3, 8, 6);
  RELEASE(a, i, o, p);
}

static void test_index_select_int32_index(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT32, S(1), 1), *o = NULL;
  CHECK_OK(ct_tensor_index_select(a, 0, i, &o));
  CHECK_TENSOR(o, CT_FLOAT32, S(1, 3), 3, 4, 5);
  RELEASE(a, i, o);
}

static void test_index_select_out_of_range_is_index_error(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT64, S(2), 0, 3), *n = T(CT_INT64, S(1), -1), *o = SENTINEL;
  CHECK_STATUS(ct_tensor_index_select(a, 0, i, &o), CT_ERROR_INDEX);
  CHECK(o == NULL);
  CHECK_ERROR_CONTAINS("index_select: index 3 is out of range for dim 0 of size 3");
  CHECK_STATUS(ct_tensor_index_select(a, 0, n, &o), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_index_select(a, 2, i, &o), CT_ERROR_INDEX);
  RELEASE(a, i, n);
}

static void test_index_select_bad_index_dtype_and_shape(void) {
  ct_tensor *a = mat33(), *f = T(CT_FLOAT32, S(1), 0), *m = T(CT_INT64, S(1, 1), 0), *o = NULL;
  CHECK_STATUS(ct_tensor_index_select(a, 0, f, &o), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_index_select(a, 0, m, &o), CT_ERROR_SHAPE);
  RELEASE(a, f, m);
}

static void test_null_and_released_handles_are_invalid_argument(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT64, S(1), 0), *o = NULL;
  ct_tensor* r = capi_released(); /* made last: nothing may reuse its memory before the checks */
  CHECK_STATUS(ct_tensor_index_select(NULL, 0, i, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_index_select(a, 0, r, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_index_select(a, 0, i, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_gather(a, 0, NULL, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_scatter(a, 0, i, NULL, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_scatter_add(a, 0, i, r, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_index_add(a, 0, i, NULL, NULL, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_masked_fill(a, i, NULL, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_masked_select(r, i, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_nonzero(NULL, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_index(a, NULL, 1, &o), CT_ERROR_INVALID_ARGUMENT);
  const ct_tensor* none[2] = {NULL, NULL};
  CHECK_STATUS(ct_tensor_index(a, none, 2, &o), CT_ERROR_INVALID_ARGUMENT);
  const ct_tensor* rel[1] = {r};
  CHECK_STATUS(ct_tensor_index(a, rel, 1, &o), CT_ERROR_INVALID_ARGUMENT);
  const ct_tensor* idx[1] = {i};
  CHECK_STATUS(ct_tensor_index_put(a, idx, 1, NULL, 0, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_index_put_(NULL, idx, 1, a, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK(o == NULL);
  RELEASE(a, i);
}

static void test_gather_and_scatter(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT64, S(1, 3), 2, 0, 1), *s = T(CT_FLOAT32, S(1, 3), -1, -2, -3);
  ct_tensor *g = NULL, *sc = NULL, *sa = NULL;
  CHECK_OK(ct_tensor_gather(a, 0, i, &g));
  CHECK_TENSOR(g, CT_FLOAT32, S(1, 3), 6, 1, 5);
  CHECK_OK(ct_tensor_scatter(a, 0, i, s, &sc));
  CHECK_TENSOR(sc, CT_FLOAT32, S(3, 3), 0, -2, 2, 3, 4, -3, -1, 7, 8);
  CHECK_OK(ct_tensor_scatter_add(a, 0, i, s, &sa));
  CHECK_TENSOR(sa, CT_FLOAT32, S(3, 3), 0, -1, 2, 3, 4, 2, 5, 7, 8);
  RELEASE(a, i, s, g, sc, sa);
}

static void test_gather_and_scatter_errors(void) {
  ct_tensor *a = mat33(), *big = T(CT_INT64, S(1, 3), 0, 3, 0), *i32 = T(CT_INT32, S(1, 3), 0, 0, 0);
  ct_tensor *rank = T(CT_INT64, S(3), 0, 0, 0), *d = T(CT_FLOAT64, S(1, 3), 1, 1, 1), *o = NULL;
  CHECK_STATUS(ct_tensor_gather(a, 0, big, &o), CT_ERROR_INDEX);
  CHECK_ERROR_CONTAINS("gather: index 3 is out of range for dim 0 of size 3");
  CHECK_STATUS(ct_tensor_gather(a, 0, i32, &o), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_gather(a, 0, rank, &o), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_scatter(a, 0, big, a, &o), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_scatter_add(a, 0, i32, a, &o), CT_ERROR_DTYPE);
  ct_tensor* i = T(CT_INT64, S(1, 3), 0, 0, 0);
  CHECK_STATUS(ct_tensor_scatter_add(a, 0, i, d, &o), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_gather(a, 5, i, &o), CT_ERROR_INDEX);
  RELEASE(a, big, i32, rank, d, i);
}

/* An in-place index operator whose index is self (x.scatter_add_(0, x, x)) reads the index while
   it writes self: the index is copied first, so the answer is the out-of-place one and no write
   follows an index changed past the bounds it was checked against. (PyTorch refuses the call.) */
static void test_in_place_scatter_with_self_as_index(void) {
  ct_tensor* x = T(CT_INT64, S(3, 3), 0, 1, 2, 2, 1, 0, 1, 1, 1);
  ct_tensor* v = T(CT_INT64, S(3), 2, 0, 1);
  ct_tensor* out = NULL;
  ct_value args[4] = {VT(x), VI(0), VT(x), VT(x)};
  CHECK_OK(ct_op_call("scatter_add_", args, 4, &out, 1));
  CHECK_TENSOR(x, CT_INT64, S(3, 3), 0, 1, 2, 3, 4, 1, 3, 1, 3);
  RELEASE(out);
  ct_value put[3] = {VT(v), VT(v), VT(v)};
  CHECK_OK(ct_op_call("put_", put, 3, &out, 1));
  CHECK_TENSOR(v, CT_INT64, S(3), 0, 1, 2);
  RELEASE(out, x, v);
}

static void test_index_add_accumulates_repeats(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT64, S(3), 1, 1, 0), *s = T(CT_FLOAT32, S(3, 3), 1, 1, 1, 2, 2, 2, 3, 3, 3);
  ct_tensor *o = NULL, *p = NULL;
  CHECK_OK(ct_tensor_index_add(a, 0, i, s, NULL, &o));
  CHECK_TENSOR(o, CT_FLOAT32, S(3, 3), 3, 4, 5, 6, 7, 8, 6, 7, 8);
  ct_scalar two = SI(2);
  CHECK_OK(ct_tensor_index_add(a, 0, i, s, &two, &p));
  CHECK_TENSOR(p, CT_FLOAT32, S(3, 3), 6, 7, 8, 9, 10, 11, 6, 7, 8);
  RELEASE(a, i, s, o, p);
}

static void test_index_add_errors(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT64, S(1), 3), *s = T(CT_FLOAT32, S(1, 3), 1, 1, 1), *o = NULL;
  ct_tensor *s2 = T(CT_FLOAT32, S(1, 2), 1, 1), *sd = T(CT_FLOAT64, S(1, 3), 1, 1, 1), *f = T(CT_FLOAT32, S(1), 0);
  ct_tensor* ok = T(CT_INT64, S(1), 0);
  CHECK_STATUS(ct_tensor_index_add(a, 0, i, s, NULL, &o), CT_ERROR_INDEX);
  CHECK_ERROR_CONTAINS("index_add: index 3 is out of range for dim 0 of size 3");
  CHECK_STATUS(ct_tensor_index_add(a, 0, ok, s2, NULL, &o), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_index_add(a, 0, ok, sd, NULL, &o), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_index_add(a, 0, f, s, NULL, &o), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_index_add(a, 3, ok, s, NULL, &o), CT_ERROR_INDEX);
  ct_scalar bad = {(ct_scalar_kind)99, 0, 0.0};
  CHECK_STATUS(ct_tensor_index_add(a, 0, ok, s, &bad, &o), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, i, s, s2, sd, f, ok);
}

static void test_masked_fill_select_and_nonzero(void) {
  ct_tensor *a = mat33(), *m = T(CT_BOOL, S(3), 1, 0, 1), *o = NULL, *sel = NULL, *nz = NULL;
  ct_scalar v = SF(-1.5);
  CHECK_OK(ct_tensor_masked_fill(a, m, &v, &o));
  CHECK_TENSOR(o, CT_FLOAT32, S(3, 3), -1.5, 1, -1.5, -1.5, 4, -1.5, -1.5, 7, -1.5);
  CHECK_OK(ct_tensor_masked_select(a, m, &sel));
  CHECK_TENSOR(sel, CT_FLOAT32, S(6), 0, 2, 3, 5, 6, 8);
  CHECK_OK(ct_tensor_nonzero(m, &nz));
  CHECK_TENSOR(nz, CT_INT64, S(2, 1), 0, 2);
  RELEASE(a, m, o, sel, nz);
}

static void test_masked_errors(void) {
  ct_tensor *a = mat33(), *f = T(CT_FLOAT32, S(3), 1, 0, 1), *m2 = T(CT_BOOL, S(2), 1, 0), *o = NULL;
  ct_scalar v = SI(0);
  CHECK_STATUS(ct_tensor_masked_fill(a, f, &v, &o), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_masked_fill(a, m2, &v, &o), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_masked_select(a, m2, &o), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_masked_fill(a, m2, NULL, &o), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, f, m2);
}

static void test_data_dependent_sizes_fail_on_meta(void) {
  ct_tensor *m = NULL, *b = NULL, *o = NULL;
  CHECK_OK(ct_tensor_empty(S(2, 3), CT_FLOAT32, "meta", &m));
  CHECK_OK(ct_tensor_empty(S(2, 3), CT_BOOL, "meta", &b));
  CHECK_STATUS(ct_tensor_nonzero(m, &o), CT_ERROR_NOT_IMPLEMENTED);
  CHECK_ERROR_CONTAINS("nonzero: the output size depends on the data");
  CHECK_STATUS(ct_tensor_masked_select(m, b, &o), CT_ERROR_NOT_IMPLEMENTED);
  const ct_tensor* idx[1] = {b};
  CHECK_STATUS(ct_tensor_index(m, idx, 1, &o), CT_ERROR_NOT_IMPLEMENTED);
  ct_tensor* i = NULL;
  CHECK_OK(ct_tensor_empty(S(4), CT_INT64, "meta", &i));
  const ct_tensor* ii[2] = {NULL, i};
  CHECK_OK(ct_tensor_index(m, ii, 2, &o));
  CHECK_META(o, CT_FLOAT32, S(2, 4));
  RELEASE(m, b, i, o);
}

static void test_index_reads_with_slices_and_masks(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT64, S(2), 2, -3), *j = T(CT_INT64, S(2), 1, 1), *m = T(CT_BOOL, S(3), 0, 1, 1);
  ct_tensor *o1 = NULL, *o2 = NULL, *o3 = NULL;
  const ct_tensor* cols[2] = {NULL, i};
  CHECK_OK(ct_tensor_index(a, cols, 2, &o1));
  CHECK_TENSOR(o1, CT_FLOAT32, S(3, 2), 2, 0, 5, 3, 8, 6);
  const ct_tensor* both[2] = {i, j};
  CHECK_OK(ct_tensor_index(a, both, 2, &o2));
  CHECK_TENSOR(o2, CT_FLOAT32, S(2), 7, 1);
  const ct_tensor* rows[1] = {m};
  CHECK_OK(ct_tensor_index(a, rows, 1, &o3));
  CHECK_TENSOR(o3, CT_FLOAT32, S(2, 3), 3, 4, 5, 6, 7, 8);
  RELEASE(a, i, j, m, o1, o2, o3);
}

static void test_index_errors(void) {
  ct_tensor *a = mat33(), *big = T(CT_INT64, S(1), 3), *f = T(CT_FLOAT32, S(1), 0), *m = T(CT_BOOL, S(2), 1, 0);
  ct_tensor *b1 = T(CT_INT64, S(2), 0, 1), *b2 = T(CT_INT64, S(3), 0, 1, 2), *o = NULL;
  const ct_tensor* x1[1] = {big};
  CHECK_STATUS(ct_tensor_index(a, x1, 1, &o), CT_ERROR_INDEX);
  CHECK_ERROR_CONTAINS("index: index 3 is out of range for dim 0 of size 3");
  const ct_tensor* x2[1] = {f};
  CHECK_STATUS(ct_tensor_index(a, x2, 1, &o), CT_ERROR_INDEX);
  const ct_tensor* x3[1] = {m};
  CHECK_STATUS(ct_tensor_index(a, x3, 1, &o), CT_ERROR_INDEX);
  const ct_tensor* x4[2] = {b1, b2};
  CHECK_STATUS(ct_tensor_index(a, x4, 2, &o), CT_ERROR_SHAPE);
  const ct_tensor* x5[3] = {b1, b1, b1};
  CHECK_STATUS(ct_tensor_index(a, x5, 3, &o), CT_ERROR_INDEX);
  RELEASE(a, big, f, m, b1, b2);
}

static void test_index_put_writes_and_accumulates(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT64, S(3), 0, 0, 2), *v = T(CT_FLOAT32, S(1), 10), *o = NULL, *p = NULL;
  const ct_tensor* cols[2] = {NULL, i};
  CHECK_OK(ct_tensor_index_put(a, cols, 2, v, 1, &o));
  CHECK_TENSOR(o, CT_FLOAT32, S(3, 3), 20, 1, 12, 23, 4, 15, 26, 7, 18);
  CHECK_OK(ct_tensor_index_put(a, cols, 2, v, 0, &p));
  CHECK_TENSOR(p, CT_FLOAT32, S(3, 3), 10, 1, 10, 10, 4, 10, 10, 7, 10);
  CHECK_TENSOR(a, CT_FLOAT32, S(3, 3), 0, 1, 2, 3, 4, 5, 6, 7, 8); /* a is unchanged */
  const ct_tensor* rows[1] = {i};
  CHECK_OK(ct_tensor_index_put_(a, rows, 1, v, 1));
  CHECK_TENSOR(a, CT_FLOAT32, S(3, 3), 20, 21, 22, 3, 4, 5, 16, 17, 18);
  RELEASE(a, i, v, o, p);
}

static void test_index_put_errors(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT64, S(2), 0, 1), *v2 = T(CT_FLOAT32, S(2), 1, 1);
  ct_tensor *vd = T(CT_FLOAT64, S(1), 1), *big = T(CT_INT64, S(1), 9), *o = NULL;
  const ct_tensor* rows[1] = {i};
  CHECK_STATUS(ct_tensor_index_put(a, rows, 1, v2, 0, &o), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_index_put(a, rows, 1, vd, 0, &o), CT_ERROR_DTYPE);
  const ct_tensor* bad[1] = {big};
  CHECK_STATUS(ct_tensor_index_put_(a, bad, 1, v2, 0), CT_ERROR_INDEX);
  CHECK_TENSOR(a, CT_FLOAT32, S(3, 3), 0, 1, 2, 3, 4, 5, 6, 7, 8); /* nothing half-written */
  RELEASE(a, i, v2, vd, big);
}

static void test_index_put_on_leaf_requiring_grad_is_invalid_argument(void) {
  ct_tensor *a = mat33(), *i = T(CT_INT64, S(1), 0), *v = T(CT_FLOAT32, S(1), 1);
  CHECK_OK(ct_tensor_set_requires_grad(a, 1));
  const ct_tensor* rows[1] = {i};
  CHECK_STATUS(ct_tensor_index_put_(a, rows, 1, v, 0), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a, i, v);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_index_select_picks_slices),
    CAPI_TEST(test_index_select_int32_index),
    CAPI_TEST(test_index_select_out_of_range_is_index_error),
    CAPI_TEST(test_index_select_bad_index_dtype_and_shape),
    CAPI_TEST(test_null_and_released_handles_are_invalid_argument),
    CAPI_TEST(test_gather_and_scatter),
    CAPI_TEST(test_gather_and_scatter_errors),
    CAPI_TEST(test_in_place_scatter_with_self_as_index),
    CAPI_TEST(test_index_add_accumulates_repeats),
    CAPI_TEST(test_index_add_errors),
    CAPI_TEST(test_masked_fill_select_and_nonzero),
    CAPI_TEST(test_masked_errors),
    CAPI_TEST(test_data_dependent_sizes_fail_on_meta),
    CAPI_TEST(test_index_reads_with_slices_and_masks),
    CAPI_TEST(test_index_errors),
    CAPI_TEST(test_index_put_writes_and_accumulates),
    CAPI_TEST(test_index_put_errors),
    CAPI_TEST(test_index_put_on_leaf_requiring_grad_is_invalid_argument),
};
CAPI_MAIN(TESTS)
