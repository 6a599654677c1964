/* Lifecycle, errors, versions, features and threads of the C ABI. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#include "capi_test.h"

#include <pthread.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif

/* Runs first, before any test changes the setting. */
static void test_num_threads_default_is_number_of_cores(void) {
  int32_t n = 0;
  CHECK_OK(ct_get_num_threads(&n));
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  long usable = online;
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) usable = CPU_COUNT(&set);
#endif
  CHECK(online > 0);
  /* "The number of cores": the online count, or the cores this process may run on. */
  CHECK(n == (int32_t)online || n == (int32_t)usable);
}

static void test_version_matches_header(void) {
  CHECK_STR_EQ(ct_version(), CT_VERSION_STRING);
  char parts[32];
  snprintf(parts, sizeof parts, "%d.%d.%d", CT_VERSION_MAJOR, CT_VERSION_MINOR, CT_VERSION_PATCH);
  CHECK_STR_EQ(CT_VERSION_STRING, parts); /* the string and the numbers say the same version */
  CHECK(ct_version() == ct_version()); /* static string */
  CHECK(ct_abi_version() == CT_ABI_VERSION);
}

static void test_init_with_header_abi_is_ok(void) {
  CHECK_OK(ct_init(CT_ABI_VERSION));
  CHECK_OK(ct_init(CT_ABI_VERSION)); /* idempotent */
}

static void test_init_with_older_abi_is_ok(void) {
  /* The library is at least as new as a header with a smaller ABI number. */
  CHECK_OK(ct_init(CT_ABI_VERSION - 1));
}

static void test_init_with_newer_abi_is_version_error(void) {
  CHECK_STATUS(ct_init(CT_ABI_VERSION + 1), CT_ERROR_VERSION);
  CHECK_STATUS(ct_init(CT_ABI_VERSION + 100), CT_ERROR_VERSION);
  /* The message names both ABI numbers. */
  char want[32];
  snprintf(want, sizeof want, "%d", CT_ABI_VERSION + 100);
  CHECK_ERROR_CONTAINS(want);
  /* A failed handshake leaves the library usable. */
  CHECK_OK(ct_init(CT_ABI_VERSION));
}

static void test_status_name_gives_stable_names(void) {
  static const char* const names[] = {
      "CT_OK", "CT_ERROR_INVALID_ARGUMENT", "CT_ERROR_SHAPE", "CT_ERROR_DTYPE", "CT_ERROR_DEVICE",
      "CT_ERROR_OUT_OF_MEMORY", "CT_ERROR_NOT_IMPLEMENTED", "CT_ERROR_INDEX", "CT_ERROR_NONDETERMINISTIC",
      "CT_ERROR_GUARD", "CT_ERROR_GRAPH_BREAK", "CT_ERROR_RECOMPILE_LIMIT", "CT_ERROR_IO", "CT_ERROR_FORMAT",
      "CT_ERROR_BACKEND", "CT_ERROR_VERSION", "CT_ERROR_INTERNAL", "CT_ERROR_LINALG",
      "CT_ERROR_TIMEOUT", "CT_ERROR_DISTRIBUTED"};
  for (int s = 0; s <= 19; ++s) CHECK_STR_EQ(ct_status_name((ct_status)s), names[s]);
}

static void test_status_name_of_unknown_value_is_unknown(void) {
  CHECK_STR_EQ(ct_status_name((ct_status)20), "CT_ERROR_UNKNOWN");
  CHECK_STR_EQ(ct_status_name((ct_status)999), "CT_ERROR_UNKNOWN");
  CHECK_STR_EQ(ct_status_name((ct_status)-1), "CT_ERROR_UNKNOWN");
}

static void test_dtype_name_and_itemsize(void) {
  static const char* const names[] = {"bool",    "uint8",    "int8",     "int16",   "int32",     "int64",
                                      "float16", "bfloat16", "float32",  "float64", "complex64", "complex128"};
  static const size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  for (int d = 0; d <= 11; ++d) {
    CHECK_STR_EQ(ct_dtype_name((ct_dtype)d), names[d]);
    CHECK(ct_dtype_itemsize((ct_dtype)d) == sizes[d]);
  }
  CHECK_STR_EQ(ct_dtype_name((ct_dtype)12), "unknown");
  CHECK_STR_EQ(ct_dtype_name((ct_dtype)-1), "unknown");
  CHECK(ct_dtype_itemsize((ct_dtype)12) == 0);
  CHECK(ct_dtype_itemsize((ct_dtype)-1) == 0);
}

static void test_error_set_sets_last_error(void) {
  ct_error_set(CT_ERROR_SHAPE, "weight must be 1-D");
  CHECK_STR_EQ(ct_last_error(), "weight must be 1-D");
  /* The message is copied. */
  char buf[16];
  strcpy(buf, "temporary");
  ct_error_set(CT_ERROR_DTYPE, buf);
  strcpy(buf, "XXXXXXXX");
  CHECK_STR_EQ(ct_last_error(), "temporary");
  ct_error_set(CT_ERROR_DTYPE, NULL);
  CHECK_STR_EQ(ct_last_error(), "");
}

static void test_failure_sets_last_error(void) {
  ct_error_set(CT_ERROR_INTERNAL, NULL);
  CHECK_STATUS(ct_tensor_retain(NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK(strlen(ct_last_error()) > 0);
}

static void test_success_leaves_last_error_unchanged(void) {
  CHECK_STATUS(ct_tensor_retain(NULL), CT_ERROR_INVALID_ARGUMENT);
  char before[1024];
  snprintf(before, sizeof before, "%s", ct_last_error());
  ct_tensor* t = T(CT_FLOAT32, S(2), 1, 2);
  size_t nd = 0;
  CHECK_OK(ct_tensor_ndim(t, &nd));
  CHECK_OK(ct_init(CT_ABI_VERSION));
  CHECK_STR_EQ(ct_last_error(), before);
  ct_tensor_release(t);
}

static void* fresh_thread_last_error(void* arg) {
  char* out = arg;
  snprintf(out, 256, "%s", ct_last_error());
  return NULL;
}

static void test_last_error_is_empty_on_a_thread_without_failures(void) {
  CHECK_STATUS(ct_tensor_retain(NULL), CT_ERROR_INVALID_ARGUMENT); /* this thread has a message */
  char got[256] = "not run";
  pthread_t th;
  CHECK(pthread_create(&th, NULL, fresh_thread_last_error, got) == 0);
  pthread_join(th, NULL);
  CHECK_STR_EQ(got, "");
}

static void* failing_thread(void* arg) {
  int* ok = arg;
  ct_tensor* out = NULL;
  *ok = ct_tensor_add(NULL, NULL, &out) == CT_ERROR_INVALID_ARGUMENT;
  return NULL;
}

static void test_last_error_is_thread_local(void) {
  ct_error_set(CT_ERROR_SHAPE, "main thread message");
  int ok = 0;
  pthread_t th;
  CHECK(pthread_create(&th, NULL, failing_thread, &ok) == 0);
  pthread_join(th, NULL);
  CHECK(ok);
  CHECK_STR_EQ(ct_last_error(), "main thread message");
}

static void test_has_feature_cpu_is_one(void) { CHECK(ct_has_feature("cpu") == 1); }

static void test_has_feature_openblas_is_one(void) {
  /* The build requires OpenBLAS for matrix products. */
  CHECK(ct_has_feature("openblas") == 1);
}

static void test_has_feature_threads_is_one(void) {
  /* The CPU backend runs kernels on a thread pool sized by ct_set_num_threads. */
  CHECK(ct_has_feature("threads") == 1);
}

static void test_has_feature_cuda_follows_the_devices(void) {
  /* "cuda" is 1 exactly when CUDA has a device; "nvrtc" needs only libctorch_cuda.so. */
  CHECK(ct_has_feature("cuda") == (ct_cuda_device_count() > 0));
  CHECK(ct_has_feature("nvrtc") == 0 || ct_has_feature("nvrtc") == 1);
  CHECK(!ct_has_feature("cuda") || ct_has_feature("nvrtc"));
}

static void test_has_feature_unknown_or_null_is_zero(void) {
  CHECK(ct_has_feature(NULL) == 0);
  CHECK(ct_has_feature("") == 0);
  CHECK(ct_has_feature("no_such_feature") == 0);
  CHECK(ct_has_feature("cpux") == 0);
}

static void test_set_num_threads_round_trips(void) {
  int32_t old = 0, n = 0;
  CHECK_OK(ct_get_num_threads(&old));
  CHECK_OK(ct_set_num_threads(2));
  CHECK_OK(ct_get_num_threads(&n));
  CHECK(n == 2);
  CHECK_OK(ct_set_num_threads(1));
  CHECK_OK(ct_get_num_threads(&n));
  CHECK(n == 1);
  CHECK_OK(ct_set_num_threads(old));
}

static void test_set_num_threads_out_of_range_is_invalid_argument(void) {
  int32_t old = 0, n = 0;
  CHECK_OK(ct_get_num_threads(&old));
  CHECK_OK(ct_set_num_threads(3));
  CHECK_STATUS(ct_set_num_threads(0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_set_num_threads(-1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_set_num_threads(1025), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_get_num_threads(&n));
  CHECK(n == 3); /* unchanged by the failures */
  CHECK_OK(ct_set_num_threads(old));
}

static void test_get_num_threads_null_out_is_invalid_argument(void) {
  CHECK_STATUS(ct_get_num_threads(NULL), CT_ERROR_INVALID_ARGUMENT);
}

static void test_retain_adds_a_reference_until_released(void) {
  ct_tensor* t = T(CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_OK(ct_tensor_retain(t));
  ct_tensor_release(t);
  /* Still alive: one reference left. */
  CHECK_TENSOR(t, CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor_release(t);
  size_t nd;
  CHECK_STATUS(ct_tensor_ndim(t, &nd), CT_ERROR_INVALID_ARGUMENT);
}

static void test_retain_null_is_invalid_argument(void) {
  CHECK_STATUS(ct_tensor_retain(NULL), CT_ERROR_INVALID_ARGUMENT);
}

static void test_retain_released_is_invalid_argument(void) {
  ct_tensor* t = capi_released();
  CHECK(t != NULL);
  CHECK_STATUS(ct_tensor_retain(t), CT_ERROR_INVALID_ARGUMENT);
}

static void test_release_null_is_noop(void) {
  ct_tensor_release(NULL);
  ct_tensor* t = T(CT_INT32, S(1), 5);
  CHECK_TENSOR(t, CT_INT32, S(1), 5);
  ct_tensor_release(t);
}

static void test_release_of_released_handle_is_noop(void) {
  ct_tensor* t = capi_released();
  CHECK(t != NULL);
  ct_tensor_release(t);
  ct_tensor* u = T(CT_INT32, S(2), 1, 2);
  CHECK_TENSOR(u, CT_INT32, S(2), 1, 2);
  ct_tensor_release(u);
}

static void test_released_handle_is_invalid_argument(void) {
  ct_tensor* b = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* a = capi_released();
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_tensor_add(a, b, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("released");
  ct_tensor_release(b);
}

static void test_release_base_while_view_lives_keeps_storage(void) {
  ct_tensor* base = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor* v = NULL;
  CHECK_OK(ct_tensor_transpose(base, 0, 1, &v));
  ct_tensor_release(base);
  CHECK_TENSOR(v, CT_FLOAT32, S(2, 2), 1, 3, 2, 4);
  ct_tensor_release(v);
}

struct reader_arg {
  const ct_tensor* shared;
  int ok;
};

static void* reader_thread(void* p) {
  struct reader_arg* arg = p;
  arg->ok = 1;
  for (int i = 0; i < 200 && arg->ok; ++i) {
    ct_tensor* sum = NULL;
    if (ct_tensor_retain((ct_tensor*)arg->shared) != CT_OK) arg->ok = 0;
    if (ct_tensor_add(arg->shared, arg->shared, &sum) != CT_OK) arg->ok = 0;
    float v[4] = {0};
    if (ct_tensor_copy_to(sum, v, sizeof v) != CT_OK) arg->ok = 0;
    if (v[0] != 2 || v[1] != 4 || v[2] != 6 || v[3] != 8) arg->ok = 0;
    ct_tensor_release(sum);
    ct_tensor_release((ct_tensor*)arg->shared);
  }
  return NULL;
}

static void test_many_threads_may_read_one_tensor(void) {
  ct_tensor* t = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
  struct reader_arg args[4];
  pthread_t th[4];
  for (int i = 0; i < 4; ++i) {
    args[i].shared = t;
    args[i].ok = 0;
    CHECK(pthread_create(&th[i], NULL, reader_thread, &args[i]) == 0);
  }
  for (int i = 0; i < 4; ++i) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; ++i) CHECK(args[i].ok);
  CHECK_TENSOR(t, CT_FLOAT32, S(4), 1, 2, 3, 4);
  ct_tensor_release(t);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_num_threads_default_is_number_of_cores),
    CAPI_TEST(test_version_matches_header),
    CAPI_TEST(test_init_with_header_abi_is_ok),
    CAPI_TEST(test_init_with_older_abi_is_ok),
    CAPI_TEST(test_init_with_newer_abi_is_version_error),
    CAPI_TEST(test_status_name_gives_stable_names),
    CAPI_TEST(test_status_name_of_unknown_value_is_unknown),
    CAPI_TEST(test_dtype_name_and_itemsize),
    CAPI_TEST(test_error_set_sets_last_error),
    CAPI_TEST(test_failure_sets_last_error),
    CAPI_TEST(test_success_leaves_last_error_unchanged),
    CAPI_TEST(test_last_error_is_empty_on_a_thread_without_failures),
    CAPI_TEST(test_last_error_is_thread_local),
    CAPI_TEST(test_has_feature_cpu_is_one),
    CAPI_TEST(test_has_feature_openblas_is_one),
    CAPI_TEST(test_has_feature_threads_is_one),
    CAPI_TEST(test_has_feature_cuda_follows_the_devices),
    CAPI_TEST(test_has_feature_unknown_or_null_is_zero),
    CAPI_TEST(test_set_num_threads_round_trips),
    CAPI_TEST(test_set_num_threads_out_of_range_is_invalid_argument),
    CAPI_TEST(test_get_num_threads_null_out_is_invalid_argument),
    CAPI_TEST(test_retain_adds_a_reference_until_released),
    CAPI_TEST(test_retain_null_is_invalid_argument),
    CAPI_TEST(test_retain_released_is_invalid_argument),
    CAPI_TEST(test_release_null_is_noop),
    CAPI_TEST(test_release_of_released_handle_is_noop),
    CAPI_TEST(test_released_handle_is_invalid_argument),
    CAPI_TEST(test_release_base_while_view_lives_keeps_storage),
    CAPI_TEST(test_many_threads_may_read_one_tensor),
};
CAPI_MAIN(TESTS)
