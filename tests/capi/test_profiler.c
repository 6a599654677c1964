/* test_profiler.c - ct_profiler_*: spans for every operator call, written as a Chrome trace. */
#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>

#include "capi_test.h"

/* A whole file as a new string (free it), or NULL. */
static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = '\0';
  fclose(f);
  return s;
}

/* A path for a trace in the temporary directory, unique to this process. */
static const char* trace_path(const char* name) {
  static char buf[256];
  const char* dir = getenv("TMPDIR");
  snprintf(buf, sizeof buf, "%s/ctorch_test_profiler_%ld_%s.json", dir && dir[0] ? dir : "/tmp", (long)getpid(), name);
  return buf;
}

/* How many times needle occurs in s. */
static int count(const char* s, const char* needle) {
  int n = 0;
  for (const char* p = strstr(s, needle); p; p = strstr(p + 1, needle)) ++n;
  return n;
}

/* The number after "key": in the event that starts at ev (e.g. "ts", "dur"), or -1. */
static double event_number(const char* ev, const char* key) {
  char k[32];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char* end = strstr(ev + 1, "{\"name\":");
  const char* p = strstr(ev, k);
  if (!p || (end && p > end)) return -1;
  return strtod(p + strlen(k), NULL);
}

/* Ends a session a failed test left running, so the next test starts clean. */
static void ensure_stopped(void) {
  char* trace = NULL;
  if (ct_profiler_is_running() && ct_profiler_stop_to_string(&trace) == CT_OK) ct_string_release(trace);
}

/* Whether the directory holding path has an entry whose name starts with path's file name + ".". */
static int has_sibling_with_prefix(const char* path) {
  char dir[256], prefix[256];
  snprintf(dir, sizeof dir, "%s", path);
  char* slash = strrchr(dir, '/');
  if (!slash) return -1;
  *slash = '\0';
  snprintf(prefix, sizeof prefix, "%s.", slash + 1);
  DIR* d = opendir(dir);
  if (!d) return -1;
  int found = 0;
  for (struct dirent* e = readdir(d); e; e = readdir(d)) found |= strncmp(e->d_name, prefix, strlen(prefix)) == 0;
  closedir(d);
  return found;
}

static void test_trace_records_name_shapes_dtypes_and_device(void) {
  ensure_stopped();
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* b = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* c = NULL;
  CHECK_OK(ct_profiler_start());
  CHECK(ct_profiler_is_running() == 1);
  CHECK_OK(ct_tensor_add(a, b, &c));
  const char* path = trace_path("add");
  CHECK_OK(ct_profiler_stop_to_file(path));
  CHECK(ct_profiler_is_running() == 0);
  char* trace = read_file(path);
  remove(path);
  CHECK(trace != NULL);
  CHECK_CONTAINS(trace, "{\"traceEvents\":[");
  CHECK_CONTAINS(trace, "\"displayTimeUnit\":\"ns\"}");
  const char* ev = strstr(trace, "{\"name\":\"add.Tensor\",\"ph\":\"X\",\"ts\":");
  CHECK(ev != NULL);
  CHECK(count(trace, "\"name\":\"add.Tensor\"") == 1);
  CHECK_CONTAINS(ev, "\"cat\":\"operator\",\"args\":{\"input_shapes\":[[2,3],[3]],"
                     "\"input_dtypes\":[\"float32\",\"float32\"],\"device\":\"cpu\"}}");
  CHECK(event_number(ev, "ts") >= 0 && event_number(ev, "dur") >= 0);
  char pid[64];
  snprintf(pid, sizeof pid, "\"pid\":%ld,\"tid\":", (long)getpid());
  CHECK_CONTAINS(ev, pid);
  free(trace);
  RELEASE(a, b, c);
}

static void test_nested_calls_lie_within_their_caller(void) {
  ensure_stopped();
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* v = T(CT_FLOAT32, S(3), 1, 0, 1);
  ct_tensor* c = NULL;
  CHECK_OK(ct_profiler_start());
  CHECK_OK(ct_tensor_matmul(a, v, &c)); /* matmul is composite: it calls unsqueeze, mm, squeeze */
  char* trace = NULL;
  CHECK_OK(ct_profiler_stop_to_string(&trace));
  const char* outer = strstr(trace, "{\"name\":\"matmul\"");
  const char* inner = strstr(trace, "{\"name\":\"mm\"");
  CHECK(outer != NULL && inner != NULL);
  CHECK(outer < inner); /* sorted by start time: the caller first */
  const double ots = event_number(outer, "ts"), odur = event_number(outer, "dur");
  const double its = event_number(inner, "ts"), idur = event_number(inner, "dur");
  CHECK(its >= ots && its + idur <= ots + odur + 0.001);
  CHECK_CONTAINS(outer, "\"input_shapes\":[[2,3],[3]]");
  CHECK_CONTAINS(inner, "\"input_shapes\":[[2,3],[3,1]]");
  ct_string_release(trace);
  RELEASE(a, v, c);
}

static void test_backward_operators_are_recorded(void) {
  ensure_stopped();
  ct_tensor* w = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor *y = NULL, *loss = NULL;
  CHECK_OK(ct_tensor_set_requires_grad(w, 1));
  CHECK_OK(ct_tensor_mul(w, w, &y));
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  CHECK_OK(ct_profiler_start());
  CHECK_OK(ct_tensor_backward(loss, NULL, 0));
  char* trace = NULL;
  CHECK_OK(ct_profiler_stop_to_string(&trace));
  CHECK_CONTAINS(trace, "\"name\":\"mul.Tensor\""); /* d(w*w)/dw = grad * w, twice */
  ct_string_release(trace);
  RELEASE(w, y, loss);
}

static void* add_on_thread(void* arg) {
  ct_tensor* a = (ct_tensor*)arg;
  for (int i = 0; i < 5; ++i) {
    ct_tensor* c = NULL;
    if (ct_tensor_neg(a, &c) != CT_OK) return (void*)1;
    ct_tensor_release(c);
  }
  return NULL;
}

static void test_a_thread_that_exits_keeps_its_spans(void) {
  ensure_stopped();
  ct_tensor* a = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
  CHECK_OK(ct_profiler_start());
  pthread_t th[2];
  for (int i = 0; i < 2; ++i) CHECK(pthread_create(&th[i], NULL, add_on_thread, a) == 0);
  for (int i = 0; i < 2; ++i) {
    void* r = NULL;
    pthread_join(th[i], &r);
    CHECK(r == NULL);
  }
  char* trace = NULL;
  CHECK_OK(ct_profiler_stop_to_string(&trace));
  CHECK(count(trace, "\"name\":\"neg\"") == 10);
  ct_string_release(trace);
  ct_tensor_release(a);
}

static void test_nothing_is_recorded_while_stopped(void) {
  ensure_stopped();
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_tensor* c = NULL;
  CHECK_OK(ct_tensor_neg(a, &c)); /* before the session: not in it */
  ct_tensor_release(c);
  CHECK_OK(ct_profiler_start());
  char* trace = NULL;
  CHECK_OK(ct_profiler_stop_to_string(&trace));
  CHECK_STR_EQ(trace, "{\"traceEvents\":[\n],\"displayTimeUnit\":\"ns\"}\n");
  ct_string_release(trace);
  ct_tensor_release(a);
}

static void test_start_twice_is_invalid_argument(void) {
  ensure_stopped();
  CHECK_OK(ct_profiler_start());
  CHECK_STATUS(ct_profiler_start(), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("already running");
  char* trace = NULL;
  CHECK_OK(ct_profiler_stop_to_string(&trace));
  ct_string_release(trace);
}

static void test_stop_when_not_running_is_invalid_argument(void) {
  ensure_stopped();
  char* trace = (char*)capi_sentinel();
  CHECK_STATUS(ct_profiler_stop_to_file(trace_path("none")), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("ct_profiler_start");
  CHECK_STATUS(ct_profiler_stop_to_string(&trace), CT_ERROR_INVALID_ARGUMENT);
  CHECK(trace == NULL);
  CHECK_STATUS(ct_profiler_stop_to_file(NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_profiler_start());
  CHECK_STATUS(ct_profiler_stop_to_string(NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_profiler_stop_to_file(""), CT_ERROR_INVALID_ARGUMENT);
  CHECK(ct_profiler_is_running() == 1); /* bad arguments do not stop it */
  CHECK_OK(ct_profiler_stop_to_string(&trace));
  ct_string_release(trace);
}

static void test_unwritable_path_is_io_error_and_keeps_the_session(void) {
  ensure_stopped();
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_tensor* c = NULL;
  CHECK_OK(ct_profiler_start());
  CHECK_OK(ct_tensor_neg(a, &c));
  const char* bad = "/nonexistent-ctorch-dir/trace.json";
  CHECK_STATUS(ct_profiler_stop_to_file(bad), CT_ERROR_IO);
  CHECK_ERROR_CONTAINS(bad);
  CHECK(ct_profiler_is_running() == 1);
  const char* path = trace_path("retry");
  CHECK_OK(ct_profiler_stop_to_file(path));
  char* trace = read_file(path);
  remove(path);
  CHECK(trace != NULL);
  CHECK_CONTAINS(trace, "\"name\":\"neg\""); /* the span from before the failed write */
  free(trace);
  RELEASE(a, c);
}

static void test_a_directory_as_path_is_io_error_with_nothing_left_behind(void) {
  ensure_stopped();
  const char* dir = trace_path("dir");
  /* An earlier process with this pid may have left the directory: the fault sweep stops a run at
   * its injected failure, before the rmdir below, and pids are reused. */
  rmdir(dir);
  CHECK(mkdir(dir, 0700) == 0);
  CHECK_OK(ct_profiler_start());
  CHECK_STATUS(ct_profiler_stop_to_file(dir), CT_ERROR_IO); /* rename onto a directory fails */
  CHECK_ERROR_CONTAINS(dir);
  CHECK(ct_profiler_is_running() == 0);
  CHECK(rmdir(dir) == 0); /* still an empty directory */
  CHECK(has_sibling_with_prefix(dir) == 0); /* and no temporary file beside it */
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_trace_records_name_shapes_dtypes_and_device),
    CAPI_TEST(test_nested_calls_lie_within_their_caller),
    CAPI_TEST(test_backward_operators_are_recorded),
    CAPI_TEST(test_a_thread_that_exits_keeps_its_spans),
    CAPI_TEST(test_nothing_is_recorded_while_stopped),
    CAPI_TEST(test_start_twice_is_invalid_argument),
    CAPI_TEST(test_stop_when_not_running_is_invalid_argument),
    CAPI_TEST(test_unwritable_path_is_io_error_and_keeps_the_session),
    CAPI_TEST(test_a_directory_as_path_is_io_error_with_nothing_left_behind),
};

CAPI_MAIN(TESTS)
