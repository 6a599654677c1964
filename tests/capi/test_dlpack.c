/* test_dlpack.c - DLPack import and export (ct_tensor_to_dlpack, ct_tensor_from_dlpack,
 * ct_tensor_from_dlpack_unversioned): zero-copy sharing, views, deleters, dtypes, every status. */
#include <pthread.h>

#include "capi_test.h"
#include "ctorch_dlpack.h"

/* ---- A capsule built by hand, as another library would produce it ---- */

typedef struct {
  DLManagedTensorVersioned m;
  int64_t shape[4];
  int64_t strides[4];
  int deleted;                         /* times the deleter ran */
  DLManagedTensorVersioned* deleted_self; /* what it was called with */
} vcapsule;

static void vcapsule_deleter(DLManagedTensorVersioned* self) {
  vcapsule* c = (vcapsule*)self->manager_ctx;
  c->deleted++;
  c->deleted_self = self;
}

static DLDataType dt(uint8_t code, uint8_t bits) {
  DLDataType t;
  t.code = code;
  t.bits = bits;
  t.lanes = 1;
  return t;
}

/* A CPU capsule over data; strides NULL means row-major. */
static void vcapsule_init(vcapsule* c, void* data, DLDataType dtype, int32_t ndim, const int64_t* shape,
                          const int64_t* strides) {
  memset(c, 0, sizeof *c);
  c->m.version.major = 1;
  c->m.version.minor = 0;
  c->m.manager_ctx = c;
  c->m.deleter = vcapsule_deleter;
  c->m.flags = 0;
  c->m.dl_tensor.data = data;
  c->m.dl_tensor.device.device_type = kDLCPU;
  c->m.dl_tensor.device.device_id = 0;
  c->m.dl_tensor.ndim = ndim;
  c->m.dl_tensor.dtype = dtype;
  for (int32_t i = 0; i < ndim && i < 4; ++i) {
    c->shape[i] = shape[i];
    if (strides) c->strides[i] = strides[i];
  }
  c->m.dl_tensor.shape = c->shape;
  c->m.dl_tensor.strides = strides ? c->strides : NULL;
  c->m.dl_tensor.byte_offset = 0;
}

typedef struct {
  DLManagedTensor m;
  int64_t shape[4];
  int deleted;
} ucapsule;

static void ucapsule_deleter(DLManagedTensor* self) { ((ucapsule*)self->manager_ctx)->deleted++; }

static void ucapsule_init(ucapsule* c, void* data, DLDataType dtype, int32_t ndim, const int64_t* shape) {
  memset(c, 0, sizeof *c);
  c->m.manager_ctx = c;
  c->m.deleter = ucapsule_deleter;
  c->m.dl_tensor.data = data;
  c->m.dl_tensor.device.device_type = kDLCPU;
  c->m.dl_tensor.ndim = ndim;
  c->m.dl_tensor.dtype = dtype;
  for (int32_t i = 0; i < ndim && i < 4; ++i) c->shape[i] = shape[i];
  c->m.dl_tensor.shape = c->shape;
}

static int strides_are(const ct_tensor* t, const int64_t* want, size_t n) {
  int64_t got[8];
  if (n > 8 || ct_tensor_strides(t, got, n) != CT_OK) return 0;
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i]) return 0;
  return 1;
}

/* ---- Export ---- */

static void test_export_fills_every_field(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 0, 1, 2, 3, 4, 5);
  DLManagedTensorVersioned* cap = NULL;
  void* data = NULL;
  CHECK_OK(ct_tensor_to_dlpack(a, &cap));
  CHECK_OK(ct_tensor_data_ptr(a, &data));
  CHECK(cap != NULL && cap->deleter != NULL);
  CHECK(cap->version.major == 1 && cap->version.minor == 0);
  CHECK(cap->flags == 0);
  const DLTensor* dl = &cap->dl_tensor;
  CHECK(dl->data == data && dl->byte_offset == 0);
  CHECK(dl->device.device_type == kDLCPU && dl->device.device_id == 0);
  CHECK(dl->ndim == 2 && dl->shape[0] == 2 && dl->shape[1] == 3);
  CHECK(dl->strides != NULL && dl->strides[0] == 3 && dl->strides[1] == 1);
  CHECK(dl->dtype.code == kDLFloat && dl->dtype.bits == 32 && dl->dtype.lanes == 1);
  CHECK(((const float*)dl->data)[4] == 4.0f);
  cap->deleter(cap);
  ct_tensor_release(a);
}

static void test_export_keeps_the_tensor_alive_until_the_deleter_runs(void) {
  ct_tensor* a = T(CT_INT64, S(3), 7, 8, 9);
  DLManagedTensorVersioned* cap = NULL;
  CHECK_OK(ct_tensor_to_dlpack(a, &cap));
  ct_tensor_release(a); /* the capsule's reference keeps the memory */
  CHECK(((const int64_t*)cap->dl_tensor.data)[2] == 9);
  cap->deleter(cap); /* frees the tensor; ASan reports a leak if it did not */
}

/* The export deleter drops the capsule's reference: seen through the deleter of a capsule that the
 * exported tensor was itself imported from. */
static void test_export_deleter_releases_the_tensor(void) {
  float buf[2] = {1, 2};
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
  ct_tensor* t = NULL;
  DLManagedTensorVersioned* cap = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  CHECK_OK(ct_tensor_to_dlpack(t, &cap));
  CHECK(cap->dl_tensor.data == (void*)buf);
  ct_tensor_release(t);
  CHECK(c.deleted == 0);
  cap->deleter(cap);
  CHECK(c.deleted == 1);
}

static void test_export_of_a_0_dim_tensor_has_non_null_shape_and_strides(void) {
  ct_tensor* a = T(CT_FLOAT64, S0, 2.5);
  DLManagedTensorVersioned* cap = NULL;
  CHECK_OK(ct_tensor_to_dlpack(a, &cap));
  CHECK(cap->dl_tensor.ndim == 0 && cap->dl_tensor.shape != NULL && cap->dl_tensor.strides != NULL);
  CHECK(*(const double*)cap->dl_tensor.data == 2.5);
  ct_tensor* b = NULL;
  CHECK_OK(ct_tensor_from_dlpack(cap, &b));
  CHECK_TENSOR(b, CT_FLOAT64, S0, 2.5);
  RELEASE(a, b);
}

static void test_export_of_a_transposed_view_keeps_its_strides(void) {
  ct_tensor *a = T(CT_FLOAT32, S(2, 3), 0, 1, 2, 3, 4, 5), *t = NULL, *b = NULL;
  DLManagedTensorVersioned* cap = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &t));
  CHECK_OK(ct_tensor_to_dlpack(t, &cap));
  CHECK(cap->dl_tensor.shape[0] == 3 && cap->dl_tensor.shape[1] == 2);
  CHECK(cap->dl_tensor.strides[0] == 1 && cap->dl_tensor.strides[1] == 3);
  CHECK_OK(ct_tensor_from_dlpack(cap, &b));
  CHECK(strides_are(b, SZ(1, 3), 2));
  int contiguous = 1;
  CHECK_OK(ct_tensor_is_contiguous(b, &contiguous));
  CHECK(contiguous == 0);
  CHECK_TENSOR(b, CT_FLOAT32, S(3, 2), 0, 3, 1, 4, 2, 5);
  RELEASE(a, t, b);
}

static void test_export_of_a_narrowed_view_points_at_its_first_element(void) {
  ct_tensor *a = T(CT_INT32, S(2, 3), 0, 1, 2, 3, 4, 5), *n = NULL, *b = NULL;
  DLManagedTensorVersioned* cap = NULL;
  void* base = NULL;
  CHECK_OK(ct_tensor_narrow(a, 1, 1, 2, &n));
  CHECK_OK(ct_tensor_data_ptr(a, &base));
  CHECK_OK(ct_tensor_to_dlpack(n, &cap));
  /* data + byte_offset addresses element [0, 1] of a */
  CHECK((char*)cap->dl_tensor.data + cap->dl_tensor.byte_offset == (char*)base + 1 * sizeof(int32_t));
  CHECK(cap->dl_tensor.strides[0] == 3 && cap->dl_tensor.strides[1] == 1);
  CHECK_OK(ct_tensor_from_dlpack(cap, &b));
  CHECK_TENSOR(b, CT_INT32, S(2, 2), 1, 2, 4, 5);
  RELEASE(a, n, b);
}

/* ---- Round trips share memory ---- */

static void test_round_trip_shares_memory_both_ways(void) {
  ct_tensor *a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4), *b = NULL;
  DLManagedTensorVersioned* cap = NULL;
  void *pa = NULL, *pb = NULL;
  CHECK_OK(ct_tensor_to_dlpack(a, &cap));
  CHECK_OK(ct_tensor_from_dlpack(cap, &b));
  CHECK_OK(ct_tensor_data_ptr(a, &pa));
  CHECK_OK(ct_tensor_data_ptr(b, &pb));
  CHECK(pa == pb);
  ((float*)pb)[3] = 40.0f; /* write through b, read through a */
  CHECK_TENSOR(a, CT_FLOAT32, S(2, 2), 1, 2, 3, 40);
  ((float*)pa)[0] = -1.0f; /* and the other way */
  CHECK_TENSOR(b, CT_FLOAT32, S(2, 2), -1, 2, 3, 40);
  ct_tensor_release(a); /* b (through the capsule) keeps the memory */
  CHECK_TENSOR(b, CT_FLOAT32, S(2, 2), -1, 2, 3, 40);
  ct_tensor_release(b); /* runs the export deleter: nothing leaks under ASan */
}

static void test_in_place_operator_on_an_import_writes_the_producer_memory(void) {
  float buf[3] = {1, 2, 3};
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLFloat, 32), 1, SZ(3), NULL);
  ct_tensor *t = NULL, *src = T(CT_FLOAT32, S(3), 7, 8, 9), *r = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  ct_value args[2] = {{CT_VALUE_TENSOR, 0, 0, t, NULL, NULL, 0, NULL}, {CT_VALUE_TENSOR, 0, 0, src, NULL, NULL, 0, NULL}};
  CHECK_OK(ct_op_call("copy_", args, 2, &r, 1));
  CHECK(buf[0] == 7 && buf[1] == 8 && buf[2] == 9);
  RELEASE(t, src, r);
  CHECK(c.deleted == 1);
}

/* ---- Import ---- */

static void test_import_honors_byte_offset(void) {
  float buf[6] = {0, 1, 2, 3, 4, 5};
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLFloat, 32), 1, SZ(3), NULL);
  c.m.dl_tensor.byte_offset = 2 * sizeof(float);
  ct_tensor* t = NULL;
  void* p = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  CHECK_OK(ct_tensor_data_ptr(t, &p));
  CHECK(p == (void*)&buf[2]);
  CHECK_TENSOR(t, CT_FLOAT32, S(3), 2, 3, 4);
  ct_tensor_release(t);
  CHECK(c.deleted == 1);
}

static void test_import_with_null_strides_is_row_major(void) {
  int16_t buf[6] = {0, 1, 2, 3, 4, 5};
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLInt, 16), 2, SZ(2, 3), NULL);
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  CHECK(strides_are(t, SZ(3, 1), 2));
  CHECK_TENSOR(t, CT_INT16, S(2, 3), 0, 1, 2, 3, 4, 5);
  ct_tensor_release(t);
}

static void test_import_with_column_major_strides(void) {
  double buf[6] = {0, 3, 1, 4, 2, 5}; /* [[0, 1, 2], [3, 4, 5]] stored column by column */
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLFloat, 64), 2, SZ(2, 3), SZ(1, 2));
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  CHECK(strides_are(t, SZ(1, 2), 2));
  CHECK_TENSOR(t, CT_FLOAT64, S(2, 3), 0, 1, 2, 3, 4, 5);
  ct_tensor_release(t);
}

static void test_import_deleter_runs_once_when_the_last_view_goes(void) {
  float buf[4] = {1, 2, 3, 4};
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLFloat, 32), 1, SZ(4), NULL);
  ct_tensor *t = NULL, *v = NULL, *w = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  CHECK_OK(ct_tensor_narrow(t, 0, 1, 2, &v));
  CHECK_OK(ct_tensor_view(t, S(2, 2), &w));
  ct_tensor_release(t);
  CHECK(c.deleted == 0);
  ct_tensor_release(v);
  CHECK(c.deleted == 0);
  CHECK_TENSOR(w, CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor_release(w);
  CHECK(c.deleted == 1);
  CHECK(c.deleted_self == &c.m);
}

static void* release_on_thread(void* arg) {
  ct_tensor_release((ct_tensor*)arg);
  return NULL;
}

static void test_import_deleter_may_run_on_another_thread(void) {
  uint8_t buf[2] = {1, 0};
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLBool, 8), 1, SZ(2), NULL);
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  pthread_t th;
  CHECK(pthread_create(&th, NULL, release_on_thread, t) == 0);
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(c.deleted == 1);
}

static void test_import_accepts_a_null_deleter(void) {
  int64_t buf[2] = {5, 6};
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLInt, 64), 1, SZ(2), NULL);
  c.m.deleter = NULL;
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  CHECK_TENSOR(t, CT_INT64, S(2), 5, 6);
  ct_tensor_release(t);
  CHECK(c.deleted == 0);
}

static void test_import_accepts_the_is_copied_flag_and_newer_minor_versions(void) {
  float buf[1] = {3};
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLFloat, 32), 1, SZ(1), NULL);
  c.m.flags = DLPACK_FLAG_BITMASK_IS_COPIED;
  c.m.version.minor = 7;
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  CHECK_TENSOR(t, CT_FLOAT32, S(1), 3);
  ct_tensor_release(t);
  CHECK(c.deleted == 1);
}

static void test_import_of_an_empty_tensor_with_null_data(void) {
  vcapsule c;
  vcapsule_init(&c, NULL, dt(kDLFloat, 32), 2, SZ(0, 3), NULL);
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  CHECK_META(t, CT_FLOAT32, S(0, 3));
  ct_tensor_release(t);
  CHECK(c.deleted == 1);
}

static void test_unversioned_import_shares_memory_and_deletes_once(void) {
  int32_t buf[4] = {1, 2, 3, 4};
  ucapsule c;
  ucapsule_init(&c, buf, dt(kDLInt, 32), 2, SZ(2, 2));
  ct_tensor *t = NULL, *v = NULL;
  CHECK_OK(ct_tensor_from_dlpack_unversioned(&c.m, &t));
  CHECK_TENSOR(t, CT_INT32, S(2, 2), 1, 2, 3, 4);
  CHECK_OK(ct_tensor_select(t, 0, 1, &v));
  buf[3] = 40;
  CHECK_TENSOR(v, CT_INT32, S(2), 3, 40);
  ct_tensor_release(t);
  CHECK(c.deleted == 0);
  ct_tensor_release(v);
  CHECK(c.deleted == 1);
}

/* ---- Dtypes both ways ---- */

static const struct {
  ct_dtype ct;
  uint8_t code, bits;
} kDTypes[] = {
    {CT_BOOL, kDLBool, 8},      {CT_UINT8, kDLUInt, 8},     {CT_INT8, kDLInt, 8},       {CT_INT16, kDLInt, 16},
    {CT_INT32, kDLInt, 32},     {CT_INT64, kDLInt, 64},     {CT_FLOAT16, kDLFloat, 16}, {CT_BFLOAT16, kDLBfloat, 16},
    {CT_FLOAT32, kDLFloat, 32}, {CT_FLOAT64, kDLFloat, 64}, {CT_COMPLEX64, kDLComplex, 64},
    {CT_COMPLEX128, kDLComplex, 128},
};

static void test_every_dtype_exports_to_its_dlpack_code_and_bits(void) {
  for (size_t i = 0; i < sizeof kDTypes / sizeof *kDTypes; ++i) {
    capi_context = ct_dtype_name(kDTypes[i].ct);
    ct_tensor* a = T(kDTypes[i].ct, S(3), 0, 1, 1);
    DLManagedTensorVersioned* cap = NULL;
    CHECK_OK(ct_tensor_to_dlpack(a, &cap));
    CHECK(cap->dl_tensor.dtype.code == kDTypes[i].code);
    CHECK(cap->dl_tensor.dtype.bits == kDTypes[i].bits);
    CHECK(cap->dl_tensor.dtype.lanes == 1);
    cap->deleter(cap);
    ct_tensor_release(a);
  }
}

static void test_every_dlpack_code_and_bits_imports_to_its_dtype(void) {
  for (size_t i = 0; i < sizeof kDTypes / sizeof *kDTypes; ++i) {
    capi_context = ct_dtype_name(kDTypes[i].ct);
    uint64_t buf[6];  /* three elements of up to 16 bytes */
    memset(buf, 0, sizeof buf);
    capi_store(kDTypes[i].ct, buf, 0, 1.0);
    capi_store(kDTypes[i].ct, buf, 2, 1.0);
    vcapsule c;
    vcapsule_init(&c, buf, dt(kDTypes[i].code, kDTypes[i].bits), 1, SZ(3), NULL);
    ct_tensor* t = NULL;
    CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
    CHECK_TENSOR(t, kDTypes[i].ct, S(3), 1, 0, 1);
    ct_tensor_release(t);
    CHECK(c.deleted == 1);
  }
}

static void test_half_types_keep_their_bits_through_a_round_trip(void) {
  ct_tensor *h = T(CT_FLOAT16, S(2), 1.5, -2.25), *b = T(CT_BFLOAT16, S(2), 3.0, -0.5), *h2 = NULL, *b2 = NULL;
  DLManagedTensorVersioned *ch = NULL, *cb = NULL;
  CHECK_OK(ct_tensor_to_dlpack(h, &ch));
  CHECK_OK(ct_tensor_to_dlpack(b, &cb));
  CHECK(((const uint16_t*)ch->dl_tensor.data)[0] == capi_float_to_half(1.5f));
  CHECK(((const uint16_t*)cb->dl_tensor.data)[1] == capi_float_to_bf16(-0.5f));
  CHECK_OK(ct_tensor_from_dlpack(ch, &h2));
  CHECK_OK(ct_tensor_from_dlpack(cb, &b2));
  CHECK_TENSOR(h2, CT_FLOAT16, S(2), 1.5, -2.25);
  CHECK_TENSOR(b2, CT_BFLOAT16, S(2), 3.0, -0.5);
  RELEASE(h, b, h2, b2);
}

/* ---- Errors: export ---- */

static void test_export_null_or_released_tensor_is_invalid_argument(void) {
  DLManagedTensorVersioned* cap = (DLManagedTensorVersioned*)capi_sentinel();
  CHECK_STATUS(ct_tensor_to_dlpack(NULL, &cap), CT_ERROR_INVALID_ARGUMENT);
  CHECK(cap == NULL);
  CHECK_ERROR_CONTAINS("ct_tensor_to_dlpack: argument t is NULL");
  ct_tensor* dead = capi_released();
  cap = (DLManagedTensorVersioned*)capi_sentinel();
  CHECK_STATUS(ct_tensor_to_dlpack(dead, &cap), CT_ERROR_INVALID_ARGUMENT);
  CHECK(cap == NULL);
  CHECK_ERROR_CONTAINS("released");
}

static void test_export_null_out_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  CHECK_STATUS(ct_tensor_to_dlpack(a, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("out");
  ct_tensor_release(a);
}

static void test_export_of_a_meta_tensor_is_device_error(void) {
  ct_tensor* m = NULL;
  DLManagedTensorVersioned* cap = (DLManagedTensorVersioned*)capi_sentinel();
  CHECK_OK(ct_tensor_empty(S(2), CT_FLOAT32, "meta", &m));
  CHECK_STATUS(ct_tensor_to_dlpack(m, &cap), CT_ERROR_DEVICE);
  CHECK(cap == NULL);
  CHECK_ERROR_CONTAINS("meta");
  ct_tensor_release(m);
}

/* ---- Errors: import. Each failure leaves the capsule to the caller: its deleter does not run. ---- */

/* Imports c (versioned) expecting status; the deleter must not have run and out must be NULL. */
#define CHECK_IMPORT_FAILS(c, status, needle)                    \
  do {                                                           \
    ct_tensor* t_ = SENTINEL;                                    \
    CHECK_STATUS(ct_tensor_from_dlpack(&(c).m, &t_), (status));  \
    CHECK(t_ == NULL);                                           \
    CHECK((c).deleted == 0);                                     \
    CHECK_ERROR_CONTAINS(needle);                                \
  } while (0)

static float g_buf[8];

static void test_import_null_src_or_out_is_invalid_argument(void) {
  ct_tensor* t = SENTINEL;
  CHECK_STATUS(ct_tensor_from_dlpack(NULL, &t), CT_ERROR_INVALID_ARGUMENT);
  CHECK(t == NULL);
  CHECK_ERROR_CONTAINS("src is NULL");
  t = SENTINEL;
  CHECK_STATUS(ct_tensor_from_dlpack_unversioned(NULL, &t), CT_ERROR_INVALID_ARGUMENT);
  CHECK(t == NULL);
  vcapsule c;
  vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
  CHECK_STATUS(ct_tensor_from_dlpack(&c.m, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK(c.deleted == 0);
  ucapsule u;
  ucapsule_init(&u, g_buf, dt(kDLFloat, 32), 1, SZ(2));
  CHECK_STATUS(ct_tensor_from_dlpack_unversioned(&u.m, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK(u.deleted == 0);
}

static void test_import_of_memory_neither_cpu_nor_cuda_is_device_error(void) {
  const DLDeviceType devices[] = {kDLCUDAHost, kDLCUDAManaged, kDLROCM};
  for (size_t i = 0; i < sizeof devices / sizeof *devices; ++i) {
    vcapsule c;
    vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
    c.m.dl_tensor.device.device_type = devices[i];
    CHECK_IMPORT_FAILS(c, CT_ERROR_DEVICE, "ctorch imports cpu (kDLCPU) and cuda (kDLCUDA) memory");
  }
}

/* A cuda capsule for a device this process does not have (none at all without a GPU). */
static void test_import_of_memory_on_a_missing_cuda_device_is_device_error(void) {
  vcapsule c;
  vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
  c.m.dl_tensor.device.device_type = kDLCUDA;
  c.m.dl_tensor.device.device_id = 127;
  CHECK_IMPORT_FAILS(c, CT_ERROR_DEVICE, "cuda");
  if (ct_cuda_device_count() > 0) return;
  ucapsule u;
  ucapsule_init(&u, g_buf, dt(kDLFloat, 32), 1, SZ(2));
  u.m.dl_tensor.device.device_type = kDLCUDA;
  ct_tensor* t = SENTINEL;
  CHECK_STATUS(ct_tensor_from_dlpack_unversioned(&u.m, &t), CT_ERROR_DEVICE);
  CHECK(t == NULL && u.deleted == 0);
}

static void test_import_of_an_unsupported_dtype_is_dtype_error(void) {
  const DLDataType bad[] = {dt(kDLComplex, 32), dt(kDLOpaqueHandle, 64), dt(kDLUInt, 16), dt(kDLUInt, 32),
                            dt(kDLUInt, 64),    dt(kDLFloat, 8),         dt(kDLInt, 1),   dt(kDLBool, 1),
                            dt(kDLBfloat, 32),  dt(7, 8)};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    vcapsule c;
    vcapsule_init(&c, g_buf, bad[i], 1, SZ(2), NULL);
    CHECK_IMPORT_FAILS(c, CT_ERROR_DTYPE, "has no ctorch dtype");
  }
  ucapsule u;
  ucapsule_init(&u, g_buf, dt(kDLComplex, 32), 1, SZ(2));  /* complex32: no ctorch dtype */
  ct_tensor* t = SENTINEL;
  CHECK_STATUS(ct_tensor_from_dlpack_unversioned(&u.m, &t), CT_ERROR_DTYPE);
  CHECK(t == NULL && u.deleted == 0);
}

static void test_import_of_vector_lanes_is_dtype_error(void) {
  vcapsule c;
  vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
  c.m.dl_tensor.dtype.lanes = 4;
  CHECK_IMPORT_FAILS(c, CT_ERROR_DTYPE, "lanes 4");
}

static void test_import_of_another_major_version_is_version_error(void) {
  const uint32_t majors[] = {0, 2, 100};
  for (size_t i = 0; i < sizeof majors / sizeof *majors; ++i) {
    vcapsule c;
    vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
    c.m.version.major = majors[i];
    /* a consumer reads no other field: even a bad device must not matter */
    c.m.dl_tensor.device.device_type = kDLCUDA;
    CHECK_IMPORT_FAILS(c, CT_ERROR_VERSION, "DLPack");
  }
}

static void test_import_of_a_read_only_capsule_gives_a_tensor_that_refuses_writes(void) {
  float buf[2] = {1, 2};
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
  c.m.flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
  ct_tensor *t = NULL, *v = NULL, *sum = NULL;
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  int ro = 0;
  CHECK_OK(ct_tensor_is_read_only(t, &ro));
  CHECK(ro == 1);
  CHECK_OK(ct_tensor_add(t, t, &sum)); /* reading is unrestricted */
  CHECK_TENSOR(sum, CT_FLOAT32, S(2), 2, 4);
  const ct_scalar one = {CT_SCALAR_FLOAT, .f = 1.0};
  CHECK_STATUS(ct_tensor_add_scalar_(t, &one), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("read-only");
  CHECK_OK(ct_tensor_narrow(t, 0, 1, 1, &v)); /* a view shares the refusal */
  CHECK_STATUS(ct_tensor_add_scalar_(v, &one), CT_ERROR_INVALID_ARGUMENT);
  CHECK(buf[0] == 1 && buf[1] == 2);
  /* Export: DLPack 1.0 carries the flag, the legacy capsule cannot and is refused. */
  DLManagedTensorVersioned* cap = NULL;
  CHECK_OK(ct_tensor_to_dlpack(v, &cap));
  CHECK((cap->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0);
  cap->deleter(cap);
  DLManagedTensor* legacy = (DLManagedTensor*)capi_sentinel();
  CHECK_STATUS(ct_tensor_to_dlpack_unversioned(t, &legacy), CT_ERROR_INVALID_ARGUMENT);
  CHECK(legacy == NULL);
  CHECK_ERROR_CONTAINS("ct_tensor_to_dlpack");
  RELEASE(sum, v, t);
  CHECK(c.deleted == 1);
}

static void test_import_of_bool_bytes_other_than_0_and_1_is_invalid_argument(void) {
  uint8_t buf[4] = {0, 1, 2, 255};
  vcapsule c;
  vcapsule_init(&c, buf, dt(kDLBool, 8), 1, SZ(4), NULL);
  CHECK_IMPORT_FAILS(c, CT_ERROR_INVALID_ARGUMENT, "byte 255");
  ucapsule u;
  ucapsule_init(&u, buf, dt(kDLBool, 8), 1, SZ(4));
  ct_tensor* t = SENTINEL;
  CHECK_STATUS(ct_tensor_from_dlpack_unversioned(&u.m, &t), CT_ERROR_INVALID_ARGUMENT);
  CHECK(t == NULL && u.deleted == 0);
  /* The same bytes seen through strides that skip the bad ones are fine. */
  vcapsule_init(&c, buf, dt(kDLBool, 8), 1, SZ(2), SZ(1));
  CHECK_OK(ct_tensor_from_dlpack(&c.m, &t));
  ct_tensor_release(t);
}

static void test_unversioned_import_of_a_byte_offset_into_the_upper_half_is_invalid_argument(void) {
  ucapsule u;
  ucapsule_init(&u, g_buf, dt(kDLFloat, 32), 1, SZ(2));
  u.m.dl_tensor.byte_offset = (uint64_t)1 << 63;
  ct_tensor* t = SENTINEL;
  CHECK_STATUS(ct_tensor_from_dlpack_unversioned(&u.m, &t), CT_ERROR_INVALID_ARGUMENT);
  CHECK(t == NULL && u.deleted == 0);
  CHECK_ERROR_CONTAINS("addressable memory");
}

static void test_import_of_a_negative_stride_is_invalid_argument(void) {
  vcapsule c;
  vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 2, SZ(2, 2), SZ(-2, 1));
  CHECK_IMPORT_FAILS(c, CT_ERROR_INVALID_ARGUMENT, "negative stride");
}

static void test_import_of_bad_geometry_is_invalid_argument(void) {
  vcapsule c;
  vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
  c.m.dl_tensor.ndim = -1;
  CHECK_IMPORT_FAILS(c, CT_ERROR_INVALID_ARGUMENT, "ndim -1");
  vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
  c.m.dl_tensor.ndim = 65;
  CHECK_IMPORT_FAILS(c, CT_ERROR_INVALID_ARGUMENT, "ndim 65");
  vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
  c.m.dl_tensor.shape = NULL;
  CHECK_IMPORT_FAILS(c, CT_ERROR_INVALID_ARGUMENT, "shape is NULL");
  vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 2, SZ(2, -3), NULL);
  CHECK_IMPORT_FAILS(c, CT_ERROR_INVALID_ARGUMENT, "negative size");
  vcapsule_init(&c, NULL, dt(kDLFloat, 32), 1, SZ(2), NULL);
  CHECK_IMPORT_FAILS(c, CT_ERROR_INVALID_ARGUMENT, "data is NULL");
  vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 1, SZ(2), NULL);
  c.m.dl_tensor.byte_offset = 2; /* half-way into a float */
  CHECK_IMPORT_FAILS(c, CT_ERROR_INVALID_ARGUMENT, "not aligned");
  vcapsule_init(&c, g_buf, dt(kDLFloat, 32), 2, SZ(2, 2), SZ((int64_t)1 << 62, 1));
  CHECK_IMPORT_FAILS(c, CT_ERROR_INVALID_ARGUMENT, "addressable");
}

static void test_unversioned_round_trip_shares_memory(void) {
  ct_tensor *a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4), *at = NULL, *b = NULL;
  DLManagedTensor* cap = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &at));
  CHECK_OK(ct_tensor_to_dlpack_unversioned(at, &cap));
  CHECK(cap != NULL && cap->dl_tensor.strides[0] == 1 && cap->dl_tensor.strides[1] == 2);
  CHECK_OK(ct_tensor_from_dlpack_unversioned(cap, &b));
  CHECK_TENSOR(b, CT_FLOAT32, S(2, 2), 1, 3, 2, 4);
  void* pa = NULL;
  CHECK_OK(ct_tensor_data_ptr(a, &pa));
  ((float*)pa)[1] = 20.0f; /* a[0][1] is b[1][0] */
  CHECK_TENSOR(b, CT_FLOAT32, S(2, 2), 1, 3, 20, 4);
  RELEASE(b, at, a);
}

static void test_unversioned_export_bad_arguments(void) {
  DLManagedTensor* cap = (DLManagedTensor*)capi_sentinel();
  CHECK_STATUS(ct_tensor_to_dlpack_unversioned(NULL, &cap), CT_ERROR_INVALID_ARGUMENT);
  CHECK(cap == NULL);
  CHECK_STATUS(ct_tensor_to_dlpack_unversioned(capi_released(), &cap), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  CHECK_STATUS(ct_tensor_to_dlpack_unversioned(a, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(2), CT_FLOAT32, "meta", &m));
  CHECK_STATUS(ct_tensor_to_dlpack_unversioned(m, &cap), CT_ERROR_DEVICE);
  RELEASE(m, a);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_unversioned_round_trip_shares_memory),
    CAPI_TEST(test_unversioned_export_bad_arguments),
    CAPI_TEST(test_export_fills_every_field),
    CAPI_TEST(test_export_keeps_the_tensor_alive_until_the_deleter_runs),
    CAPI_TEST(test_export_deleter_releases_the_tensor),
    CAPI_TEST(test_export_of_a_0_dim_tensor_has_non_null_shape_and_strides),
    CAPI_TEST(test_export_of_a_transposed_view_keeps_its_strides),
    CAPI_TEST(test_export_of_a_narrowed_view_points_at_its_first_element),
    CAPI_TEST(test_round_trip_shares_memory_both_ways),
    CAPI_TEST(test_in_place_operator_on_an_import_writes_the_producer_memory),
    CAPI_TEST(test_import_honors_byte_offset),
    CAPI_TEST(test_import_with_null_strides_is_row_major),
    CAPI_TEST(test_import_with_column_major_strides),
    CAPI_TEST(test_import_deleter_runs_once_when_the_last_view_goes),
    CAPI_TEST(test_import_deleter_may_run_on_another_thread),
    CAPI_TEST(test_import_accepts_a_null_deleter),
    CAPI_TEST(test_import_accepts_the_is_copied_flag_and_newer_minor_versions),
    CAPI_TEST(test_import_of_an_empty_tensor_with_null_data),
    CAPI_TEST(test_unversioned_import_shares_memory_and_deletes_once),
    CAPI_TEST(test_every_dtype_exports_to_its_dlpack_code_and_bits),
    CAPI_TEST(test_every_dlpack_code_and_bits_imports_to_its_dtype),
    CAPI_TEST(test_half_types_keep_their_bits_through_a_round_trip),
    CAPI_TEST(test_export_null_or_released_tensor_is_invalid_argument),
    CAPI_TEST(test_export_null_out_is_invalid_argument),
    CAPI_TEST(test_export_of_a_meta_tensor_is_device_error),
    CAPI_TEST(test_import_null_src_or_out_is_invalid_argument),
    CAPI_TEST(test_import_of_memory_neither_cpu_nor_cuda_is_device_error),
    CAPI_TEST(test_import_of_memory_on_a_missing_cuda_device_is_device_error),
    CAPI_TEST(test_import_of_an_unsupported_dtype_is_dtype_error),
    CAPI_TEST(test_import_of_vector_lanes_is_dtype_error),
    CAPI_TEST(test_import_of_another_major_version_is_version_error),
    CAPI_TEST(test_import_of_a_read_only_capsule_gives_a_tensor_that_refuses_writes),
    CAPI_TEST(test_import_of_bool_bytes_other_than_0_and_1_is_invalid_argument),
    CAPI_TEST(test_unversioned_import_of_a_byte_offset_into_the_upper_half_is_invalid_argument),
    CAPI_TEST(test_import_of_a_negative_stride_is_invalid_argument),
    CAPI_TEST(test_import_of_bad_geometry_is_invalid_argument),
};

CAPI_MAIN(TESTS)
