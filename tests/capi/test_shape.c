/* Shapes and views: view, reshape, permute, transpose, expand, squeeze, unsqueeze, narrow, select,
 * flatten, cat, stack. */
#include "capi_test.h"

/* a = [[0, 1, 2], [3, 4, 5]] float32 */
static ct_tensor* mat23(void) { return T(CT_FLOAT32, S(2, 3), 0, 1, 2, 3, 4, 5); }

static int shares_storage(const ct_tensor* a, const ct_tensor* b) {
  void *pa = NULL, *pb = NULL;
  int64_t na = 0;
  if (ct_tensor_data_ptr(a, &pa) != CT_OK || ct_tensor_data_ptr(b, &pb) != CT_OK) return 0;
  if (ct_tensor_numel(a, &na) != CT_OK) return 0;
  return (char*)pb >= (char*)pa && (char*)pb < (char*)pa + na * 4;
}

/* ---- Every view function: shares memory, and rejects NULL / released input ---- */

static ct_status v_view(const ct_tensor* a, ct_tensor** o) { return ct_tensor_view(a, S(3, 2), o); }
static ct_status v_reshape(const ct_tensor* a, ct_tensor** o) { return ct_tensor_reshape(a, S(6), o); }
static ct_status v_permute(const ct_tensor* a, ct_tensor** o) { return ct_tensor_permute(a, S(1, 0), o); }
static ct_status v_transpose(const ct_tensor* a, ct_tensor** o) { return ct_tensor_transpose(a, 0, 1, o); }
static ct_status v_expand(const ct_tensor* a, ct_tensor** o) { return ct_tensor_expand(a, S(4, 2, 3), o); }
static ct_status v_squeeze(const ct_tensor* a, ct_tensor** o) { return ct_tensor_squeeze(a, o); }
static ct_status v_squeeze_dim(const ct_tensor* a, ct_tensor** o) { return ct_tensor_squeeze_dim(a, 0, o); }
static ct_status v_unsqueeze(const ct_tensor* a, ct_tensor** o) { return ct_tensor_unsqueeze(a, 1, o); }
static ct_status v_narrow(const ct_tensor* a, ct_tensor** o) { return ct_tensor_narrow(a, 1, 1, 2, o); }
static ct_status v_select(const ct_tensor* a, ct_tensor** o) { return ct_tensor_select(a, 0, 1, o); }
static ct_status v_flatten(const ct_tensor* a, ct_tensor** o) { return ct_tensor_flatten(a, 0, -1, o); }

static const struct {
  const char* name;
  ct_status (*fn)(const ct_tensor*, ct_tensor**);
} VIEWS[] = {
    {"view", v_view},       {"reshape", v_reshape}, {"permute", v_permute},         {"transpose", v_transpose},
    {"expand", v_expand},   {"squeeze", v_squeeze}, {"squeeze_dim", v_squeeze_dim}, {"unsqueeze", v_unsqueeze},
    {"narrow", v_narrow},   {"select", v_select},   {"flatten", v_flatten},
};
#define N_VIEWS (sizeof VIEWS / sizeof *VIEWS)

static void test_views_share_memory_with_base(void) {
  for (size_t i = 0; i < N_VIEWS; ++i) {
    capi_context = VIEWS[i].name;
    ct_tensor* a = mat23();
    ct_tensor* v = NULL;
    CHECK_OK(VIEWS[i].fn(a, &v));
    CHECK(shares_storage(a, v));
    int64_t n = 0;
    CHECK_OK(ct_tensor_numel(v, &n));
    CHECK(n > 0 && n <= 24);
    float before[24], after[24];
    CHECK_OK(ct_tensor_copy_to(v, before, (size_t)n * sizeof(float)));
    ct_scalar ten = SI(10);
    CHECK_OK(ct_tensor_add_scalar_(a, &ten)); /* write through the base ... */
    CHECK_OK(ct_tensor_copy_to(v, after, (size_t)n * sizeof(float)));
    for (int64_t k = 0; k < n; ++k) CHECK(after[k] == before[k] + 10); /* ... read through the view */
    RELEASE(a, v);
  }
}

static void test_views_keep_storage_after_base_release(void) {
  for (size_t i = 0; i < N_VIEWS; ++i) {
    capi_context = VIEWS[i].name;
    ct_tensor* a = mat23();
    ct_tensor* v = NULL;
    CHECK_OK(VIEWS[i].fn(a, &v));
    ct_tensor_release(a);
    int64_t n = 0;
    CHECK_OK(ct_tensor_numel(v, &n));
    float buf[24];
    CHECK_OK(ct_tensor_copy_to(v, buf, (size_t)n * sizeof(float)));
    for (int64_t k = 0; k < n; ++k) CHECK(buf[k] >= 0 && buf[k] <= 5);
    ct_tensor_release(v);
  }
}

static void test_views_null_input_is_invalid_argument(void) {
  for (size_t i = 0; i < N_VIEWS; ++i) {
    capi_context = VIEWS[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(VIEWS[i].fn(NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
}

static void test_views_null_out_is_invalid_argument(void) {
  ct_tensor* a = mat23();
  for (size_t i = 0; i < N_VIEWS; ++i) {
    capi_context = VIEWS[i].name;
    CHECK_STATUS(VIEWS[i].fn(a, NULL), CT_ERROR_INVALID_ARGUMENT);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_views_released_input_is_invalid_argument(void) {
  for (size_t i = 0; i < N_VIEWS; ++i) {
    capi_context = VIEWS[i].name;
    ct_tensor* r = capi_released();
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(VIEWS[i].fn(r, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
}

static void test_views_on_meta_give_meta(void) {
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(2, 3), CT_FLOAT32, "meta", &m));
  for (size_t i = 0; i < N_VIEWS; ++i) {
    capi_context = VIEWS[i].name;
    ct_tensor* out = NULL;
    CHECK_OK(VIEWS[i].fn(m, &out));
    ct_device_type dev = CT_DEVICE_CPU;
    int32_t idx = 0;
    CHECK_OK(ct_tensor_device(out, &dev, &idx));
    CHECK(dev == CT_DEVICE_META);
    ct_tensor_release(out);
  }
  capi_context = NULL;
  ct_tensor_release(m);
}

static void test_sizes_or_dims_null_with_n_is_invalid_argument(void) {
  ct_tensor* a = mat23();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_view(a, NULL, 2, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_reshape(a, NULL, 2, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_permute(a, NULL, 2, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_expand(a, NULL, 2, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

/* ---- view ---- */

static void test_view_reinterprets_sizes(void) {
  ct_tensor* a = mat23();
  ct_tensor *v = NULL, *w = NULL, *x = NULL;
  CHECK_OK(ct_tensor_view(a, S(3, 2), &v));
  CHECK_TENSOR(v, CT_FLOAT32, S(3, 2), 0, 1, 2, 3, 4, 5);
  CHECK_OK(ct_tensor_view(a, S(-1), &w));
  CHECK_TENSOR(w, CT_FLOAT32, S(6), 0, 1, 2, 3, 4, 5);
  CHECK_OK(ct_tensor_view(a, S(1, -1, 2), &x));
  CHECK_TENSOR(x, CT_FLOAT32, S(1, 3, 2), 0, 1, 2, 3, 4, 5);
  RELEASE(a, v, w, x);
}

static void test_view_between_zero_dim_and_one_element(void) {
  ct_tensor* z = T(CT_INT32, S0, 9);
  ct_tensor *one = NULL, *back = NULL;
  CHECK_OK(ct_tensor_view(z, S(1), &one));
  CHECK_TENSOR(one, CT_INT32, S(1), 9);
  CHECK_OK(ct_tensor_view(one, S0, &back));
  CHECK_TENSOR(back, CT_INT32, S0, 9);
  RELEASE(z, one, back);
}

static void test_view_bad_sizes_are_shape_error(void) {
  ct_tensor* a = mat23();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_view(a, S(4, 2), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_view(a, S(-1, -1), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_view(a, S(-1, 4), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_view_over_incompatible_strides_is_shape_error(void) {
  ct_tensor* a = mat23();
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_view(t, S(6), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("reshape"); /* the message says what to do */
  RELEASE(a, t);
}

/* ---- reshape ---- */

static void test_reshape_of_contiguous_is_a_view(void) {
  ct_tensor* a = mat23();
  ct_tensor* r = NULL;
  CHECK_OK(ct_tensor_reshape(a, S(3, -1), &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(3, 2), 0, 1, 2, 3, 4, 5);
  void *pa = NULL, *pr = NULL;
  CHECK_OK(ct_tensor_data_ptr(a, &pa));
  CHECK_OK(ct_tensor_data_ptr(r, &pr));
  CHECK(pa == pr);
  RELEASE(a, r);
}

static void test_reshape_of_transposed_copies(void) {
  ct_tensor* a = mat23();
  ct_tensor *t = NULL, *r = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t)); /* [[0, 3], [1, 4], [2, 5]] */
  CHECK_OK(ct_tensor_reshape(t, S(6), &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(6), 0, 3, 1, 4, 2, 5);
  CHECK(!shares_storage(a, r));
  ct_scalar one = SI(1);
  CHECK_OK(ct_tensor_add_scalar_(r, &one)); /* the copy is independent */
  CHECK_TENSOR(a, CT_FLOAT32, S(2, 3), 0, 1, 2, 3, 4, 5);
  RELEASE(a, t, r);
}

static void test_reshape_of_transposed_adding_unit_dim_is_a_view(void) {
  ct_tensor* a = mat23();
  ct_tensor *t = NULL, *r = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  CHECK_OK(ct_tensor_reshape(t, S(3, 1, 2), &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(3, 1, 2), 0, 3, 1, 4, 2, 5);
  CHECK(shares_storage(a, r));
  RELEASE(a, t, r);
}

static void test_reshape_bad_sizes_are_shape_error(void) {
  ct_tensor* a = mat23();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_reshape(a, S(5), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_reshape(a, S(-1, -1), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

/* ---- permute / transpose ---- */

static void test_permute_reorders_dims_and_strides(void) {
  ct_tensor* a = TE(CT_INT8, S(2, 3, 4));
  ct_tensor *p = NULL, *q = NULL;
  CHECK_OK(ct_tensor_permute(a, S(2, 0, 1), &p));
  int64_t st[3];
  CHECK_META(p, CT_INT8, S(4, 2, 3));
  CHECK_OK(ct_tensor_strides(p, st, 3));
  CHECK(st[0] == 1 && st[1] == 12 && st[2] == 4);
  CHECK_OK(ct_tensor_permute(a, S(-1, 0, -2), &q));
  CHECK_META(q, CT_INT8, S(4, 2, 3));
  RELEASE(a, p, q);
}

static void test_permute_values(void) {
  ct_tensor* a = mat23();
  ct_tensor* p = NULL;
  CHECK_OK(ct_tensor_permute(a, S(1, 0), &p));
  CHECK_TENSOR(p, CT_FLOAT32, S(3, 2), 0, 3, 1, 4, 2, 5);
  RELEASE(a, p);
}

static void test_permute_not_a_permutation_is_shape_error(void) {
  ct_tensor* a = TE(CT_FLOAT32, S(2, 3, 4));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_permute(a, S(0, 0, 1), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_permute(a, S(0, 1), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_permute(a, S(2, -3, 0), &out), CT_ERROR_SHAPE); /* -3 is 0 */
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_permute_dim_out_of_range_is_index_error(void) {
  ct_tensor* a = TE(CT_FLOAT32, S(2, 3, 4));
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_permute(a, S(0, 1, 3), &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_permute(a, S(0, 1, -4), &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_transpose_swaps_dims(void) {
  ct_tensor* a = TE(CT_FLOAT32, S(2, 3, 4));
  ct_tensor *t = NULL, *same = NULL;
  CHECK_OK(ct_tensor_transpose(a, -1, 0, &t));
  CHECK_META(t, CT_FLOAT32, S(4, 3, 2));
  int64_t st[3];
  CHECK_OK(ct_tensor_strides(t, st, 3));
  CHECK(st[0] == 1 && st[1] == 4 && st[2] == 12);
  CHECK_OK(ct_tensor_transpose(a, 1, 1, &same));
  CHECK_META(same, CT_FLOAT32, S(2, 3, 4));
  RELEASE(a, t, same);
}

static void test_transpose_dim_out_of_range_is_index_error(void) {
  ct_tensor* a = mat23();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_transpose(a, 0, 2, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_transpose(a, -3, 1, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

/* ---- expand ---- */

static void test_expand_stretches_size_one_dims(void) {
  ct_tensor* a = T(CT_INT32, S(3, 1), 1, 2, 3);
  ct_tensor *e = NULL, *k = NULL, *lead = NULL;
  CHECK_OK(ct_tensor_expand(a, S(3, 4), &e));
  CHECK_TENSOR(e, CT_INT32, S(3, 4), 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
  int64_t st[3];
  CHECK_OK(ct_tensor_strides(e, st, 2));
  CHECK(st[0] == 1 && st[1] == 0);
  CHECK_OK(ct_tensor_expand(a, S(-1, 2), &k));
  CHECK_TENSOR(k, CT_INT32, S(3, 2), 1, 1, 2, 2, 3, 3);
  CHECK_OK(ct_tensor_expand(a, S(2, 3, 2), &lead));
  CHECK_TENSOR(lead, CT_INT32, S(2, 3, 2), 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3);
  CHECK_OK(ct_tensor_strides(lead, st, 3));
  CHECK(st[0] == 0 && st[2] == 0);
  RELEASE(a, e, k, lead);
}

static void test_expand_zero_dim(void) {
  ct_tensor* z = T(CT_FLOAT64, S0, 2.5);
  ct_tensor* e = NULL;
  CHECK_OK(ct_tensor_expand(z, S(2, 2), &e));
  CHECK_TENSOR(e, CT_FLOAT64, S(2, 2), 2.5, 2.5, 2.5, 2.5);
  RELEASE(z, e);
}

static void test_expand_of_non_one_dim_is_shape_error(void) {
  ct_tensor* a = T(CT_INT32, S(3, 1), 1, 2, 3);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_expand(a, S(4, 4), &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_expand(a, S(3), &out), CT_ERROR_SHAPE); /* fewer dims */
  CHECK(out == NULL);
  ct_tensor_release(a);
}

/* ---- squeeze / unsqueeze ---- */

static void test_squeeze_removes_all_size_one_dims(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1, 3, 1), 1, 2, 3);
  ct_tensor* ones = T(CT_FLOAT32, S(1, 1), 7);
  ct_tensor *s = NULL, *z = NULL;
  CHECK_OK(ct_tensor_squeeze(a, &s));
  CHECK_TENSOR(s, CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_OK(ct_tensor_squeeze(ones, &z));
  CHECK_TENSOR(z, CT_FLOAT32, S0, 7);
  RELEASE(a, ones, s, z);
}

static void test_squeeze_dim_removes_one_dim_if_size_one(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1, 3, 1), 1, 2, 3);
  ct_tensor *s0 = NULL, *s1 = NULL, *sm1 = NULL;
  CHECK_OK(ct_tensor_squeeze_dim(a, 0, &s0));
  CHECK_TENSOR(s0, CT_FLOAT32, S(3, 1), 1, 2, 3);
  CHECK_OK(ct_tensor_squeeze_dim(a, 1, &s1)); /* size 3: unchanged */
  CHECK_TENSOR(s1, CT_FLOAT32, S(1, 3, 1), 1, 2, 3);
  CHECK_OK(ct_tensor_squeeze_dim(a, -1, &sm1));
  CHECK_TENSOR(sm1, CT_FLOAT32, S(1, 3), 1, 2, 3);
  RELEASE(a, s0, s1, sm1);
}

static void test_squeeze_dim_out_of_range_is_index_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1, 3), 1, 2, 3);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_squeeze_dim(a, 2, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_squeeze_dim(a, -3, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_unsqueeze_inserts_size_one_dim(void) {
  /* As in PyTorch, unsqueeze accepts dims in [-ndim-1, ndim]. */
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor *u0 = NULL, *u1 = NULL, *um1 = NULL, *um2 = NULL;
  CHECK_OK(ct_tensor_unsqueeze(a, 0, &u0));
  CHECK_TENSOR(u0, CT_FLOAT32, S(1, 3), 1, 2, 3);
  CHECK_OK(ct_tensor_unsqueeze(a, 1, &u1));
  CHECK_TENSOR(u1, CT_FLOAT32, S(3, 1), 1, 2, 3);
  CHECK_OK(ct_tensor_unsqueeze(a, -1, &um1));
  CHECK_TENSOR(um1, CT_FLOAT32, S(3, 1), 1, 2, 3);
  CHECK_OK(ct_tensor_unsqueeze(a, -2, &um2));
  CHECK_TENSOR(um2, CT_FLOAT32, S(1, 3), 1, 2, 3);
  RELEASE(a, u0, u1, um1, um2);
}

static void test_unsqueeze_dim_out_of_range_is_index_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_unsqueeze(a, 2, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_unsqueeze(a, -3, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

/* ---- narrow / select ---- */

static ct_tensor* mat43(void) { return T(CT_FLOAT32, S(4, 3), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11); }

static void test_narrow_takes_a_range(void) {
  ct_tensor* a = mat43();
  ct_tensor *r = NULL, *c = NULL, *e = NULL;
  CHECK_OK(ct_tensor_narrow(a, 0, 1, 2, &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(2, 3), 3, 4, 5, 6, 7, 8);
  CHECK_OK(ct_tensor_narrow(a, -1, 1, 2, &c));
  CHECK_TENSOR(c, CT_FLOAT32, S(4, 2), 1, 2, 4, 5, 7, 8, 10, 11);
  CHECK_OK(ct_tensor_narrow(a, 0, 4, 0, &e));
  CHECK_META(e, CT_FLOAT32, S(0, 3));
  RELEASE(a, r, c, e);
}

static void test_narrow_past_the_end_is_shape_error(void) {
  ct_tensor* a = mat43();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_narrow(a, 0, 3, 2, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_narrow(a, 1, 0, 4, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_narrow_dim_out_of_range_is_index_error(void) {
  ct_tensor* a = mat43();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_narrow(a, 2, 0, 1, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_select_removes_a_dim(void) {
  ct_tensor* a = mat43();
  ct_tensor *row = NULL, *col = NULL, *last = NULL;
  CHECK_OK(ct_tensor_select(a, 0, 1, &row));
  CHECK_TENSOR(row, CT_FLOAT32, S(3), 3, 4, 5);
  CHECK_OK(ct_tensor_select(a, 1, -1, &col));
  CHECK_TENSOR(col, CT_FLOAT32, S(4), 2, 5, 8, 11);
  CHECK_OK(ct_tensor_select(a, -2, -4, &last));
  CHECK_TENSOR(last, CT_FLOAT32, S(3), 0, 1, 2);
  RELEASE(a, row, col, last);
}

static void test_select_to_zero_dim(void) {
  ct_tensor* a = T(CT_INT64, S(3), 4, 5, 6);
  ct_tensor* s = NULL;
  CHECK_OK(ct_tensor_select(a, 0, 2, &s));
  CHECK_TENSOR(s, CT_INT64, S0, 6);
  RELEASE(a, s);
}

static void test_select_out_of_range_is_index_error(void) {
  ct_tensor* z = T(CT_FLOAT32, S0, 1);
  ct_tensor* zout = SENTINEL;
  CHECK_STATUS(ct_tensor_select(z, 0, 0, &zout), CT_ERROR_INDEX); /* a 0-dim tensor has no dim */
  CHECK(zout == NULL);
  ct_tensor_release(z);
  ct_tensor* a = mat43();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_select(a, 0, 4, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_select(a, 0, -5, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_select(a, 2, 0, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

/* ---- flatten ---- */

static void test_flatten_merges_dims(void) {
  ct_tensor* a = T(CT_INT32, S(2, 2, 2), 0, 1, 2, 3, 4, 5, 6, 7);
  ct_tensor *all = NULL, *tail = NULL, *head = NULL, *none = NULL;
  CHECK_OK(ct_tensor_flatten(a, 0, -1, &all));
  CHECK_TENSOR(all, CT_INT32, S(8), 0, 1, 2, 3, 4, 5, 6, 7);
  CHECK_OK(ct_tensor_flatten(a, 1, 2, &tail));
  CHECK_TENSOR(tail, CT_INT32, S(2, 4), 0, 1, 2, 3, 4, 5, 6, 7);
  CHECK_OK(ct_tensor_flatten(a, 0, 1, &head));
  CHECK_TENSOR(head, CT_INT32, S(4, 2), 0, 1, 2, 3, 4, 5, 6, 7);
  CHECK_OK(ct_tensor_flatten(a, 1, 1, &none));
  CHECK_TENSOR(none, CT_INT32, S(2, 2, 2), 0, 1, 2, 3, 4, 5, 6, 7);
  RELEASE(a, all, tail, head, none);
}

static void test_flatten_of_non_contiguous_copies_in_order(void) {
  ct_tensor* a = mat23();
  ct_tensor *t = NULL, *f = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  CHECK_OK(ct_tensor_flatten(t, 0, -1, &f));
  CHECK_TENSOR(f, CT_FLOAT32, S(6), 0, 3, 1, 4, 2, 5);
  RELEASE(a, t, f);
}

static void test_flatten_of_zero_dim_is_one_element(void) {
  ct_tensor* z = T(CT_FLOAT32, S0, 4);
  ct_tensor* f = NULL;
  CHECK_OK(ct_tensor_flatten(z, 0, -1, &f));
  CHECK_TENSOR(f, CT_FLOAT32, S(1), 4);
  RELEASE(z, f);
}

static void test_flatten_dim_out_of_range_is_index_error(void) {
  ct_tensor* a = mat23();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_flatten(a, 0, 2, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_flatten(a, -3, 1, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

/* ---- cat / stack ---- */

static void test_cat_joins_along_dim(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor* b = T(CT_FLOAT32, S(1, 2), 5, 6);
  ct_tensor* c = T(CT_FLOAT32, S(2, 1), 7, 8);
  ct_tensor *r = NULL, *cols = NULL, *neg = NULL;
  const ct_tensor* rows_in[] = {a, b};
  const ct_tensor* cols_in[] = {a, c};
  CHECK_OK(ct_tensor_cat(rows_in, 2, 0, &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(3, 2), 1, 2, 3, 4, 5, 6);
  CHECK_OK(ct_tensor_cat(cols_in, 2, 1, &cols));
  CHECK_TENSOR(cols, CT_FLOAT32, S(2, 3), 1, 2, 7, 3, 4, 8);
  CHECK_OK(ct_tensor_cat(cols_in, 2, -1, &neg));
  CHECK_TENSOR(neg, CT_FLOAT32, S(2, 3), 1, 2, 7, 3, 4, 8);
  RELEASE(a, b, c, r, cols, neg);
}

static void test_cat_of_one_tensor_is_a_copy(void) {
  ct_tensor* a = T(CT_INT32, S(2), 1, 2);
  ct_tensor* r = NULL;
  const ct_tensor* in[] = {a};
  CHECK_OK(ct_tensor_cat(in, 1, 0, &r));
  CHECK_TENSOR(r, CT_INT32, S(2), 1, 2);
  ct_scalar one = SI(1);
  CHECK_OK(ct_tensor_add_scalar_(r, &one));
  CHECK_TENSOR(a, CT_INT32, S(2), 1, 2);
  RELEASE(a, r);
}

static void test_cat_promotes_dtypes(void) {
  ct_tensor* a = T(CT_INT32, S(2), 1, 2);
  ct_tensor* b = T(CT_FLOAT32, S(1), 0.5);
  ct_tensor* r = NULL;
  const ct_tensor* in[] = {a, b};
  CHECK_OK(ct_tensor_cat(in, 2, 0, &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(3), 1, 2, 0.5);
  RELEASE(a, b, r);
}

static void test_cat_skips_empty_1d_tensors(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* e = TE(CT_FLOAT32, S(0));
  ct_tensor* r = NULL;
  const ct_tensor* in[] = {e, a, e};
  CHECK_OK(ct_tensor_cat(in, 3, 0, &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  RELEASE(a, e, r);
}

static void test_cat_of_strided_views(void) {
  ct_tensor* a = mat23();
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t)); /* [[0, 3], [1, 4], [2, 5]] */
  ct_tensor* r = NULL;
  const ct_tensor* in[] = {t, t};
  CHECK_OK(ct_tensor_cat(in, 2, 1, &r));
  CHECK_TENSOR(r, CT_FLOAT32, S(3, 4), 0, 3, 0, 3, 1, 4, 1, 4, 2, 5, 2, 5);
  RELEASE(a, t, r);
}

static void test_cat_mismatched_sizes_are_shape_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor* b = T(CT_FLOAT32, S(1, 3), 5, 6, 7);
  ct_tensor* c = T(CT_FLOAT32, S(2), 5, 6);
  const ct_tensor* in_ab[] = {a, b};
  const ct_tensor* in_ac[] = {a, c};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_cat(in_ab, 2, 0, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_cat(in_ac, 2, 0, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  RELEASE(a, b, c);
}

static void test_cat_dim_out_of_range_is_index_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  const ct_tensor* in[] = {a, a};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_cat(in, 2, 2, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_cat(in, 2, -3, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_stack_joins_along_new_dim(void) {
  ct_tensor* a = T(CT_INT64, S(2), 1, 2);
  ct_tensor* b = T(CT_INT64, S(2), 3, 4);
  const ct_tensor* in[] = {a, b};
  ct_tensor *s0 = NULL, *s1 = NULL, *sm1 = NULL, *sm2 = NULL;
  CHECK_OK(ct_tensor_stack(in, 2, 0, &s0));
  CHECK_TENSOR(s0, CT_INT64, S(2, 2), 1, 2, 3, 4);
  CHECK_OK(ct_tensor_stack(in, 2, 1, &s1));
  CHECK_TENSOR(s1, CT_INT64, S(2, 2), 1, 3, 2, 4);
  CHECK_OK(ct_tensor_stack(in, 2, -1, &sm1));
  CHECK_TENSOR(sm1, CT_INT64, S(2, 2), 1, 3, 2, 4);
  CHECK_OK(ct_tensor_stack(in, 2, -2, &sm2));
  CHECK_TENSOR(sm2, CT_INT64, S(2, 2), 1, 2, 3, 4);
  RELEASE(a, b, s0, s1, sm1, sm2);
}

static void test_stack_of_zero_dims_and_promotion(void) {
  ct_tensor* a = T(CT_INT32, S0, 1);
  ct_tensor* b = T(CT_FLOAT64, S0, 2.5);
  const ct_tensor* in[] = {a, b};
  ct_tensor* s = NULL;
  CHECK_OK(ct_tensor_stack(in, 2, 0, &s));
  CHECK_TENSOR(s, CT_FLOAT64, S(2), 1, 2.5);
  RELEASE(a, b, s);
}

static void test_stack_mismatched_sizes_are_shape_error(void) {
  ct_tensor* a = T(CT_INT64, S(2), 1, 2);
  ct_tensor* b = T(CT_INT64, S(3), 3, 4, 5);
  const ct_tensor* in[] = {a, b};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_stack(in, 2, 0, &out), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  RELEASE(a, b);
}

static void test_stack_dim_out_of_range_is_index_error(void) {
  ct_tensor* a = T(CT_INT64, S(2), 1, 2);
  const ct_tensor* in[] = {a, a};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_stack(in, 2, 2, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_stack(in, 2, -3, &out), CT_ERROR_INDEX);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

typedef ct_status (*join_fn)(const ct_tensor* const*, size_t, int64_t, ct_tensor**);

static void test_cat_and_stack_bad_arguments_are_invalid_argument(void) {
  static const struct {
    const char* name;
    join_fn fn;
  } fns[] = {{"cat", ct_tensor_cat}, {"stack", ct_tensor_stack}};
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  for (size_t i = 0; i < 2; ++i) {
    capi_context = fns[i].name;
    const ct_tensor* ok_in[] = {a, a};
    const ct_tensor* null_in[] = {a, NULL};
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(fns[i].fn(NULL, 2, 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(ok_in, 0, 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(null_in, 2, 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STATUS(fns[i].fn(ok_in, 2, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_cat_and_stack_released_element_is_invalid_argument(void) {
  static const join_fn fns[] = {ct_tensor_cat, ct_tensor_stack};
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  for (size_t i = 0; i < 2; ++i) {
    capi_context = i ? "stack" : "cat";
    const ct_tensor* rel_in[] = {a, capi_released()};
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(fns[i](rel_in, 2, 0, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
  capi_context = NULL;
  ct_tensor_release(a);
}

static void test_cat_and_stack_mixed_devices_is_device_error(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(2), CT_FLOAT32, "meta", &m));
  const ct_tensor* in[] = {a, m};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_cat(in, 2, 0, &out), CT_ERROR_DEVICE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_stack(in, 2, 0, &out), CT_ERROR_DEVICE);
  CHECK(out == NULL);
  RELEASE(a, m);
}

static void test_cat_and_stack_on_meta(void) {
  ct_tensor *m = NULL, *c = NULL, *s = NULL;
  CHECK_OK(ct_tensor_empty(S(2, 3), CT_FLOAT16, "meta", &m));
  const ct_tensor* in[] = {m, m, m};
  CHECK_OK(ct_tensor_cat(in, 3, 1, &c));
  CHECK_META(c, CT_FLOAT16, S(2, 9));
  CHECK_OK(ct_tensor_stack(in, 3, 1, &s));
  CHECK_META(s, CT_FLOAT16, S(2, 3, 3));
  RELEASE(m, c, s);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_views_share_memory_with_base),
    CAPI_TEST(test_views_keep_storage_after_base_release),
    CAPI_TEST(test_views_null_input_is_invalid_argument),
    CAPI_TEST(test_views_null_out_is_invalid_argument),
    CAPI_TEST(test_views_released_input_is_invalid_argument),
    CAPI_TEST(test_views_on_meta_give_meta),
    CAPI_TEST(test_sizes_or_dims_null_with_n_is_invalid_argument),
    CAPI_TEST(test_view_reinterprets_sizes),
    CAPI_TEST(test_view_between_zero_dim_and_one_element),
    CAPI_TEST(test_view_bad_sizes_are_shape_error),
    CAPI_TEST(test_view_over_incompatible_strides_is_shape_error),
    CAPI_TEST(test_reshape_of_contiguous_is_a_view),
    CAPI_TEST(test_reshape_of_transposed_copies),
    CAPI_TEST(test_reshape_of_transposed_adding_unit_dim_is_a_view),
    CAPI_TEST(test_reshape_bad_sizes_are_shape_error),
    CAPI_TEST(test_permute_reorders_dims_and_strides),
    CAPI_TEST(test_permute_values),
    CAPI_TEST(test_permute_not_a_permutation_is_shape_error),
    CAPI_TEST(test_permute_dim_out_of_range_is_index_error),
    CAPI_TEST(test_transpose_swaps_dims),
    CAPI_TEST(test_transpose_dim_out_of_range_is_index_error),
    CAPI_TEST(test_expand_stretches_size_one_dims),
    CAPI_TEST(test_expand_zero_dim),
    CAPI_TEST(test_expand_of_non_one_dim_is_shape_error),
    CAPI_TEST(test_squeeze_removes_all_size_one_dims),
    CAPI_TEST(test_squeeze_dim_removes_one_dim_if_size_one),
    CAPI_TEST(test_squeeze_dim_out_of_range_is_index_error),
    CAPI_TEST(test_unsqueeze_inserts_size_one_dim),
    CAPI_TEST(test_unsqueeze_dim_out_of_range_is_index_error),
    CAPI_TEST(test_narrow_takes_a_range),
    CAPI_TEST(test_narrow_past_the_end_is_shape_error),
    CAPI_TEST(test_narrow_dim_out_of_range_is_index_error),
    CAPI_TEST(test_select_removes_a_dim),
    CAPI_TEST(test_select_to_zero_dim),
    CAPI_TEST(test_select_out_of_range_is_index_error),
    CAPI_TEST(test_flatten_merges_dims),
    CAPI_TEST(test_flatten_of_non_contiguous_copies_in_order),
    CAPI_TEST(test_flatten_of_zero_dim_is_one_element),
    CAPI_TEST(test_flatten_dim_out_of_range_is_index_error),
    CAPI_TEST(test_cat_joins_along_dim),
    CAPI_TEST(test_cat_of_one_tensor_is_a_copy),
    CAPI_TEST(test_cat_promotes_dtypes),
    CAPI_TEST(test_cat_skips_empty_1d_tensors),
    CAPI_TEST(test_cat_of_strided_views),
    CAPI_TEST(test_cat_mismatched_sizes_are_shape_error),
    CAPI_TEST(test_cat_dim_out_of_range_is_index_error),
    CAPI_TEST(test_stack_joins_along_new_dim),
    CAPI_TEST(test_stack_of_zero_dims_and_promotion),
    CAPI_TEST(test_stack_mismatched_sizes_are_shape_error),
    CAPI_TEST(test_stack_dim_out_of_range_is_index_error),
    CAPI_TEST(test_cat_and_stack_bad_arguments_are_invalid_argument),
    CAPI_TEST(test_cat_and_stack_released_element_is_invalid_argument),
    CAPI_TEST(test_cat_and_stack_mixed_devices_is_device_error),
    CAPI_TEST(test_cat_and_stack_on_meta),
};
CAPI_MAIN(TESTS)
