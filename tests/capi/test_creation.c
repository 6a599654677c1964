/* Tensor creation: from_data, from_blob, factories, arange, linspace, eye. */
#include "capi_test.h"

/* Sizes whose byte count (2^62 for 4-byte elements) no address space can hold. */
static const int64_t HUGE_SIZES[2] = {(int64_t)1 << 30, (int64_t)1 << 30};

/* ---- from_data ---- */

static void test_from_data_copies_values(void) {
  float src[6] = {1, 2, 3, 4, 5, 6};
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_data(src, S(2, 3), CT_FLOAT32, &t));
  src[0] = 100; /* the tensor holds a copy */
  CHECK_TENSOR(t, CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  int c = 0;
  CHECK_OK(ct_tensor_is_contiguous(t, &c));
  CHECK(c == 1);
  ct_tensor_release(t);
}

static void test_from_data_round_trips_every_dtype(void) {
  unsigned char src[8 * 4], dst[8 * 4];
  for (int d = 0; d <= 9; ++d) {
    ct_dtype dt = (ct_dtype)d;
    size_t isz = ct_dtype_itemsize(dt);
    for (size_t i = 0; i < 4 * isz; ++i) src[i] = (unsigned char)(i * 7 + 1);
    if (dt == CT_BOOL)
      for (size_t i = 0; i < 4; ++i) src[i] = (unsigned char)(i & 1);
    ct_tensor* t = NULL;
    capi_context = ct_dtype_name(dt);
    CHECK_OK(ct_tensor_from_data(src, S(4), dt, &t));
    ct_dtype got;
    CHECK_OK(ct_tensor_dtype(t, &got));
    CHECK(got == dt);
    memset(dst, 0xAB, sizeof dst);
    CHECK_OK(ct_tensor_copy_to(t, dst, 4 * isz));
    CHECK(memcmp(src, dst, 4 * isz) == 0);
    ct_tensor_release(t);
  }
}

static void test_from_data_zero_dim_accepts_null_sizes(void) {
  double v = 2.5;
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_data(&v, NULL, 0, CT_FLOAT64, &t));
  CHECK_TENSOR(t, CT_FLOAT64, S0, 2.5);
  int64_t numel = 0;
  CHECK_OK(ct_tensor_numel(t, &numel));
  CHECK(numel == 1);
  ct_tensor_release(t);
}

static void test_from_data_empty_accepts_null_data(void) {
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_data(NULL, S(0, 3), CT_INT32, &t));
  CHECK_META(t, CT_INT32, S(0, 3));
  int64_t numel = -1;
  CHECK_OK(ct_tensor_numel(t, &numel));
  CHECK(numel == 0);
  ct_tensor_release(t);
}

static void test_from_data_accepts_64_dims(void) {
  int64_t sizes[64];
  for (int i = 0; i < 64; ++i) sizes[i] = 1;
  float v = 3;
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_data(&v, sizes, 64, CT_FLOAT32, &t));
  size_t nd = 0;
  CHECK_OK(ct_tensor_ndim(t, &nd));
  CHECK(nd == 64);
  ct_tensor_release(t);
}

static void test_from_data_null_out_is_invalid_argument(void) {
  float v[2] = {1, 2};
  CHECK_STATUS(ct_tensor_from_data(v, S(2), CT_FLOAT32, NULL), CT_ERROR_INVALID_ARGUMENT);
}

static void test_from_data_bad_arguments_are_invalid_argument(void) {
  float v[4] = {1, 2, 3, 4};
  int64_t sizes65[65];
  for (int i = 0; i < 65; ++i) sizes65[i] = 1;
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_data(v, NULL, 1, CT_FLOAT32, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_data(NULL, S(2), CT_FLOAT32, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_data(v, S(-1), CT_FLOAT32, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_data(v, S(2, -2), CT_FLOAT32, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_data(v, sizes65, 65, CT_FLOAT32, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_data(v, S(2), (ct_dtype)12, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_data(v, S(2), (ct_dtype)-1, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
}

static void test_from_data_huge_is_out_of_memory(void) {
  float v = 0;
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_data(&v, HUGE_SIZES, 2, CT_FLOAT32, &out), CT_ERROR_OUT_OF_MEMORY);
  CHECK(out == NULL);
}

/* ---- from_blob ---- */

struct deleter_log {
  int calls;
  void* data;
  void* user_data;
};

static void counting_deleter(void* data, void* user_data) {
  struct deleter_log* log = user_data;
  log->calls++;
  log->data = data;
  log->user_data = user_data;
}

static void test_from_blob_shares_caller_memory(void) {
  float blob[4] = {1, 2, 3, 4};
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_blob(blob, SZ(2, 2), NULL, 2, CT_FLOAT32, NULL, NULL, &t));
  void* p = NULL;
  CHECK_OK(ct_tensor_data_ptr(t, &p));
  CHECK(p == (void*)blob);
  blob[3] = 40;
  CHECK_TENSOR(t, CT_FLOAT32, S(2, 2), 1, 2, 3, 40);
  ct_scalar two = SI(2);
  CHECK_OK(ct_tensor_mul_scalar_(t, &two));
  CHECK(blob[0] == 2 && blob[1] == 4 && blob[2] == 6 && blob[3] == 80);
  ct_tensor_release(t);
}

static void test_from_blob_honors_strides(void) {
  /* Column-major 3x2 matrix [[1, 4], [2, 5], [3, 6]]. */
  double blob[6] = {1, 2, 3, 4, 5, 6};
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_blob(blob, SZ(3, 2), SZ(1, 3), 2, CT_FLOAT64, NULL, NULL, &t));
  int64_t st[2] = {0, 0};
  CHECK_OK(ct_tensor_strides(t, st, 2));
  CHECK(st[0] == 1 && st[1] == 3);
  int c = 1;
  CHECK_OK(ct_tensor_is_contiguous(t, &c));
  CHECK(c == 0);
  CHECK_TENSOR(t, CT_FLOAT64, S(3, 2), 1, 4, 2, 5, 3, 6);
  ct_tensor_release(t);
}

static void test_from_blob_deleter_runs_once_after_last_view(void) {
  float* blob = malloc(6 * sizeof(float));
  for (int i = 0; i < 6; ++i) blob[i] = (float)i;
  struct deleter_log log = {0, NULL, NULL};
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_blob(blob, SZ(2, 3), NULL, 2, CT_FLOAT32, counting_deleter, &log, &t));
  ct_tensor *v1 = NULL, *v2 = NULL;
  CHECK_OK(ct_tensor_transpose(t, 0, 1, &v1));
  CHECK_OK(ct_tensor_select(v1, 0, 1, &v2));
  ct_tensor_release(t);
  CHECK(log.calls == 0);
  ct_tensor_release(v1);
  CHECK(log.calls == 0);
  CHECK_TENSOR(v2, CT_FLOAT32, S(2), 1, 4);
  ct_tensor_release(v2);
  CHECK(log.calls == 1);
  CHECK(log.data == (void*)blob);
  CHECK(log.user_data == (void*)&log);
  free(blob);
}

static void test_from_blob_deleter_waits_for_retained_references(void) {
  float blob[2] = {1, 2};
  struct deleter_log log = {0, NULL, NULL};
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_blob(blob, SZ(2), NULL, 1, CT_FLOAT32, counting_deleter, &log, &t));
  CHECK_OK(ct_tensor_retain(t));
  ct_tensor_release(t);
  CHECK(log.calls == 0);
  ct_tensor_release(t);
  CHECK(log.calls == 1);
}

static void test_from_blob_deleter_not_called_on_failure(void) {
  float blob[2] = {1, 2};
  struct deleter_log log = {0, NULL, NULL};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_blob(blob, SZ(-2), NULL, 1, CT_FLOAT32, counting_deleter, &log, &out),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK(log.calls == 0);
  CHECK_STATUS(ct_tensor_from_blob(blob, SZ(2), NULL, 1, CT_FLOAT32, counting_deleter, &log, NULL),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(log.calls == 0);
}

static void test_from_blob_empty_accepts_null_data(void) {
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_blob(NULL, SZ(0), NULL, 1, CT_FLOAT32, NULL, NULL, &t));
  CHECK_META(t, CT_FLOAT32, S(0));
  ct_tensor_release(t);
}

static void test_from_blob_bad_arguments_are_invalid_argument(void) {
  float blob[4] = {1, 2, 3, 4};
  int64_t sizes65[65];
  for (int i = 0; i < 65; ++i) sizes65[i] = 1;
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_blob(blob, SZ(4), NULL, 1, CT_FLOAT32, NULL, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_from_blob(NULL, SZ(4), NULL, 1, CT_FLOAT32, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_blob(blob, NULL, NULL, 1, CT_FLOAT32, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_blob(blob, SZ(-4), NULL, 1, CT_FLOAT32, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_blob(blob, SZ(2, 2), SZ(-1, 1), 2, CT_FLOAT32, NULL, NULL, &out),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_blob(blob, sizes65, NULL, 65, CT_FLOAT32, NULL, NULL, &out),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_blob(blob, SZ(4), NULL, 1, (ct_dtype)42, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
}

static void test_from_blob_v2_read_only_memory_refuses_every_write(void) {
  float blob[4] = {1, 2, 3, 4};
  struct deleter_log log = {0, NULL, NULL};
  ct_tensor *t = NULL, *v = NULL, *src = NULL, *sum = NULL;
  CHECK_OK(ct_tensor_from_blob_v2(blob, SZ(2, 2), NULL, 2, CT_FLOAT32, CT_BLOB_READ_ONLY, counting_deleter, &log, &t));
  int ro = 0;
  CHECK_OK(ct_tensor_is_read_only(t, &ro));
  CHECK(ro == 1);
  CHECK_OK(ct_tensor_sum(t, NULL, 0, 0, &sum)); /* reads are unrestricted */
  CHECK_TENSOR(sum, CT_FLOAT32, S(), 10);
  ct_scalar two = SI(2);
  CHECK_STATUS(ct_tensor_mul_scalar_(t, &two), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("mul_: self");
  CHECK_ERROR_CONTAINS("read-only");
  CHECK_OK(ct_tensor_transpose(t, 0, 1, &v)); /* views share the storage's refusal */
  CHECK_OK(ct_tensor_is_read_only(v, &ro));
  CHECK(ro == 1);
  src = T(CT_FLOAT32, S(2, 2), 9, 9, 9, 9);
  ct_tensor* out = NULL;
  ct_value args[2] = {VT(v), VT(src)};
  CHECK_STATUS(ct_op_call("copy_", args, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_tensor_uniform_(v, 0.0, 1.0, NULL), CT_ERROR_INVALID_ARGUMENT);
  /* An optimizer step writes parameters in place: refused before any parameter changes. */
  CHECK_OK(ct_tensor_set_requires_grad(t, 1));
  CHECK_OK(ct_tensor_set_grad(t, src));
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  ct_optimizer* opt = NULL;
  const ct_tensor* params[1] = {t};
  CHECK_OK(ct_optimizer_create(params, 1, &o, &opt));
  CHECK_STATUS(ct_optimizer_step(opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("parameter 0");
  ct_optimizer_release(opt);
  CHECK(blob[0] == 1 && blob[1] == 2 && blob[2] == 3 && blob[3] == 4);
  RELEASE(sum, src, v, t);
  CHECK(log.calls == 1);
}

static void test_from_blob_v2_unknown_flags_are_invalid_argument(void) {
  float blob[1] = {1};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_blob_v2(blob, SZ(1), NULL, 1, CT_FLOAT32, 2, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("flags");
}

static void test_from_blob_is_writable_and_from_data_is_writable(void) {
  float blob[1] = {1};
  ct_tensor *t = NULL, *d = NULL;
  CHECK_OK(ct_tensor_from_blob(blob, SZ(1), NULL, 1, CT_FLOAT32, NULL, NULL, &t));
  CHECK_OK(ct_tensor_from_data(blob, SZ(1), 1, CT_FLOAT32, &d));
  int ro = 1;
  CHECK_OK(ct_tensor_is_read_only(t, &ro));
  CHECK(ro == 0);
  ro = 1;
  CHECK_OK(ct_tensor_is_read_only(d, &ro));
  CHECK(ro == 0);
  RELEASE(d, t);
}

static void test_from_blob_bool_bytes_other_than_0_and_1_are_refused_without_the_deleter(void) {
  uint8_t bytes[4] = {0, 1, 2, 255};
  struct deleter_log log = {0, NULL, NULL};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_blob(bytes, SZ(4), NULL, 1, CT_BOOL, counting_deleter, &log, &out),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL && log.calls == 0);
  CHECK_ERROR_CONTAINS("bool element 3");
  CHECK_ERROR_CONTAINS("byte 255");
  /* Strides that reach only 0/1 bytes are fine: the check reads elements, not the span. */
  CHECK_OK(ct_tensor_from_blob(bytes, SZ(2), SZ(1), 1, CT_BOOL, counting_deleter, &log, &out));
  CHECK_TENSOR(out, CT_BOOL, S(2), 0, 1);
  ct_tensor_release(out);
  CHECK(log.calls == 1);
}

static void test_from_data_maps_non_zero_bool_bytes_to_true(void) {
  const uint8_t bytes[4] = {0, 1, 2, 255};
  ct_tensor *t = NULL, *sum = NULL;
  CHECK_OK(ct_tensor_from_data(bytes, SZ(4), 1, CT_BOOL, &t));
  CHECK_OK(ct_tensor_sum(t, NULL, 0, 0, &sum));
  CHECK_TENSOR(sum, CT_INT64, S(), 3); /* numpy: np.array([0, 1, 2, 255], np.uint8).view(bool).sum() */
  uint8_t back[4] = {9, 9, 9, 9};
  CHECK_OK(ct_tensor_copy_to(t, back, sizeof back));
  CHECK(back[0] == 0 && back[1] == 1 && back[2] == 1 && back[3] == 1);
  RELEASE(sum, t);
}

static void test_from_blob_misaligned_or_wrapping_memory_is_invalid_argument(void) {
  double storage[3] = {1, 2, 3};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_from_blob((char*)storage + 1, SZ(2), NULL, 1, CT_FLOAT64, NULL, NULL, &out),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("not aligned");
  /* An address whose range wraps around the address space, and one in its upper half. */
  void* near_end = (void*)(UINTPTR_MAX - 15);
  CHECK_STATUS(ct_tensor_from_blob(near_end, SZ(4), NULL, 1, CT_FLOAT32, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("addressable memory");
  void* upper = (void*)((uintptr_t)1 << (sizeof(void*) * 8 - 1));
  CHECK_STATUS(ct_tensor_from_blob(upper, SZ(1), NULL, 1, CT_FLOAT32, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  /* A misaligned pointer is fine for 1-byte elements. */
  CHECK_OK(ct_tensor_from_blob((char*)storage + 1, SZ(2), NULL, 1, CT_UINT8, NULL, NULL, &out));
  ct_tensor_release(out);
}

/* ---- empty / zeros / ones / full ---- */

static void test_empty_has_sizes_dtype_and_contiguous_strides(void) {
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_empty(S(2, 3, 4), CT_INT16, NULL, &t));
  CHECK_META(t, CT_INT16, S(2, 3, 4));
  int64_t st[3];
  CHECK_OK(ct_tensor_strides(t, st, 3));
  CHECK(st[0] == 12 && st[1] == 4 && st[2] == 1);
  ct_device_type dev = CT_DEVICE_META;
  int32_t idx = 7;
  CHECK_OK(ct_tensor_device(t, &dev, &idx));
  CHECK(dev == CT_DEVICE_CPU && idx == -1);
  ct_tensor_release(t);
}

static void test_zeros_and_ones_fill_values(void) {
  ct_tensor *z = NULL, *o = NULL, *ob = NULL, *zh = NULL;
  CHECK_OK(ct_tensor_zeros(S(2, 2), CT_FLOAT32, "cpu", &z));
  CHECK_TENSOR(z, CT_FLOAT32, S(2, 2), 0, 0, 0, 0);
  CHECK_OK(ct_tensor_ones(S(3), CT_INT64, NULL, &o));
  CHECK_TENSOR(o, CT_INT64, S(3), 1, 1, 1);
  CHECK_OK(ct_tensor_ones(S(2), CT_BOOL, NULL, &ob));
  CHECK_TENSOR(ob, CT_BOOL, S(2), 1, 1);
  CHECK_OK(ct_tensor_ones(S0, CT_FLOAT16, NULL, &zh));
  CHECK_TENSOR(zh, CT_FLOAT16, S0, 1);
  RELEASE(z, o, ob, zh);
}

static void test_full_converts_value_to_dtype(void) {
  ct_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  ct_scalar seven = SF(7.0), three = SI(3), yes = SB(1), half = SF(-2.5);
  CHECK_OK(ct_tensor_full(S(2), &seven, CT_INT32, NULL, &a));
  CHECK_TENSOR(a, CT_INT32, S(2), 7, 7);
  CHECK_OK(ct_tensor_full(S(1, 2), &three, CT_FLOAT64, NULL, &b));
  CHECK_TENSOR(b, CT_FLOAT64, S(1, 2), 3, 3);
  CHECK_OK(ct_tensor_full(S0, &yes, CT_FLOAT32, NULL, &c));
  CHECK_TENSOR(c, CT_FLOAT32, S0, 1);
  CHECK_OK(ct_tensor_full(S(3), &half, CT_BFLOAT16, NULL, &d));
  CHECK_TENSOR(d, CT_BFLOAT16, S(3), -2.5, -2.5, -2.5);
  RELEASE(a, b, c, d);
}

static void test_factories_on_meta_have_no_data(void) {
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_zeros(S(2, 3), CT_FLOAT32, "meta", &t));
  CHECK_META(t, CT_FLOAT32, S(2, 3));
  ct_device_type dev = CT_DEVICE_CPU;
  int32_t idx = 0;
  CHECK_OK(ct_tensor_device(t, &dev, &idx));
  CHECK(dev == CT_DEVICE_META && idx == -1);
  void* p = NULL;
  CHECK_STATUS(ct_tensor_data_ptr(t, &p), CT_ERROR_DEVICE);
  float buf[6];
  CHECK_STATUS(ct_tensor_copy_to(t, buf, sizeof buf), CT_ERROR_DEVICE);
  ct_tensor_release(t);

  ct_scalar v = SF(1.5);
  ct_tensor *e = NULL, *o = NULL, *f = NULL;
  CHECK_OK(ct_tensor_empty(S(4), CT_INT8, "meta", &e));
  CHECK_META(e, CT_INT8, S(4));
  CHECK_OK(ct_tensor_ones(S(1, 1), CT_FLOAT64, "meta", &o));
  CHECK_META(o, CT_FLOAT64, S(1, 1));
  CHECK_OK(ct_tensor_full(S(5), &v, CT_FLOAT16, "meta", &f));
  CHECK_META(f, CT_FLOAT16, S(5));
  RELEASE(e, o, f);
}

static void test_factories_null_out_is_invalid_argument(void) {
  ct_scalar v = SI(1);
  CHECK_STATUS(ct_tensor_empty(S(2), CT_FLOAT32, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_zeros(S(2), CT_FLOAT32, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_ones(S(2), CT_FLOAT32, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_full(S(2), &v, CT_FLOAT32, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
}

typedef ct_status (*factory_fn)(const int64_t*, size_t, ct_dtype, const char*, ct_tensor**);

static ct_status full_one(const int64_t* sizes, size_t ndim, ct_dtype dt, const char* dev, ct_tensor** out) {
  ct_scalar v = SI(1);
  return ct_tensor_full(sizes, ndim, &v, dt, dev, out);
}

static void test_factories_bad_arguments_are_invalid_argument(void) {
  static const struct {
    const char* name;
    factory_fn fn;
  } fns[] = {{"empty", ct_tensor_empty}, {"zeros", ct_tensor_zeros}, {"ones", ct_tensor_ones}, {"full", full_one}};
  for (size_t i = 0; i < sizeof fns / sizeof *fns; ++i) {
    capi_context = fns[i].name;
    ct_tensor* out = SENTINEL;
    CHECK_STATUS(fns[i].fn(NULL, 2, CT_FLOAT32, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(S(2, -1), CT_FLOAT32, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(S(2), (ct_dtype)99, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(S(2), CT_FLOAT32, "not a device", &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    out = SENTINEL;
    CHECK_STATUS(fns[i].fn(S(2), CT_FLOAT32, "cuda:x", &out), CT_ERROR_INVALID_ARGUMENT);
    CHECK(out == NULL);
  }
}

static void test_full_null_value_is_invalid_argument(void) {
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_full(S(2), NULL, CT_FLOAT32, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
}

static void test_factories_on_cuda_without_backend_are_device_error(void) {
  ct_tensor* out = SENTINEL;
  CHECK(ct_has_feature("cuda") == 0);
  CHECK_STATUS(ct_tensor_zeros(S(2), CT_FLOAT32, "cuda", &out), CT_ERROR_DEVICE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_empty(S(2), CT_FLOAT32, "cuda:0", &out), CT_ERROR_DEVICE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_arange(0, 3, 1, CT_FLOAT32, "cuda:1", &out), CT_ERROR_DEVICE);
  CHECK(out == NULL);
}

static void test_factories_huge_is_out_of_memory(void) {
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_zeros(HUGE_SIZES, 2, CT_FLOAT32, NULL, &out), CT_ERROR_OUT_OF_MEMORY);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_empty(HUGE_SIZES, 2, CT_FLOAT32, NULL, &out), CT_ERROR_OUT_OF_MEMORY);
  CHECK(out == NULL);
  /* Meta tensors allocate nothing. */
  CHECK_OK(ct_tensor_empty(HUGE_SIZES, 2, CT_FLOAT32, "meta", &out));
  ct_tensor_release(out);
}

/* ---- arange / linspace / eye ---- */

static void test_arange_linspace_eye_huge_is_out_of_memory(void) {
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_arange(0, 4e18, 1, CT_INT8, NULL, &out), CT_ERROR_OUT_OF_MEMORY);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_linspace(0, 1, (int64_t)1 << 62, CT_INT8, NULL, &out), CT_ERROR_OUT_OF_MEMORY);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_eye((int64_t)1 << 31, -1, CT_INT8, NULL, &out), CT_ERROR_OUT_OF_MEMORY);
  CHECK(out == NULL);
}

static void test_linspace_and_eye_on_cuda_without_backend_are_device_error(void) {
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_linspace(0, 1, 3, CT_FLOAT32, "cuda", &out), CT_ERROR_DEVICE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_eye(2, -1, CT_FLOAT32, "cuda:0", &out), CT_ERROR_DEVICE);
  CHECK(out == NULL);
}

static void test_arange_counts_up_to_excluded_end(void) {
  ct_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
  CHECK_OK(ct_tensor_arange(0, 5, 1, CT_INT64, NULL, &a));
  CHECK_TENSOR(a, CT_INT64, S(5), 0, 1, 2, 3, 4);
  CHECK_OK(ct_tensor_arange(0, 1, 0.25, CT_FLOAT32, NULL, &b));
  CHECK_TENSOR(b, CT_FLOAT32, S(4), 0, 0.25, 0.5, 0.75);
  CHECK_OK(ct_tensor_arange(5, 0, -2, CT_INT32, NULL, &c));
  CHECK_TENSOR(c, CT_INT32, S(3), 5, 3, 1);
  CHECK_OK(ct_tensor_arange(1, 2.5, 0.5, CT_FLOAT64, NULL, &d)); /* ceil(3) = 3 */
  CHECK_TENSOR(d, CT_FLOAT64, S(3), 1, 1.5, 2);
  CHECK_OK(ct_tensor_arange(1, 2.6, 0.5, CT_FLOAT64, NULL, &e)); /* ceil(3.2) = 4 */
  CHECK_TENSOR(e, CT_FLOAT64, S(4), 1, 1.5, 2, 2.5);
  RELEASE(a, b, c, d, e);
}

static void test_arange_empty_range_is_empty(void) {
  ct_tensor* a = NULL;
  CHECK_OK(ct_tensor_arange(3, 3, 1, CT_FLOAT32, NULL, &a));
  CHECK_META(a, CT_FLOAT32, S(0));
  ct_tensor_release(a);
}

static void test_arange_converts_after_computing_in_double(void) {
  /* 0, 0.5, 1.0, 1.5 -> int32 truncates: 0, 0, 1, 1 */
  ct_tensor* a = NULL;
  CHECK_OK(ct_tensor_arange(0, 2, 0.5, CT_INT32, NULL, &a));
  CHECK_TENSOR(a, CT_INT32, S(4), 0, 0, 1, 1);
  ct_tensor_release(a);
}

static void test_arange_on_meta(void) {
  ct_tensor* a = NULL;
  CHECK_OK(ct_tensor_arange(0, 10, 3, CT_INT64, "meta", &a));
  CHECK_META(a, CT_INT64, S(4));
  ct_tensor_release(a);
}

static void test_arange_bad_arguments_are_invalid_argument(void) {
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_arange(0, 5, 1, CT_FLOAT32, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_arange(0, 5, 0, CT_FLOAT32, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_arange(0, 5, -1, CT_FLOAT32, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_arange(5, 0, 1, CT_FLOAT32, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_arange(0, INFINITY, 1, CT_FLOAT32, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_arange(NAN, 5, 1, CT_FLOAT32, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_arange(0, 5, 1, (ct_dtype)12, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_arange(0, 5, 1, CT_FLOAT32, "gpu", &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
}

static void test_linspace_includes_both_ends(void) {
  ct_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
  CHECK_OK(ct_tensor_linspace(0, 1, 5, CT_FLOAT32, NULL, &a));
  CHECK_TENSOR(a, CT_FLOAT32, S(5), 0, 0.25, 0.5, 0.75, 1);
  CHECK_OK(ct_tensor_linspace(2, -2, 3, CT_FLOAT64, NULL, &b));
  CHECK_TENSOR(b, CT_FLOAT64, S(3), 2, 0, -2);
  CHECK_OK(ct_tensor_linspace(7, 9, 1, CT_FLOAT32, NULL, &c));
  CHECK_TENSOR(c, CT_FLOAT32, S(1), 7);
  CHECK_OK(ct_tensor_linspace(0, 1, 0, CT_FLOAT32, NULL, &d));
  CHECK_META(d, CT_FLOAT32, S(0));
  /* torch.linspace(0, 10, 5, dtype=torch.int64) == [0, 2, 5, 7, 10] */
  CHECK_OK(ct_tensor_linspace(0, 10, 5, CT_INT64, NULL, &e));
  CHECK_TENSOR(e, CT_INT64, S(5), 0, 2, 5, 7, 10);
  RELEASE(a, b, c, d, e);
}

static void test_linspace_bad_arguments_are_invalid_argument(void) {
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_linspace(0, 1, 5, CT_FLOAT32, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_linspace(0, 1, -1, CT_FLOAT32, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_linspace(0, 1, 5, (ct_dtype)12, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_linspace(0, 1, 5, CT_FLOAT32, "cpu:zero", &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
}

static void test_linspace_on_meta(void) {
  ct_tensor* a = NULL;
  CHECK_OK(ct_tensor_linspace(0, 1, 7, CT_FLOAT64, "meta", &a));
  CHECK_META(a, CT_FLOAT64, S(7));
  ct_tensor_release(a);
}

static void test_eye_has_ones_on_the_diagonal(void) {
  ct_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  CHECK_OK(ct_tensor_eye(3, -1, CT_FLOAT32, NULL, &a));
  CHECK_TENSOR(a, CT_FLOAT32, S(3, 3), 1, 0, 0, 0, 1, 0, 0, 0, 1);
  CHECK_OK(ct_tensor_eye(2, 3, CT_INT32, NULL, &b));
  CHECK_TENSOR(b, CT_INT32, S(2, 3), 1, 0, 0, 0, 1, 0);
  CHECK_OK(ct_tensor_eye(3, 2, CT_BOOL, NULL, &c));
  CHECK_TENSOR(c, CT_BOOL, S(3, 2), 1, 0, 0, 1, 0, 0);
  CHECK_OK(ct_tensor_eye(0, -1, CT_FLOAT32, NULL, &d));
  CHECK_META(d, CT_FLOAT32, S(0, 0));
  RELEASE(a, b, c, d);
}

static void test_eye_on_meta(void) {
  ct_tensor* a = NULL;
  CHECK_OK(ct_tensor_eye(4, 2, CT_FLOAT16, "meta", &a));
  CHECK_META(a, CT_FLOAT16, S(4, 2));
  ct_tensor_release(a);
}

static void test_eye_bad_arguments_are_invalid_argument(void) {
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_eye(2, 2, CT_FLOAT32, NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_eye(-1, 2, CT_FLOAT32, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_eye(2, 2, (ct_dtype)13, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_tensor_eye(2, 2, CT_FLOAT32, "???", &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_from_data_copies_values),
    CAPI_TEST(test_from_data_round_trips_every_dtype),
    CAPI_TEST(test_from_data_zero_dim_accepts_null_sizes),
    CAPI_TEST(test_from_data_empty_accepts_null_data),
    CAPI_TEST(test_from_data_accepts_64_dims),
    CAPI_TEST(test_from_data_null_out_is_invalid_argument),
    CAPI_TEST(test_from_data_bad_arguments_are_invalid_argument),
    CAPI_TEST(test_from_data_huge_is_out_of_memory),
    CAPI_TEST(test_from_blob_shares_caller_memory),
    CAPI_TEST(test_from_blob_honors_strides),
    CAPI_TEST(test_from_blob_deleter_runs_once_after_last_view),
    CAPI_TEST(test_from_blob_deleter_waits_for_retained_references),
    CAPI_TEST(test_from_blob_deleter_not_called_on_failure),
    CAPI_TEST(test_from_blob_empty_accepts_null_data),
    CAPI_TEST(test_from_blob_bad_arguments_are_invalid_argument),
    CAPI_TEST(test_from_blob_v2_read_only_memory_refuses_every_write),
    CAPI_TEST(test_from_blob_v2_unknown_flags_are_invalid_argument),
    CAPI_TEST(test_from_blob_is_writable_and_from_data_is_writable),
    CAPI_TEST(test_from_blob_bool_bytes_other_than_0_and_1_are_refused_without_the_deleter),
    CAPI_TEST(test_from_data_maps_non_zero_bool_bytes_to_true),
    CAPI_TEST(test_from_blob_misaligned_or_wrapping_memory_is_invalid_argument),
    CAPI_TEST(test_empty_has_sizes_dtype_and_contiguous_strides),
    CAPI_TEST(test_zeros_and_ones_fill_values),
    CAPI_TEST(test_full_converts_value_to_dtype),
    CAPI_TEST(test_factories_on_meta_have_no_data),
    CAPI_TEST(test_factories_null_out_is_invalid_argument),
    CAPI_TEST(test_factories_bad_arguments_are_invalid_argument),
    CAPI_TEST(test_full_null_value_is_invalid_argument),
    CAPI_TEST(test_factories_on_cuda_without_backend_are_device_error),
    CAPI_TEST(test_factories_huge_is_out_of_memory),
    CAPI_TEST(test_arange_linspace_eye_huge_is_out_of_memory),
    CAPI_TEST(test_linspace_and_eye_on_cuda_without_backend_are_device_error),
    CAPI_TEST(test_arange_counts_up_to_excluded_end),
    CAPI_TEST(test_arange_empty_range_is_empty),
    CAPI_TEST(test_arange_converts_after_computing_in_double),
    CAPI_TEST(test_arange_on_meta),
    CAPI_TEST(test_arange_bad_arguments_are_invalid_argument),
    CAPI_TEST(test_linspace_includes_both_ends),
    CAPI_TEST(test_linspace_bad_arguments_are_invalid_argument),
    CAPI_TEST(test_linspace_on_meta),
    CAPI_TEST(test_eye_has_ones_on_the_diagonal),
    CAPI_TEST(test_eye_on_meta),
    CAPI_TEST(test_eye_bad_arguments_are_invalid_argument),
};
CAPI_MAIN(TESTS)
