/* test_plugins.c - plugin autoloading at ct_init, one scenario per process (autoloading happens
 * once per process): `test_plugins <scenario>` with the environment tests/plugins/CMakeLists.txt
 * gives it. Messages the library logs are collected from the start, before the first ct_init. */
#include "capi_test.h"

static char messages[4096];
static int warnings;

static void collect(void* user_data, ct_log_level level, const char* message) {
  (void)user_data;
  if (level == CT_LOG_WARNING) warnings++;
  size_t used = strlen(messages);
  snprintf(messages + used, sizeof messages - used, "%s\n", message);
}

static int64_t metric(const char* name) {
  int64_t v = -1;
  if (ct_metric_get(name, &v) != CT_OK) printf("ct_metric_get(%s): %s\n", name, ct_last_error());
  return v;
}

/* Checks that testplug::twice is callable and doubles its input. */
static int twice_works(void) {
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_value arg = {CT_VALUE_TENSOR, 0, 0.0, x, NULL, NULL, 0, NULL};
  ct_tensor* out = NULL;
  if (ct_op_call("testplug::twice", &arg, 1, &out, 1) != CT_OK) return 0;
  int ok = 0;
  float v[3];
  if (ct_tensor_copy_to(out, v, sizeof v) == CT_OK) ok = v[0] == 2 && v[1] == 4 && v[2] == 6;
  RELEASE(x, out);
  return ok;
}

static void good(void) {
  CHECK_OK(ct_init(CT_ABI_VERSION));
  CHECK(twice_works());
  CHECK(metric("plugins.loaded") == 1);
  CHECK(metric("plugins.load_failures") == 0);
  CHECK_CONTAINS(messages, "loaded plugin ");
  CHECK_CONTAINS(messages, "good/libtestplug_good.so");
  char* json = NULL;
  CHECK_OK(ct_plugins_json(&json));
  CHECK_CONTAINS(json, "{\"autoload\":true,\"plugins\":[{\"path\":\"");
  CHECK_CONTAINS(json, "libtestplug_good.so\",\"loaded\":true,\"error\":null}]}");
  ct_string_release(json);
  CHECK_OK(ct_init(CT_ABI_VERSION)); /* idempotent: nothing loads twice */
  CHECK(metric("plugins.loaded") == 1);
}

static void bad_init(void) {
  CHECK_STATUS(ct_init(CT_ABI_VERSION), CT_ERROR_BACKEND);
  CHECK_ERROR_CONTAINS("bad_init/libtestplug_bad_init.so");
  CHECK_ERROR_CONTAINS("testplug_bad: no such device on this machine"); /* the plugin's own words */
  CHECK_ERROR_CONTAINS("CT_ERROR_DEVICE");
  CHECK_ERROR_CONTAINS("set CTORCH_DEVICE_BACKEND_AUTOLOAD=0 to start without plugins");
  char first[1024];
  snprintf(first, sizeof first, "%s", ct_last_error());
  CHECK_STATUS(ct_init(CT_ABI_VERSION), CT_ERROR_BACKEND); /* remembered, not retried */
  CHECK_STR_EQ(ct_last_error(), first);
  CHECK(metric("plugins.load_failures") == 1);
  CHECK(metric("plugins.loaded") == 1); /* the good plugin earlier on the path still loaded */
  CHECK(twice_works());
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2); /* the library is otherwise usable */
  ct_tensor* b = NULL;
  CHECK_OK(ct_tensor_add(a, a, &b));
  CHECK_TENSOR(b, CT_FLOAT32, S(2), 2, 4);
  RELEASE(a, b);
  char* json = NULL;
  CHECK_OK(ct_plugins_json(&json));
  CHECK_CONTAINS(json, "libtestplug_bad_init.so\",\"loaded\":false,\"error\":\"ct_plugin_init returned CT_ERROR_DEVICE");
  ct_string_release(json);
}

static void no_symbol(void) {
  CHECK_STATUS(ct_init(CT_ABI_VERSION), CT_ERROR_BACKEND);
  CHECK_ERROR_CONTAINS("no_symbol/libtestplug_no_symbol.so");
  CHECK_ERROR_CONTAINS("no ct_plugin_init");
  CHECK_ERROR_CONTAINS("CTORCH_DEVICE_BACKEND_AUTOLOAD=0");
  CHECK(metric("plugins.load_failures") == 1);
  CHECK(metric("plugins.loaded") == 0);
}

static void autoload_off(void) {
  CHECK_OK(ct_init(CT_ABI_VERSION));
  CHECK(metric("plugins.loaded") == 0);
  CHECK(metric("plugins.load_failures") == 0);
  char* json = NULL;
  CHECK_OK(ct_plugins_json(&json));
  CHECK_STR_EQ(json, "{\"autoload\":false,\"plugins\":[]}");
  ct_string_release(json);
}

static void missing_dir(void) {
  CHECK_OK(ct_init(CT_ABI_VERSION)); /* an unreadable directory is skipped with a warning */
  CHECK(warnings == 1);
  CHECK_CONTAINS(messages, "does-not-exist', which cannot be read");
  CHECK(metric("plugins.loaded") == 1);
}

static void before_init(void) {
  char* json = NULL;
  CHECK_OK(ct_plugins_json(&json));
  CHECK_STR_EQ(json, "{\"autoload\":null,\"plugins\":[]}");
  ct_string_release(json);
  CHECK_STATUS(ct_plugins_json(NULL), CT_ERROR_INVALID_ARGUMENT);
}

int main(int argc, char** argv) {
  static const capi_test scenarios[] = {CAPI_TEST(good),         CAPI_TEST(bad_init),    CAPI_TEST(no_symbol),
                                        CAPI_TEST(autoload_off), CAPI_TEST(missing_dir)};
  if (argc != 2) {
    printf("usage: test_plugins good|bad_init|no_symbol|autoload_off|missing_dir\n");
    return 2;
  }
  if (ct_set_log_handler(collect, NULL, NULL) != CT_OK || ct_set_log_level(CT_LOG_INFO) != CT_OK) return 2;
  static const capi_test first = CAPI_TEST(before_init);
  int passed = 0, failed = 0;
  const capi_test* run[2] = {&first, NULL};
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; ++i)
    if (strcmp(scenarios[i].name, argv[1]) == 0) run[1] = &scenarios[i];
  for (int i = 0; i < 2; ++i) {
    if (!run[i]) continue;
    if (capi_run_one(run[i]))
      ++passed;
    else
      ++failed;
  }
  if (passed + failed != 2) {
    printf("test_plugins: unknown scenario '%s'\n", argv[1]);
    return 2;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
