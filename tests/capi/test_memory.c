/* test_memory.c - out-of-memory reporting and the memory pressure handler. */
#include "capi_test.h"

/* Far more than any machine here has: every attempt fails. */
static const int64_t kHuge[] = {(int64_t)1 << 40};

typedef struct {
  int calls;
  int freed_answer; /* what the handler returns */
  size_t last_nbytes;
  int last_device;
  int destroyed;
} pressure_state;

static int on_pressure(void* user_data, int device_type, size_t nbytes) {
  pressure_state* s = (pressure_state*)user_data;
  s->calls++;
  s->last_nbytes = nbytes;
  s->last_device = device_type;
  return s->freed_answer;
}

static void on_destroy(void* user_data) { ((pressure_state*)user_data)->destroyed++; }

static void test_huge_allocation_is_out_of_memory_naming_the_operator(void) {
  ct_tensor* t = SENTINEL;
  CHECK_STATUS(ct_tensor_empty(kHuge, 1, CT_FLOAT32, NULL, &t), CT_ERROR_OUT_OF_MEMORY);
  CHECK(t == NULL);
  CHECK_ERROR_CONTAINS("empty: output [1099511627776] of float32 on cpu");
}

static void test_pressure_handler_is_called_once_when_it_frees_nothing(void) {
  pressure_state s = {0, 0, 0, -1, 0};
  CHECK_OK(ct_set_memory_pressure_handler(on_pressure, &s, on_destroy));
  ct_tensor* t = NULL;
  CHECK_STATUS(ct_tensor_zeros(kHuge, 1, CT_FLOAT32, NULL, &t), CT_ERROR_OUT_OF_MEMORY);
  CHECK(s.calls == 1);
  CHECK(s.last_nbytes >= ((size_t)1 << 42));
  CHECK(s.last_device == CT_DEVICE_CPU);
  CHECK_OK(ct_set_memory_pressure_handler(NULL, NULL, NULL));
  CHECK(s.destroyed == 1);
}

static void test_pressure_handler_that_frees_gets_three_retries(void) {
  pressure_state s = {0, 1, 0, -1, 0};
  CHECK_OK(ct_set_memory_pressure_handler(on_pressure, &s, NULL));
  ct_tensor* t = NULL;
  CHECK_STATUS(ct_tensor_ones(kHuge, 1, CT_FLOAT32, NULL, &t), CT_ERROR_OUT_OF_MEMORY);
  CHECK(s.calls == 3);
  CHECK_OK(ct_set_memory_pressure_handler(NULL, NULL, NULL));
}

/* A handler that allocates (a collector that makes tensors) and fails too is not called again from
 * inside itself: that recursion only ended when the stack overflowed. */
static int allocating_handler(void* user_data, int device_type, size_t nbytes) {
  (void)device_type;
  (void)nbytes;
  ((pressure_state*)user_data)->calls++;
  ct_tensor* t = NULL;
  if (ct_tensor_zeros(kHuge, 1, CT_FLOAT32, NULL, &t) == CT_OK) ct_tensor_release(t);
  return 1;
}

static void test_a_handler_whose_own_allocation_fails_is_not_reentered(void) {
  pressure_state s = {0, 1, 0, -1, 0};
  CHECK_OK(ct_set_memory_pressure_handler(allocating_handler, &s, NULL));
  ct_tensor* t = NULL;
  CHECK_STATUS(ct_tensor_zeros(kHuge, 1, CT_FLOAT32, NULL, &t), CT_ERROR_OUT_OF_MEMORY);
  CHECK(s.calls == 3); /* the outer allocation's three retries; none from inside the handler */
  CHECK_OK(ct_set_memory_pressure_handler(NULL, NULL, NULL));
}

static void test_replacing_the_handler_destroys_the_old_one_only(void) {
  pressure_state a = {0, 0, 0, -1, 0}, b = {0, 0, 0, -1, 0};
  CHECK_OK(ct_set_memory_pressure_handler(on_pressure, &a, on_destroy));
  CHECK_OK(ct_set_memory_pressure_handler(on_pressure, &b, on_destroy));
  CHECK(a.destroyed == 1 && b.destroyed == 0);
  ct_tensor* t = NULL;
  CHECK_STATUS(ct_tensor_empty(kHuge, 1, CT_UINT8, NULL, &t), CT_ERROR_OUT_OF_MEMORY);
  CHECK(a.calls == 0 && b.calls == 1);
  CHECK_OK(ct_set_memory_pressure_handler(NULL, NULL, NULL));
  CHECK(b.destroyed == 1);
}

static void test_ordinary_allocations_never_call_the_handler(void) {
  pressure_state s = {0, 0, 0, -1, 0};
  CHECK_OK(ct_set_memory_pressure_handler(on_pressure, &s, NULL));
  ct_tensor* t = NULL;
  CHECK_OK(ct_tensor_zeros(S(1024, 1024), CT_FLOAT32, NULL, &t));
  CHECK(s.calls == 0);
  ct_tensor_release(t);
  CHECK_OK(ct_set_memory_pressure_handler(NULL, NULL, NULL));
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_huge_allocation_is_out_of_memory_naming_the_operator),
    CAPI_TEST(test_pressure_handler_is_called_once_when_it_frees_nothing),
    CAPI_TEST(test_pressure_handler_that_frees_gets_three_retries),
    CAPI_TEST(test_a_handler_whose_own_allocation_fails_is_not_reentered),
    CAPI_TEST(test_replacing_the_handler_destroys_the_old_one_only),
    CAPI_TEST(test_ordinary_allocations_never_call_the_handler),
};

CAPI_MAIN(TESTS)
