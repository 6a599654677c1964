/* test_symbolic.c - ShapeEnv, SymInt/SymFloat/SymBool and symbolic meta tensors through the C ABI:
 * expressions, guards, builders that never guard, evaluation, unbacked symbols, operators on
 * symbolic shapes (typed and boxed), and every documented failure. */
#include "capi_test.h"

static char text_buf[256];

/* The text of a symint (copied into a static buffer), or "(error)". */
static const char* int_text(const ct_symint* s) {
  char* t = NULL;
  if (ct_symint_to_string(s, &t) != CT_OK) return "(error)";
  snprintf(text_buf, sizeof text_buf, "%s", t);
  ct_string_release(t);
  return text_buf;
}
static const char* bool_text(const ct_symbool* s) {
  char* t = NULL;
  if (ct_symbool_to_string(s, &t) != CT_OK) return "(error)";
  snprintf(text_buf, sizeof text_buf, "%s", t);
  ct_string_release(t);
  return text_buf;
}
static size_t guards(const ct_shape_env* env) {
  size_t n = 99;
  if (ct_shape_env_num_guards(env, &n) != CT_OK) return 99;
  return n;
}

static void test_shape_env_create_null_out_is_invalid_argument(void) {
  CHECK_STATUS(ct_shape_env_create(NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_symint_from_int(1, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_shape_env_release(NULL); /* no-ops */
  ct_symint_release(NULL);
  ct_symfloat_release(NULL);
  ct_symbool_release(NULL);
}

static void test_symbol_hint_outside_its_range_is_invalid_argument(void) {
  ct_shape_env* env = NULL;
  ct_symint* s = (ct_symint*)capi_sentinel();
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_STATUS(ct_shape_env_create_symbol(env, "batch", 0, 1, 1024, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK(s == NULL);
  CHECK_ERROR_CONTAINS("batch");
  CHECK_STATUS(ct_shape_env_create_symbol(env, NULL, 5, 10, 1, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_shape_env_create_symbol(NULL, NULL, 5, 0, 10, &s), CT_ERROR_INVALID_ARGUMENT);
  ct_shape_env_release(env);
}

static void test_arithmetic_builds_simplified_python_style_expressions(void) {
  ct_shape_env* env = NULL;
  ct_symint *s0 = NULL, *two = NULL, *one = NULL, *four = NULL, *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 8, 1, 1024, &s0));
  CHECK_OK(ct_symint_from_int(2, &two));
  CHECK_OK(ct_symint_from_int(1, &one));
  CHECK_OK(ct_symint_from_int(4, &four));
  CHECK_OK(ct_symint_mul(two, s0, &a));
  CHECK_OK(ct_symint_add(a, one, &b));
  CHECK_STR_EQ(int_text(b), "2*s0 + 1");
  CHECK_OK(ct_symint_mul(s0, four, &c));
  CHECK_OK(ct_symint_floordiv(c, four, &d)); /* (s0*4)//4 -> s0 */
  CHECK_STR_EQ(int_text(d), "s0");
  ct_symint_release(d);
  d = NULL;
  CHECK_OK(ct_symint_max(s0, one, &d)); /* max(s0, 1) -> s0, as s0 >= 1 */
  CHECK_STR_EQ(int_text(d), "s0");
  int sym = 0;
  CHECK_OK(ct_symint_is_symbolic(d, &sym));
  CHECK(sym == 1);
  CHECK_OK(ct_symint_is_symbolic(two, &sym));
  CHECK(sym == 0);
  CHECK(guards(env) == 0);
  ct_symint_release(a), ct_symint_release(b), ct_symint_release(c), ct_symint_release(d);
  ct_symint_release(s0), ct_symint_release(one), ct_symint_release(two), ct_symint_release(four);
  ct_shape_env_release(env);
}

static void test_floor_division_and_modulo_follow_python(void) {
  ct_symint *m7 = NULL, *two = NULL, *q = NULL, *r = NULL;
  int64_t v = 0;
  int concrete = 0;
  CHECK_OK(ct_symint_from_int(-7, &m7));
  CHECK_OK(ct_symint_from_int(2, &two));
  CHECK_OK(ct_symint_floordiv(m7, two, &q));
  CHECK_OK(ct_symint_mod(m7, two, &r));
  CHECK_OK(ct_symint_maybe_int(q, &v, &concrete));
  CHECK(concrete == 1 && v == -4);
  CHECK_OK(ct_symint_maybe_int(r, &v, &concrete));
  CHECK(concrete == 1 && v == 1);
  ct_symint* zero = NULL;
  ct_symint* bad = (ct_symint*)capi_sentinel();
  CHECK_OK(ct_symint_from_int(0, &zero));
  CHECK_STATUS(ct_symint_floordiv(m7, zero, &bad), CT_ERROR_INVALID_ARGUMENT);
  CHECK(bad == NULL);
  ct_symint_release(m7), ct_symint_release(two), ct_symint_release(q), ct_symint_release(r), ct_symint_release(zero);
}

static void test_reserved_integer_is_invalid_argument(void) {
  ct_symint* s = NULL;
  CHECK_STATUS(ct_symint_from_int(INT64_MIN, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK(s == NULL);
}

static void test_guard_bool_records_one_guard_listed_in_json(void) {
  ct_shape_env* env = NULL;
  ct_symint *s0 = NULL, *one = NULL;
  ct_symbool *gt = NULL, *ge = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, "n", 8, 0, INT64_MAX, &s0));
  CHECK_OK(ct_symint_from_int(1, &one));
  CHECK_OK(ct_symint_gt(s0, one, &gt));
  CHECK_STR_EQ(bool_text(gt), "n >= 2");
  CHECK(guards(env) == 0);
  int v = 0;
  CHECK_OK(ct_symbool_guard_bool(gt, &v));
  CHECK(v == 1);
  CHECK(guards(env) == 1);
  CHECK_OK(ct_symbool_guard_bool(gt, &v)); /* deduplicated */
  CHECK(guards(env) == 1);
  CHECK_OK(ct_symint_ge(s0, one, &ge)); /* implied by the guard: a plain bool now */
  int sym = 1;
  CHECK_OK(ct_symbool_is_symbolic(ge, &sym));
  CHECK(sym == 0);
  char* json = NULL;
  CHECK_OK(ct_shape_env_guards_json(env, &json));
  CHECK_CONTAINS(json, "\"guards\": [\"n >= 2\"]");
  CHECK_CONTAINS(json, "\"name\": \"n\"");
  ct_string_release(json);
  uint64_t requests = 0;
  CHECK_OK(ct_shape_env_guard_requests(env, &requests));
  CHECK(requests >= 1);
  ct_symbool_release(gt), ct_symbool_release(ge), ct_symint_release(s0), ct_symint_release(one);
  ct_shape_env_release(env);
}

static void test_builders_record_no_guards(void) {
  ct_shape_env* env = NULL;
  ct_symint *a = NULL, *b = NULL, *mx = NULL, *mn = NULL, *sum = NULL, *ite = NULL, *back = NULL;
  ct_symbool *lt = NULL, *not_lt = NULL;
  ct_symfloat* f = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 4, 0, 100, &a));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 6, 0, 100, &b));
  const ct_symint* xs[3] = {a, b, a};
  CHECK_OK(ct_sym_max(xs, 2, &mx));
  CHECK_OK(ct_sym_min(xs, 2, &mn));
  CHECK_OK(ct_sym_sum(xs, 3, &sum));
  CHECK_STR_EQ(int_text(sum), "2*s0 + s1");
  CHECK_OK(ct_symint_lt(a, b, &lt));
  CHECK_OK(ct_sym_ite(lt, a, b, &ite));
  CHECK_OK(ct_sym_not(lt, &not_lt));
  CHECK_OK(ct_sym_float(a, &f));
  CHECK_OK(ct_sym_int(f, &back));
  CHECK_STR_EQ(int_text(back), "s0");
  CHECK(guards(env) == 0);
  ct_symint* none = (ct_symint*)capi_sentinel();
  CHECK_STATUS(ct_sym_max(xs, 0, &none), CT_ERROR_INVALID_ARGUMENT);
  CHECK(none == NULL);
  ct_symint_release(a), ct_symint_release(b), ct_symint_release(mx), ct_symint_release(mn), ct_symint_release(sum);
  ct_symint_release(ite), ct_symint_release(back), ct_symbool_release(lt), ct_symbool_release(not_lt);
  ct_symfloat_release(f);
  ct_shape_env_release(env);
}

static void test_evaluate_binds_symbols_in_creation_order(void) {
  ct_shape_env* env = NULL;
  ct_symint *a = NULL, *b = NULL, *p = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 4, 0, 100, &a));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 6, 0, 100, &b));
  CHECK_OK(ct_symint_mul(a, b, &p));
  const int64_t values[2] = {3, 5};
  int64_t v = 0;
  CHECK_OK(ct_symint_evaluate(p, values, 2, &v));
  CHECK(v == 15);
  CHECK_STATUS(ct_symint_evaluate(p, values, 1, &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("2 symbols");
  ct_symint_release(a), ct_symint_release(b), ct_symint_release(p);
  ct_shape_env_release(env);
}

static void test_check_guards_reports_the_first_failing_one(void) {
  ct_shape_env* env = NULL;
  ct_symint *a = NULL, *ten = NULL;
  ct_symbool* lt = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 4, 0, 100, &a));
  CHECK_OK(ct_symint_from_int(10, &ten));
  CHECK_OK(ct_symint_lt(a, ten, &lt));
  int v = 0;
  CHECK_OK(ct_symbool_guard_bool(lt, &v));
  int64_t failing = 7;
  const int64_t ok[1] = {9}, bad[1] = {12};
  CHECK_OK(ct_shape_env_check_guards(env, ok, 1, &failing));
  CHECK(failing == -1);
  CHECK_OK(ct_shape_env_check_guards(env, bad, 1, &failing));
  CHECK(failing == 0);
  CHECK_STATUS(ct_shape_env_check_guards(env, ok, 2, &failing), CT_ERROR_INVALID_ARGUMENT);
  ct_symint_release(a), ct_symint_release(ten), ct_symbool_release(lt);
  ct_shape_env_release(env);
}

static void test_unbacked_branch_is_guard_error(void) {
  ct_shape_env* env = NULL;
  ct_symint *u = NULL, *three = NULL;
  ct_symbool* gt = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_unbacked(env, &u));
  CHECK_STR_EQ(int_text(u), "u0");
  CHECK_OK(ct_symint_from_int(3, &three));
  CHECK_OK(ct_symint_gt(u, three, &gt));
  int v = 0;
  CHECK_STATUS(ct_symbool_guard_bool(gt, &v), CT_ERROR_GUARD);
  CHECK_ERROR_CONTAINS("u0");
  int64_t i = 0;
  CHECK_STATUS(ct_symint_guard_int(u, &i), CT_ERROR_GUARD);
  ct_symint_release(u), ct_symint_release(three), ct_symbool_release(gt);
  ct_shape_env_release(env);
}

static void test_released_or_mistyped_handle_is_invalid_argument(void) {
  ct_symint *a = NULL, *b = NULL, *c = NULL;
  ct_symbool* t = NULL;
  CHECK_OK(ct_symint_from_int(2, &a));
  CHECK_OK(ct_symint_from_int(3, &b));
  ct_symint_release(b);
  CHECK_STATUS(ct_symint_add(a, b, &c), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("released");
  CHECK_OK(ct_symbool_from_bool(1, &t));
  CHECK_STATUS(ct_symint_add(a, (const ct_symint*)(const void*)t, &c), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("ct_symint");
  CHECK_STATUS(ct_symint_retain(b), CT_ERROR_INVALID_ARGUMENT);
  ct_symint_release(a);
  ct_symbool_release(t);
}

static void test_symbols_of_two_envs_do_not_mix(void) {
  ct_shape_env *e1 = NULL, *e2 = NULL;
  ct_symint *a = NULL, *b = NULL, *c = NULL;
  CHECK_OK(ct_shape_env_create(&e1));
  CHECK_OK(ct_shape_env_create(&e2));
  CHECK_OK(ct_shape_env_create_symbol(e1, NULL, 2, 0, 10, &a));
  CHECK_OK(ct_shape_env_create_symbol(e2, NULL, 3, 0, 10, &b));
  CHECK_STATUS(ct_symint_add(a, b, &c), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("two different ShapeEnvs");
  ct_symint_release(a), ct_symint_release(b);
  ct_shape_env_release(e1), ct_shape_env_release(e2);
}

static void test_symbols_keep_their_env_alive(void) {
  ct_shape_env* env = NULL;
  ct_symint *a = NULL, *b = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 2, 0, 10, &a));
  ct_shape_env_release(env);
  CHECK_OK(ct_symint_add(a, a, &b));
  CHECK_STR_EQ(int_text(b), "2*s0");
  ct_symint_release(a), ct_symint_release(b);
}

static void test_symfloat_and_truediv(void) {
  ct_shape_env* env = NULL;
  ct_symint *a = NULL, *two = NULL;
  ct_symfloat *h = NULL, *half = NULL, *s = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 5, 0, 10, &a));
  CHECK_OK(ct_symint_from_int(2, &two));
  CHECK_OK(ct_symint_truediv(a, two, &h));
  CHECK_OK(ct_symfloat_from_double(0.5, &half));
  CHECK_OK(ct_symfloat_add(h, half, &s));
  const int64_t values[1] = {5};
  double v = 0;
  CHECK_OK(ct_symfloat_evaluate(s, values, 1, &v));
  CHECK(v == 3.0);
  CHECK_OK(ct_symfloat_guard_float(s, &v));
  CHECK(v == 3.0);
  ct_symint_release(a), ct_symint_release(two);
  ct_symfloat_release(h), ct_symfloat_release(half), ct_symfloat_release(s);
  ct_shape_env_release(env);
}

/* linear on a [s0, 100] meta input: the typed function and the result's symbolic size. */
static void test_linear_on_a_symbolic_batch_gives_a_symbolic_result(void) {
  ct_shape_env* env = NULL;
  ct_symint *s0 = NULL, *hundred = NULL, *d0 = NULL;
  ct_tensor *x = NULL, *w = NULL, *b = NULL, *y = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, "batch", 8, 1, 1024, &s0));
  CHECK_OK(ct_symint_from_int(100, &hundred));
  const ct_symint* sizes[2] = {s0, hundred};
  CHECK_OK(ct_tensor_empty_symbolic(sizes, 2, CT_FLOAT32, &x));
  CHECK_OK(ct_tensor_empty(S(50, 100), CT_FLOAT32, "meta", &w));
  CHECK_OK(ct_tensor_empty(S(50), CT_FLOAT32, "meta", &b));
  CHECK_OK(ct_tensor_linear(x, w, b, &y));
  int sym = 0;
  CHECK_OK(ct_tensor_is_symbolic(y, &sym));
  CHECK(sym == 1);
  CHECK_OK(ct_tensor_sym_size(y, 0, &d0));
  CHECK_STR_EQ(int_text(d0), "batch");
  ct_symint_release(d0);
  d0 = NULL;
  CHECK_OK(ct_tensor_sym_size(y, -1, &d0));
  CHECK_STR_EQ(int_text(d0), "50");
  ct_symint_release(d0);
  d0 = NULL;
  CHECK_OK(ct_tensor_sym_numel(y, &d0));
  CHECK_STR_EQ(int_text(d0), "50*batch");
  CHECK_STATUS(ct_tensor_sym_size(y, 2, &d0), CT_ERROR_INDEX);
  int64_t n = 0;
  CHECK_STATUS(ct_tensor_size(y, 0, &n), CT_ERROR_GUARD); /* plain sizes are refused, with a message */
  CHECK_ERROR_CONTAINS("[batch, 50]");
  ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(b), ct_tensor_release(y);
  ct_symint_release(s0), ct_symint_release(hundred);
  ct_shape_env_release(env);
}

/* reshape(x, [-1, 4]) and reshape(x, [2*s0, -1]) through ct_op_call with symbolic lists. */
static void test_boxed_call_takes_symbolic_lists(void) {
  ct_shape_env* env = NULL;
  ct_symint *s0 = NULL, *eight = NULL, *two = NULL, *twice = NULL, *minus1 = NULL, *d = NULL;
  ct_tensor *x = NULL, *y = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 8, 1, 1024, &s0));
  CHECK_OK(ct_symint_from_int(8, &eight));
  CHECK_OK(ct_symint_from_int(2, &two));
  CHECK_OK(ct_symint_from_int(-1, &minus1));
  CHECK_OK(ct_symint_mul(two, s0, &twice));
  const ct_symint* sizes[2] = {s0, eight};
  CHECK_OK(ct_tensor_empty_symbolic(sizes, 2, CT_FLOAT32, &x));
  const ct_symint* shape[2] = {twice, minus1};
  ct_value args[2];
  memset(args, 0, sizeof args);
  args[0].kind = CT_VALUE_TENSOR;
  args[0].tensor = x;
  ct_value_set_symints(&args[1], shape, 2);
  CHECK_OK(ct_op_call("reshape", args, 2, &y, 1));
  CHECK_OK(ct_tensor_sym_size(y, 1, &d));
  CHECK_STR_EQ(int_text(d), "4");
  ct_symint_release(d);
  d = NULL;
  CHECK_OK(ct_tensor_sym_size(y, 0, &d));
  CHECK_STR_EQ(int_text(d), "2*s0");
  ct_tensor_release(x), ct_tensor_release(y), ct_symint_release(d);
  ct_symint_release(s0), ct_symint_release(eight), ct_symint_release(two), ct_symint_release(twice);
  ct_symint_release(minus1);
  ct_shape_env_release(env);
}

/* item() of a meta tensor of the env is an unbacked symbol, usable as topk's k. */
static void test_sym_item_is_unbacked_and_sizes_topk(void) {
  ct_shape_env* env = NULL;
  ct_symint *s0 = NULL, *n64 = NULL, *u = NULL, *d = NULL;
  ct_tensor *x = NULL, *counts = NULL, *total = NULL, *outs[2] = {NULL, NULL};
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 8, 1, 1024, &s0));
  CHECK_OK(ct_symint_from_int(64, &n64));
  const ct_symint* sizes[2] = {s0, n64};
  CHECK_OK(ct_tensor_empty_symbolic(sizes, 2, CT_FLOAT32, &x));
  CHECK_OK(ct_tensor_empty_symbolic(sizes, 1, CT_INT64, &counts));
  CHECK_OK(ct_tensor_sum(counts, NULL, 0, 0, &total));
  CHECK_OK(ct_tensor_sym_item(total, &u));
  CHECK_STR_EQ(int_text(u), "u0");
  ct_value args[2];
  memset(args, 0, sizeof args);
  args[0].kind = CT_VALUE_TENSOR;
  args[0].tensor = x;
  ct_value_set_symint(&args[1], u);
  CHECK_OK(ct_op_call("topk", args, 2, outs, 2));
  CHECK_OK(ct_tensor_sym_size(outs[0], 1, &d));
  CHECK_STR_EQ(int_text(d), "u0");
  char* json = NULL;
  CHECK_OK(ct_shape_env_guards_json(env, &json));
  CHECK_CONTAINS(json, "\"runtime_asserts\": [{\"expr\": \"");
  CHECK_CONTAINS(json, "u0 <= 64");
  ct_string_release(json);
  ct_tensor_release(x), ct_tensor_release(counts), ct_tensor_release(total);
  ct_tensor_release(outs[0]), ct_tensor_release(outs[1]);
  ct_symint_release(s0), ct_symint_release(n64), ct_symint_release(u), ct_symint_release(d);
  ct_shape_env_release(env);
}

static void test_sym_item_failures(void) {
  ct_tensor *cpu = NULL, *meta_f = NULL;
  ct_symint* u = (ct_symint*)capi_sentinel();
  CHECK_OK(ct_tensor_zeros(S0, CT_INT64, "cpu", &cpu));
  CHECK_STATUS(ct_tensor_sym_item(cpu, &u), CT_ERROR_DEVICE);
  CHECK(u == NULL);
  ct_shape_env* env = NULL;
  ct_symint* s0 = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 1, 1, 1, &s0)); /* pinned to 1: folds to a plain 1 */
  ct_symint* one_sym = NULL;
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 3, 1, 8, &one_sym));
  const ct_symint* sizes[1] = {one_sym};
  CHECK_OK(ct_tensor_empty_symbolic(sizes, 1, CT_FLOAT32, &meta_f));
  CHECK_STATUS(ct_tensor_sym_item(meta_f, &u), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_tensor_sym_item(NULL, &u), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(cpu), ct_tensor_release(meta_f);
  ct_symint_release(s0), ct_symint_release(one_sym);
  ct_shape_env_release(env);
}

static void test_empty_symbolic_failures(void) {
  ct_tensor* t = SENTINEL;
  ct_symint* neg = NULL;
  CHECK_OK(ct_symint_from_int(-2, &neg));
  const ct_symint* sizes[1] = {neg};
  CHECK_STATUS(ct_tensor_empty_symbolic(sizes, 1, CT_FLOAT32, &t), CT_ERROR_INVALID_ARGUMENT);
  CHECK(t == NULL);
  CHECK_STATUS(ct_tensor_empty_symbolic(NULL, 1, CT_FLOAT32, &t), CT_ERROR_INVALID_ARGUMENT);
  ct_symint* three = NULL;
  CHECK_OK(ct_symint_from_int(3, &three));
  const ct_symint* fine[1] = {three};
  CHECK_STATUS(ct_tensor_empty_symbolic(fine, 1, (ct_dtype)99, &t), CT_ERROR_INVALID_ARGUMENT);
  ct_symint_release(three);
  const ct_symint* null_size[1] = {NULL};
  CHECK_STATUS(ct_tensor_empty_symbolic(null_size, 1, CT_FLOAT32, &t), CT_ERROR_INVALID_ARGUMENT);
  ct_symint_release(neg);
}

/* An operator with no symbolic rule (diag of a vector) refuses by name instead of computing a wrong
 * shape. */
static void test_operator_without_symbolic_rule_is_guard_error(void) {
  ct_shape_env* env = NULL;
  ct_symint* s0 = NULL;
  ct_tensor *x = NULL, *y = NULL;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 8, 1, 1024, &s0));
  const ct_symint* sizes[1] = {s0};
  CHECK_OK(ct_tensor_empty_symbolic(sizes, 1, CT_FLOAT32, &x));
  ct_value args[1];
  memset(args, 0, sizeof args);
  args[0].kind = CT_VALUE_TENSOR;
  args[0].tensor = x;
  CHECK_STATUS(ct_op_call("diag", args, 1, &y, 1), CT_ERROR_GUARD);
  CHECK_ERROR_CONTAINS("[s0]");
  ct_tensor_release(x), ct_symint_release(s0);
  ct_shape_env_release(env);
}

/* NULL handles and NULL outs anywhere give CT_ERROR_INVALID_ARGUMENT and leave outs NULL. */
static void test_null_arguments_are_invalid_argument(void) {
  ct_shape_env* env = NULL;
  ct_symint* s = NULL;
  ct_symint* out = (ct_symint*)capi_sentinel();
  size_t n = 0;
  uint64_t u = 0;
  char* text = (char*)capi_sentinel();
  int flag = 0;
  int64_t v = 0;
  CHECK_OK(ct_shape_env_create(&env));
  CHECK_OK(ct_shape_env_create_symbol(env, NULL, 3, 0, 10, &s));
  CHECK_STATUS(ct_shape_env_create_unbacked(NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_shape_env_num_symbols(NULL, &n), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_shape_env_num_guards(env, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_shape_env_guard_requests(NULL, &u), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_shape_env_guards_json(NULL, &text), CT_ERROR_INVALID_ARGUMENT);
  CHECK(text == NULL);
  CHECK_STATUS(ct_shape_env_check_guards(env, &v, 1, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_symint_is_symbolic(NULL, &flag), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_symint_maybe_int(s, NULL, &flag), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_symint_guard_int(NULL, &v), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_symint_to_string(NULL, &text), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_symint_evaluate(s, NULL, 1, &v), CT_ERROR_INVALID_ARGUMENT);
  out = (ct_symint*)capi_sentinel();
  CHECK_STATUS(ct_symint_add(s, NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_STATUS(ct_sym_sum(NULL, 2, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_is_symbolic(NULL, &flag), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_sym_size(NULL, 0, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_tensor_sym_numel(NULL, &out), CT_ERROR_INVALID_ARGUMENT);
  ct_symint_release(s);
  ct_shape_env_release(env);
}

/* sym_int of a float that no int64 holds, and an int64 overflow, are refused with a status. */
static void test_out_of_range_numbers_are_invalid_argument(void) {
  ct_symfloat* big = NULL;
  ct_symint *out = NULL, *huge = NULL, *two = NULL;
  CHECK_OK(ct_symfloat_from_double(1e30, &big));
  CHECK_STATUS(ct_sym_int(big, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_OK(ct_symint_from_int(INT64_MAX, &huge));
  CHECK_OK(ct_symint_from_int(2, &two));
  CHECK_STATUS(ct_symint_mul(huge, two, &out), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("overflow");
  ct_symfloat_release(big), ct_symint_release(huge), ct_symint_release(two);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_shape_env_create_null_out_is_invalid_argument),
    CAPI_TEST(test_symbol_hint_outside_its_range_is_invalid_argument),
    CAPI_TEST(test_arithmetic_builds_simplified_python_style_expressions),
    CAPI_TEST(test_floor_division_and_modulo_follow_python),
    CAPI_TEST(test_reserved_integer_is_invalid_argument),
    CAPI_TEST(test_guard_bool_records_one_guard_listed_in_json),
    CAPI_TEST(test_builders_record_no_guards),
    CAPI_TEST(test_evaluate_binds_symbols_in_creation_order),
    CAPI_TEST(test_check_guards_reports_the_first_failing_one),
    CAPI_TEST(test_unbacked_branch_is_guard_error),
    CAPI_TEST(test_released_or_mistyped_handle_is_invalid_argument),
    CAPI_TEST(test_symbols_of_two_envs_do_not_mix),
    CAPI_TEST(test_symbols_keep_their_env_alive),
    CAPI_TEST(test_symfloat_and_truediv),
    CAPI_TEST(test_linear_on_a_symbolic_batch_gives_a_symbolic_result),
    CAPI_TEST(test_boxed_call_takes_symbolic_lists),
    CAPI_TEST(test_sym_item_is_unbacked_and_sizes_topk),
    CAPI_TEST(test_sym_item_failures),
    CAPI_TEST(test_empty_symbolic_failures),
    CAPI_TEST(test_operator_without_symbolic_rule_is_guard_error),
    CAPI_TEST(test_null_arguments_are_invalid_argument),
    CAPI_TEST(test_out_of_range_numbers_are_invalid_argument),
};
CAPI_MAIN(TESTS)
