/* test_log.c - ct_set_log_handler and ct_set_log_level. The messages come from the profiler, which
 * logs at CT_LOG_INFO when it stops ("profiler: stopped with N operator spans"). */
#include "capi_test.h"

typedef struct {
  int calls;
  int destroyed;
  ct_log_level level;
  char last[256];
} sink;

static void record(void* user_data, ct_log_level level, const char* message) {
  sink* s = (sink*)user_data;
  s->calls++;
  s->level = level;
  snprintf(s->last, sizeof s->last, "%s", message);
}

static void destroy_sink(void* user_data) { ((sink*)user_data)->destroyed++; }

/* Makes the library log one message at CT_LOG_INFO. */
static ct_status log_an_info_message(void) {
  char* trace = NULL;
  ct_status st = ct_profiler_start();
  if (st == CT_OK) st = ct_profiler_stop_to_string(&trace);
  ct_string_release(trace);
  return st;
}

static void reset(void) {
  if (ct_set_log_handler(NULL, NULL, NULL) != CT_OK || ct_set_log_level(CT_LOG_WARNING) != CT_OK)
    printf("reset: %s\n", ct_last_error());
}

static void test_handler_receives_messages_at_or_above_the_level(void) {
  sink s = {0};
  CHECK_OK(ct_set_log_handler(record, &s, NULL));
  CHECK_OK(ct_set_log_level(CT_LOG_INFO));
  CHECK(ct_get_log_level() == CT_LOG_INFO);
  CHECK_OK(log_an_info_message());
  CHECK(s.calls == 1);
  CHECK(s.level == CT_LOG_INFO);
  CHECK_STR_EQ(s.last, "profiler: stopped with 0 operator spans");
  reset();
}

static void test_messages_below_the_level_are_dropped(void) {
  sink s = {0};
  CHECK_OK(ct_set_log_handler(record, &s, NULL));
  CHECK(ct_get_log_level() == CT_LOG_WARNING); /* the default */
  CHECK_OK(log_an_info_message());
  CHECK(s.calls == 0);
  CHECK_OK(ct_set_log_level(CT_LOG_ERROR));
  CHECK_OK(log_an_info_message());
  CHECK(s.calls == 0);
  CHECK_OK(ct_set_log_level(CT_LOG_DEBUG));
  CHECK_OK(log_an_info_message());
  CHECK(s.calls == 1);
  reset();
}

static void test_replacing_a_handler_destroys_the_old_one(void) {
  sink a = {0}, b = {0};
  CHECK_OK(ct_set_log_level(CT_LOG_INFO));
  CHECK_OK(ct_set_log_handler(record, &a, destroy_sink));
  CHECK_OK(ct_set_log_handler(record, &b, destroy_sink));
  CHECK(a.destroyed == 1 && b.destroyed == 0);
  CHECK_OK(log_an_info_message());
  CHECK(a.calls == 0 && b.calls == 1); /* only the new handler hears it */
  CHECK_OK(ct_set_log_handler(NULL, NULL, NULL));
  CHECK(a.destroyed == 1 && b.destroyed == 1);
  reset();
}

static void test_null_handler_restores_stderr(void) {
  char path[128];
  snprintf(path, sizeof path, "/tmp/ctorch_test_log_%ld.txt", (long)getpid());
  sink s = {0};
  CHECK_OK(ct_set_log_handler(record, &s, NULL));
  CHECK_OK(ct_set_log_handler(NULL, NULL, NULL));
  CHECK_OK(ct_set_log_level(CT_LOG_INFO));
  fflush(stderr);
  const int saved = dup(2);
  FILE* f = fopen(path, "w+");
  CHECK(saved >= 0 && f != NULL);
  dup2(fileno(f), 2);
  const ct_status st = log_an_info_message();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  char text[256] = {0};
  rewind(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  remove(path);
  reset();
  CHECK_OK(st);
  CHECK(s.calls == 0);
  CHECK_STR_EQ(text, "[ctorch info] profiler: stopped with 0 operator spans\n");
}

static void test_bad_level_is_invalid_argument(void) {
  CHECK_STATUS(ct_set_log_level((ct_log_level)4), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("CT_LOG_DEBUG");
  CHECK_STATUS(ct_set_log_level((ct_log_level)-1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(ct_get_log_level() == CT_LOG_WARNING);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_handler_receives_messages_at_or_above_the_level),
    CAPI_TEST(test_messages_below_the_level_are_dropped),
    CAPI_TEST(test_replacing_a_handler_destroys_the_old_one),
    CAPI_TEST(test_null_handler_restores_stderr),
    CAPI_TEST(test_bad_level_is_invalid_argument),
};

CAPI_MAIN(TESTS)
