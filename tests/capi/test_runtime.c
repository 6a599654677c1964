/* test_runtime.c - the runtime switches: deterministic mode (refusal, warn-once through the log
 * handler, filled empty tensors, per-kernel declarations), the log handler, the default dtype,
 * per-thread default devices and device contexts, and the float32 matmul precision. */
#include <pthread.h>

#include "capi_test.h"

/* ---- A log handler that keeps what it is told ---- */

typedef struct {
  int count;
  ct_log_level level;
  char last[512];
  int destroyed;
} log_sink;

static void keep_log(void* user_data, ct_log_level level, const char* message) {
  log_sink* s = user_data;
  s->count++;
  s->level = level;
  snprintf(s->last, sizeof s->last, "%s", message);
}
static void mark_destroyed(void* user_data) { ((log_sink*)user_data)->destroyed = 1; }

/* ---- A C operator whose kernel is declared nondeterministic ---- */

static ct_status copy_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  (void)user_data, (void)nargs, (void)nouts;
  return ct_tensor_clone(args[0].tensor, &outs[0]);
}

static int atomic_op_ready = 0;
static ct_status define_atomic_op(void) {
  if (atomic_op_ready) return CT_OK;
  ct_status st = ct_library_define("rtest::scatter_like(Tensor x) -> Tensor");
  if (st == CT_OK) st = ct_library_impl("rtest::scatter_like", "cpu", copy_kernel, NULL, NULL);
  if (st == CT_OK) st = ct_library_set_determinism("rtest::scatter_like", "cpu", CT_DETERMINISM_ATOMIC);
  atomic_op_ready = st == CT_OK;
  return st;
}

static ct_status call_atomic_op(const ct_tensor* x, ct_tensor** out) {
  ct_value arg = {0};
  arg.kind = CT_VALUE_TENSOR;
  arg.tensor = x;
  return ct_op_call("rtest::scatter_like", &arg, 1, out, 1);
}

static void test_switch_getters_agree(void) {
  const struct {
    int mode, warn_only, enabled, warn, debug;
  } cases[] = {{1, 0, 1, 0, 2}, {1, 1, 1, 1, 1}, {0, 1, 0, 0, 0}, {0, 0, 0, 0, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    CHECK_OK(ct_use_deterministic_algorithms(cases[i].mode, cases[i].warn_only));
    CHECK(ct_are_deterministic_algorithms_enabled() == cases[i].enabled);
    CHECK(ct_is_deterministic_algorithms_warn_only_enabled() == cases[i].warn);
    CHECK(ct_get_deterministic_debug_mode() == cases[i].debug);
  }
  for (int32_t m = 0; m <= 2; ++m) {
    CHECK_OK(ct_set_deterministic_debug_mode(m));
    CHECK(ct_get_deterministic_debug_mode() == m);
    CHECK(ct_are_deterministic_algorithms_enabled() == (m != 0));
    CHECK(ct_is_deterministic_algorithms_warn_only_enabled() == (m == 1));
  }
  CHECK_STATUS(ct_set_deterministic_debug_mode(3), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_set_deterministic_debug_mode(-1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(ct_get_deterministic_debug_mode() == 2); /* a refused call changes nothing */
  CHECK_OK(ct_use_deterministic_algorithms(0, 0));
}

static void test_nondeterministic_kernel_refused_or_warned_once(void) {
  CHECK_OK(define_atomic_op());
  ct_tensor* x = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* y = SENTINEL;
  CHECK_OK(call_atomic_op(x, &y)); /* off: runs */
  RELEASE(y);
  CHECK_OK(ct_use_deterministic_algorithms(1, 0));
  CHECK_STATUS(call_atomic_op(x, &y), CT_ERROR_NONDETERMINISTIC);
  CHECK(y == NULL);
  CHECK_ERROR_CONTAINS("rtest::scatter_like");
  CHECK_ERROR_CONTAINS("the cpu kernel");
  CHECK_ERROR_CONTAINS("ct_use_deterministic_algorithms(1, 1)");
  log_sink sink = {0};
  CHECK_OK(ct_set_log_handler(keep_log, &sink, mark_destroyed));
  CHECK_OK(ct_use_deterministic_algorithms(1, 1));
  for (int i = 0; i < 3; ++i) {
    CHECK_OK(call_atomic_op(x, &y));
    CHECK_TENSOR(y, CT_FLOAT32, S(3), 1, 2, 3);
    RELEASE(y);
  }
  CHECK(sink.count == 1); /* once per operator and device */
  CHECK(sink.level == CT_LOG_WARNING);
  CHECK_CONTAINS(sink.last, "rtest::scatter_like");
  CHECK_CONTAINS(sink.last, "warn-only");
  CHECK_OK(ct_use_deterministic_algorithms(0, 0));
  CHECK_OK(ct_set_log_handler(NULL, NULL, NULL));
  CHECK(sink.destroyed == 1);
  /* Built-in CPU kernels are all reproducible: deterministic mode refuses none of them. */
  ct_tensor *s = NULL, *m = NULL;
  CHECK_OK(ct_use_deterministic_algorithms(1, 0));
  CHECK_OK(ct_tensor_sum(x, NULL, 0, 0, &s));
  CHECK_OK(ct_tensor_matmul(x, x, &m));
  CHECK_OK(ct_use_deterministic_algorithms(0, 0));
  RELEASE(x, s, m);
}

static void test_set_determinism_errors_and_registry(void) {
  CHECK_OK(define_atomic_op());
  char* json = NULL;
  CHECK_OK(ct_op_registry_json(&json));
  const char* entry = strstr(json, "\"rtest::scatter_like\"");
  CHECK(entry != NULL);
  CHECK_CONTAINS(entry, "\"cpu\": {\"determinism\": \"atomic\"}");
  ct_string_release(json);
  CHECK_STATUS(ct_library_set_determinism("add.Tensor", "cpu", CT_DETERMINISM_ATOMIC), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("built in");
  CHECK_STATUS(ct_library_set_determinism("rtest::scatter_like", "meta", CT_DETERMINISM_ATOMIC),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("no meta kernel");
  CHECK_STATUS(ct_library_set_determinism("rtest::nothing", "cpu", CT_DETERMINISM_ATOMIC), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_library_set_determinism("rtest::scatter_like", "tpu", CT_DETERMINISM_ATOMIC), CT_ERROR_DEVICE);
  CHECK_STATUS(ct_library_set_determinism("rtest::scatter_like", "cpu", (ct_determinism)7), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_library_set_determinism(NULL, "cpu", CT_DETERMINISM_ATOMIC), CT_ERROR_INVALID_ARGUMENT);
}

static void test_empty_is_filled_in_deterministic_mode(void) {
  ct_tensor *f = NULL, *i = NULL, *b = NULL, *h = NULL;
  CHECK_OK(ct_use_deterministic_algorithms(1, 0));
  CHECK_OK(ct_tensor_empty(S(5), CT_FLOAT64, NULL, &f));
  CHECK_OK(ct_tensor_empty(S(2, 2), CT_INT32, NULL, &i));
  CHECK_OK(ct_tensor_empty(S(2), CT_UINT8, NULL, &b));
  CHECK_OK(ct_tensor_empty(S(3), CT_FLOAT16, NULL, &h));
  CHECK_OK(ct_use_deterministic_algorithms(0, 0));
  CHECK_TENSOR(f, CT_FLOAT64, S(5), NAN, NAN, NAN, NAN, NAN);
  CHECK_TENSOR(i, CT_INT32, S(2, 2), 2147483647, 2147483647, 2147483647, 2147483647);
  CHECK_TENSOR(b, CT_UINT8, S(2), 255, 255);
  CHECK_TENSOR(h, CT_FLOAT16, S(3), NAN, NAN, NAN);
  RELEASE(f, i, b, h);
}

static void test_log_handler_replacement_and_levels(void) {
  log_sink a = {0}, b = {0};
  CHECK_OK(ct_set_log_handler(keep_log, &a, mark_destroyed));
  CHECK_OK(ct_set_log_handler(keep_log, &b, mark_destroyed));
  CHECK(a.destroyed == 1 && b.destroyed == 0); /* replacing destroys the previous one */
  CHECK(ct_get_log_level() == CT_LOG_WARNING);
  CHECK_OK(ct_set_log_level(CT_LOG_ERROR));
  CHECK(ct_get_log_level() == CT_LOG_ERROR);
  /* A warning below the threshold is not delivered (and its warn-once key is not spent). */
  CHECK_OK(define_atomic_op());
  CHECK_OK(ct_library_define("rtest::other(Tensor x) -> Tensor"));
  CHECK_OK(ct_library_impl("rtest::other", "cpu", copy_kernel, NULL, NULL));
  CHECK_OK(ct_library_set_determinism("rtest::other", "cpu", CT_DETERMINISM_ATOMIC));
  ct_value arg = {0};
  arg.kind = CT_VALUE_TENSOR;
  ct_tensor* x = T(CT_FLOAT32, S(1), 4);
  arg.tensor = x;
  ct_tensor* y = NULL;
  CHECK_OK(ct_use_deterministic_algorithms(1, 1));
  CHECK_OK(ct_op_call("rtest::other", &arg, 1, &y, 1));
  CHECK(b.count == 0);
  CHECK_OK(ct_set_log_level(CT_LOG_WARNING));
  RELEASE(y);
  CHECK_OK(ct_op_call("rtest::other", &arg, 1, &y, 1));
  CHECK(b.count == 1);
  CHECK_CONTAINS(b.last, "rtest::other");
  CHECK_OK(ct_use_deterministic_algorithms(0, 0));
  CHECK_STATUS(ct_set_log_level((ct_log_level)9), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_set_log_handler(NULL, NULL, NULL));
  CHECK(b.destroyed == 1);
  RELEASE(x, y);
}

static void test_default_dtype(void) {
  CHECK(ct_get_default_dtype() == CT_FLOAT32);
  ct_tensor *i = T(CT_INT64, S(2), 1, 2), *r = NULL, *z = NULL, *e = NULL;
  CHECK_OK(ct_set_default_dtype(CT_FLOAT64));
  CHECK(ct_get_default_dtype() == CT_FLOAT64);
  ct_scalar half = SF(0.5);
  CHECK_OK(ct_tensor_add_scalar(i, &half, &r));
  CHECK_TENSOR(r, CT_FLOAT64, S(2), 1.5, 2.5); /* int64 tensor + float: the default dtype */
  CHECK_OK(ct_tensor_exp(i, &e));
  CHECK_META(e, CT_FLOAT64, S(2));
  ct_value args[1] = {{0}};
  args[0].kind = CT_VALUE_INTS;
  args[0].ints = SZ(2);
  args[0].len = 1;
  CHECK_OK(ct_op_call("zeros", args, 1, &z, 1)); /* dtype None */
  CHECK_META(z, CT_FLOAT64, S(2));
  CHECK_STATUS(ct_set_default_dtype(CT_INT32), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_set_default_dtype(CT_FLOAT16), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_set_default_dtype((ct_dtype)42), CT_ERROR_INVALID_ARGUMENT);
  CHECK(ct_get_default_dtype() == CT_FLOAT64);
  CHECK_OK(ct_set_default_dtype(CT_FLOAT32));
  RELEASE(i, r, z, e);
}

static void device_of(const ct_tensor* t, ct_device_type* type) {
  int32_t index;
  if (ct_tensor_device(t, type, &index) != CT_OK) *type = (ct_device_type)-1;
}

typedef struct {
  const char* device;
  ct_device_type got_default, got_made;
  int ok;
} device_worker;

/* Each thread sets its own default device and makes a tensor without naming one. */
static void* use_own_device(void* p) {
  device_worker* w = p;
  int32_t index;
  ct_tensor* t = NULL;
  w->ok = ct_set_default_device(w->device) == CT_OK && ct_get_default_device(&w->got_default, &index) == CT_OK &&
          ct_tensor_zeros(SZ(2, 2), 2, CT_FLOAT32, NULL, &t) == CT_OK;
  device_of(t, &w->got_made);
  ct_tensor_release(t);
  return NULL;
}

static void test_default_device_is_per_thread(void) {
  device_worker w[4] = {{"meta", 0, 0, 0}, {"cpu", 0, 0, 0}, {"meta", 0, 0, 0}, {NULL, 0, 0, 0}};
  pthread_t th[4];
  for (int i = 0; i < 4; ++i) CHECK(pthread_create(&th[i], NULL, use_own_device, &w[i]) == 0);
  for (int i = 0; i < 4; ++i) pthread_join(th[i], NULL);
  const ct_device_type want[4] = {CT_DEVICE_META, CT_DEVICE_CPU, CT_DEVICE_META, CT_DEVICE_CPU};
  for (int i = 0; i < 4; ++i) {
    CHECK(w[i].ok);
    CHECK(w[i].got_default == want[i]);
    CHECK(w[i].got_made == want[i]);
  }
  ct_device_type type;
  int32_t index = 5;
  CHECK_OK(ct_get_default_device(&type, &index)); /* this thread was never changed */
  CHECK(type == CT_DEVICE_CPU && index == -1);
  CHECK_STATUS(ct_set_default_device("nowhere"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_get_default_device(NULL, &index), CT_ERROR_INVALID_ARGUMENT);
}

static ct_dtype dtype_of(const ct_tensor* t) {
  ct_dtype d = (ct_dtype)-1;
  if (ct_tensor_dtype(t, &d) != CT_OK) return (ct_dtype)-1;
  return d;
}

static void* autocast_of_a_new_thread(void* p) {
  int* enabled = p;
  if (ct_autocast_is_enabled(CT_DEVICE_CPU, enabled) != CT_OK) *enabled = -1;
  return NULL;
}

/* The checks inside an autocast region; the caller turns autocast off whatever happens here (a
 * failed check returns early, and the thread must not keep casting afterwards). */
static void autocast_region_checks(const ct_tensor* a, const ct_tensor* b) {
  ct_tensor *prod = NULL, *a64 = NULL, *b64 = NULL, *prod64 = NULL, *sum = NULL, *loss = NULL;
  int enabled = -1, other = -2;
  CHECK_OK(ct_autocast_is_enabled(CT_DEVICE_CPU, &enabled));
  CHECK(enabled == 1);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, autocast_of_a_new_thread, &other) == 0);
  pthread_join(th, NULL);
  CHECK(other == 0); /* a new thread starts with autocast off */
  ct_value mm_args[] = {VT(a), VT(b)};
  CHECK_OK(ct_op_call("mm", mm_args, 2, &prod, 1)); /* a matrix product: bfloat16 */
  CHECK(dtype_of(prod) == CT_BFLOAT16);
  CHECK_TENSOR_NEAR(prod, CT_BFLOAT16, 1e-2, S(2, 2), 4, 5, 10, 11);
  CHECK_OK(ct_tensor_to(a, CT_FLOAT64, &a64));
  CHECK_OK(ct_tensor_to(b, CT_FLOAT64, &b64));
  ct_value mm64_args[] = {VT(a64), VT(b64)};
  CHECK_OK(ct_op_call("mm", mm64_args, 2, &prod64, 1)); /* float64 is never cast */
  CHECK(dtype_of(prod64) == CT_FLOAT64);
  CHECK_OK(ct_tensor_add(prod, prod, &sum)); /* not on a list: runs in the dtype it is given */
  CHECK(dtype_of(sum) == CT_BFLOAT16);
  ct_value loss_args[] = {VT(prod), VT(sum), VI(1)};
  CHECK_OK(ct_op_call("mse_loss", loss_args, 3, &loss, 1)); /* a loss: float32 */
  CHECK(dtype_of(loss) == CT_FLOAT32);
  RELEASE(prod, a64, b64, prod64, sum, loss);
}

static void test_autocast_casts_by_operator_and_is_per_thread(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* b = T(CT_FLOAT32, S(3, 2), 1, 0, 0, 1, 1, 1);
  ct_tensor* prod = NULL;
  ct_dtype dt;
  CHECK_OK(ct_autocast_get_dtype(CT_DEVICE_CPU, &dt));
  CHECK(dt == CT_BFLOAT16);
  CHECK_OK(ct_autocast_get_dtype(CT_DEVICE_CUDA, &dt));
  CHECK(dt == CT_FLOAT16);
  CHECK_OK(ct_autocast_set_enabled(CT_DEVICE_CPU, 1));
  autocast_region_checks(a, b);
  CHECK_OK(ct_autocast_set_enabled(CT_DEVICE_CPU, 0));
  ct_value mm_args[] = {VT(a), VT(b)};
  CHECK_OK(ct_op_call("mm", mm_args, 2, &prod, 1));
  CHECK(dtype_of(prod) == CT_FLOAT32);
  CHECK_STATUS(ct_autocast_set_dtype(CT_DEVICE_CPU, CT_FLOAT32), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_autocast_set_enabled(CT_DEVICE_META, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_autocast_set_enabled((ct_device_type)42, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_autocast_is_enabled(CT_DEVICE_CPU, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_autocast_set_dtype(CT_DEVICE_CPU, CT_FLOAT16));
  CHECK_OK(ct_autocast_get_dtype(CT_DEVICE_CPU, &dt));
  CHECK(dt == CT_FLOAT16);
  CHECK_OK(ct_autocast_set_dtype(CT_DEVICE_CPU, CT_BFLOAT16));
  RELEASE(a, b, prod);
}

static void test_promotion_casting_and_result_type(void) {
  ct_dtype d;
  CHECK_OK(ct_promote_types(CT_UINT8, CT_INT8, &d));
  CHECK(d == CT_INT16);
  CHECK_OK(ct_promote_types(CT_FLOAT16, CT_BFLOAT16, &d));
  CHECK(d == CT_FLOAT32);
  int ok = -1;
  CHECK_OK(ct_can_cast(CT_INT64, CT_FLOAT32, &ok));
  CHECK(ok == 1);
  CHECK_OK(ct_can_cast(CT_FLOAT32, CT_INT64, &ok));
  CHECK(ok == 0);
  CHECK_STATUS(ct_promote_types((ct_dtype)99, CT_INT8, &d), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_can_cast(CT_INT8, CT_INT8, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor *ints = NULL, *scalar64 = NULL;
  CHECK_OK(ct_tensor_zeros(S(2), CT_INT32, NULL, &ints));
  CHECK_OK(ct_tensor_zeros(NULL, 0, CT_FLOAT64, NULL, &scalar64));
  ct_value with_float[] = {VT(ints), VF(2.5)};
  CHECK_OK(ct_result_type(with_float, 2, &d)); /* a float number: the default dtype */
  CHECK(d == CT_FLOAT32);
  ct_value with_zero_dim[] = {VT(ints), VT(scalar64)};
  CHECK_OK(ct_result_type(with_zero_dim, 2, &d)); /* a 0-dim tensor of a higher kind counts */
  CHECK(d == CT_FLOAT64);
  ct_value with_int[] = {VT(ints), VI(7)};
  CHECK_OK(ct_result_type(with_int, 2, &d)); /* an int number of the same kind does not */
  CHECK(d == CT_INT32);
  CHECK_STATUS(ct_result_type(with_int, 0, &d), CT_ERROR_INVALID_ARGUMENT);
  ct_value bad[] = {VSTR("x")};
  CHECK_STATUS(ct_result_type(bad, 1, &d), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(ints, scalar64);
}

static void test_device_context_wins_and_nests(void) {
  ct_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
  ct_device_type t;
  CHECK_OK(ct_set_default_device("meta"));
  CHECK_OK(ct_tensor_ones(S(2), CT_FLOAT32, NULL, &a));
  device_of(a, &t);
  CHECK(t == CT_DEVICE_META);
  CHECK_OK(ct_device_push("cpu"));
  CHECK_OK(ct_tensor_rand(S(2), CT_FLOAT32, NULL, NULL, &b)); /* the context wins over the default */
  device_of(b, &t);
  CHECK(t == CT_DEVICE_CPU);
  CHECK_OK(ct_device_push("meta"));
  CHECK_OK(ct_tensor_arange(0, 4, 1, CT_INT64, NULL, &c));
  device_of(c, &t);
  CHECK(t == CT_DEVICE_META);
  CHECK_OK(ct_tensor_ones(S(2), CT_FLOAT32, "cpu", &d)); /* an explicit device always wins */
  device_of(d, &t);
  CHECK(t == CT_DEVICE_CPU);
  CHECK_OK(ct_device_pop());
  CHECK_OK(ct_device_pop());
  CHECK_STATUS(ct_device_pop(), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("ct_device_push");
  CHECK_STATUS(ct_device_push(NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_set_default_device(NULL)); /* back to cpu */
  CHECK_OK(ct_tensor_ones(S(2), CT_FLOAT32, NULL, &e));
  device_of(e, &t);
  CHECK(t == CT_DEVICE_CPU);
  RELEASE(a, b, c, d, e);
}

static void test_matmul_precision(void) {
  CHECK_STR_EQ(ct_get_float32_matmul_precision(), "highest");
  CHECK_OK(ct_set_float32_matmul_precision("high"));
  CHECK_STR_EQ(ct_get_float32_matmul_precision(), "high");
  CHECK_OK(ct_set_float32_matmul_precision("medium"));
  CHECK_STR_EQ(ct_get_float32_matmul_precision(), "medium");
  CHECK_STATUS(ct_set_float32_matmul_precision("low"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("\"highest\", \"high\" or \"medium\"");
  CHECK_STATUS(ct_set_float32_matmul_precision(NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STR_EQ(ct_get_float32_matmul_precision(), "medium");
  CHECK_OK(ct_set_float32_matmul_precision("highest"));
}

/* warn_always: a warn-once warning (the warn-only nondeterministic kernel) comes every time. */
static void test_warn_always_repeats_warn_once_warnings(void) {
  CHECK_OK(define_atomic_op());
  ct_tensor* x = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* y = NULL;
  log_sink sink = {0};
  CHECK(!ct_is_warn_always_enabled());
  ct_set_warn_always(1);
  CHECK(ct_is_warn_always_enabled());
  CHECK_OK(ct_set_log_handler(keep_log, &sink, mark_destroyed));
  CHECK_OK(ct_use_deterministic_algorithms(1, 1));
  for (int i = 0; i < 3; ++i) {
    CHECK_OK(call_atomic_op(x, &y));
    RELEASE(y);
  }
  CHECK(sink.count == 3);
  ct_set_warn_always(0);
  CHECK_OK(ct_use_deterministic_algorithms(0, 0));
  CHECK_OK(ct_set_log_handler(NULL, NULL, NULL));
  RELEASE(x);
}

/* Print options change ct_tensor_to_string; bad values are refused and change nothing. */
static void test_print_options(void) {
  ct_print_options o, back;
  CHECK_OK(ct_print_options_default(&o));
  CHECK(o.struct_size == sizeof o && o.precision == 4 && o.threshold == 1000 && o.edgeitems == 3 &&
        o.linewidth == 80 && o.sci_mode == -1);
  ct_tensor* x = T(CT_FLOAT32, S(3), 1.5, 2.25, 3);
  char* s = NULL;
  o.precision = 1, o.sci_mode = 1;
  CHECK_OK(ct_set_print_options(&o));
  CHECK_OK(ct_tensor_to_string(x, &s));
  CHECK_STR_EQ(s, "tensor([1.5e+00, 2.2e+00, 3.0e+00])");
  ct_string_release(s);
  o.precision = 31;
  CHECK_STATUS(ct_set_print_options(&o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("precision");
  back.struct_size = sizeof back;
  CHECK_OK(ct_get_print_options(&back));
  CHECK(back.precision == 1 && back.sci_mode == 1);
  back.struct_size = 8;
  CHECK_STATUS(ct_get_print_options(&back), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_set_print_options(NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_print_options_default(&o));
  o.threshold = 2, o.edgeitems = 1;
  CHECK_OK(ct_set_print_options(&o));
  CHECK_OK(ct_tensor_to_string(x, &s));
  CHECK_STR_EQ(s, "tensor([1.5000,  ..., 3.0000])");
  ct_string_release(s);
  CHECK_OK(ct_print_options_default(&o));
  CHECK_OK(ct_set_print_options(&o));
  RELEASE(x);
}

/* Anomaly mode names the node whose gradient holds NaN; flush_denormal zeros denormals. */
static void test_anomaly_mode_and_flush_denormal(void) {
  ct_tensor *a = T(CT_FLOAT32, S(2), 0, 1), *q = NULL, *s = NULL;
  CHECK_OK(ct_tensor_set_requires_grad(a, 1));
  CHECK(!ct_is_anomaly_enabled());
  ct_set_anomaly_enabled(1, 1);
  CHECK(ct_is_anomaly_enabled() && ct_is_anomaly_check_nan_enabled());
  CHECK_OK(ct_tensor_div(a, a, &q));
  CHECK_OK(ct_tensor_sum(q, NULL, 0, 0, &s));
  CHECK_STATUS(ct_tensor_backward(s, NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("returned nan values in its 1th output");
  ct_set_anomaly_enabled(1, 0);
  CHECK(!ct_is_anomaly_check_nan_enabled());
  CHECK_OK(ct_tensor_backward(s, NULL, 0)); /* the failed run released nothing */
  ct_set_anomaly_enabled(0, 1);
  CHECK(!ct_is_anomaly_enabled() && !ct_is_anomaly_check_nan_enabled());
  RELEASE(a, q, s);
  int supported = -1;
  ct_tensor *tiny = T(CT_FLOAT32, S(1), 1e-39), *one = T(CT_FLOAT32, S(1), 1), *p = NULL;
  CHECK_OK(ct_set_flush_denormal(1, &supported));
  if (supported) {
    float v = 1;
    CHECK_OK(ct_tensor_mul(tiny, one, &p));
    CHECK_OK(ct_tensor_copy_to(p, &v, sizeof v));
    CHECK(v == 0);
    RELEASE(p);
  }
  CHECK_OK(ct_set_flush_denormal(0, NULL));
  float w = 0;
  CHECK_OK(ct_tensor_mul(tiny, one, &p));
  CHECK_OK(ct_tensor_copy_to(p, &w, sizeof w));
  CHECK(w > 0);
  RELEASE(tiny, one, p);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_switch_getters_agree),          CAPI_TEST(test_nondeterministic_kernel_refused_or_warned_once),
    CAPI_TEST(test_set_determinism_errors_and_registry), CAPI_TEST(test_empty_is_filled_in_deterministic_mode),
    CAPI_TEST(test_log_handler_replacement_and_levels),  CAPI_TEST(test_default_dtype),
    CAPI_TEST(test_default_device_is_per_thread),  CAPI_TEST(test_device_context_wins_and_nests),
    CAPI_TEST(test_matmul_precision),              CAPI_TEST(test_autocast_casts_by_operator_and_is_per_thread),
    CAPI_TEST(test_promotion_casting_and_result_type), CAPI_TEST(test_warn_always_repeats_warn_once_warnings),
    CAPI_TEST(test_print_options),                 CAPI_TEST(test_anomaly_mode_and_flush_denormal)};
CAPI_MAIN(TESTS)
