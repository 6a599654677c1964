/* Conversion and copies: to, contiguous, clone. */
#include <string.h>

#include "capi_test.h"

typedef ct_status (*copy_fn)(const ct_tensor*, ct_tensor**);

static void* data_of(const ct_tensor* t) {
  void* p = NULL;
  return ct_tensor_data_ptr(t, &p) == CT_OK ? p : NULL;
}

/* ---- to ---- */

static void test_to_float_to_int_truncates_toward_zero(void) {
  ct_tensor* a = T(CT_FLOAT32, S(5), 1.7, -1.7, 0, 2.5, -0.5);
  ct_tensor *i = NULL, *l = NULL;
  CHECK_OK(ct_tensor_to(a, CT_INT32, &i));
  CHECK_TENSOR(i, CT_INT32, S(5), 1, -1, 0, 2, 0);
  CHECK_OK(ct_tensor_to(a, CT_INT64, &l));
  CHECK_TENSOR(l, CT_INT64, S(5), 1, -1, 0, 2, 0);
  RELEASE(a, i, l);
}

static void test_to_bool_tests_nonzero(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4), 0.25, 0, -3, NAN);
  ct_tensor* n = T(CT_INT64, S(3), 0, 7, -1);
  ct_tensor *b = NULL, *bn = NULL;
  CHECK_OK(ct_tensor_to(a, CT_BOOL, &b));
  CHECK_TENSOR(b, CT_BOOL, S(4), 1, 0, 1, 1);
  CHECK_OK(ct_tensor_to(n, CT_BOOL, &bn));
  CHECK_TENSOR(bn, CT_BOOL, S(3), 0, 1, 1);
  RELEASE(a, n, b, bn);
}

static void test_to_between_floating_and_half_types(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1.5, -2, 0.25);
  ct_tensor* d = T(CT_FLOAT64, S(1), 0.1);
  ct_tensor *h = NULL, *bf = NULL, *back = NULL, *f = NULL;
  CHECK_OK(ct_tensor_to(a, CT_FLOAT16, &h));
  CHECK_TENSOR(h, CT_FLOAT16, S(3), 1.5, -2, 0.25);
  CHECK_OK(ct_tensor_to(a, CT_BFLOAT16, &bf));
  CHECK_TENSOR(bf, CT_BFLOAT16, S(3), 1.5, -2, 0.25);
  CHECK_OK(ct_tensor_to(h, CT_FLOAT64, &back));
  CHECK_TENSOR(back, CT_FLOAT64, S(3), 1.5, -2, 0.25);
  CHECK_OK(ct_tensor_to(d, CT_FLOAT32, &f));
  CHECK_TENSOR(f, CT_FLOAT32, S(1), (double)(float)0.1);
  RELEASE(a, d, h, bf, back, f);
}

static void test_to_from_integers_and_bools(void) {
  ct_tensor* i = T(CT_INT64, S(3), 300, -1, 5);
  ct_tensor* b = T(CT_BOOL, S(2), 1, 0);
  ct_tensor *u = NULL, *f = NULL, *bf = NULL;
  CHECK_OK(ct_tensor_to(i, CT_UINT8, &u)); /* wraps modulo 256, as a C cast does */
  CHECK_TENSOR(u, CT_UINT8, S(3), 44, 255, 5);
  CHECK_OK(ct_tensor_to(i, CT_FLOAT32, &f));
  CHECK_TENSOR(f, CT_FLOAT32, S(3), 300, -1, 5);
  CHECK_OK(ct_tensor_to(b, CT_FLOAT32, &bf));
  CHECK_TENSOR(bf, CT_FLOAT32, S(2), 1, 0);
  RELEASE(i, b, u, f, bf);
}

static void test_to_same_dtype_returns_a_itself(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* same = NULL;
  CHECK_OK(ct_tensor_to(a, CT_FLOAT32, &same));
  CHECK(data_of(same) == data_of(a));
  ct_scalar one = SI(1);
  CHECK_OK(ct_tensor_add_scalar_(same, &one));
  CHECK_TENSOR(a, CT_FLOAT32, S(2), 2, 3);
  ct_tensor_release(same); /* a new reference: a stays alive */
  CHECK_TENSOR(a, CT_FLOAT32, S(2), 2, 3);
  ct_tensor_release(a);
}

static void test_to_of_strided_view_is_contiguous(void) {
  ct_tensor* a = T(CT_INT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor *t = NULL, *f = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  CHECK_OK(ct_tensor_to(t, CT_FLOAT64, &f));
  CHECK_TENSOR(f, CT_FLOAT64, S(2, 2), 1, 3, 2, 4);
  int c = 0;
  CHECK_OK(ct_tensor_is_contiguous(f, &c));
  CHECK(c == 1);
  RELEASE(a, t, f);
}

static void test_to_on_meta(void) {
  ct_tensor *m = NULL, *h = NULL;
  CHECK_OK(ct_tensor_empty(S(3, 1), CT_FLOAT32, "meta", &m));
  CHECK_OK(ct_tensor_to(m, CT_FLOAT16, &h));
  CHECK_META(h, CT_FLOAT16, S(3, 1));
  RELEASE(m, h);
}

static void test_to_bad_arguments_are_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_to(a, (ct_dtype)12, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_to(NULL, CT_INT32, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_to(a, CT_INT32, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(a);
}

static void test_to_released_input_is_invalid_argument(void) {
  ct_tensor* r = capi_released();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_to(r, CT_INT32, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
}

/* ---- contiguous / clone ---- */

static void test_contiguous_of_contiguous_is_a_itself(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor* c = NULL;
  CHECK_OK(ct_tensor_contiguous(a, &c));
  CHECK(data_of(c) == data_of(a));
  RELEASE(c);
  CHECK_TENSOR(a, CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor_release(a);
}

static void test_contiguous_of_transposed_copies(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor *t = NULL, *c = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  CHECK_OK(ct_tensor_contiguous(t, &c));
  CHECK_TENSOR(c, CT_FLOAT32, S(3, 2), 1, 4, 2, 5, 3, 6);
  int ic = 0;
  CHECK_OK(ct_tensor_is_contiguous(c, &ic));
  CHECK(ic == 1);
  int64_t st[2];
  CHECK_OK(ct_tensor_strides(c, st, 2));
  CHECK(st[0] == 2 && st[1] == 1);
  CHECK(data_of(c) != data_of(a));
  RELEASE(a, t, c);
}

static void test_clone_shares_nothing(void) {
  ct_tensor* a = T(CT_INT16, S(3), 1, 2, 3);
  ct_tensor* c = NULL;
  CHECK_OK(ct_tensor_clone(a, &c));
  CHECK_TENSOR(c, CT_INT16, S(3), 1, 2, 3);
  CHECK(data_of(c) != data_of(a));
  ct_scalar ten = SI(10);
  CHECK_OK(ct_tensor_mul_scalar_(c, &ten));
  CHECK_TENSOR(a, CT_INT16, S(3), 1, 2, 3);
  CHECK_TENSOR(c, CT_INT16, S(3), 10, 20, 30);
  RELEASE(a, c);
}

static void test_clone_of_view_is_contiguous(void) {
  ct_tensor* a = T(CT_FLOAT64, S(3, 2), 1, 2, 3, 4, 5, 6);
  ct_tensor *col = NULL, *c = NULL;
  CHECK_OK(ct_tensor_select(a, 1, 1, &col));
  CHECK_OK(ct_tensor_clone(col, &c));
  CHECK_TENSOR(c, CT_FLOAT64, S(3), 2, 4, 6);
  int ic = 0;
  int64_t off = -1;
  CHECK_OK(ct_tensor_is_contiguous(c, &ic));
  CHECK(ic == 1);
  CHECK_OK(ct_tensor_storage_offset(c, &off));
  CHECK(off == 0);
  RELEASE(a, col, c);
}

/* clone's memory_format (Note [Memory formats]): preserve keeps a permuted layout, channels_last
   lays out NHWC, contiguous (and ct_tensor_clone) row-major; a wrong rank or number is refused. */
static void test_clone_memory_formats(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor *t = NULL, *kept = NULL, *row = NULL, *x = NULL, *nhwc = NULL, *bad = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  ct_value preserve[] = {VT(t), VI(1)}, contiguous[] = {VT(t), VI(0)};
  CHECK_OK(ct_op_call("clone", preserve, 2, &kept, 1));
  CHECK_OK(ct_op_call("clone", contiguous, 2, &row, 1));
  int64_t st[4] = {0};
  CHECK_OK(ct_tensor_strides(kept, st, 2));
  CHECK(st[0] == 1 && st[1] == 3);
  CHECK_OK(ct_tensor_strides(row, st, 2));
  CHECK(st[0] == 2 && st[1] == 1);
  CHECK_TENSOR(kept, CT_FLOAT32, S(3, 2), 1, 4, 2, 5, 3, 6);
  CHECK_TENSOR(row, CT_FLOAT32, S(3, 2), 1, 4, 2, 5, 3, 6);
  CHECK_OK(ct_tensor_zeros(S(2, 3, 4, 5), CT_FLOAT32, "cpu", &x));
  ct_value channels_last[] = {VT(x), VI(2)}, wrong_rank[] = {VT(t), VI(2)}, wrong_number[] = {VT(t), VI(7)};
  CHECK_OK(ct_op_call("clone", channels_last, 2, &nhwc, 1));
  CHECK_OK(ct_tensor_strides(nhwc, st, 4));
  CHECK(st[0] == 60 && st[1] == 1 && st[2] == 15 && st[3] == 3);
  CHECK_STATUS(ct_op_call("clone", wrong_rank, 2, &bad, 1), CT_ERROR_SHAPE);
  CHECK(strstr(ct_last_error(), "channels_last needs a 4-D tensor") != NULL);
  CHECK_STATUS(ct_op_call("clone", wrong_number, 2, &bad, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(bad == NULL);
  RELEASE(a, t, kept, row, x, nhwc);
}

static void test_contiguous_and_clone_null_and_released(void) {
  static const struct {
    const char* name;
    copy_fn fn;
  } fns[] = {{"contiguous", ct_tensor_contiguous}, {"clone", ct_tensor_clone}};
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  for (size_t i = 0; i < 2; ++i) {
    capi_context = fns[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(fns[i].fn(NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(fns[i].fn(a, NULL), CT_ERROR_INVALID_ARGUMENT);
    ct_tensor* r = capi_released();
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(r, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_contiguous_and_clone_on_meta(void) {
  ct_tensor *m = NULL, *t = NULL, *c = NULL, *k = NULL;
  CHECK_OK(ct_tensor_empty(S(2, 3), CT_INT8, "meta", &m));
  CHECK_OK(ct_tensor_transpose(m, 0, 1, &t));
  CHECK_OK(ct_tensor_contiguous(t, &c));
  CHECK_META(c, CT_INT8, S(3, 2));
  CHECK_OK(ct_tensor_clone(m, &k));
  CHECK_META(k, CT_INT8, S(2, 3));
  RELEASE(m, t, c, k);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_to_float_to_int_truncates_toward_zero),
    CAPI_TEST(test_to_bool_tests_nonzero),
    CAPI_TEST(test_to_between_floating_and_half_types),
    CAPI_TEST(test_to_from_integers_and_bools),
    CAPI_TEST(test_to_same_dtype_returns_a_itself),
    CAPI_TEST(test_to_of_strided_view_is_contiguous),
    CAPI_TEST(test_to_on_meta),
    CAPI_TEST(test_to_bad_arguments_are_invalid_argument),
    CAPI_TEST(test_to_released_input_is_invalid_argument),
    CAPI_TEST(test_contiguous_of_contiguous_is_a_itself),
    CAPI_TEST(test_contiguous_of_transposed_copies),
    CAPI_TEST(test_clone_shares_nothing),
    CAPI_TEST(test_clone_of_view_is_contiguous),
    CAPI_TEST(test_clone_memory_formats),
    CAPI_TEST(test_contiguous_and_clone_null_and_released),
    CAPI_TEST(test_contiguous_and_clone_on_meta),
};
CAPI_MAIN(TESTS)
