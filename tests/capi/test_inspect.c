/* Inspection: ndim, sizes, strides, numel, dtype, device, contiguity, offsets, data, item, printing. */
#include "capi_test.h"

static void test_ndim_and_numel(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                   19, 20, 21, 22, 23);
  ct_tensor* z = T(CT_INT32, S0, 7);
  ct_tensor* e = TE(CT_FLOAT32, S(3, 0));
  size_t nd = 99;
  int64_t n = -1;
  CHECK_OK(ct_tensor_ndim(a, &nd));
  CHECK(nd == 3);
  CHECK_OK(ct_tensor_numel(a, &n));
  CHECK(n == 24);
  CHECK_OK(ct_tensor_ndim(z, &nd));
  CHECK(nd == 0);
  CHECK_OK(ct_tensor_numel(z, &n));
  CHECK(n == 1);
  CHECK_OK(ct_tensor_ndim(e, &nd));
  CHECK(nd == 2);
  CHECK_OK(ct_tensor_numel(e, &n));
  CHECK(n == 0);
  RELEASE(a, z, e);
}

static void test_size_accepts_negative_dims(void) {
  ct_tensor* a = TE(CT_FLOAT32, S(2, 0, 5));
  int64_t s = -1;
  CHECK_OK(ct_tensor_size(a, 0, &s));
  CHECK(s == 2);
  CHECK_OK(ct_tensor_size(a, 1, &s));
  CHECK(s == 0);
  CHECK_OK(ct_tensor_size(a, -1, &s));
  CHECK(s == 5);
  CHECK_OK(ct_tensor_size(a, -3, &s));
  CHECK(s == 2);
  ct_tensor_release(a);
}

static void test_size_dim_out_of_range_is_index_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* z = T(CT_FLOAT32, S0, 1);
  int64_t s = 0;
  CHECK_STATUS(ct_tensor_size(a, 2, &s), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_size(a, -3, &s), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_size(z, 0, &s), CT_ERROR_INDEX);
  CHECK_STATUS(ct_tensor_size(z, -1, &s), CT_ERROR_INDEX);
  RELEASE(a, z);
}

static void test_sizes_and_strides_of_contiguous_and_transposed(void) {
  ct_tensor* a = TE(CT_INT8, S(2, 3, 4));
  ct_tensor* t = NULL;
  int64_t v[3] = {0, 0, 0};
  CHECK_OK(ct_tensor_sizes(a, v, 3));
  CHECK(v[0] == 2 && v[1] == 3 && v[2] == 4);
  CHECK_OK(ct_tensor_strides(a, v, 3));
  CHECK(v[0] == 12 && v[1] == 4 && v[2] == 1);
  CHECK_OK(ct_tensor_transpose(a, 0, 2, &t));
  CHECK_OK(ct_tensor_sizes(t, v, 3));
  CHECK(v[0] == 4 && v[1] == 3 && v[2] == 2);
  CHECK_OK(ct_tensor_strides(t, v, 3));
  CHECK(v[0] == 1 && v[1] == 4 && v[2] == 12);
  RELEASE(a, t);
}

static void test_sizes_of_zero_dim_with_n_zero(void) {
  ct_tensor* z = T(CT_FLOAT32, S0, 1);
  int64_t unused[1] = {-7};
  CHECK_OK(ct_tensor_sizes(z, unused, 0));
  CHECK_OK(ct_tensor_strides(z, unused, 0));
  CHECK(unused[0] == -7);
  ct_tensor_release(z);
}

static void test_sizes_wrong_n_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  int64_t v[3] = {-7, -7, -7};
  CHECK_STATUS(ct_tensor_sizes(a, v, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_sizes(a, v, 3), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_strides(a, v, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_strides(a, v, 3), CT_ERROR_INVALID_ARGUMENT);
  CHECK(v[2] == -7);
  ct_tensor_release(a);
}

static void test_dtype_and_device_of_cpu_tensor(void) {
  ct_tensor* a = T(CT_BFLOAT16, S(1), 1);
  ct_dtype dt = CT_BOOL;
  ct_device_type dev = CT_DEVICE_META;
  int32_t idx = 5;
  CHECK_OK(ct_tensor_dtype(a, &dt));
  CHECK(dt == CT_BFLOAT16);
  CHECK_OK(ct_tensor_device(a, &dev, &idx));
  CHECK(dev == CT_DEVICE_CPU && idx == -1);
  ct_tensor_release(a);
}

static void test_is_contiguous_and_storage_offset_of_views(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
  ct_tensor *n = NULL, *t = NULL, *s = NULL;
  int c = -1;
  int64_t off = -1;
  CHECK_OK(ct_tensor_is_contiguous(a, &c));
  CHECK(c == 1);
  CHECK_OK(ct_tensor_storage_offset(a, &off));
  CHECK(off == 0);
  CHECK_OK(ct_tensor_narrow(a, 0, 1, 2, &n)); /* rows 1..2: contiguous, offset 4 */
  CHECK_OK(ct_tensor_is_contiguous(n, &c));
  CHECK(c == 1);
  CHECK_OK(ct_tensor_storage_offset(n, &off));
  CHECK(off == 4);
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  CHECK_OK(ct_tensor_is_contiguous(t, &c));
  CHECK(c == 0);
  CHECK_OK(ct_tensor_select(a, 1, 2, &s)); /* column 2: stride 4, offset 2 */
  CHECK_OK(ct_tensor_is_contiguous(s, &c));
  CHECK(c == 0);
  CHECK_OK(ct_tensor_storage_offset(s, &off));
  CHECK(off == 2);
  CHECK_TENSOR(s, CT_FLOAT32, S(3), 2, 6, 10);
  RELEASE(a, n, t, s);
}

static void test_data_ptr_points_at_first_element(void) {
  ct_tensor* a = T(CT_INT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* n = NULL;
  void *p = NULL, *q = NULL;
  CHECK_OK(ct_tensor_data_ptr(a, &p));
  CHECK(p != NULL);
  CHECK(((int32_t*)p)[4] == 5);
  CHECK_OK(ct_tensor_narrow(a, 1, 1, 2, &n));
  CHECK_OK(ct_tensor_data_ptr(n, &q));
  CHECK((char*)q == (char*)p + sizeof(int32_t));
  ((int32_t*)p)[1] = 20; /* write through the pointer, read through the view */
  CHECK_TENSOR(n, CT_INT32, S(2, 2), 20, 3, 5, 6);
  RELEASE(a, n);
}

static void test_data_ptr_of_meta_is_device_error(void) {
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(2), CT_FLOAT32, "meta", &m));
  void* p = (void*)&p;
  CHECK_STATUS(ct_tensor_data_ptr(m, &p), CT_ERROR_DEVICE);
  ct_tensor_release(m);
}

static void test_copy_to_gathers_views_in_row_major_order(void) {
  ct_tensor* a = T(CT_INT64, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  int64_t buf[6];
  CHECK_OK(ct_tensor_copy_to(t, buf, sizeof buf));
  CHECK(buf[0] == 1 && buf[1] == 4 && buf[2] == 2 && buf[3] == 5 && buf[4] == 3 && buf[5] == 6);
  RELEASE(a, t);
}

static void test_copy_to_wrong_nbytes_is_invalid_argument_and_leaves_dst(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  float buf[4] = {-1, -1, -1, -1};
  CHECK_STATUS(ct_tensor_copy_to(a, buf, 2 * sizeof(float)), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("12"); /* the message gives the expected byte count */
  CHECK_STATUS(ct_tensor_copy_to(a, buf, 4 * sizeof(float)), CT_ERROR_INVALID_ARGUMENT);
  CHECK(buf[0] == -1 && buf[1] == -1 && buf[2] == -1 && buf[3] == -1);
  CHECK_STATUS(ct_tensor_copy_to(a, NULL, 3 * sizeof(float)), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(a);
}

static void test_copy_to_empty_accepts_null_dst(void) {
  ct_tensor* e = TE(CT_FLOAT64, S(0, 2));
  CHECK_OK(ct_tensor_copy_to(e, NULL, 0));
  ct_tensor_release(e);
}

static void test_item_gives_scalar_kind_by_dtype(void) {
  ct_tensor* f = T(CT_FLOAT32, S0, 2.5);
  ct_tensor* h = T(CT_FLOAT16, S(1, 1), -0.5);
  ct_tensor* i = T(CT_INT32, S(1), -7);
  ct_tensor* l = T(CT_INT64, S0, 0);
  ct_tensor* b = T(CT_BOOL, S(1), 1);
  ct_scalar s;
  CHECK_OK(ct_tensor_item(f, &s));
  CHECK(s.kind == CT_SCALAR_FLOAT && s.f == 2.5);
  CHECK_OK(ct_tensor_item(h, &s));
  CHECK(s.kind == CT_SCALAR_FLOAT && s.f == -0.5);
  CHECK_OK(ct_tensor_item(i, &s));
  CHECK(s.kind == CT_SCALAR_INT && s.i == -7);
  CHECK_OK(ct_tensor_item(l, &s));
  CHECK(s.kind == CT_SCALAR_INT && s.i == 0);
  CHECK_OK(ct_tensor_item(b, &s));
  CHECK(s.kind == CT_SCALAR_BOOL && s.i == 1);
  RELEASE(f, h, i, l, b);
}

static void test_item_of_large_int64_is_exact(void) {
  int64_t big = ((int64_t)1 << 62) + 1;
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_data(&big, NULL, 0, CT_INT64, &t));
  ct_scalar s;
  CHECK_OK(ct_tensor_item(t, &s));
  CHECK(s.kind == CT_SCALAR_INT && s.i == big);
  ct_tensor_release(t);
}

static void test_item_of_many_elements_is_shape_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* e = TE(CT_FLOAT32, S(0));
  ct_scalar s;
  CHECK_STATUS(ct_tensor_item(a, &s), CT_ERROR_SHAPE);
  CHECK_STATUS(ct_tensor_item(e, &s), CT_ERROR_SHAPE);
  RELEASE(a, e);
}

static void test_item_of_meta_is_device_error(void) {
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_zeros(S0, CT_FLOAT32, "meta", &m));
  ct_scalar s;
  CHECK_STATUS(ct_tensor_item(m, &s), CT_ERROR_DEVICE);
  ct_tensor_release(m);
}

/* ---- to_string ---- */

static int string_is(const ct_tensor* t, const char* want, char* got, size_t cap) {
  char* s = NULL;
  ct_status st = ct_tensor_to_string(t, &s);
  if (st != CT_OK) {
    snprintf(got, cap, "<%s>", ct_status_name(st));
    return 0;
  }
  snprintf(got, cap, "%s", s);
  int ok = strcmp(s, want) == 0;
  ct_string_release(s);
  return ok;
}

#define CHECK_PRINTS(t, want)                                  \
  do {                                                         \
    char got_[4096];                                           \
    if (!string_is((t), (want), got_, sizeof got_)) {          \
      CHECK_STR_EQ(got_, (want));                              \
    }                                                          \
  } while (0)

static void test_to_string_float_vector(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_PRINTS(a, "tensor([1., 2., 3.])");
  ct_tensor_release(a);
}

static void test_to_string_int32_matrix_names_dtype(void) {
  ct_tensor* a = T(CT_INT32, S(2, 2), 1, 2, 3, 4);
  CHECK_PRINTS(a, "tensor([[1, 2],\n        [3, 4]], dtype=int32)");
  ct_tensor_release(a);
}

static void test_to_string_default_dtypes_are_not_named(void) {
  ct_tensor* a = T(CT_INT64, S(3), 1, 2, 3);
  ct_tensor* b = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  CHECK_PRINTS(a, "tensor([1, 2, 3])");
  CHECK_PRINTS(b, "tensor([[1., 2.],\n        [3., 4.]])");
  RELEASE(a, b);
}

static void test_to_string_other_dtypes_are_named(void) {
  ct_tensor* a = T(CT_FLOAT64, S(2), 1, 2);
  ct_tensor* b = T(CT_FLOAT16, S(2), 1, 2);
  CHECK_PRINTS(a, "tensor([1., 2.], dtype=float64)");
  CHECK_PRINTS(b, "tensor([1., 2.], dtype=float16)");
  RELEASE(a, b);
}

static void test_to_string_fractions_use_four_decimals(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1.5, 2.25);
  ct_tensor* z = T(CT_FLOAT32, S0, 3.5);
  CHECK_PRINTS(a, "tensor([1.5000, 2.2500])");
  CHECK_PRINTS(z, "tensor(3.5000)");
  RELEASE(a, z);
}

static void test_to_string_pads_to_common_width(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), -1, 2);
  ct_tensor* b = T(CT_INT64, S(2), 10, 2);
  ct_tensor* c = T(CT_FLOAT32, S(2), 100, 2);
  CHECK_PRINTS(a, "tensor([-1.,  2.])");
  CHECK_PRINTS(b, "tensor([10,  2])");
  CHECK_PRINTS(c, "tensor([100.,   2.])");
  RELEASE(a, b, c);
}

static void test_to_string_bool(void) {
  ct_tensor* a = T(CT_BOOL, S(2), 1, 0);
  CHECK_PRINTS(a, "tensor([ True, False])");
  ct_tensor_release(a);
}

static void test_to_string_zero_dim_int(void) {
  ct_tensor* a = T(CT_INT64, S0, 5);
  CHECK_PRINTS(a, "tensor(5)");
  ct_tensor_release(a);
}

static void test_to_string_empty(void) {
  ct_tensor* a = TE(CT_FLOAT32, S(0));
  CHECK_PRINTS(a, "tensor([])");
  ct_tensor_release(a);
}

static void test_to_string_zero_dims_of_other_kinds(void) {
  ct_tensor* f = T(CT_FLOAT32, S0, 2);
  ct_tensor* b = T(CT_BOOL, S0, 1);
  ct_tensor* i = T(CT_INT32, S0, 5);
  CHECK_PRINTS(f, "tensor(2.)");
  CHECK_PRINTS(b, "tensor(True)");
  CHECK_PRINTS(i, "tensor(5, dtype=int32)");
  RELEASE(f, b, i);
}

static void test_to_string_empty_names_dtype_and_size(void) {
  ct_tensor* i = TE(CT_INT32, S(0));
  ct_tensor* m = TE(CT_FLOAT32, S(0, 3));
  CHECK_PRINTS(i, "tensor([], dtype=int32)");
  CHECK_PRINTS(m, "tensor([], size=(0, 3))");
  RELEASE(i, m);
}

static void test_to_string_nan_and_inf(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), NAN, INFINITY, 1);
  CHECK_PRINTS(a, "tensor([nan, inf, 1.])");
  ct_tensor_release(a);
}

static void test_to_string_uses_scientific_notation_for_wide_ranges(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 0.00001, 1);
  CHECK_PRINTS(a, "tensor([1.0000e-05, 1.0000e+00])");
  ct_tensor_release(a);
}

static void test_to_string_three_dims(void) {
  ct_tensor* a = T(CT_INT64, S(2, 2, 2), 0, 1, 2, 3, 4, 5, 6, 7);
  CHECK_PRINTS(a, "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])");
  ct_tensor_release(a);
}

static void test_to_string_of_transposed_view(void) {
  ct_tensor* a = T(CT_INT64, S(2, 2), 1, 2, 3, 4);
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  CHECK_PRINTS(t, "tensor([[1, 3],\n        [2, 4]])");
  RELEASE(a, t);
}

static void test_to_string_summarizes_past_1000_elements(void) {
  ct_tensor* a = NULL;
  CHECK_OK(ct_tensor_arange(0, 2000, 1, CT_INT64, NULL, &a));
  CHECK_PRINTS(a, "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  ct_tensor_release(a);
}

static void test_to_string_meta_prints_sizes_only(void) {
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_zeros(S(2, 3), CT_FLOAT32, "meta", &m));
  CHECK_PRINTS(m, "tensor(..., device='meta', size=(2, 3))");
  ct_tensor_release(m);
}

static void test_string_release_null_is_noop(void) {
  ct_string_release(NULL); /* must not crash */
  ct_tensor* a = T(CT_INT64, S(1), 3);
  CHECK_PRINTS(a, "tensor([3])");
  ct_tensor_release(a);
}

/* ---- NULL, NULL out and released handles for every inspection function ---- */

static ct_status call_ndim(const ct_tensor* t, int null_out) { size_t v; return ct_tensor_ndim(t, null_out ? NULL : &v); }
static ct_status call_size(const ct_tensor* t, int null_out) { int64_t v; return ct_tensor_size(t, 0, null_out ? NULL : &v); }
static ct_status call_sizes(const ct_tensor* t, int null_out) { int64_t v[1]; return ct_tensor_sizes(t, null_out ? NULL : v, 1); }
static ct_status call_strides(const ct_tensor* t, int null_out) { int64_t v[1]; return ct_tensor_strides(t, null_out ? NULL : v, 1); }
static ct_status call_numel(const ct_tensor* t, int null_out) { int64_t v; return ct_tensor_numel(t, null_out ? NULL : &v); }
static ct_status call_dtype(const ct_tensor* t, int null_out) { ct_dtype v; return ct_tensor_dtype(t, null_out ? NULL : &v); }
static ct_status call_device_type(const ct_tensor* t, int null_out) { ct_device_type d; int32_t i; return ct_tensor_device(t, null_out ? NULL : &d, &i); }
static ct_status call_device_index(const ct_tensor* t, int null_out) { ct_device_type d; int32_t i; return ct_tensor_device(t, &d, null_out ? NULL : &i); }
static ct_status call_is_contiguous(const ct_tensor* t, int null_out) { int v; return ct_tensor_is_contiguous(t, null_out ? NULL : &v); }
static ct_status call_storage_offset(const ct_tensor* t, int null_out) { int64_t v; return ct_tensor_storage_offset(t, null_out ? NULL : &v); }
static ct_status call_data_ptr(const ct_tensor* t, int null_out) { void* v; return ct_tensor_data_ptr(t, null_out ? NULL : &v); }
static ct_status call_item(const ct_tensor* t, int null_out) { ct_scalar v; return ct_tensor_item(t, null_out ? NULL : &v); }
static ct_status call_to_string(const ct_tensor* t, int null_out) {
  char* s = NULL;
  ct_status st = ct_tensor_to_string(t, null_out ? NULL : &s);
  ct_string_release(s);
  return st;
}
static ct_status call_copy_to(const ct_tensor* t, int null_out) { float v[1]; return ct_tensor_copy_to(t, null_out ? NULL : v, sizeof v); }

static const struct {
  const char* name;
  ct_status (*fn)(const ct_tensor*, int);
} INSPECT_FNS[] = {
    {"ndim", call_ndim}, {"size", call_size}, {"sizes", call_sizes}, {"strides", call_strides},
    {"numel", call_numel}, {"dtype", call_dtype}, {"device(type)", call_device_type},
    {"device(index)", call_device_index}, {"is_contiguous", call_is_contiguous},
    {"storage_offset", call_storage_offset}, {"data_ptr", call_data_ptr}, {"item", call_item},
    {"to_string", call_to_string}, {"copy_to", call_copy_to},
};
#define N_INSPECT (sizeof INSPECT_FNS / sizeof *INSPECT_FNS)

static void test_inspection_null_tensor_is_invalid_argument(void) {
  for (size_t i = 0; i < N_INSPECT; ++i) {
    capi_context = INSPECT_FNS[i].name;
    CHECK_STATUS(INSPECT_FNS[i].fn(NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  }
}

static void test_inspection_null_out_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  for (size_t i = 0; i < N_INSPECT; ++i) {
    capi_context = INSPECT_FNS[i].name;
    CHECK_STATUS(INSPECT_FNS[i].fn(a, 1), CT_ERROR_INVALID_ARGUMENT);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_inspection_released_tensor_is_invalid_argument(void) {
  for (size_t i = 0; i < N_INSPECT; ++i) {
    capi_context = INSPECT_FNS[i].name;
    ct_tensor* r = capi_released();
    CHECK(r != NULL);
    CHECK_STATUS(INSPECT_FNS[i].fn(r, 0), CT_ERROR_INVALID_ARGUMENT);
  }
}

static void test_to_string_failure_sets_out_to_null(void) {
  char* s = (char*)"sentinel";
  CHECK_STATUS(ct_tensor_to_string(NULL, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK(s == NULL);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_ndim_and_numel),
    CAPI_TEST(test_size_accepts_negative_dims),
    CAPI_TEST(test_size_dim_out_of_range_is_index_error),
    CAPI_TEST(test_sizes_and_strides_of_contiguous_and_transposed),
    CAPI_TEST(test_sizes_of_zero_dim_with_n_zero),
    CAPI_TEST(test_sizes_wrong_n_is_invalid_argument),
    CAPI_TEST(test_dtype_and_device_of_cpu_tensor),
    CAPI_TEST(test_is_contiguous_and_storage_offset_of_views),
    CAPI_TEST(test_data_ptr_points_at_first_element),
    CAPI_TEST(test_data_ptr_of_meta_is_device_error),
    CAPI_TEST(test_copy_to_gathers_views_in_row_major_order),
    CAPI_TEST(test_copy_to_wrong_nbytes_is_invalid_argument_and_leaves_dst),
    CAPI_TEST(test_copy_to_empty_accepts_null_dst),
    CAPI_TEST(test_item_gives_scalar_kind_by_dtype),
    CAPI_TEST(test_item_of_large_int64_is_exact),
    CAPI_TEST(test_item_of_many_elements_is_shape_error),
    CAPI_TEST(test_item_of_meta_is_device_error),
    CAPI_TEST(test_to_string_float_vector),
    CAPI_TEST(test_to_string_int32_matrix_names_dtype),
    CAPI_TEST(test_to_string_default_dtypes_are_not_named),
    CAPI_TEST(test_to_string_other_dtypes_are_named),
    CAPI_TEST(test_to_string_fractions_use_four_decimals),
    CAPI_TEST(test_to_string_pads_to_common_width),
    CAPI_TEST(test_to_string_bool),
    CAPI_TEST(test_to_string_zero_dim_int),
    CAPI_TEST(test_to_string_empty),
    CAPI_TEST(test_to_string_zero_dims_of_other_kinds),
    CAPI_TEST(test_to_string_empty_names_dtype_and_size),
    CAPI_TEST(test_to_string_nan_and_inf),
    CAPI_TEST(test_to_string_uses_scientific_notation_for_wide_ranges),
    CAPI_TEST(test_to_string_three_dims),
    CAPI_TEST(test_to_string_of_transposed_view),
    CAPI_TEST(test_to_string_summarizes_past_1000_elements),
    CAPI_TEST(test_to_string_meta_prints_sizes_only),
    CAPI_TEST(test_string_release_null_is_noop),
    CAPI_TEST(test_inspection_null_tensor_is_invalid_argument),
    CAPI_TEST(test_inspection_null_out_is_invalid_argument),
    CAPI_TEST(test_inspection_released_tensor_is_invalid_argument),
    CAPI_TEST(test_to_string_failure_sets_out_to_null),
};
CAPI_MAIN(TESTS)
