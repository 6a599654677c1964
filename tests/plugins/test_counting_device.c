/* test_counting_device.c - the counting device of examples/plugin/counting.c, autoloaded from
 * CTORCH_BACKEND_PATH: a device backend and its kernels written in plain C. */
#include "capi_test.h"

/* counting::stats(): [kernel calls, bytes held on the device]. */
static int64_t counting_stat(int which) {
  ct_tensor* s = NULL;
  int64_t v[2] = {-1, -1};
  if (ct_op_call("counting::stats", NULL, 0, &s, 1) == CT_OK && ct_tensor_copy_to(s, v, sizeof v) == CT_OK) {
    ct_tensor_release(s);
    return v[which];
  }
  printf("counting::stats: %s\n", ct_last_error());
  return -1;
}
#define KERNEL_CALLS() counting_stat(0)
#define BYTES_HELD() counting_stat(1)

static ct_tensor* on(const ct_tensor* t, const char* device) {
  ct_tensor* out = NULL;
  if (ct_tensor_to_device(t, device, &out) != CT_OK) printf("to %s: %s\n", device, ct_last_error());
  return out;
}

static void test_loaded_and_named(void) {
  CHECK_OK(ct_init(CT_ABI_VERSION));
  CHECK_STR_EQ(ct_device_type_name(CT_DEVICE_PLUGIN1), "counting");
  CHECK(ct_device_type_name(CT_DEVICE_PLUGIN2) == NULL);
  CHECK_STR_EQ(ct_device_type_name(CT_DEVICE_CUDA), "cuda");
  CHECK(ct_device_type_name((ct_device_type)99) == NULL);
  char* json = NULL;
  CHECK_OK(ct_plugins_json(&json));
  CHECK_CONTAINS(json, "libctorch_counting.so\",\"loaded\":true");
  ct_string_release(json);
  CHECK_OK(ct_op_registry_json(&json));
  CHECK_CONTAINS(json, "\"counting\": {\"determinism\": \"deterministic\"}");
  ct_string_release(json);
}

static void test_round_trip(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* d = on(x, "counting");
  ct_device_type type;
  int32_t index;
  CHECK_OK(ct_tensor_device(d, &type, &index));
  CHECK(type == CT_DEVICE_PLUGIN1 && index == 0);
  void* p = NULL;
  CHECK_OK(ct_tensor_data_ptr(d, &p)); /* the device's own memory: host memory for this device */
  CHECK(((float*)p)[5] == 6);
  ct_tensor* d1 = on(d, "counting:1"); /* device to device, through the host */
  CHECK_OK(ct_tensor_device(d1, &type, &index));
  CHECK(type == CT_DEVICE_PLUGIN1 && index == 1);
  ct_tensor* back = on(d1, "cpu");
  CHECK_TENSOR(back, CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* same = on(d, "counting:0");
  CHECK(same == d); /* already there: the same tensor, as torch's to() */
  RELEASE(x, d, d1, back, same);
}

static void test_strided_view_comes_back(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* d = on(x, "counting");
  ct_tensor *t = NULL, *col = NULL;
  CHECK_OK(ct_tensor_transpose(d, 0, 1, &t)); /* a view: no kernel on the device */
  ct_tensor* back = on(t, "cpu");
  CHECK_TENSOR(back, CT_FLOAT32, S(3, 2), 1, 4, 2, 5, 3, 6);
  CHECK_OK(ct_tensor_select(d, 1, 2, &col)); /* storage offset 2, stride 3 */
  ct_tensor* col_back = on(col, "cpu");
  CHECK_TENSOR(col_back, CT_FLOAT32, S(2), 3, 6);
  int64_t v[2];
  CHECK_OK(ct_tensor_copy_to(col, v, sizeof(float) * 2)); /* copy_to reads through the host */
  CHECK(((float*)v)[1] == 6);
  ct_scalar s;
  CHECK_OK(ct_tensor_item(t, &s) == CT_OK ? CT_ERROR_INTERNAL : CT_OK);
  RELEASE(x, d, t, back, col, col_back);
}

static void test_kernels_run_there_and_are_counted(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, -2, 3, -4, 5, -6);
  ct_tensor* b = T(CT_FLOAT32, S(3), 10, 20, 30);
  ct_tensor *da = on(a, "counting"), *db = on(b, "counting");
  const int64_t before = KERNEL_CALLS();
  ct_tensor *sum = NULL, *prod = NULL, *neg = NULL, *relu = NULL, *total = NULL;
  const ct_value args[3] = {{CT_VALUE_TENSOR, 0, 0.0, da, NULL, NULL, 0, NULL},
                            {CT_VALUE_TENSOR, 0, 0.0, db, NULL, NULL, 0, NULL},
                            {CT_VALUE_INT, 2, 0.0, NULL, NULL, NULL, 0, NULL}};
  CHECK_OK(ct_op_call("add.Tensor", args, 3, &sum, 1)); /* broadcast: [2,3] + alpha 2 * [3] */
  CHECK_OK(ct_tensor_mul(da, db, &prod));
  CHECK_OK(ct_tensor_neg(da, &neg));
  CHECK_OK(ct_tensor_relu(da, &relu));
  CHECK_OK(ct_tensor_sum(da, NULL, 0, 0, &total));
  CHECK(KERNEL_CALLS() - before == 5);
  ct_device_type type;
  int32_t index;
  CHECK_OK(ct_tensor_device(sum, &type, &index));
  CHECK(type == CT_DEVICE_PLUGIN1);
  ct_tensor *c0 = on(sum, "cpu"), *c1 = on(prod, "cpu"), *c2 = on(neg, "cpu"), *c3 = on(relu, "cpu"),
            *c4 = on(total, "cpu");
  CHECK_TENSOR(c0, CT_FLOAT32, S(2, 3), 21, 38, 63, 16, 45, 54);
  CHECK_TENSOR(c1, CT_FLOAT32, S(2, 3), 10, -40, 90, -40, 100, -180);
  CHECK_TENSOR(c2, CT_FLOAT32, S(2, 3), -1, 2, -3, 4, -5, 6);
  CHECK_TENSOR(c3, CT_FLOAT32, S(2, 3), 1, 0, 3, 0, 5, 0);
  CHECK_TENSOR(c4, CT_FLOAT32, S0, -3);
  RELEASE(a, b, da, db, sum, prod, neg, relu, total, c0, c1, c2, c3, c4);
}

static void test_missing_kernel_names_operator_and_device(void) {
  ct_tensor* x = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* d = on(x, "counting");
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_exp(d, &out), CT_ERROR_DEVICE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("exp: no kernel for counting");
  CHECK_ERROR_CONTAINS("kernels exist for: cpu");
  RELEASE(x, d);
}

static void test_shared_shape_rule_and_kernel_errors(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* b = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
  ct_tensor* i = T(CT_INT64, S(2), 1, 2);
  ct_tensor *da = on(a, "counting"), *db = on(b, "counting"), *di = on(i, "counting");
  const int64_t before = KERNEL_CALLS();
  ct_tensor* out = NULL;
  CHECK_STATUS(ct_tensor_add(da, db, &out), CT_ERROR_SHAPE); /* the cpu's shape rule, the cpu's words */
  CHECK_ERROR_CONTAINS("[2, 3]");
  CHECK(KERNEL_CALLS() == before); /* refused before the kernel ran */
  CHECK_STATUS(ct_tensor_add(da, a, &out), CT_ERROR_DEVICE); /* mixed devices */
  CHECK_STATUS(ct_tensor_add(di, di, &out), CT_ERROR_NOT_IMPLEMENTED); /* the kernel's own refusal */
  CHECK_ERROR_CONTAINS("counting: add.Tensor supports float32 tensors only");
  CHECK_ERROR_CONTAINS("add.Tensor");
  CHECK(out == NULL);
  RELEASE(a, b, i, da, db, di);
}

static void test_devices_and_factories(void) {
  const int64_t sizes[2] = {2, 2};
  ct_tensor* e = NULL;
  CHECK_OK(ct_tensor_empty(sizes, 2, CT_FLOAT32, "counting:1", &e));
  ct_device_type type;
  int32_t index;
  CHECK_OK(ct_tensor_device(e, &type, &index));
  CHECK(type == CT_DEVICE_PLUGIN1 && index == 1);
  ct_tensor_release(e);
  CHECK_STATUS(ct_tensor_empty(sizes, 2, CT_FLOAT32, "counting:2", &e), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("this process has 2 counting devices");
  CHECK_STATUS(ct_tensor_empty(sizes, 2, CT_FLOAT32, "countin", &e), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("\"counting\"");
  ct_tensor* x = T(CT_FLOAT32, S(1), 1);
  CHECK_STATUS(ct_tensor_to_device(x, "counting:7", &e), CT_ERROR_DEVICE);
  CHECK_STATUS(ct_tensor_to_device(x, NULL, &e), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_to_device(NULL, "counting", &e), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(x);
}

static void test_gradients_flow_back_to_the_cpu(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_OK(ct_tensor_set_requires_grad(x, 1));
  ct_tensor* d = on(x, "counting");
  ct_tensor *sq = NULL, *loss = NULL, *g = NULL;
  CHECK_OK(ct_tensor_mul(d, d, &sq));
  CHECK_OK(ct_tensor_sum(sq, NULL, 0, 0, &loss));
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  CHECK_OK(ct_tensor_grad(x, &g));
  CHECK_TENSOR(g, CT_FLOAT32, S(3), 2, 4, 6); /* d(sum x^2)/dx, computed on the device, back on the cpu */
  RELEASE(x, d, sq, loss, g);
}

static void test_register_errors(void) {
  const ct_backend dummy = {0};
  ct_device_type type = CT_DEVICE_CPU;
  CHECK_STATUS(ct_backend_register("counting", &dummy, NULL, &type), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("struct_size");
  ct_backend half = dummy;
  half.struct_size = sizeof half;
  CHECK_STATUS(ct_backend_register("other", &half, NULL, &type), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("leaves a function NULL");
  CHECK_STATUS(ct_backend_register(NULL, &half, NULL, &type), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_backend_register("other", NULL, NULL, &type), CT_ERROR_INVALID_ARGUMENT);
  CHECK(type == CT_DEVICE_CPU);
}

/* The same functions under another name register; a name already taken does not. */
static int32_t one_device(void* u) {
  (void)u;
  return 1;
}
static ct_status no_memory(void* u, int32_t i, size_t n, void** out) {
  (void)u, (void)i, (void)n;
  *out = NULL;
  ct_error_set(CT_ERROR_OUT_OF_MEMORY, "tiny: this device holds nothing");
  return CT_ERROR_OUT_OF_MEMORY;
}
static void no_free(void* u, int32_t i, void* p, size_t n) { (void)u, (void)i, (void)p, (void)n; }
static ct_status no_copy(void* u, int32_t i, void* dst, const void* src, size_t n) {
  (void)u, (void)i, (void)dst, (void)src, (void)n;
  return CT_OK;
}

static void test_double_registration_and_backend_errors(void) {
  const ct_backend tiny = {sizeof(ct_backend), one_device, no_memory, no_free, no_copy, no_copy};
  ct_device_type type = CT_DEVICE_CPU;
  CHECK_STATUS(ct_backend_register("counting", &tiny, NULL, &type), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("'counting' is already registered");
  CHECK_STATUS(ct_backend_register("cuda", &tiny, NULL, &type), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_backend_register("cpu", &tiny, NULL, &type), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_backend_register("Tiny-Device", &tiny, NULL, &type), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("lowercase letters");
  CHECK_OK(ct_backend_register("tiny", &tiny, NULL, &type));
  CHECK(type == CT_DEVICE_PLUGIN2);
  CHECK_STATUS(ct_backend_register("tiny", &tiny, NULL, &type), CT_ERROR_INVALID_ARGUMENT);
  /* The backend's own out-of-memory reaches the caller with its words. */
  ct_tensor* x = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_to_device(x, "tiny", &out), CT_ERROR_OUT_OF_MEMORY);
  CHECK_ERROR_CONTAINS("tiny: this device holds nothing");
  CHECK(out == NULL);
  ct_tensor_release(x);
}

/* Runs last: every tensor above was released, so the device holds nothing. */
static void test_zz_nothing_leaked(void) { CHECK(BYTES_HELD() == 0); }

static const capi_test TESTS[] = {CAPI_TEST(test_loaded_and_named),
                                  CAPI_TEST(test_round_trip),
                                  CAPI_TEST(test_strided_view_comes_back),
                                  CAPI_TEST(test_kernels_run_there_and_are_counted),
                                  CAPI_TEST(test_missing_kernel_names_operator_and_device),
                                  CAPI_TEST(test_shared_shape_rule_and_kernel_errors),
                                  CAPI_TEST(test_devices_and_factories),
                                  CAPI_TEST(test_gradients_flow_back_to_the_cpu),
                                  CAPI_TEST(test_register_errors),
                                  CAPI_TEST(test_double_registration_and_backend_errors),
                                  CAPI_TEST(test_zz_nothing_leaked)};
CAPI_MAIN(TESTS)
