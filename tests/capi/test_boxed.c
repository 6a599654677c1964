/* Boxed calls (ct_op_call), schemas, the registry JSON, and operators defined from C. */
#include "capi_test.h"

#include <pthread.h>

#define NARGS(arr) (sizeof(arr) / sizeof((arr)[0]))

/* ---- ct_op_call on built-in operators ---- */

static void test_op_call_add_by_short_and_full_name(void) {
  ct_tensor* a = T(CT_FLOAT32, S(3), 1, 2, 3);
  ct_tensor* b = T(CT_FLOAT32, S(3), 10, 20, 30);
  ct_value args[] = {VT(a), VT(b)};
  ct_tensor *o1 = NULL, *o2 = NULL;
  CHECK_OK(ct_op_call("add", args, 2, &o1, 1));
  CHECK_TENSOR(o1, CT_FLOAT32, S(3), 11, 22, 33);
  CHECK_OK(ct_op_call("add.Tensor", args, 2, &o2, 1));
  CHECK_TENSOR(o2, CT_FLOAT32, S(3), 11, 22, 33);
  RELEASE(a, b, o1, o2);
}

static void test_op_call_add_with_alpha(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* b = T(CT_FLOAT32, S(2), 10, 20);
  ct_value with_int[] = {VT(a), VT(b), VI(2)};
  ct_value with_float[] = {VT(a), VT(b), VF(0.5)};
  ct_value with_none[] = {VT(a), VT(b), VNONE()};
  ct_tensor *o1 = NULL, *o2 = NULL, *o3 = NULL;
  CHECK_OK(ct_op_call("add", with_int, 3, &o1, 1));
  CHECK_TENSOR(o1, CT_FLOAT32, S(2), 21, 42);
  CHECK_OK(ct_op_call("add.Tensor", with_float, 3, &o2, 1));
  CHECK_TENSOR(o2, CT_FLOAT32, S(2), 6, 12);
  CHECK_OK(ct_op_call("add", with_none, 3, &o3, 1)); /* NONE takes the default alpha=1 */
  CHECK_TENSOR(o3, CT_FLOAT32, S(2), 11, 22);
  RELEASE(a, b, o1, o2, o3);
}

static void test_op_call_add_with_number_picks_scalar_overload(void) {
  ct_tensor* a = T(CT_INT32, S(2), 1, 2);
  ct_value int_arg[] = {VT(a), VI(3)};
  ct_value float_arg[] = {VT(a), VF(0.5)};
  ct_tensor *o1 = NULL, *o2 = NULL, *o3 = NULL;
  CHECK_OK(ct_op_call("add", int_arg, 2, &o1, 1));
  CHECK_TENSOR(o1, CT_INT32, S(2), 4, 5);
  CHECK_OK(ct_op_call("add", float_arg, 2, &o2, 1));
  CHECK_TENSOR(o2, CT_FLOAT32, S(2), 1.5, 2.5);
  CHECK_OK(ct_op_call("add.Scalar", int_arg, 2, &o3, 1));
  CHECK_TENSOR(o3, CT_INT32, S(2), 4, 5);
  RELEASE(a, o1, o2, o3);
}

static void test_op_call_other_builtins(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_value one[] = {VT(a)};
  ct_value two[] = {VT(a), VT(a)};
  ct_tensor *n = NULL, *m = NULL, *mm = NULL;
  CHECK_OK(ct_op_call("neg", one, 1, &n, 1));
  CHECK_TENSOR(n, CT_FLOAT32, S(2, 2), -1, -2, -3, -4);
  CHECK_OK(ct_op_call("mul", two, 2, &m, 1));
  CHECK_TENSOR(m, CT_FLOAT32, S(2, 2), 1, 4, 9, 16);
  CHECK_OK(ct_op_call("matmul", two, 2, &mm, 1));
  CHECK_TENSOR(mm, CT_FLOAT32, S(2, 2), 7, 10, 15, 22);
  RELEASE(a, n, m, mm);
}

/* Only the slots of the operator's returns are written, on success and on failure: a nouts larger
 * than the caller's array (a slip, or a guess) never makes ct_op_call write past what it returns. */
static void test_op_call_never_writes_past_the_returns(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_value args[] = {VT(a), VT(a)};
  ct_tensor* outs[3] = {SENTINEL, SENTINEL, SENTINEL};
  CHECK_OK(ct_op_call("add", args, 2, outs, 3));
  CHECK(outs[1] == SENTINEL && outs[2] == SENTINEL);
  CHECK_TENSOR(outs[0], CT_FLOAT32, S(1), 2);
  ct_tensor_release(outs[0]);
  ct_value bad[] = {VT(a), VT(NULL)};
  outs[0] = SENTINEL;
  CHECK_STATUS(ct_op_call("add", bad, 2, outs, (size_t)1 << 40), CT_ERROR_INVALID_ARGUMENT);
  CHECK(outs[0] == NULL && outs[1] == SENTINEL && outs[2] == SENTINEL);
  /* sort returns two: two slots, whatever nouts says */
  ct_value one[] = {VT(a)};
  outs[0] = outs[1] = SENTINEL;
  CHECK_OK(ct_op_call("sort", one, 1, outs, 3));
  CHECK(outs[0] != SENTINEL && outs[1] != SENTINEL && outs[2] == SENTINEL);
  RELEASE(a, outs[0], outs[1]);
}

/* A list's len is checked before any of its elements is read. */
static void test_op_call_refuses_list_lengths_past_the_limit(void) {
  ct_tensor* x = T(CT_FLOAT32, S(1, 1, 2, 2), 1, 2, 3, 4);
  const int64_t two[2] = {1, 1};
  ct_tensor* outs[2] = {SENTINEL, SENTINEL};
  ct_value huge[] = {VT(x), VINTS(two, SIZE_MAX)};
  CHECK_STATUS(ct_op_call("permute", huge, 2, outs, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("argument 'dims' (int[]) has len 18446744073709551615");
  CHECK(outs[0] == NULL);
  const ct_tensor* list[1] = {x};
  ct_value many[] = {capi_value(CT_VALUE_TENSORS), VI(0)};
  many[0].tensors = list;
  many[0].len = (size_t)CT_MAX_LIST_LEN + 1;
  CHECK_STATUS(ct_op_call("cat", many, 2, outs, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("CT_MAX_LIST_LEN");
  ct_tensor_release(x);
}

static void test_op_call_unknown_name_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_value args[] = {VT(a), VT(a)};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_op_call("no_such_op", args, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_op_call("addd", args, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("add"); /* close names are listed */
  out = SENTINEL;
  CHECK_STATUS(ct_op_call("add.NoSuchOverload", args, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_op_call(NULL, args, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_op_call_no_matching_overload_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_value strings[] = {VSTR("x"), VSTR("y")};
  ct_value too_few[] = {VT(a)};
  ct_value too_many[] = {VT(a), VT(a)};
  ct_value number_for_tensor[] = {VT(a), VI(1)};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_op_call("add", strings, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("add.Tensor"); /* the message lists the schemas */
  out = SENTINEL;
  CHECK_STATUS(ct_op_call("add", too_few, 1, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_op_call("neg", too_many, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_op_call("add.Tensor", number_for_tensor, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_op_call_too_few_outs_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_value args[] = {VT(a), VT(a)};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_op_call("add", args, 2, &out, 0), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == SENTINEL); /* nouts 0: no slot to write */
  CHECK_STATUS(ct_op_call("add", args, 2, NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(a);
}

static void test_op_call_null_or_released_tensor_arg_is_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_value null_arg[] = {VT(a), VT(NULL)};
  ct_tensor* outs[2] = {SENTINEL, SENTINEL};
  CHECK_STATUS(ct_op_call("add", null_arg, 2, outs, 2), CT_ERROR_INVALID_ARGUMENT);
  CHECK(outs[0] == NULL && outs[1] == SENTINEL); /* add returns one tensor: one slot */
  ct_value released_arg[] = {VT(a), VT(capi_released())};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_op_call("add", released_arg, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  ct_tensor_release(a);
}

static void test_op_call_null_args_with_nargs_is_invalid_argument(void) {
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_op_call("add", NULL, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
}

static void test_op_call_passes_on_the_operator_status(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* b = T(CT_FLOAT32, S(2), 1, 2);
  ct_tensor* bo = T(CT_BOOL, S(2), 1, 0);
  ct_value shape_args[] = {VT(a), VT(b)};
  ct_value dtype_args[] = {VT(bo)};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_op_call("add", shape_args, 2, &out, 1), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  out = SENTINEL;
  CHECK_STATUS(ct_op_call("neg", dtype_args, 1, &out, 1), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  RELEASE(a, b, bo);
}

/* ---- ct_op_find and ct_op_call_op ---- */

static void test_op_find_gives_one_handle_per_overload(void) {
  const ct_op *add = NULL, *again = NULL, *relu = NULL;
  CHECK_OK(ct_op_find("add.Tensor", &add));
  CHECK_OK(ct_op_find("add.Tensor", &again));
  CHECK(add != NULL && add == again);
  CHECK_OK(ct_op_find("relu", &relu)); /* a base name with a single overload */
  CHECK(relu != NULL && relu != add);
  const ct_op *sort = NULL, *stable = NULL; /* "sort" names the overload without overload name */
  CHECK_OK(ct_op_find("sort", &sort));
  CHECK_OK(ct_op_find("sort.stable", &stable));
  CHECK(sort != NULL && stable != NULL && sort != stable);
}

static void test_op_call_op_calls_like_op_call(void) {
  const ct_op *add = NULL, *sort = NULL;
  CHECK_OK(ct_op_find("add.Tensor", &add));
  CHECK_OK(ct_op_find("sort", &sort));
  ct_tensor* a = T(CT_FLOAT32, S(3), 3, 1, 2);
  ct_tensor* b = T(CT_FLOAT32, S(3), 10, 20, 30);
  ct_value defaults[] = {VT(a), VT(b)};
  ct_value with_alpha[] = {VT(a), VT(b), VF(0.5)};
  ct_tensor *o1 = NULL, *o2 = NULL;
  CHECK_OK(ct_op_call_op(add, defaults, 2, &o1, 1));
  CHECK_TENSOR(o1, CT_FLOAT32, S(3), 13, 21, 32);
  CHECK_OK(ct_op_call_op(add, with_alpha, 3, &o2, 1));
  CHECK_TENSOR(o2, CT_FLOAT32, S(3), 8, 11, 17);
  ct_value one[] = {VT(a)};
  ct_tensor* outs[3] = {SENTINEL, SENTINEL, SENTINEL};
  CHECK_OK(ct_op_call_op(sort, one, 1, outs, 3)); /* two returns: the third slot is not touched */
  CHECK_TENSOR(outs[0], CT_FLOAT32, S(3), 1, 2, 3);
  CHECK_TENSOR(outs[1], CT_INT64, S(3), 1, 2, 0);
  CHECK(outs[2] == SENTINEL);
  RELEASE(a, b, o1, o2, outs[0], outs[1]);
}

static void test_op_find_and_call_op_refuse_bad_input(void) {
  const ct_op* op = (const ct_op*)SENTINEL;
  CHECK_STATUS(ct_op_find("add", &op), CT_ERROR_INVALID_ARGUMENT); /* several overloads */
  CHECK(op == NULL);
  CHECK_ERROR_CONTAINS("add.Tensor");
  CHECK_STATUS(ct_op_find("ad.Tensor", &op), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("no operator named 'ad.Tensor'");
  CHECK_STATUS(ct_op_find(NULL, &op), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_op_find("add.Tensor", NULL), CT_ERROR_INVALID_ARGUMENT);

  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_value args[] = {VT(a), VT(a)};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_op_call_op(NULL, args, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("ct_op_find");
  int64_t not_an_op[4] = {0};
  CHECK_STATUS(ct_op_call_op((const ct_op*)(const void*)not_an_op, args, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  const ct_op* add = NULL;
  CHECK_OK(ct_op_find("add.Tensor", &add));
  ct_value wrong[] = {VT(a), VI(2)};
  CHECK_STATUS(ct_op_call_op(add, wrong, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("argument 'other' expects Tensor, got int");
  ct_value null_tensor[] = {VT(a), VT(NULL)};
  CHECK_STATUS(ct_op_call_op(add, null_tensor, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("ct_op_call_op");
  CHECK_ERROR_CONTAINS("other");
  CHECK_STATUS(ct_op_call_op(add, NULL, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_op_call_op(add, args, 2, NULL, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_op_call_op(add, args, 2, &out, 0), CT_ERROR_INVALID_ARGUMENT);
  RELEASE(a);
}

static void test_op_call_on_meta(void) {
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(4, 1), CT_FLOAT32, "meta", &m));
  ct_tensor* n = NULL;
  CHECK_OK(ct_tensor_empty(S(3), CT_FLOAT32, "meta", &n));
  ct_value args[] = {VT(m), VT(n)};
  ct_tensor* out = NULL;
  CHECK_OK(ct_op_call("add", args, 2, &out, 1));
  CHECK_META(out, CT_FLOAT32, S(4, 3));
  RELEASE(m, n, out);
}

/* ---- ct_op_schema ---- */

static void test_op_schema_lists_every_overload(void) {
  char* s = NULL;
  CHECK_OK(ct_op_schema("add", &s));
  int has_tensor = strstr(s, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor") != NULL;
  int has_scalar = strstr(s, "add.Scalar(") != NULL;
  int lines = 1;
  for (const char* p = s; *p; ++p) lines += *p == '\n' && p[1] != '\0';
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", s);
  ct_string_release(s);
  CHECK_CONTAINS(copy, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  CHECK(has_tensor && has_scalar);
  CHECK(lines >= 2);
}

static void test_op_schema_errors_are_invalid_argument(void) {
  char* s = (char*)"sentinel";
  CHECK_STATUS(ct_op_schema("no_such_op", &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK(s == NULL);
  s = (char*)"sentinel";
  CHECK_STATUS(ct_op_schema(NULL, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK(s == NULL);
  CHECK_STATUS(ct_op_schema("add", NULL), CT_ERROR_INVALID_ARGUMENT);
}

/* ---- ct_op_registry_json ---- */

/* A minimal JSON syntax check: returns 1 when s is exactly one valid JSON value. */
static const char* json_value(const char* p, int depth);
static const char* json_ws(const char* p) {
  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') ++p;
  return p;
}
static const char* json_string(const char* p) {
  if (*p != '"') return NULL;
  for (++p; *p && *p != '"'; ++p) {
    if ((unsigned char)*p < 0x20) return NULL;
    if (*p == '\\') {
      ++p;
      if (*p == 'u') {
        for (int i = 1; i <= 4; ++i)
          if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i]) return NULL;
        p += 4;
      } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
        return NULL;
      }
    }
  }
  return *p == '"' ? p + 1 : NULL;
}
static const char* json_value(const char* p, int depth) {
  if (depth > 64) return NULL;
  p = json_ws(p);
  if (*p == '{' || *p == '[') {
    char close = *p == '{' ? '}' : ']';
    int obj = *p == '{';
    p = json_ws(p + 1);
    if (*p == close) return p + 1;
    for (;;) {
      if (obj) {
        p = json_string(json_ws(p));
        if (!p) return NULL;
        p = json_ws(p);
        if (*p != ':') return NULL;
        ++p;
      }
      p = json_value(p, depth + 1);
      if (!p) return NULL;
      p = json_ws(p);
      if (*p == ',') {
        ++p;
        continue;
      }
      if (*p == close) return p + 1;
      return NULL;
    }
  }
  if (*p == '"') return json_string(p);
  if (!strncmp(p, "true", 4)) return p + 4;
  if (!strncmp(p, "false", 5)) return p + 5;
  if (!strncmp(p, "null", 4)) return p + 4;
  if (*p == '-' || (*p >= '0' && *p <= '9')) {
    char* end = NULL;
    strtod(p, &end);
    return end != p ? end : NULL;
  }
  return NULL;
}
static int json_valid(const char* s) {
  const char* end = json_value(s, 0);
  return end && *json_ws(end) == '\0';
}

/* 1 when the registry holds a schema string for operator name ("\"name(" or "\"name."). */
static int registry_has(const char* json, const char* name) {
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s(", name);
  if (strstr(json, pat)) return 1;
  snprintf(pat, sizeof pat, "\"%s.", name);
  return strstr(json, pat) != NULL;
}

static char* registry(void) {
  char* s = NULL;
  if (ct_op_registry_json(&s) != CT_OK) return NULL;
  return s;
}

static void test_registry_json_is_valid_json(void) {
  char* s = registry();
  CHECK(s != NULL);
  int valid = json_valid(s);
  int has_ops = strstr(s, "\"operators\"") != NULL;
  int has_version = strstr(s, "\"version\"") != NULL;
  ct_string_release(s);
  CHECK(valid);
  CHECK(has_ops);
  CHECK(has_version);
}

static void test_registry_json_contains_add_tensor(void) {
  char* s = registry();
  CHECK(s != NULL);
  int has = strstr(s, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor") != NULL;
  int has_backends = strstr(s, "\"backends\"") != NULL && strstr(s, "\"arguments\"") != NULL;
  ct_string_release(s);
  CHECK(has);
  CHECK(has_backends);
}

static void test_registry_json_lists_documented_operator_names(void) {
  static const char* const names[] = {"add",  "sub", "mul", "div", "pow", "maximum", "minimum", "eq",
                                      "ne",   "lt",  "le",  "gt",  "ge",  "empty",   "zeros",   "ones",
                                      "full", "to"};
  char* s = registry();
  CHECK(s != NULL);
  const char* missing = NULL;
  for (size_t i = 0; i < sizeof names / sizeof *names && !missing; ++i)
    if (!registry_has(s, names[i])) missing = names[i];
  ct_string_release(s);
  capi_context = missing;
  CHECK(missing == NULL);
}

static void test_registry_json_lists_every_typed_operator(void) {
  static const char* const names[] = {
      "add_",    "sub_",    "mul_",    "div_",      "neg",     "abs",   "exp",     "log",       "sqrt",
      "rsqrt",   "sin",     "cos",     "tanh",      "sigmoid", "relu",  "where",   "clamp",     "contiguous",
      "clone",   "view",    "reshape", "permute",   "transpose", "expand", "squeeze", "unsqueeze", "narrow",
      "select",  "flatten", "cat",     "stack",     "sum",     "mean",  "prod",    "amax",      "amin",
      "argmax",  "argmin",  "mm",      "bmm",       "matmul",  "addmm", "arange",  "linspace",  "eye"};
  char* s = registry();
  CHECK(s != NULL);
  char missing[1024] = "";
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
    if (!registry_has(s, names[i])) {
      strncat(missing, names[i], sizeof missing - strlen(missing) - 2);
      strncat(missing, " ", sizeof missing - strlen(missing) - 1);
    }
  ct_string_release(s);
  CHECK_STR_EQ(missing, "");
}

static void test_registry_json_null_out_is_invalid_argument(void) {
  CHECK_STATUS(ct_op_registry_json(NULL), CT_ERROR_INVALID_ARGUMENT);
}

/* ---- Operators defined from C ---- */

struct scale_state {
  int calls;
  size_t nargs;
  ct_value_kind factor_kind;
  double factor;
};
static struct scale_state scale_cpu = {0, 0, CT_VALUE_NONE, 0};
static int scale_cpu_destroyed = 0;

static void count_destroy(void* user_data) { ++*(int*)user_data; }
static void scale_destroy(void* user_data) {
  (void)user_data;
  ++scale_cpu_destroyed;
}

static ct_status scale_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  struct scale_state* st = user_data;
  st->calls++;
  st->nargs = nargs;
  if (nargs < 2 || nouts < 1 || args[0].kind != CT_VALUE_TENSOR) {
    ct_error_set(CT_ERROR_INVALID_ARGUMENT, "scale kernel: unexpected arguments");
    return CT_ERROR_INVALID_ARGUMENT;
  }
  st->factor_kind = args[1].kind;
  double f = args[1].kind == CT_VALUE_FLOAT ? args[1].f : (double)args[1].i;
  st->factor = f;
  ct_scalar s = SF(f);
  return ct_tensor_mul_scalar(args[0].tensor, &s, &outs[0]);
}

/* Each test sets up what it needs, so that tests also pass one by one (CAPI_FORK=1, filters). */
#define SCALE_SCHEMA "myext::scale(Tensor x, float factor=2.0) -> Tensor"
static int scale_defined = 0, scale_implemented = 0;
static ct_status define_scale(void) {
  if (scale_defined) return CT_OK;
  ct_status st = ct_library_define(SCALE_SCHEMA);
  if (st == CT_OK) scale_defined = 1;
  return st;
}
static ct_status impl_scale(void) {
  ct_status st = define_scale();
  if (st != CT_OK || scale_implemented) return st;
  st = ct_library_impl("myext::scale", "cpu", scale_kernel, &scale_cpu, scale_destroy);
  if (st == CT_OK) scale_implemented = 1;
  return st;
}

static void test_library_define_and_call_before_impl_is_not_implemented(void) {
  CHECK(!scale_implemented);
  CHECK_OK(define_scale());
  ct_tensor* x = T(CT_FLOAT32, S(2), 1, 2);
  ct_value args[] = {VT(x)};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_op_call("myext::scale", args, 1, &out, 1), CT_ERROR_NOT_IMPLEMENTED);
  CHECK(out == NULL);
  ct_tensor_release(x);
}

static void test_library_impl_kernel_is_called_with_defaults(void) {
  CHECK_OK(impl_scale());
  ct_tensor* x = T(CT_FLOAT32, S(2), 1, 2);
  ct_value only_x[] = {VT(x)};
  ct_value with_none[] = {VT(x), VNONE()};
  ct_tensor *o1 = NULL, *o2 = NULL;
  scale_cpu.calls = 0;
  CHECK_OK(ct_op_call("myext::scale", only_x, 1, &o1, 1));
  CHECK(scale_cpu.calls == 1);
  CHECK(scale_cpu.nargs == 2); /* the default was filled in */
  CHECK(scale_cpu.factor_kind == CT_VALUE_FLOAT);
  CHECK(scale_cpu.factor == 2.0);
  CHECK_TENSOR(o1, CT_FLOAT32, S(2), 2, 4);
  CHECK_OK(ct_op_call("myext::scale", with_none, 2, &o2, 1));
  CHECK(scale_cpu.factor == 2.0);
  CHECK_TENSOR(o2, CT_FLOAT32, S(2), 2, 4);
  RELEASE(x, o1, o2);
}

static void test_library_kernel_gets_explicit_factor(void) {
  CHECK_OK(impl_scale());
  ct_tensor* x = T(CT_FLOAT32, S(2), 1, 2);
  ct_value with_float[] = {VT(x), VF(3.5)};
  ct_value with_int[] = {VT(x), VI(3)};
  ct_tensor *o1 = NULL, *o2 = NULL;
  CHECK_OK(ct_op_call("myext::scale", with_float, 2, &o1, 1));
  CHECK_TENSOR(o1, CT_FLOAT32, S(2), 3.5, 7);
  CHECK_OK(ct_op_call("myext::scale", with_int, 2, &o2, 1)); /* INT accepted for float */
  CHECK(scale_cpu.factor == 3.0);
  CHECK_TENSOR(o2, CT_FLOAT32, S(2), 3, 6);
  RELEASE(x, o1, o2);
}

static void test_library_operator_appears_in_schema_and_registry(void) {
  CHECK_OK(define_scale());
  char* s = NULL;
  CHECK_OK(ct_op_schema("myext::scale", &s));
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", s);
  ct_string_release(s);
  /* The default's spelling is not specified ("2.0", "2.", "2"); the rest is. */
  CHECK_CONTAINS(copy, "myext::scale(Tensor x, float factor=2");
  CHECK_CONTAINS(copy, ") -> Tensor");
  char* j = registry();
  CHECK(j != NULL);
  int has = registry_has(j, "myext::scale");
  int valid = json_valid(j);
  ct_string_release(j);
  CHECK(has);
  CHECK(valid);
}

static void test_library_define_existing_is_invalid_argument(void) {
  CHECK_OK(define_scale());
  CHECK_STATUS(ct_library_define(SCALE_SCHEMA), CT_ERROR_INVALID_ARGUMENT);
}

static void test_library_define_without_namespace_is_invalid_argument(void) {
  CHECK_STATUS(ct_library_define("scale2(Tensor x) -> Tensor"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_library_define("add.MyOverload(Tensor x) -> Tensor"), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_library_define(NULL), CT_ERROR_INVALID_ARGUMENT);
}

static void test_library_define_unparsable_is_format_error(void) {
  CHECK_STATUS(ct_library_define("myext::broken(Tensor x -> Tensor"), CT_ERROR_FORMAT);
  CHECK_STATUS(ct_library_define("myext::broken2(Tensor x) ->"), CT_ERROR_FORMAT);
}

static ct_status shape_error_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs,
                                    size_t nouts) {
  (void)user_data;
  (void)args;
  (void)nargs;
  (void)outs;
  (void)nouts;
  ct_error_set(CT_ERROR_SHAPE, "weight must be 1-D");
  return CT_ERROR_SHAPE;
}

static void test_library_kernel_error_reaches_caller_nested_under_op_name(void) {
  CHECK_OK(ct_library_define("myext::rms_norm(Tensor weight) -> Tensor"));
  CHECK_OK(ct_library_impl("myext::rms_norm", "cpu", shape_error_kernel, NULL, NULL));
  ct_tensor* w = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_value args[] = {VT(w)};
  ct_tensor* out = SENTINEL;
  CHECK_STATUS(ct_op_call("myext::rms_norm", args, 1, &out, 1), CT_ERROR_SHAPE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("myext::");
  CHECK_ERROR_CONTAINS("myext::rms_norm");
  CHECK_ERROR_CONTAINS("weight must be 1-D");
  ct_tensor_release(w);
}

struct deleter_count {
  int calls;
};
static void blob_deleter(void* data, void* user_data) {
  (void)data;
  ((struct deleter_count*)user_data)->calls++;
}
static float partial_blob[2] = {1, 2};
static struct deleter_count partial_deleted = {0};

static ct_status partial_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs,
                                size_t nouts) {
  (void)user_data;
  (void)args;
  (void)nargs;
  if (nouts >= 1) {
    if (ct_tensor_from_blob(partial_blob, SZ(2), NULL, 1, CT_FLOAT32, blob_deleter, &partial_deleted, &outs[0]) !=
        CT_OK)
      return CT_ERROR_INTERNAL;
  }
  ct_error_set(CT_ERROR_DTYPE, "second output failed");
  return CT_ERROR_DTYPE;
}

static void test_library_kernel_outputs_are_released_on_failure(void) {
  CHECK_OK(ct_library_define("myext::partial(Tensor x) -> Tensor"));
  CHECK_OK(ct_library_impl("myext::partial", "cpu", partial_kernel, NULL, NULL));
  ct_tensor* x = T(CT_FLOAT32, S(1), 1);
  ct_value args[] = {VT(x)};
  ct_tensor* out = SENTINEL;
  partial_deleted.calls = 0;
  CHECK_STATUS(ct_op_call("myext::partial", args, 1, &out, 1), CT_ERROR_DTYPE);
  CHECK(out == NULL);
  CHECK(partial_deleted.calls == 1);
  CHECK_ERROR_CONTAINS("second output failed");
  ct_tensor_release(x);
}

static ct_status neg_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  ++*(int*)user_data;
  if (nargs < 1 || nouts < 1) return CT_ERROR_INVALID_ARGUMENT;
  return ct_tensor_neg(args[0].tensor, &outs[0]);
}
static ct_status abs_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  ++*(int*)user_data;
  if (nargs < 1 || nouts < 1) return CT_ERROR_INVALID_ARGUMENT;
  return ct_tensor_abs(args[0].tensor, &outs[0]);
}

struct swap_state {
  int calls;
  int destroyed;
};
static struct swap_state swap_1 = {0, 0}, swap_2 = {0, 0};
static ct_status swap_neg_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs,
                                 size_t nouts) {
  ((struct swap_state*)user_data)->calls++;
  if (nargs < 1 || nouts < 1) return CT_ERROR_INVALID_ARGUMENT;
  return ct_tensor_neg(args[0].tensor, &outs[0]);
}
static ct_status swap_abs_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs,
                                 size_t nouts) {
  ((struct swap_state*)user_data)->calls++;
  if (nargs < 1 || nouts < 1) return CT_ERROR_INVALID_ARGUMENT;
  return ct_tensor_abs(args[0].tensor, &outs[0]);
}
static void swap_destroy(void* user_data) { ((struct swap_state*)user_data)->destroyed++; }

static void test_library_impl_replacing_kernel_destroys_old_user_data(void) {
  CHECK_OK(ct_library_define("myext::swap(Tensor x) -> Tensor"));
  CHECK_OK(ct_library_impl("myext::swap", "cpu", swap_neg_kernel, &swap_1, swap_destroy));
  ct_tensor* x = T(CT_FLOAT32, S(2), -1, 2);
  ct_value args[] = {VT(x)};
  ct_tensor *o1 = NULL, *o2 = NULL;
  CHECK_OK(ct_op_call("myext::swap", args, 1, &o1, 1));
  CHECK_TENSOR(o1, CT_FLOAT32, S(2), 1, -2);
  CHECK(swap_1.calls == 1 && swap_1.destroyed == 0);
  CHECK_OK(ct_library_impl("myext::swap", "cpu", swap_abs_kernel, &swap_2, swap_destroy));
  CHECK(swap_1.destroyed == 1);
  CHECK(swap_2.destroyed == 0);
  CHECK_OK(ct_op_call("myext::swap", args, 1, &o2, 1));
  CHECK_TENSOR(o2, CT_FLOAT32, S(2), 1, 2);
  CHECK(swap_1.calls == 1 && swap_2.calls == 1);
  CHECK(swap_1.destroyed == 1);
  RELEASE(x, o1, o2);
}

static int destroy_log_a = 0, destroy_log_b = 0, calls_a = 0, calls_b = 0;
static void destroy_a(void* p) {
  (void)p;
  ++destroy_log_a;
}
static void destroy_b(void* p) {
  (void)p;
  ++destroy_log_b;
}

static void test_library_impl_destroy_called_once_when_replaced(void) {
  CHECK_OK(ct_library_define("myext::replace(Tensor x) -> Tensor"));
  CHECK_OK(ct_library_impl("myext::replace", "cpu", neg_kernel, &calls_a, destroy_a));
  CHECK(destroy_log_a == 0);
  CHECK_OK(ct_library_impl("myext::replace", "cpu", abs_kernel, &calls_b, destroy_b));
  CHECK(destroy_log_a == 1);
  CHECK(destroy_log_b == 0);
  ct_tensor* x = T(CT_INT32, S(2), -3, 4);
  ct_value args[] = {VT(x)};
  ct_tensor* o = NULL;
  CHECK_OK(ct_op_call("myext::replace", args, 1, &o, 1));
  CHECK_TENSOR(o, CT_INT32, S(2), 3, 4);
  CHECK(calls_a == 0 && calls_b == 1);
  CHECK(destroy_log_a == 1);
  RELEASE(x, o);
}

static int meta_calls = 0;
static ct_status meta_scale_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs,
                                   size_t nouts) {
  ++*(int*)user_data;
  if (nargs < 1 || nouts < 1) return CT_ERROR_INVALID_ARGUMENT;
  size_t nd = 0;
  int64_t sizes[8];
  ct_dtype dt;
  ct_status st = ct_tensor_ndim(args[0].tensor, &nd);
  if (st == CT_OK && nd > 8) st = CT_ERROR_NOT_IMPLEMENTED;
  if (st == CT_OK) st = ct_tensor_sizes(args[0].tensor, sizes, nd);
  if (st == CT_OK) st = ct_tensor_dtype(args[0].tensor, &dt);
  if (st == CT_OK) st = ct_tensor_empty(sizes, nd, dt, "meta", &outs[0]);
  return st;
}

static void test_library_impl_per_device(void) {
  CHECK_OK(impl_scale());
  int destroyed_before = scale_cpu_destroyed;
  CHECK_OK(ct_library_impl("myext::scale", "meta", meta_scale_kernel, &meta_calls, NULL));
  CHECK(scale_cpu_destroyed == destroyed_before); /* the cpu kernel stays */
  ct_tensor* m = NULL;
  CHECK_OK(ct_tensor_empty(S(3, 2), CT_FLOAT32, "meta", &m));
  ct_tensor* x = T(CT_FLOAT32, S(1), 4);
  ct_value margs[] = {VT(m)};
  ct_value cargs[] = {VT(x)};
  ct_tensor *mo = NULL, *co = NULL;
  CHECK_OK(ct_op_call("myext::scale", margs, 1, &mo, 1));
  CHECK(meta_calls == 1);
  CHECK_META(mo, CT_FLOAT32, S(3, 2));
  int cpu_calls = scale_cpu.calls;
  CHECK_OK(ct_op_call("myext::scale", cargs, 1, &co, 1));
  CHECK(scale_cpu.calls == cpu_calls + 1);
  CHECK(meta_calls == 1);
  CHECK_TENSOR(co, CT_FLOAT32, S(1), 8);
  RELEASE(m, x, mo, co);
}

struct thread_call {
  const ct_tensor* x;
  ct_status st;
  float got[2];
};
static void* call_scale_on_thread(void* p) {
  struct thread_call* c = p;
  ct_value args[] = {VT(c->x), VF(10)};
  ct_tensor* out = NULL;
  c->st = ct_op_call("myext::scale", args, 2, &out, 1);
  if (c->st == CT_OK) c->st = ct_tensor_copy_to(out, c->got, sizeof c->got);
  ct_tensor_release(out);
  return NULL;
}

static void test_library_kernel_runs_on_any_thread(void) {
  CHECK_OK(impl_scale());
  ct_tensor* x = T(CT_FLOAT32, S(2), 1, -2);
  struct thread_call c = {x, CT_ERROR_INTERNAL, {0, 0}};
  pthread_t th;
  CHECK(pthread_create(&th, NULL, call_scale_on_thread, &c) == 0);
  pthread_join(th, NULL);
  CHECK_OK(c.st);
  CHECK(c.got[0] == 10 && c.got[1] == -20);
  ct_tensor_release(x);
}

static void test_library_impl_bad_arguments(void) {
  CHECK_OK(impl_scale());
  int destroyed = 0;
  CHECK_STATUS(ct_library_impl(NULL, "cpu", neg_kernel, &destroyed, count_destroy), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_library_impl("myext::scale", NULL, neg_kernel, &destroyed, count_destroy),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_library_impl("myext::scale", "cpu", NULL, &destroyed, count_destroy), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_library_impl("myext::no_such_op", "cpu", neg_kernel, &destroyed, count_destroy),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_library_impl("add", "cpu", neg_kernel, &destroyed, count_destroy), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_library_impl("add.Tensor", "cpu", neg_kernel, &destroyed, count_destroy),
               CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_library_impl("myext::scale", "tpu", neg_kernel, &destroyed, count_destroy), CT_ERROR_DEVICE);
  CHECK(destroyed == 0); /* on failure destroy is not called */
  /* The failed calls left the existing kernel in place. */
  ct_tensor* x = T(CT_FLOAT32, S(1), 1);
  ct_value args[] = {VT(x)};
  ct_tensor* o = NULL;
  CHECK_OK(ct_op_call("myext::scale", args, 1, &o, 1));
  CHECK_TENSOR(o, CT_FLOAT32, S(1), 2);
  RELEASE(x, o);
}

static void test_builtin_add_unaffected_by_failed_impl(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_add(a, a, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(1), 2);
  RELEASE(a, out);
}

/* A device of this test's own, so the built-in operator surely has no kernel there yet. */
static int32_t one_device(void* u) {
  (void)u;
  return 1;
}
static ct_status host_allocate(void* u, int32_t i, size_t n, void** out) {
  (void)u, (void)i;
  *out = malloc(n);
  return *out ? CT_OK : CT_ERROR_OUT_OF_MEMORY;
}
static void host_free(void* u, int32_t i, void* p, size_t n) {
  (void)u, (void)i, (void)n;
  free(p);
}
static ct_status host_copy(void* u, int32_t i, void* dst, const void* src, size_t n) {
  (void)u, (void)i;
  memcpy(dst, src, n);
  return CT_OK;
}

/* exp on that device, as a negation (so the test sees which kernel ran): writes into the output
 * the shared shape rule allocated. Counts its calls in user_data. */
static ct_status negate_on_host_device(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs,
                                       size_t nouts) {
  (void)nargs, (void)nouts;
  ++*(int*)user_data;
  float *in = NULL, *out = NULL;
  int64_t n = 0;
  ct_status st = ct_tensor_data_ptr(args[0].tensor, (void**)&in);
  if (st == CT_OK) st = ct_tensor_data_ptr(outs[0], (void**)&out);
  if (st == CT_OK) st = ct_tensor_numel(outs[0], &n);
  for (int64_t i = 0; st == CT_OK && i < n; ++i) out[i] = -in[i];
  return st;
}

static void test_library_impl_adds_a_kernel_to_a_builtin_on_a_new_device(void) {
  const ct_backend backend = {sizeof(ct_backend), one_device, host_allocate, host_free, host_copy, host_copy};
  CHECK_OK(ct_backend_register("boxed_test_device", &backend, NULL, NULL));
  int calls = 0;
  CHECK_OK(ct_library_impl("exp", "boxed_test_device", negate_on_host_device, &calls, NULL));
  char* schema = NULL;
  CHECK_OK(ct_op_registry_json(&schema));
  const char* exp_entry = schema ? strstr(schema, "\"schema\": \"exp(Tensor self) -> Tensor\"") : NULL;
  CHECK(exp_entry != NULL);
  if (exp_entry) {
    const char* end = strchr(exp_entry, '\n');
    const char* dev = strstr(exp_entry, "\"boxed_test_device\"");
    CHECK(dev != NULL && (end == NULL || dev < end));
  }
  ct_string_release(schema);
  /* The new kernel runs there (neg, with the output the shared shape rule allocated) ... */
  ct_tensor* x = T(CT_FLOAT32, S(1), 2);
  ct_tensor *d = NULL, *o = NULL, *back = NULL;
  CHECK_OK(ct_tensor_to_device(x, "boxed_test_device", &d));
  CHECK_OK(ct_tensor_exp(d, &o));
  CHECK_OK(ct_tensor_to_device(o, "cpu", &back));
  CHECK_TENSOR(back, CT_FLOAT32, S(1), -2);
  CHECK(calls == 1);
  RELEASE(o, back);
  /* ... and the built-in cpu kernel is untouched. */
  CHECK_OK(ct_tensor_exp(x, &o));
  CHECK_TENSOR(o, CT_FLOAT32, S(1), (float)exp(2.0));
  RELEASE(x, d, o);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_op_call_add_by_short_and_full_name),
    CAPI_TEST(test_op_call_add_with_alpha),
    CAPI_TEST(test_op_call_add_with_number_picks_scalar_overload),
    CAPI_TEST(test_op_call_other_builtins),
    CAPI_TEST(test_op_call_never_writes_past_the_returns),
    CAPI_TEST(test_op_call_refuses_list_lengths_past_the_limit),
    CAPI_TEST(test_op_call_unknown_name_is_invalid_argument),
    CAPI_TEST(test_op_call_no_matching_overload_is_invalid_argument),
    CAPI_TEST(test_op_call_too_few_outs_is_invalid_argument),
    CAPI_TEST(test_op_call_null_or_released_tensor_arg_is_invalid_argument),
    CAPI_TEST(test_op_call_null_args_with_nargs_is_invalid_argument),
    CAPI_TEST(test_op_call_passes_on_the_operator_status),
    CAPI_TEST(test_op_call_on_meta),
    CAPI_TEST(test_op_find_gives_one_handle_per_overload),
    CAPI_TEST(test_op_call_op_calls_like_op_call),
    CAPI_TEST(test_op_find_and_call_op_refuse_bad_input),
    CAPI_TEST(test_op_schema_lists_every_overload),
    CAPI_TEST(test_op_schema_errors_are_invalid_argument),
    CAPI_TEST(test_registry_json_is_valid_json),
    CAPI_TEST(test_registry_json_contains_add_tensor),
    CAPI_TEST(test_registry_json_lists_documented_operator_names),
    CAPI_TEST(test_registry_json_lists_every_typed_operator),
    CAPI_TEST(test_registry_json_null_out_is_invalid_argument),
    CAPI_TEST(test_library_define_and_call_before_impl_is_not_implemented),
    CAPI_TEST(test_library_impl_kernel_is_called_with_defaults),
    CAPI_TEST(test_library_kernel_gets_explicit_factor),
    CAPI_TEST(test_library_operator_appears_in_schema_and_registry),
    CAPI_TEST(test_library_define_existing_is_invalid_argument),
    CAPI_TEST(test_library_define_without_namespace_is_invalid_argument),
    CAPI_TEST(test_library_define_unparsable_is_format_error),
    CAPI_TEST(test_library_kernel_error_reaches_caller_nested_under_op_name),
    CAPI_TEST(test_library_kernel_outputs_are_released_on_failure),
    CAPI_TEST(test_library_impl_replacing_kernel_destroys_old_user_data),
    CAPI_TEST(test_library_impl_destroy_called_once_when_replaced),
    CAPI_TEST(test_library_impl_per_device),
    CAPI_TEST(test_library_kernel_runs_on_any_thread),
    CAPI_TEST(test_library_impl_bad_arguments),
    CAPI_TEST(test_builtin_add_unaffected_by_failed_impl),
    CAPI_TEST(test_library_impl_adds_a_kernel_to_a_builtin_on_a_new_device),
};
CAPI_MAIN(TESTS)
