/* counting.c - a complete device backend in plain C, loaded as a plugin.
 *
 * The "counting" device keeps its tensors in host memory (so it runs anywhere) and counts every
 * kernel it runs and every byte it holds. It has two devices ("counting:0", "counting:1"), float32
 * kernels for add.Tensor, mul.Tensor, neg, relu, sum, zeros and ones (enough for the gradient of
 * a sum of products), and an operator counting::stats() that
 * reports [kernel calls, bytes held] as an int64 cpu tensor. Everything else fails on it with
 * CT_ERROR_DEVICE naming the operator and the device.
 *
 * Build it as a shared object and put its directory on CTORCH_BACKEND_PATH; ct_init loads it:
 *
 *   cc -shared -fPIC counting.c -I include -o plugins/libctorch_counting.so
 *   CTORCH_BACKEND_PATH=$PWD/plugins ./my_program
 *
 * docs/plugins.md walks through it. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctorch.h"

#define COUNTING_DEVICES 2
#define MAX_DIMS 16

static atomic_llong kernel_calls;
static atomic_llong bytes_held;

/* ---- The backend: memory and copies ---- */

static int32_t device_count(void* user_data) {
  (void)user_data;
  return COUNTING_DEVICES;
}

static ct_status allocate(void* user_data, int32_t device, size_t nbytes, void** out) {
  (void)user_data;
  (void)device;
  *out = malloc(nbytes);
  if (!*out) {
    ct_error_set(CT_ERROR_OUT_OF_MEMORY, "counting: malloc refused the request");
    return CT_ERROR_OUT_OF_MEMORY;
  }
  atomic_fetch_add(&bytes_held, (long long)nbytes);
  return CT_OK;
}

static void release(void* user_data, int32_t device, void* ptr, size_t nbytes) {
  (void)user_data;
  (void)device;
  free(ptr);
  atomic_fetch_sub(&bytes_held, (long long)nbytes);
}

static ct_status copy(void* user_data, int32_t device, void* dst, const void* src, size_t nbytes) {
  (void)user_data;
  (void)device;
  memcpy(dst, src, nbytes);
  return CT_OK;
}

/* ---- Kernels ---- */

/* Where a float32 tensor's elements are, and how to reach element i of a result of `out`'s sizes
 * from it: broadcasting is a stride of 0. */
typedef struct {
  const float* data;
  int64_t strides[MAX_DIMS]; /* aligned with the result's dims */
} operand;

typedef struct {
  size_t ndim;
  int64_t sizes[MAX_DIMS];
  int64_t numel;
  float* data;
} result;

static ct_status unsupported(const char* op, const char* why) {
  char msg[256];
  snprintf(msg, sizeof msg, "counting: %s supports %s", op, why);
  ct_error_set(CT_ERROR_NOT_IMPLEMENTED, msg);
  return CT_ERROR_NOT_IMPLEMENTED;
}

static ct_status read_result(const char* op, ct_tensor* t, result* r) {
  ct_status st = ct_tensor_ndim(t, &r->ndim);
  if (st == CT_OK && r->ndim > MAX_DIMS) return unsupported(op, "at most 16 dims");
  if (st == CT_OK) st = ct_tensor_sizes(t, r->sizes, r->ndim);
  if (st == CT_OK) st = ct_tensor_numel(t, &r->numel);
  if (st == CT_OK) st = ct_tensor_data_ptr(t, (void**)&r->data);
  return st;
}

static ct_status read_operand(const char* op, const ct_tensor* t, const result* r, operand* o) {
  ct_dtype dtype;
  size_t ndim;
  int64_t sizes[MAX_DIMS], strides[MAX_DIMS];
  ct_status st = ct_tensor_dtype(t, &dtype);
  if (st != CT_OK) return st;
  if (dtype != CT_FLOAT32) return unsupported(op, "float32 tensors only; convert with ct_tensor_to first");
  st = ct_tensor_ndim(t, &ndim);
  if (st == CT_OK) st = ct_tensor_sizes(t, sizes, ndim);
  if (st == CT_OK) st = ct_tensor_strides(t, strides, ndim);
  if (st == CT_OK) st = ct_tensor_data_ptr(t, (void**)&o->data);
  if (st != CT_OK) return st;
  /* The shared shape rule has checked that t broadcasts to the result: align dims from the right. */
  for (size_t d = 0; d < r->ndim; ++d) {
    const size_t shift = r->ndim - ndim;
    o->strides[d] = d < shift || sizes[d - shift] == 1 ? 0 : strides[d - shift];
  }
  return CT_OK;
}

/* The element of o that element i of the result reads. */
static float at(const operand* o, const result* r, int64_t i) {
  int64_t offset = 0;
  for (size_t d = r->ndim; d-- > 0;) {
    offset += (i % r->sizes[d]) * o->strides[d];
    i /= r->sizes[d];
  }
  return o->data[offset];
}

typedef enum { OP_ADD, OP_MUL, OP_NEG, OP_RELU } elementwise_op;
static const char* const op_names[] = {"add.Tensor", "mul.Tensor", "neg", "relu"};

/* user_data is the elementwise_op. Outputs arrive allocated by the operator's shape rule. */
static ct_status elementwise(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  (void)nargs;
  (void)nouts;
  const elementwise_op op = (elementwise_op)(size_t)user_data;
  const char* name = op_names[op];
  atomic_fetch_add(&kernel_calls, 1);
  result r;
  operand a, b;
  ct_dtype dtype;
  ct_status st = read_result(name, outs[0], &r);
  if (st == CT_OK) st = ct_tensor_dtype(outs[0], &dtype);
  if (st == CT_OK && dtype != CT_FLOAT32) return unsupported(name, "float32 tensors only; convert with ct_tensor_to first");
  if (st == CT_OK) st = read_operand(name, args[0].tensor, &r, &a);
  if (st == CT_OK && op <= OP_MUL) st = read_operand(name, args[1].tensor, &r, &b);
  if (st != CT_OK) return st;
  /* add.Tensor's alpha: an integer or a float scalar. */
  const float alpha = op != OP_ADD ? 1.0f : args[2].kind == CT_VALUE_FLOAT ? (float)args[2].f : (float)args[2].i;
  for (int64_t i = 0; i < r.numel; ++i) {
    const float x = at(&a, &r, i);
    switch (op) {
      case OP_ADD: r.data[i] = x + alpha * at(&b, &r, i); break;
      case OP_MUL: r.data[i] = x * at(&b, &r, i); break;
      case OP_NEG: r.data[i] = -x; break;
      case OP_RELU: r.data[i] = x > 0.0f ? x : 0.0f; break;
    }
  }
  return CT_OK;
}

/* sum.dim_IntList(Tensor self, int[]? dim=None, bool keepdim=False): the sum of every element. */
static ct_status sum(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  (void)user_data;
  (void)nargs;
  (void)nouts;
  atomic_fetch_add(&kernel_calls, 1);
  if (args[1].kind != CT_VALUE_NONE && args[1].len > 0) return unsupported("sum", "reducing over every dim only");
  result r, all;
  operand a;
  ct_status st = read_result("sum", outs[0], &r);
  if (st != CT_OK) return st;
  /* Read self as a result of its own sizes, so `at` walks every element once. */
  st = ct_tensor_ndim(args[0].tensor, &all.ndim);
  if (st == CT_OK && all.ndim > MAX_DIMS) return unsupported("sum", "at most 16 dims");
  if (st == CT_OK) st = ct_tensor_sizes(args[0].tensor, all.sizes, all.ndim);
  if (st == CT_OK) st = ct_tensor_numel(args[0].tensor, &all.numel);
  if (st == CT_OK) st = read_operand("sum", args[0].tensor, &all, &a);
  if (st != CT_OK) return st;
  double total = 0.0;
  for (int64_t i = 0; i < all.numel; ++i) total += at(&a, &all, i);
  r.data[0] = (float)total;
  return CT_OK;
}

/* zeros and ones (factories: the device argument chose this kernel); user_data is the value. */
static ct_status fill(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  (void)args;
  (void)nargs;
  (void)nouts;
  const char* name = user_data ? "ones" : "zeros";
  atomic_fetch_add(&kernel_calls, 1);
  result r;
  ct_dtype dtype;
  ct_status st = read_result(name, outs[0], &r);
  if (st == CT_OK) st = ct_tensor_dtype(outs[0], &dtype);
  if (st == CT_OK && dtype != CT_FLOAT32) return unsupported(name, "float32 tensors only");
  for (int64_t i = 0; st == CT_OK && i < r.numel; ++i) r.data[i] = user_data ? 1.0f : 0.0f;
  return st;
}

/* counting::stats() -> Tensor: [kernel calls, bytes held], int64, on the cpu. */
static ct_status stats(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  (void)user_data;
  (void)args;
  (void)nargs;
  (void)nouts;
  const int64_t values[2] = {atomic_load(&kernel_calls), atomic_load(&bytes_held)};
  const int64_t sizes[1] = {2};
  return ct_tensor_from_data(values, sizes, 1, CT_INT64, &outs[0]);
}

/* ---- Loading ---- */

ct_status ct_plugin_init(int32_t abi_version) {
  if (abi_version < CT_ABI_VERSION) {
    ct_error_set(CT_ERROR_VERSION, "counting: this plugin was built for a newer libctorch");
    return CT_ERROR_VERSION;
  }
  const ct_backend backend = {sizeof(ct_backend), device_count, allocate, release, copy, copy};
  ct_status st = ct_backend_register("counting", &backend, NULL, NULL);
  for (size_t op = OP_ADD; st == CT_OK && op <= OP_RELU; ++op)
    st = ct_library_impl(op_names[op], "counting", elementwise, (void*)op, NULL);
  if (st == CT_OK) st = ct_library_impl("sum.dim_IntList", "counting", sum, NULL, NULL);
  if (st == CT_OK) st = ct_library_impl("zeros", "counting", fill, NULL, NULL);
  if (st == CT_OK) st = ct_library_impl("ones", "counting", fill, (void*)1, NULL);
  if (st == CT_OK) st = ct_library_define("counting::stats() -> Tensor");
  if (st == CT_OK) st = ct_library_impl("counting::stats", "cpu", stats, NULL, NULL);
  return st;
}
