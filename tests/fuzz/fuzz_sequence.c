/*
 * fuzz_sequence.c - a libFuzzer target that decodes its input into a sequence of C ABI calls over
 * a pool of live tensor handles: factories (0-size and 0-dim included), tensors over caller memory
 * with any strides, views, every registered operator through ct_op_call with arguments that fit
 * its schema or do not (NaN, infinities, huge ints, NULLs, wrong kinds), tensors moved to the meta
 * device and back (so calls mix devices), tensors of integer edges (MIN, -1, MAX), in-place
 * operators, requires_grad and backward, printing, reading values back, and releases in any order.
 *
 * After every call it checks what ctorch.h promises: a known status other than
 * CT_ERROR_INTERNAL; on failure a message and NULL out-parameters; on success live outputs whose
 * sizes and dtype read back. After each input every handle is released and "tensors.live" and
 * "storages.live" must be back where they were, and every caller blob freed. Build it with
 * CTORCH_BUILD_FUZZERS=ON and clang (tests/fuzz/CMakeLists.txt), then:
 *
 *   ./build-fuzz/tests/fuzz/fuzz_sequence tests/fuzz/corpus/sequence -max_total_time=600
 *
 * Tensors in the pool hold at most kMaxNumel elements and operator ints stay small or absurd (never
 * a few billion), so one input runs in milliseconds and never asks for gigabytes legitimately.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctorch.h"

#define FUZZ_NAME "fuzz_sequence"
#include "fuzz_main.h"
#include "op_schemas.h"

enum { kSlots = 16, kMaxNumel = 4096, kMaxCalls = 64, kMaxArgs = kSchemaMaxArgs, kMaxOps = 2048,
       kMaxOuts = kSchemaMaxReturns, kMaxList = 4 };

/* ---- The operators, from ct_op_registry_json ---- */

static op_info g_ops[kMaxOps];
static int g_nops;
static ct_symint* g_symint; /* a concrete symbolic int, 2, for CT_VALUE_SYMINT arguments */

/* ---- Input bytes ---- */

typedef struct input {
  const uint8_t* p;
  size_t n, i;
} input;

static uint8_t take(input* in) { return in->i < in->n ? in->p[in->i++] : 0; }
static int more(const input* in) { return in->i < in->n; }

/* Small values (sizes, dims, counts) most of the time; otherwise values no tensor can have. */
static int64_t take_int(input* in) {
  static const int64_t absurd[] = {INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, (int64_t)1 << 62,
                                   -((int64_t)1 << 62), (int64_t)1 << 32, -((int64_t)1 << 32)};
  const uint8_t c = take(in);
  if ((c & 15) == 15) return absurd[(c >> 4) % (sizeof absurd / sizeof *absurd)];
  return (int64_t)(c % 12) - 3;
}

static double take_float(input* in) {
  static const double table[] = {0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 3.0, -0.0, NAN, INFINITY, -INFINITY,
                                 1e308, -1e308, 5e-324, 1e-300, 0.1};
  const uint8_t c = take(in);
  return c < 16 ? table[c] : (double)((int)c - 136) / 4.0;
}

static ct_scalar take_scalar(input* in) {
  ct_scalar s;
  s.kind = (ct_scalar_kind)(take(in) % 3);
  s.i = s.kind == CT_SCALAR_BOOL ? take(in) & 1 : take_int(in);
  s.f = take_float(in);
  return s;
}

static const char* take_string(input* in, char* buf, size_t cap) {
  static const char* const words[] = {"none", "tanh", "mean", "sum", "constant", "reflect", "replicate", "circular",
                                      "fro", "ij,jk->ik", "i,i->", "ii->i", "bij,bjk->bik", "...i->...", "i->",
                                      "cpu", "meta", "cuda", "cpu:1", "", "nope", "fan_in", "fan_out", "relu"};
  const uint8_t c = take(in);
  if (c < 2 * sizeof words / sizeof *words) return words[c % (sizeof words / sizeof *words)];
  if (c == 255) return NULL;
  /* A few raw bytes: equations and modes nobody meant. */
  size_t n = take(in) % 4;
  if (n >= cap) n = cap - 1;
  for (size_t k = 0; k < n; ++k) buf[k] = (char)(take(in) | 1);
  buf[n] = '\0';
  return buf;
}

/* ---- Checks ---- */

static char g_problem[512];
static int64_t g_blobs_live;

static const char* failed_check(const char* what, ct_status st) {
  snprintf(g_problem, sizeof g_problem, "%s: status %d (%s)", what, (int)st, ct_status_name(st));
  return g_problem;
}

/* A live handle: its sizes and dtype read, and numel is their product. */
static int tensor_ok(const ct_tensor* t) {
  size_t ndim = 0;
  int64_t sizes[64], numel = 0, product = 1;
  ct_dtype dt;
  if (ct_tensor_ndim(t, &ndim) != CT_OK || ndim > 64) return 0;
  if (ct_tensor_sizes(t, sizes, ndim) != CT_OK || ct_tensor_numel(t, &numel) != CT_OK) return 0;
  if (ct_tensor_dtype(t, &dt) != CT_OK || ct_dtype_itemsize(dt) == 0) return 0;
  for (size_t d = 0; d < ndim; ++d) {
    if (sizes[d] < 0) return 0;
    product *= sizes[d];
  }
  return product == numel;
}

/* Out-parameters start as this, so a call that leaves one unwritten is seen. */
static ct_tensor* const kUnset = (ct_tensor*)(uintptr_t)0x1;

/* What every call promises; NULL when kept. outs are the call's out-parameters. */
static const char* check_call(const char* what, ct_status st, ct_tensor* const* outs, size_t n) {
  for (size_t k = 0; k < n; ++k)
    if (outs[k] == kUnset) return failed_check(what, st);
  if (st == CT_ERROR_INTERNAL || !strcmp(ct_status_name(st), "CT_ERROR_UNKNOWN")) return failed_check(what, st);
  if (st != CT_OK) {
    if (ct_last_error()[0] == '\0') return failed_check(what, st);
    for (size_t k = 0; k < n; ++k)
      if (outs[k]) return failed_check(what, st);
    return NULL;
  }
  for (size_t k = 0; k < n; ++k)
    if (outs[k] && !tensor_ok(outs[k])) return failed_check(what, st);
  return NULL;
}

/* ---- The pool ---- */

typedef struct pool {
  ct_tensor* t[kSlots];
} pool;

/* A live handle when there is one, so calls reach past argument checks; rarely an empty slot. */
static ct_tensor* slot(pool* p, input* in) {
  const uint8_t c = take(in);
  if (c >= 0xf0) return p->t[c % kSlots];
  for (int k = 0; k < kSlots; ++k)
    if (p->t[(c + k) % kSlots]) return p->t[(c + k) % kSlots];
  return NULL;
}

static int64_t numel_of(const ct_tensor* t) {
  int64_t n = -1;
  return ct_tensor_numel(t, &n) == CT_OK ? n : -1;
}

/* Takes a new reference: into a slot when it is small enough to keep working on, else released. */
static void keep(pool* p, input* in, ct_tensor* t) {
  if (!t) return;
  const int64_t n = numel_of(t);
  if (n < 0 || n > kMaxNumel) {
    ct_tensor_release(t);
    return;
  }
  const int k = take(in) % kSlots;
  ct_tensor_release(p->t[k]);
  p->t[k] = t;
}

static void blob_free(void* data, void* user_data) {
  (void)user_data;
  free(data);
  --g_blobs_live;
}

/* ---- Calls ---- */

static const char* create(pool* p, input* in) {
  const uint8_t how = take(in);
  const ct_dtype dt = (ct_dtype)(take(in) % 11); /* 10: one past the last dtype */
  int64_t sizes[4];
  const size_t ndim = take(in) % 5;
  int64_t numel = 1;
  for (size_t d = 0; d < ndim; ++d) numel *= sizes[d] = take(in) % 9;
  ct_tensor* t = kUnset;
  ct_status st;
  const char* what;
  switch (how % 7) {
    case 0: {
      const size_t bytes = (size_t)numel * (ct_dtype_itemsize(dt) ? ct_dtype_itemsize(dt) : 1);
      uint8_t* data = malloc(bytes ? bytes : 1);
      for (size_t k = 0; k < bytes; ++k) data[k] = take(in);
      if (dt == CT_BOOL)
        for (size_t k = 0; k < bytes; ++k) data[k] &= 1;
      what = "ct_tensor_from_data";
      st = ct_tensor_from_data(data, sizes, ndim, dt, &t);
      free(data);
      break;
    }
    case 1: { /* caller memory with any strides, 0 and overlapping included */
      int64_t strides[4], reach = 1;
      const int negative = (how & 0x80) != 0, contiguous = (how & 0x40) != 0;
      for (size_t d = 0; d < ndim; ++d) {
        strides[d] = (int64_t)(take(in) % 10) - (negative ? 2 : 0);
        if (sizes[d] > 0 && strides[d] > 0) reach += (sizes[d] - 1) * strides[d];
      }
      if (contiguous && numel > reach) reach = numel;
      const size_t item = ct_dtype_itemsize(dt) ? ct_dtype_itemsize(dt) : 1;
      what = "ct_tensor_from_blob";
      if (!numel && (how & 0x20)) { /* no memory at all, which only an empty tensor may have */
        st = ct_tensor_from_blob(NULL, sizes, strides, ndim, dt, NULL, NULL, &t);
        break;
      }
      uint8_t* data = calloc((size_t)reach, item);
      ++g_blobs_live;
      st = ct_tensor_from_blob(data, sizes, contiguous ? NULL : strides, ndim, dt, blob_free, NULL, &t);
      if (st != CT_OK) blob_free(data, NULL); /* the deleter runs only for tensors that were made */
      break;
    }
    case 2:
      what = "ct_tensor_zeros";
      st = ct_tensor_zeros(sizes, ndim, dt, (how & 0x80) ? "meta" : NULL, &t);
      break;
    case 3: {
      const ct_scalar v = take_scalar(in);
      what = "ct_tensor_full";
      st = ct_tensor_full(sizes, ndim, &v, dt, NULL, &t);
      break;
    }
    case 4:
      what = "ct_tensor_randn";
      st = ct_tensor_randn(sizes, ndim, dt, NULL, NULL, &t);
      break;
    case 5: {
      const double start = take_float(in), end = take_float(in), step = take_float(in);
      what = "ct_tensor_arange";
      st = ct_tensor_arange(start, end, step, dt, NULL, &t);
      break;
    }
    default:
      what = "ct_tensor_rand";
      st = ct_tensor_rand(sizes, ndim, dt, NULL, NULL, &t);
      break;
  }
  const char* problem = check_call(what, st, &t, 1);
  if (!problem) keep(p, in, t);
  return problem;
}

/* Typed views: the checks they make before sharing storage are what this exercises. */
static const char* view(pool* p, input* in) {
  const uint8_t how = take(in);
  const ct_tensor* a = slot(p, in);
  int64_t ints[4];
  const size_t n = take(in) % 5;
  for (size_t k = 0; k < n; ++k) ints[k] = take_int(in);
  const int64_t x = take_int(in), y = take_int(in), z = take_int(in);
  ct_tensor* t = kUnset;
  ct_status st;
  const char* what;
  switch (how % 8) {
    case 0:
      what = "ct_tensor_transpose";
      st = ct_tensor_transpose(a, x, y, &t);
      break;
    case 1:
      what = "ct_tensor_narrow";
      st = ct_tensor_narrow(a, x, y, z, &t);
      break;
    case 2:
      what = "ct_tensor_expand";
      st = ct_tensor_expand(a, ints, n, &t);
      break;
    case 3:
      what = "ct_tensor_select";
      st = ct_tensor_select(a, x, y, &t);
      break;
    case 4:
      what = "ct_tensor_permute";
      st = ct_tensor_permute(a, ints, n, &t);
      break;
    case 5:
      what = "ct_tensor_view";
      st = ct_tensor_view(a, ints, n, &t);
      break;
    case 6:
      what = "ct_tensor_diagonal";
      st = ct_tensor_diagonal(a, x, y, z, &t);
      break;
    default:
      what = "ct_tensor_unsqueeze";
      st = ct_tensor_unsqueeze(a, x, &t);
      break;
  }
  const char* problem = check_call(what, st, &t, 1);
  if (!problem) keep(p, in, t);
  return problem;
}

/* One argument: usually of the schema's kind, sometimes any kind at all. */
static void fill_arg(pool* p, input* in, arg_kind kind, int optional, ct_value* v, int64_t* ints,
                     const ct_tensor** tensors, char* buf, size_t cap) {
  memset(v, 0, sizeof *v);
  const uint8_t mode = take(in);
  if (optional && mode % 8 == 0) {
    v->kind = CT_VALUE_NONE;
    return;
  }
  if (mode % 16 == 1) kind = (arg_kind)(take(in) % (A_OTHER + 1)); /* a wrong kind, or a right one by luck */
  switch (kind) {
    case A_TENSOR:
      v->kind = CT_VALUE_TENSOR;
      v->tensor = slot(p, in);
      break;
    case A_TENSORS:
      v->kind = CT_VALUE_TENSORS;
      v->len = take(in) % (kMaxList + 1);
      for (size_t k = 0; k < v->len; ++k) tensors[k] = slot(p, in);
      v->tensors = (mode % 32 == 17 && v->len) ? NULL : tensors;
      break;
    case A_INT:
      v->kind = CT_VALUE_INT;
      v->i = take_int(in);
      break;
    case A_INTS:
      v->kind = CT_VALUE_INTS;
      v->len = take(in) % (kMaxList + 1);
      for (size_t k = 0; k < v->len; ++k) ints[k] = take_int(in);
      v->ints = (mode % 32 == 17 && v->len) ? NULL : ints;
      break;
    case A_FLOAT:
      v->kind = CT_VALUE_FLOAT;
      v->f = take_float(in);
      break;
    case A_BOOL:
      v->kind = CT_VALUE_BOOL;
      v->i = take(in) & 1;
      break;
    case A_SCALAR: {
      const ct_scalar s = take_scalar(in);
      v->kind = s.kind == CT_SCALAR_INT ? CT_VALUE_INT : s.kind == CT_SCALAR_FLOAT ? CT_VALUE_FLOAT : CT_VALUE_BOOL;
      v->i = s.i;
      v->f = s.f;
      break;
    }
    case A_DTYPE:
      v->kind = CT_VALUE_DTYPE;
      v->i = (mode & 0x80) ? take_int(in) : take(in) % 10;
      break;
    case A_DEVICE:
      v->kind = CT_VALUE_DEVICE;
      v->str = take_string(in, buf, cap);
      break;
    case A_STR:
      v->kind = CT_VALUE_STRING;
      v->str = take_string(in, buf, cap);
      break;
    default: /* Generator: None; or symbolic ints, NULL ones included; or a kind outside ct_value_kind */
      switch (take(in) % 4) {
        case 0: v->kind = CT_VALUE_NONE; break;
        case 1: ct_value_set_symint(v, (mode & 0x80) ? NULL : g_symint); break;
        case 2: {
          static const ct_symint* list[2];
          list[0] = g_symint;
          ct_value_set_symints(v, list, take(in) % 3);
          break;
        }
        default: v->kind = (ct_value_kind)(12 + take(in) % 4); break;
      }
      break;
  }
}

static const char* call_op(pool* p, input* in) {
  const int lo = take(in), hi = take(in);
  const op_info* op = &g_ops[(lo | hi << 8) % g_nops];
  ct_value args[kMaxArgs + 1];
  int64_t ints[kMaxArgs + 1][kMaxList];
  const ct_tensor* tensors[kMaxArgs + 1][kMaxList];
  char strings[kMaxArgs + 1][4];
  /* Mostly every argument; sometimes fewer (defaults) or one too many. */
  const uint8_t c = take(in);
  size_t nargs = (size_t)op->nargs;
  if (c % 8 == 1 && nargs > 0) nargs = take(in) % nargs;
  else if (c % 8 == 2) nargs += 1;
  for (size_t k = 0; k < nargs; ++k) {
    const int known = k < (size_t)op->nargs;
    fill_arg(p, in, known ? op->kinds[k] : (arg_kind)(take(in) % A_OTHER), known && op->optional[k], &args[k],
             ints[k], tensors[k], strings[k], sizeof strings[k]);
  }
  ct_tensor* outs[kMaxOuts];
  const size_t nouts = c % 16 == 3 && op->nreturns > 0 ? (size_t)op->nreturns - 1 : kMaxOuts;
  for (size_t k = 0; k < kMaxOuts; ++k) outs[k] = kUnset;
  const ct_status st = ct_op_call(op->name, args, nargs, outs, nouts);
  /* The slots of the returns are written, success or not, and no other (Note [Boxed lists and
     outputs]): the first R, R the most returns among the overloads the name can reach. */
  const size_t most = op_max_returns(g_ops, g_nops, op->name), written = most < nouts ? most : nouts;
  const char* problem = check_call(op->name, st, outs, written);
  for (size_t k = written; k < kMaxOuts && !problem; ++k)
    if (outs[k] != kUnset) problem = failed_check(op->name, st);
  /* A pinned name fills exactly its returns. A name without an overload may resolve to another
     overload that accepts the arguments (median with two of them is median.dim), whose returns
     are then a prefix of the slots. */
  const int pinned = strchr(op->name, '.') != NULL;
  for (size_t k = 0; k < written && !problem; ++k)
    if (st == CT_OK &&
        (pinned ? (k < (size_t)op->nreturns) != (outs[k] != NULL) : k > 0 && outs[k] && !outs[k - 1]))
      problem = failed_check(op->name, st);
  for (size_t k = 0; k < written; ++k) {
    if (problem) ct_tensor_release(outs[k] == kUnset ? NULL : outs[k]);
    else keep(p, in, outs[k]);
  }
  return problem;
}

/* A few operators through their typed functions: inputs that reach them stay valid however the
 * registry grows, so regression inputs about autograd use these. */
static const char* typed(pool* p, input* in) {
  const uint8_t how = take(in);
  const ct_tensor* a = slot(p, in);
  const ct_tensor* b = slot(p, in);
  ct_tensor* t = kUnset;
  ct_status st;
  switch (how % 4) {
    case 0: st = ct_tensor_exp(a, &t); break;
    case 1: st = ct_tensor_add(a, b, &t); break;
    case 2: st = ct_tensor_matmul(a, b, &t); break;
    default: st = ct_tensor_sum(a, NULL, 0, 0, &t); break;
  }
  const char* problem = check_call("typed operator", st, &t, 1);
  if (!problem) keep(p, in, t);
  return problem;
}

static const char* inplace(pool* p, input* in) {
  const uint8_t how = take(in);
  ct_tensor* self = slot(p, in);
  const ct_tensor* b = slot(p, in);
  const ct_scalar s = take_scalar(in);
  const double lo = take_float(in), hi = take_float(in);
  ct_status st;
  switch (how % 6) {
    case 0: st = ct_tensor_add_(self, b); break;
    case 1: st = ct_tensor_mul_(self, b); break;
    case 2: st = ct_tensor_div_scalar_(self, &s); break;
    case 3: st = ct_tensor_sub_scalar_(self, &s); break;
    case 4: st = ct_tensor_uniform_(self, lo, hi, NULL); break;
    default: st = ct_tensor_bernoulli_(self, lo, NULL); break;
  }
  return check_call("in-place operator", st, NULL, 0);
}

static const char* autograd(pool* p, input* in) {
  const uint8_t how = take(in);
  ct_tensor* t = slot(p, in);
  ct_status st;
  ct_tensor* g = kUnset;
  switch (how % 4) {
    case 0:
      return check_call("ct_tensor_set_requires_grad", ct_tensor_set_requires_grad(t, take(in) & 1), NULL, 0);
    case 1:
      g = (how & 0x80) ? slot(p, in) : NULL;
      st = ct_tensor_backward(t, g, take(in) % 8);
      return check_call("ct_tensor_backward", st, NULL, 0);
    case 2: {
      st = ct_tensor_grad(t, &g);
      const char* problem = check_call("ct_tensor_grad", st, &g, 1);
      if (!problem) keep(p, in, g);
      return problem;
    }
    default:
      st = ct_tensor_detach(t, &g);
      {
        const char* problem = check_call("ct_tensor_detach", st, &g, 1);
        if (!problem) keep(p, in, g);
        return problem;
      }
  }
}

/* Printing and reading back: every element of every view is reachable. */
static const char* read_back(pool* p, input* in) {
  const uint8_t how = take(in);
  const ct_tensor* t = slot(p, in);
  if (how % 3 == 0) {
    char* s = NULL;
    const ct_status st = ct_tensor_to_string(t, &s);
    const char* problem = st == CT_OK && (!s || !s[0]) ? failed_check("ct_tensor_to_string", st) : NULL;
    if (!problem && st != CT_OK && s) problem = failed_check("ct_tensor_to_string", st);
    if (!problem) problem = check_call("ct_tensor_to_string", st, NULL, 0);
    ct_string_release(s);
    return problem;
  }
  if (how % 3 == 1) {
    ct_scalar v;
    return check_call("ct_tensor_item", ct_tensor_item(t, &v), NULL, 0);
  }
  int64_t numel = numel_of(t);
  ct_dtype dt = CT_FLOAT32;
  if (t && ct_tensor_dtype(t, &dt) != CT_OK) return failed_check("ct_tensor_dtype", CT_ERROR_INVALID_ARGUMENT);
  size_t bytes = numel > 0 ? (size_t)numel * ct_dtype_itemsize(dt) : 0;
  if (how & 0x80) bytes += 1; /* a wrong size must be refused, not written */
  void* dst = malloc(bytes ? bytes : 1);
  const ct_status st = ct_tensor_copy_to(t, dst, bytes);
  free(dst);
  if (st == CT_OK && (how & 0x80)) return failed_check("ct_tensor_copy_to accepted a wrong nbytes", st);
  return check_call("ct_tensor_copy_to", st, NULL, 0);
}

/* Mixed devices and integer edges, the arguments of two crashes found from outside (a cpu kernel
 * reading a meta index, avg_pool2d dividing INT64_MIN by -1): a pool tensor moved to the other
 * device, or a tensor holding its dtype's MIN, -1, 0, 1 and MAX over and over. */
static const char* edges(pool* p, input* in, uint8_t how) {
  ct_tensor* t = kUnset;
  ct_status st;
  const char* what;
  if (how & 1) {
    what = "ct_tensor_to_device";
    st = ct_tensor_to_device(slot(p, in), take(in) & 1 ? "cpu" : "meta", &t);
  } else {
    static const ct_dtype dts[5] = {CT_INT8, CT_INT16, CT_INT32, CT_INT64, CT_UINT8};
    static const int64_t values[5][5] = {{-128, -1, 0, 1, 127},
                                         {-32768, -1, 0, 1, 32767},
                                         {INT32_MIN, -1, 0, 1, INT32_MAX},
                                         {INT64_MIN, -1, 0, 1, INT64_MAX},
                                         {0, 255, 0, 1, 255}};
    const int d = take(in) % 5;
    const int64_t sizes[2] = {1 + take(in) % 3, 1 + take(in) % 4};
    const size_t item = ct_dtype_itemsize(dts[d]);
    uint8_t data[12 * 8];
    for (int64_t k = 0; k < sizes[0] * sizes[1]; ++k) {
      const int64_t v = values[d][(k + take(in)) % 5];
      memcpy(data + (size_t)k * item, &v, item); /* little-endian: the low bytes are the narrow value */
    }
    what = "ct_tensor_from_data";
    st = ct_tensor_from_data(data, sizes, 2, dts[d], &t);
  }
  const char* problem = check_call(what, st, &t, 1);
  if (!problem) keep(p, in, t);
  return problem;
}

/* Releases a slot, or shares its handle with another one (two references, two releases). */
static const char* release_or_share(pool* p, input* in) {
  const int a = take(in) % kSlots;
  const int b = take(in) % kSlots;
  if (!(a & 1) || !p->t[a] || a == b) {
    ct_tensor_release(p->t[a]);
    p->t[a] = NULL;
    return NULL;
  }
  const ct_status st = ct_tensor_retain(p->t[a]);
  if (st != CT_OK) return failed_check("ct_tensor_retain", st);
  ct_tensor_release(p->t[b]);
  p->t[b] = p->t[a];
  return NULL;
}

static int64_t metric(const char* name) {
  int64_t v = 0;
  if (ct_metric_get(name, &v) != CT_OK) abort();
  return v;
}

static const char* fuzz_exercise(const uint8_t* data, size_t size) {
  static int ready;
  if (!ready) {
    /* One thread: the same input takes the same path every run. */
    if (ct_set_num_threads(1) != CT_OK) abort();
    g_nops = load_op_schemas(g_ops, kMaxOps);
    if (g_nops <= 0) abort();
    if (ct_symint_from_int(2, &g_symint) != CT_OK) abort();
    ready = 1;
  }
  if (ct_manual_seed(0) != CT_OK) abort();
  const int64_t tensors0 = metric("tensors.live"), storages0 = metric("storages.live");
  input in = {data, size, 0};
  pool p;
  memset(&p, 0, sizeof p);
  /* Every input starts with a few tensors to work on: a matrix, a vector, a 0-dim and integers. */
  const int64_t sizes[2] = {2, 3};
  const char* problem = NULL;
  if (ct_tensor_randn(sizes, 2, CT_FLOAT32, NULL, NULL, &p.t[0]) != CT_OK ||
      ct_tensor_randn(sizes + 1, 1, CT_FLOAT32, NULL, NULL, &p.t[1]) != CT_OK ||
      ct_tensor_randn(NULL, 0, CT_FLOAT64, NULL, NULL, &p.t[2]) != CT_OK ||
      ct_tensor_arange(0, 6, 1, CT_INT64, NULL, &p.t[3]) != CT_OK)
    problem = "making the starting tensors failed";
  for (int calls = 0; calls < kMaxCalls && more(&in) && !problem; ++calls) {
    ct_error_set(CT_OK, NULL); /* a failure must leave its own message, not an older one */
    const uint8_t action = take(&in);
    if (action >= 248) { /* added later: the bytes below keep their meaning for older inputs */
      problem = edges(&p, &in, action);
      continue;
    }
    switch (action % 9) {
      case 0: problem = create(&p, &in); break;
      case 1: problem = view(&p, &in); break;
      case 2:
      case 3: problem = call_op(&p, &in); break;
      case 4: problem = inplace(&p, &in); break;
      case 5: problem = autograd(&p, &in); break;
      case 6: problem = read_back(&p, &in); break;
      case 7: problem = release_or_share(&p, &in); break;
      default: problem = typed(&p, &in); break;
    }
  }
  /* Release in an order the input picks. */
  const int start = take(&in) % kSlots;
  for (int k = 0; k < kSlots; ++k) {
    const int s = (start + k * 5) % kSlots;
    ct_tensor_release(p.t[s]);
  }
  if (!problem && metric("tensors.live") != tensors0) problem = "tensors leaked (tensors.live grew)";
  if (!problem && metric("storages.live") != storages0) problem = "storages leaked (storages.live grew)";
  if (!problem && g_blobs_live != 0) problem = "a blob's deleter did not run after its last tensor went";
  g_blobs_live = 0;
  return problem;
}
