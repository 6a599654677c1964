/*
 * profile.c - record operator spans with the profiler, write a Chrome trace, read the metrics.
 *
 * Run it, then open the trace it names in https://ui.perfetto.dev or chrome://tracing: one span per
 * operator call, matmul's own calls (mm ...) nested inside it, with input shapes and dtypes.
 */
#include <ctorch.h>
#include <stdio.h>

static void print_log(void* user_data, ct_log_level level, const char* message) {
  (void)user_data;
  printf("log (level %d): %s\n", (int)level, message);
}

static int fail(const char* what) {
  fprintf(stderr, "%s: %s\n", what, ct_last_error());
  return 1;
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "profile_trace.json";
  if (ct_init(CT_ABI_VERSION) != CT_OK) return fail("ct_init");
  /* The profiler says what it wrote at CT_LOG_INFO: route messages here and lower the threshold. */
  if (ct_set_log_handler(print_log, NULL, NULL) != CT_OK || ct_set_log_level(CT_LOG_INFO) != CT_OK)
    return fail("log setup");

  const float x_data[6] = {1, 2, 3, 4, 5, 6}, w_data[3] = {0.5f, -1, 2};
  const int64_t x_sizes[2] = {2, 3}, w_sizes[1] = {3};
  ct_tensor *x = NULL, *w = NULL, *y = NULL, *z = NULL;
  if (ct_tensor_from_data(x_data, x_sizes, 2, CT_FLOAT32, &x) != CT_OK ||
      ct_tensor_from_data(w_data, w_sizes, 1, CT_FLOAT32, &w) != CT_OK)
    return fail("ct_tensor_from_data");

  if (ct_profiler_start() != CT_OK) return fail("ct_profiler_start");
  ct_status s = ct_tensor_matmul(x, w, &y); /* [2, 3] @ [3] -> [2] */
  if (s == CT_OK) s = ct_tensor_relu(y, &z);
  if (s != CT_OK) return fail("matmul/relu");
  if (ct_profiler_stop_to_file(path) != CT_OK) return fail("ct_profiler_stop_to_file");
  printf("trace: %s\n", path);

  int64_t live = 0;
  char* metrics = NULL;
  if (ct_metric_get("tensors.live", &live) != CT_OK || ct_metrics_json(&metrics) != CT_OK) return fail("metrics");
  printf("tensors.live = %lld\n", (long long)live);
  printf("metrics: %s\n", metrics);
  ct_string_release(metrics);

  ct_tensor_release(z);
  ct_tensor_release(y);
  ct_tensor_release(w);
  ct_tensor_release(x);
  return ct_set_log_handler(NULL, NULL, NULL) == CT_OK ? 0 : fail("ct_set_log_handler"); /* back to stderr */
}
