/*
 * test_empty_operands.c - every operator of the registry, through ct_op_call, on tensors that hold
 * no element but have a dim of 2^62: (2^62, 0), (0, 2^62), (2^62, 0, 2), (2, 0, 2^62),
 * (1, 2^62, 0, 2) and (0,).
 * Such a tensor is cheap to make and easy to mishandle: a kernel that loops over its rows never
 * ends, and strides computed as products of max(size, 1) overflow. Each operator gets its required
 * arguments (tensors all float32, or the first float32 and the rest int64; ints 0, lists [0],
 * floats 1, bools false) and its defaults. It may succeed or fail, but must return (CTest's
 * timeout catches a hang), with a known status other than CT_ERROR_INTERNAL; on failure a message
 * and NULL outputs, on success outputs with sizes and strides >= 0; and leak no tensor.
 */
#include "capi_test.h"
#include "op_schemas.h"

enum { kMaxOps = 2048 };

static int64_t live_tensors(void) {
  int64_t n = -1;
  return ct_metric_get("tensors.live", &n) == CT_OK ? n : -1;
}

/* Sizes and strides readable and >= 0. */
static int geometry_ok(const ct_tensor* t) {
  size_t n = 0;
  int64_t sizes[64], strides[64];
  if (ct_tensor_ndim(t, &n) != CT_OK || n > 64) return 0;
  if (ct_tensor_sizes(t, sizes, n) != CT_OK || ct_tensor_strides(t, strides, n) != CT_OK) return 0;
  for (size_t d = 0; d < n; ++d)
    if (sizes[d] < 0 || strides[d] < 0) return 0;
  return 1;
}

/* Calls op with its required arguments made from a (float32) and b (int64 or float32). */
static op_info g_ops[kMaxOps];
static int g_nops;

static void call_on_empty(const op_info* op, const ct_tensor* a, const ct_tensor* b) {
  ct_value args[kSchemaMaxArgs];
  const ct_tensor* lists[kSchemaMaxArgs][2];
  static const int64_t zero[1] = {0};
  size_t nargs = 0;
  int tensors_seen = 0;
  for (int k = 0; k < op->nargs && !op->defaulted[k]; ++k, ++nargs) {
    ct_value* v = &args[nargs];
    memset(v, 0, sizeof *v);
    switch (op->kinds[k]) {
      case A_TENSOR: v->kind = CT_VALUE_TENSOR; v->tensor = tensors_seen++ ? b : a; break;
      case A_TENSORS:
        lists[k][0] = a;
        lists[k][1] = b;
        v->kind = CT_VALUE_TENSORS;
        v->tensors = lists[k];
        v->len = 2;
        break;
      case A_INT: v->kind = CT_VALUE_INT; break;
      case A_INTS: v->kind = CT_VALUE_INTS; v->ints = zero; v->len = 1; break;
      case A_FLOAT: v->kind = CT_VALUE_FLOAT; v->f = 1.0; break;
      case A_BOOL: v->kind = CT_VALUE_BOOL; break;
      case A_SCALAR: v->kind = CT_VALUE_INT; v->i = 1; break;
      case A_DTYPE: v->kind = CT_VALUE_DTYPE; v->i = CT_FLOAT32; break;
      case A_DEVICE: v->kind = CT_VALUE_DEVICE; v->str = "cpu"; break;
      case A_STR: v->kind = CT_VALUE_STRING; v->str = "sum"; break;
      default: v->kind = CT_VALUE_NONE; break;
    }
  }
  ct_tensor* outs[kSchemaMaxReturns];
  for (int k = 0; k < kSchemaMaxReturns; ++k) outs[k] = SENTINEL;
  const ct_status st = ct_op_call(op->name, args, nargs, outs, kSchemaMaxReturns);
  int outs_ok = 1;
  const int written = (int)op_max_returns(g_ops, g_nops, op->name);
  for (int k = 0; k < kSchemaMaxReturns; ++k) { /* the returns' slots are written, no other */
    if ((outs[k] == SENTINEL) != (k >= written)) outs_ok = 0;
    else if (outs[k] != SENTINEL && outs[k] && (st != CT_OK || !geometry_ok(outs[k]))) outs_ok = 0;
    if (outs[k] != SENTINEL) ct_tensor_release(outs[k]);
  }
  CHECK(st != CT_ERROR_INTERNAL && strcmp(ct_status_name(st), "CT_ERROR_UNKNOWN") != 0);
  CHECK(st == CT_OK || ct_last_error()[0] != '\0');
  CHECK(outs_ok);
}

static void test_every_operator_on_empty_tensors_with_a_huge_dim(void) {
  g_nops = load_op_schemas(g_ops, kMaxOps);
  const op_info* ops = g_ops;
  const int nops = g_nops;
  CHECK(nops > 0);
  const int64_t huge = (int64_t)1 << 62;
  const struct {
    int64_t sizes[4];
    size_t ndim;
  } shapes[] = {{{huge, 0}, 2}, {{0, huge}, 2}, {{huge, 0, 2}, 3}, {{2, 0, huge}, 3}, {{1, huge, 0, 2}, 4}, {{0}, 1}};
  const int64_t live0 = live_tensors();
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
    for (int second = 0; second < 2; ++second) {
      for (int k = 0; k < nops; ++k) { /* new tensors each time: in-place views change their shape */
        ct_tensor *a = NULL, *b = NULL;
        CHECK_OK(ct_tensor_zeros(shapes[s].sizes, shapes[s].ndim, CT_FLOAT32, NULL, &a));
        CHECK_OK(ct_tensor_zeros(shapes[s].sizes, shapes[s].ndim, second ? CT_INT64 : CT_FLOAT32, NULL, &b));
        char context[160];
        snprintf(context, sizeof context, "%.96s, shape %zu, %s", ops[k].name, s, second ? "int64" : "float32");
        capi_context = context;
        call_on_empty(&ops[k], a, b);
        capi_context = NULL;
        RELEASE(a, b);
      }
    }
  }
  CHECK(live_tensors() == live0);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_every_operator_on_empty_tensors_with_a_huge_dim),
};
CAPI_MAIN(TESTS)
