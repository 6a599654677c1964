/* test_metrics.c - ct_metric_get: the live counters move with creation and release. */
#include "capi_test.h"

static int64_t metric(const char* name) {
  int64_t v = -1;
  if (ct_metric_get(name, &v) != CT_OK) printf("ct_metric_get(%s): %s\n", name, ct_last_error());
  return v;
}

static void test_live_tensors_and_storages_follow_creation_and_release(void) {
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* v = NULL;
  CHECK_OK(ct_tensor_transpose(a, 0, 1, &v)); /* a view: a new tensor, no new storage */
  CHECK(metric("tensors.live") == t0 + 2);
  CHECK(metric("storages.live") == s0 + 1);
  ct_tensor_release(a);
  CHECK(metric("tensors.live") == t0 + 1); /* the view keeps the storage */
  CHECK(metric("storages.live") == s0 + 1);
  ct_tensor_release(v);
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
}

static void test_a_million_operations_leave_nothing_behind(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
  const int64_t t0 = metric("tensors.live"), s0 = metric("storages.live");
  const int64_t b0 = metric("memory.cpu.bytes_allocated");
  for (int i = 0; i < 1000000; ++i) {
    ct_tensor *b = NULL, *c = NULL;
    CHECK_OK(ct_tensor_add(a, a, &b));
    CHECK_OK(ct_tensor_mul(b, a, &c));
    ct_tensor_release(c);
    ct_tensor_release(b);
  }
  CHECK(metric("tensors.live") == t0);
  CHECK(metric("storages.live") == s0);
  CHECK(metric("memory.cpu.bytes_allocated") == b0);
  ct_tensor_release(a);
}

static void test_large_tensors_count_their_bytes(void) {
  const int64_t b0 = metric("memory.cpu.bytes_allocated");
  ct_tensor* big = NULL;
  CHECK_OK(ct_tensor_zeros(S(1 << 20), CT_FLOAT32, NULL, &big));
  CHECK(metric("memory.cpu.bytes_allocated") >= b0 + (4 << 20));
  ct_tensor_release(big);
  CHECK(metric("memory.cpu.bytes_allocated") == b0);
  CHECK(metric("memory.cpu.bytes_cached") >= (4 << 20)); /* the freed block is kept for reuse */
}

static void test_metric_bad_arguments(void) {
  int64_t v = 0;
  CHECK_STATUS(ct_metric_get(NULL, &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_metric_get("tensors.live", NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_metric_get("tensors.alive", &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("tensors.live");
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_live_tensors_and_storages_follow_creation_and_release),
    CAPI_TEST(test_a_million_operations_leave_nothing_behind),
    CAPI_TEST(test_large_tensors_count_their_bytes),
    CAPI_TEST(test_metric_bad_arguments),
};

CAPI_MAIN(TESTS)
