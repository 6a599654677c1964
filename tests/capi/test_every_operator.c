/*
 * test_every_operator.c - every operator of the registry, through ct_op_call, on operands that
 * kernels mishandle easily. Each operator gets its required arguments and its defaults; it may
 * succeed or fail, but must return (CTest's timeout catches a hang) with a known status other
 * than CT_ERROR_INTERNAL, a message on failure, its returns' slots written (NULL on failure,
 * tensors with sizes and strides >= 0 on success) and no other, and leak no tensor. The sanitizer
 * build runs it too, so a trap, an out-of-bounds read or undefined behaviour fails it there.
 *
 * - Empty tensors with a dim of 2^62: (2^62, 0), (0, 2^62), (2^62, 0, 2), (2, 0, 2^62),
 *   (1, 2^62, 0, 2) and (0,). A kernel that loops over their rows never ends, and strides
 *   computed as products of max(size, 1) overflow.
 * - Tensors on two devices: every tensor on the cpu but one on meta, and the other way round
 *   (Note [One device per call]). A backend kernel handed a meta tensor reads its null data; the
 *   call must fail (CT_ERROR_DEVICE), except advanced indexing, whose indices may be on the cpu.
 *   And every tensor on meta but one 0-dim cpu tensor, which is a number where the call only
 *   reads it: the call computes on meta or refuses, and never runs a cpu kernel on meta's data.
 * - Integer edges: int64 tensors holding INT64_MIN, -1, 0 and INT64_MAX, with every int argument
 *   and number at those values too (Note [Integer division never traps]): MIN / -1 and a division
 *   by zero trap in hardware, and shifts past the width are undefined.
 */
#include "capi_test.h"
#include "op_schemas.h"

enum { kMaxOps = 2048 };

static op_info g_ops[kMaxOps];
static int g_nops;

/* The registry's operators, read once (each test may run alone, or in a child of its own). */
static void load_ops(void) {
  if (!g_nops) g_nops = load_op_schemas(g_ops, kMaxOps);
  CHECK(g_nops > 0);
}

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

/* What an operator's required arguments are made of. The k-th tensor (list elements counted one
 * by one) is tensors[k], or the last one given past the end. */
typedef struct operands {
  const ct_tensor* tensors[8];
  int ntensors;
  int64_t int_value;    /* every int, and the one element of every int[] */
  ct_value number;      /* every Scalar */
} operands;

/* How many tensors op's required arguments take (a list takes two). */
static int tensor_slots(const op_info* op) {
  int n = 0;
  for (int k = 0; k < op->nargs && !op->defaulted[k]; ++k)
    n += op->kinds[k] == A_TENSOR ? 1 : op->kinds[k] == A_TENSORS ? 2 : 0;
  return n;
}

/* Calls op with its required arguments made of o and checks every promise; *status is its status. */
static void call_with(const op_info* op, const operands* o, ct_status* status) {
  ct_value args[kSchemaMaxArgs];
  const ct_tensor* lists[kSchemaMaxArgs][2];
  int64_t ints[kSchemaMaxArgs][1];
  size_t nargs = 0;
  int next = 0;
#define NEXT_TENSOR() (o->tensors[next < o->ntensors ? next++ : o->ntensors - 1])
  for (int k = 0; k < op->nargs && !op->defaulted[k]; ++k, ++nargs) {
    ct_value* v = &args[nargs];
    memset(v, 0, sizeof *v);
    switch (op->kinds[k]) {
      case A_TENSOR: v->kind = CT_VALUE_TENSOR; v->tensor = NEXT_TENSOR(); break;
      case A_TENSORS:
        lists[k][0] = NEXT_TENSOR();
        lists[k][1] = NEXT_TENSOR();
        v->kind = CT_VALUE_TENSORS;
        v->tensors = lists[k];
        v->len = 2;
        break;
      case A_INT: v->kind = CT_VALUE_INT; v->i = o->int_value; break;
      case A_INTS: ints[k][0] = o->int_value; v->kind = CT_VALUE_INTS; v->ints = ints[k]; v->len = 1; break;
      case A_FLOAT: v->kind = CT_VALUE_FLOAT; v->f = 1.0; break;
      case A_BOOL: v->kind = CT_VALUE_BOOL; break;
      case A_SCALAR: *v = o->number; break;
      case A_DTYPE: v->kind = CT_VALUE_DTYPE; v->i = CT_FLOAT32; break;
      case A_DEVICE: v->kind = CT_VALUE_DEVICE; v->str = "cpu"; break;
      case A_STR: v->kind = CT_VALUE_STRING; v->str = "sum"; break;
      default: v->kind = CT_VALUE_NONE; break;
    }
  }
#undef NEXT_TENSOR
  ct_tensor* outs[kSchemaMaxReturns];
  for (int k = 0; k < kSchemaMaxReturns; ++k) outs[k] = SENTINEL;
  const ct_status st = ct_op_call(op->name, args, nargs, outs, kSchemaMaxReturns);
  *status = st;
  const int written = (int)op_max_returns(g_ops, g_nops, op->name);
  int outs_ok = 1;
  for (int k = 0; k < kSchemaMaxReturns; ++k) { /* the returns' slots are written, no other */
    if ((outs[k] == SENTINEL) != (k >= written)) outs_ok = 0;
    else if (outs[k] != SENTINEL && outs[k] && (st != CT_OK || !geometry_ok(outs[k]))) outs_ok = 0;
    if (outs[k] != SENTINEL) ct_tensor_release(outs[k]);
  }
  CHECK(st != CT_ERROR_INTERNAL && strcmp(ct_status_name(st), "CT_ERROR_UNKNOWN") != 0);
  CHECK(st == CT_OK || ct_last_error()[0] != '\0');
  CHECK(outs_ok);
}

static ct_value int_number(int64_t i) {
  ct_value v;
  memset(&v, 0, sizeof v);
  v.kind = CT_VALUE_INT;
  v.i = i;
  return v;
}

static void test_every_operator_on_empty_tensors_with_a_huge_dim(void) {
  load_ops();
  const int64_t huge = (int64_t)1 << 62;
  const struct {
    int64_t sizes[4];
    size_t ndim;
  } shapes[] = {{{huge, 0}, 2}, {{0, huge}, 2}, {{huge, 0, 2}, 3}, {{2, 0, huge}, 3}, {{1, huge, 0, 2}, 4}, {{0}, 1}};
  const int64_t live0 = live_tensors();
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
    for (int second = 0; second < 2; ++second) {
      for (int k = 0; k < g_nops; ++k) { /* new tensors each time: in-place views change their shape */
        ct_tensor *a = NULL, *b = NULL;
        CHECK_OK(ct_tensor_zeros(shapes[s].sizes, shapes[s].ndim, CT_FLOAT32, NULL, &a));
        CHECK_OK(ct_tensor_zeros(shapes[s].sizes, shapes[s].ndim, second ? CT_INT64 : CT_FLOAT32, NULL, &b));
        char context[160];
        snprintf(context, sizeof context, "%.96s, shape %zu, %s", g_ops[k].name, s, second ? "int64" : "float32");
        capi_context = context;
        const operands o = {{a, b}, 2, 0, int_number(1)};
        ct_status st;
        call_with(&g_ops[k], &o, &st);
        capi_context = NULL;
        RELEASE(a, b);
      }
    }
  }
  CHECK(live_tensors() == live0);
}

/* Advanced indexing takes indices on the cpu whatever self's device (as PyTorch). */
static int takes_cpu_indices(const char* name) { return !strncmp(name, "index.", 6) || !strncmp(name, "index_put", 9); }

static void test_every_operator_refuses_tensors_on_two_devices(void) {
  load_ops();
  const int64_t live0 = live_tensors();
  int calls = 0, device_errors = 0;
  for (int k = 0; k < g_nops; ++k) {
    const op_info* op = &g_ops[k];
    const int slots = tensor_slots(op);
    if (slots < 2) continue;
    for (int odd_one = 0; odd_one < slots && odd_one < 8; ++odd_one) {
      for (int odd_on_meta = 0; odd_on_meta < 2; ++odd_on_meta) {
        /* float32 [2, 3] everywhere (int64 from the second tensor on: indices), one on the other device. */
        ct_tensor* ts[8] = {NULL};
        for (int i = 0; i < slots && i < 8; ++i) {
          const int on_meta = (i == odd_one) == odd_on_meta;
          CHECK_OK(ct_tensor_zeros(S(2, 3), i ? CT_INT64 : CT_FLOAT32, on_meta ? "meta" : NULL, &ts[i]));
        }
        char context[160];
        snprintf(context, sizeof context, "%.96s, tensor %d on %s", op->name, odd_one, odd_on_meta ? "meta" : "cpu");
        capi_context = context;
        operands o = {{NULL}, slots < 8 ? slots : 8, 0, int_number(1)};
        for (int i = 0; i < o.ntensors; ++i) o.tensors[i] = ts[i];
        ct_status st = CT_OK;
        call_with(op, &o, &st);
        ++calls;
        device_errors += st == CT_ERROR_DEVICE;
        /* Mixed devices never compute, whichever tensor is the odd one. */
        if (!takes_cpu_indices(op->name)) CHECK(st != CT_OK);
        capi_context = NULL;
        for (int i = 0; i < 8; ++i) ct_tensor_release(ts[i]);
      }
    }
  }
  printf("mixed devices: %d calls, %d refused with CT_ERROR_DEVICE\n", calls, device_errors);
  CHECK(device_errors > calls / 2); /* the others fail earlier: argument kinds, dtypes */
  CHECK(live_tensors() == live0);
}

static void test_every_operator_with_a_cpu_number_among_meta_tensors(void) {
  load_ops();
  const int64_t live0 = live_tensors();
  int calls = 0, computed = 0;
  for (int k = 0; k < g_nops; ++k) {
    const op_info* op = &g_ops[k];
    const int slots = tensor_slots(op);
    if (slots < 2) continue;
    for (int number = 0; number < slots && number < 8; ++number) {
      ct_tensor* ts[8] = {NULL};
      for (int i = 0; i < slots && i < 8; ++i) {
        const ct_dtype dt = i ? CT_INT64 : CT_FLOAT32;
        if (i == number) CHECK_OK(ct_tensor_zeros(NULL, 0, dt, NULL, &ts[i]));
        else CHECK_OK(ct_tensor_zeros(S(2, 3), dt, "meta", &ts[i]));
      }
      char context[160];
      snprintf(context, sizeof context, "%.96s, tensor %d a 0-dim cpu tensor among meta ones", op->name, number);
      capi_context = context;
      operands o = {{NULL}, slots < 8 ? slots : 8, 0, int_number(1)};
      for (int i = 0; i < o.ntensors; ++i) o.tensors[i] = ts[i];
      ct_status st = CT_OK;
      call_with(op, &o, &st); /* under ASan, a cpu kernel reading meta's null data fails here */
      ++calls;
      computed += st == CT_OK;
      capi_context = NULL;
      for (int i = 0; i < 8; ++i) ct_tensor_release(ts[i]);
    }
  }
  printf("a cpu number among meta tensors: %d calls, %d computed on meta\n", calls, computed);
  CHECK(computed > 0);
  CHECK(live_tensors() == live0);
}

static void test_an_inplace_op_never_writes_meta_results_into_a_cpu_number(void) {
  /* Found by the sequence fuzzer: add_ into a 0-dim cpu self from a meta tensor ran the cpu kernel,
   * which read the meta tensor's null data. The written self is memory, not a number. */
  ct_tensor *self = NULL, *other = NULL, *out = SENTINEL;
  CHECK_OK(ct_tensor_zeros(NULL, 0, CT_INT8, NULL, &self));
  CHECK_OK(ct_tensor_zeros(NULL, 0, CT_INT8, "meta", &other));
  CHECK_STATUS(ct_tensor_add_(self, other), CT_ERROR_DEVICE);
  CHECK_ERROR_CONTAINS("expected all tensors on one device");
  CHECK_OK(ct_tensor_add(other, self, &out)); /* read, the cpu tensor is a number */
  ct_device_type type = CT_DEVICE_CPU;
  int32_t index = -1;
  CHECK_OK(ct_tensor_device(out, &type, &index));
  CHECK(type == CT_DEVICE_META);
  RELEASE(self, other, out);
}

static void test_every_operator_index_fill_with_a_meta_index_is_a_device_error(void) {
  /* The finding that started the sweep above: a cpu kernel read the meta index's null data. */
  ct_tensor *self = NULL, *index = NULL, *out = SENTINEL;
  CHECK_OK(ct_tensor_zeros(S(3), CT_FLOAT32, NULL, &self));
  CHECK_OK(ct_tensor_zeros(S(1), CT_INT64, "meta", &index));
  ct_value args[] = {VT(self), VI(0), VT(index), VF(1.0)};
  CHECK_STATUS(ct_op_call("index_fill", args, 4, &out, 1), CT_ERROR_DEVICE);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("index_fill: expected all tensors on one device, got cpu (self [3]) and meta (index [1])");
  CHECK_STATUS(ct_op_call("index_fill_", args, 4, &out, 1), CT_ERROR_DEVICE);
  RELEASE(self, index);
}

static void test_every_operator_on_integer_edges(void) {
  load_ops();
  static const int64_t edges[4] = {INT64_MIN, -1, 0, INT64_MAX};
  static const int64_t int_args[] = {-1, 0, 1, INT64_MIN, INT64_MAX};
  const int64_t live0 = live_tensors();
  for (size_t v = 0; v < sizeof int_args / sizeof *int_args; ++v) {
    for (int k = 0; k < g_nops; ++k) {
      ct_tensor *a = NULL, *b = NULL;
      CHECK_OK(ct_tensor_from_data(edges, S(2, 2), CT_INT64, &a));
      CHECK_OK(ct_tensor_from_data(edges, S(2, 2), CT_INT64, &b));
      char context[160];
      snprintf(context, sizeof context, "%.96s, ints %lld", g_ops[k].name, (long long)int_args[v]);
      capi_context = context;
      const operands o = {{a, b}, 2, int_args[v], int_number(v % 2 ? -1 : INT64_MIN)};
      ct_status st;
      call_with(&g_ops[k], &o, &st);
      capi_context = NULL;
      RELEASE(a, b);
    }
  }
  CHECK(live_tensors() == live0);
}

/* The integer divisions an operator makes itself (Note [Integer division never traps]): MIN / -1
 * wraps to MIN, and window areas that would overflow are refused before any division. */
static void test_integer_division_edges_wrap_instead_of_trapping(void) {
  const int64_t min[1] = {INT64_MIN};
  ct_tensor* x = NULL;
  CHECK_OK(ct_tensor_from_data(min, S(1, 1, 1), CT_INT64, &x));
  const int64_t one[1] = {1}, zero[1] = {0};
  ct_value pool[] = {VT(x), VINTS(one, 1), VINTS(one, 1), VINTS(zero, 1), capi_value(CT_VALUE_BOOL),
                     capi_value(CT_VALUE_BOOL), VI(-1)};
  pool[5].i = 1;
  ct_tensor* out = NULL;
  CHECK_OK(ct_op_call("avg_pool2d", pool, 7, &out, 1));
  CHECK_TENSOR(out, CT_INT64, S(1, 1, 1), (double)INT64_MIN);
  ct_tensor_release(out);
  ct_value back[] = {VT(x), VT(x), VINTS(one, 1), VINTS(one, 1), VINTS(zero, 1), capi_value(CT_VALUE_BOOL),
                     capi_value(CT_VALUE_BOOL), VI(-1)};
  back[6].i = 1;
  CHECK_OK(ct_op_call("avg_pool2d_backward", back, 8, &out, 1));
  CHECK_TENSOR(out, CT_INT64, S(1, 1, 1), (double)INT64_MIN);
  ct_tensor_release(out);
  /* A kernel of 2^32 with padding 2^31 once made a window area of 2^64, a divisor of 0. */
  const int64_t k[1] = {(int64_t)1 << 32}, pad[1] = {(int64_t)1 << 31};
  ct_value huge[] = {VT(x), VINTS(k, 1), VINTS(one, 1), VINTS(pad, 1)};
  out = SENTINEL;
  CHECK_STATUS(ct_op_call("avg_pool2d", huge, 4, &out, 1), CT_ERROR_INVALID_ARGUMENT);
  CHECK(out == NULL);
  CHECK_ERROR_CONTAINS("kernel_size 4294967296 is larger than 2147483647");
  ct_tensor* m1 = NULL;
  const int64_t minus_one[1] = {-1};
  CHECK_OK(ct_tensor_from_data(minus_one, S(1), CT_INT64, &m1));
  ct_tensor* flat = NULL;
  CHECK_OK(ct_tensor_from_data(min, S(1), CT_INT64, &flat));
  static const char* const ops[] = {"floor_divide", "remainder", "fmod"};
  const double want[] = {(double)INT64_MIN, 0, 0};
  for (int i = 0; i < 3; ++i) {
    ct_value args[] = {VT(flat), VT(m1)};
    CHECK_OK(ct_op_call(ops[i], args, 2, &out, 1));
    CHECK_TENSOR(out, CT_INT64, S(1), want[i]);
    ct_tensor_release(out);
  }
  RELEASE(x, m1, flat);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_every_operator_on_empty_tensors_with_a_huge_dim),
    CAPI_TEST(test_every_operator_refuses_tensors_on_two_devices),
    CAPI_TEST(test_every_operator_with_a_cpu_number_among_meta_tensors),
    CAPI_TEST(test_an_inplace_op_never_writes_meta_results_into_a_cpu_number),
    CAPI_TEST(test_every_operator_index_fill_with_a_meta_index_is_a_device_error),
    CAPI_TEST(test_every_operator_on_integer_edges),
    CAPI_TEST(test_integer_division_edges_wrap_instead_of_trapping),
};
CAPI_MAIN(TESTS)
