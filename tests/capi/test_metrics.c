/* test_metrics.c - ct_metric_get, ct_metrics_json: the live counters move with creation and release. */
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
  CHECK(metric("tensors.live") == t0 + 2); /* the view keeps its base, and so the storage */
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

static void test_large_tensors_count_their_allocations(void) {
  const int64_t n0 = metric("memory.cpu.allocations_live");
  ct_tensor *big = NULL, *big2 = NULL;
  CHECK_OK(ct_tensor_zeros(S(1000), CT_FLOAT32, NULL, &big));
  CHECK_OK(ct_tensor_zeros(S(1 << 20), CT_FLOAT32, NULL, &big2));
  CHECK(metric("memory.cpu.allocations_live") == n0 + 2);
  ct_tensor_release(big2);
  CHECK(metric("memory.cpu.allocations_live") == n0 + 1); /* a cached block is not live */
  ct_tensor_release(big);
  CHECK(metric("memory.cpu.allocations_live") == n0);
}

static void test_init_time_and_plugin_counts_after_init(void) {
  CHECK(metric("init.time_us") > 0); /* capi_run called ct_init: the registry is built */
  CHECK(metric("init.time_us") < 60 * 1000 * 1000);
  CHECK(metric("plugins.loaded") == 0); /* no CTORCH_BACKEND_PATH here: tests/plugins covers it */
  CHECK(metric("plugins.load_failures") == 0);
}

static void test_metrics_json_has_every_metric(void) {
  char* json = NULL;
  CHECK_OK(ct_metrics_json(&json));
  CHECK(json[0] == '{' && json[strlen(json) - 1] == '}');
  static const char* names[] = {"tensors.live", "storages.live", "memory.cpu.bytes_allocated",
                                "memory.cpu.bytes_cached", "memory.cpu.allocations_live", "init.time_us",
                                "plugins.loaded", "plugins.load_failures"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    char key[64], entry[96];
    snprintf(key, sizeof key, "\"%s\": ", names[i]);
    snprintf(entry, sizeof entry, "%s%lld", key, (long long)metric(names[i]));
    capi_context = names[i];
    CHECK_CONTAINS(json, key);
    if (strcmp(names[i], "init.time_us") && strcmp(names[i], "memory.cpu.bytes_cached"))
      CHECK_CONTAINS(json, entry); /* nothing else runs: the same value as ct_metric_get */
  }
  ct_string_release(json);
}

static void test_metrics_json_null_out_is_invalid_argument(void) {
  CHECK_STATUS(ct_metrics_json(NULL), CT_ERROR_INVALID_ARGUMENT);
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
    CAPI_TEST(test_large_tensors_count_their_allocations),
    CAPI_TEST(test_init_time_and_plugin_counts_after_init),
    CAPI_TEST(test_metrics_json_has_every_metric),
    CAPI_TEST(test_metrics_json_null_out_is_invalid_argument),
    CAPI_TEST(test_metric_bad_arguments),
};

CAPI_MAIN(TESTS)
