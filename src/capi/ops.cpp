// ops.cpp - the typed operator functions: handle checks, then one dispatch of the registered
// operator (looked up once per function).
#include "capi/handle.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"

using namespace ct;
using capi::int_list_arg;
using capi::tensor_arg;

extern "C" {

// ---- Elementwise ----

#define CT_BINARY(name, extra)                                                                      \
  ct_status ct_tensor_##name(const ct_tensor* a, const ct_tensor* b, ct_tensor** out) {            \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                      \
      CT_OPERATOR(op, #name ".Tensor");                                                            \
      return call(op, {&tensor_arg(a, "ct_tensor_" #name, "a"), &tensor_arg(b, "ct_tensor_" #name, "b") extra}); \
    });                                                                                            \
  }                                                                                                \
  ct_status ct_tensor_##name##_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out) {   \
    return capi::tensor_result(out, "ct_tensor_" #name "_scalar", [&] {                            \
      CT_OPERATOR(op, #name ".Scalar");                                                            \
      const TensorImpl& x = tensor_arg(a, "ct_tensor_" #name "_scalar", "a");                      \
      return call(op, {&x, capi::scalar_arg(s, "ct_tensor_" #name "_scalar", "s") extra});         \
    });                                                                                            \
  }
#define CT_ALPHA , Value(int64_t(1))
#define CT_NONE
CT_BINARY(add, CT_ALPHA)
CT_BINARY(sub, CT_ALPHA)
CT_BINARY(mul, CT_NONE)
CT_BINARY(div, CT_NONE)
CT_BINARY(pow, CT_NONE)
CT_BINARY(eq, CT_NONE)
CT_BINARY(ne, CT_NONE)
CT_BINARY(lt, CT_NONE)
CT_BINARY(le, CT_NONE)
CT_BINARY(gt, CT_NONE)
CT_BINARY(ge, CT_NONE)
#undef CT_BINARY

#define CT_BINARY_TENSOR_ONLY(name)                                                                \
  ct_status ct_tensor_##name(const ct_tensor* a, const ct_tensor* b, ct_tensor** out) {            \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                      \
      CT_OPERATOR(op, #name ".Tensor");                                                            \
      return call(op, {&tensor_arg(a, "ct_tensor_" #name, "a"), &tensor_arg(b, "ct_tensor_" #name, "b")}); \
    });                                                                                            \
  }
CT_BINARY_TENSOR_ONLY(maximum)
CT_BINARY_TENSOR_ONLY(minimum)
#undef CT_BINARY_TENSOR_ONLY

#define CT_INPLACE(name, extra)                                                                    \
  ct_status ct_tensor_##name##_(ct_tensor* self, const ct_tensor* b) {                             \
    return capi::guard([&] {                                                                       \
      CT_OPERATOR(op, #name "_.Tensor");                                                           \
      call(op, {&tensor_arg(self, "ct_tensor_" #name "_", "self"), &tensor_arg(b, "ct_tensor_" #name "_", "b") extra}); \
    });                                                                                            \
  }                                                                                                \
  ct_status ct_tensor_##name##_scalar_(ct_tensor* self, const ct_scalar* s) {                      \
    return capi::guard([&] {                                                                       \
      CT_OPERATOR(op, #name "_.Scalar");                                                           \
      const TensorImpl& x = tensor_arg(self, "ct_tensor_" #name "_scalar_", "self");               \
      call(op, {&x, capi::scalar_arg(s, "ct_tensor_" #name "_scalar_", "s") extra});               \
    });                                                                                            \
  }
CT_INPLACE(add, CT_ALPHA)
CT_INPLACE(sub, CT_ALPHA)
CT_INPLACE(mul, CT_NONE)
CT_INPLACE(div, CT_NONE)
#undef CT_INPLACE
#undef CT_ALPHA
#undef CT_NONE

#define CT_UNARY(name)                                                                 \
  ct_status ct_tensor_##name(const ct_tensor* a, ct_tensor** out) {                    \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                          \
      CT_OPERATOR(op, #name);                                                          \
      return call(op, {&tensor_arg(a, "ct_tensor_" #name, "a")});                      \
    });                                                                                \
  }
CT_UNARY(neg)
CT_UNARY(abs)
CT_UNARY(exp)
CT_UNARY(log)
CT_UNARY(sqrt)
CT_UNARY(rsqrt)
CT_UNARY(sin)
CT_UNARY(cos)
CT_UNARY(tanh)
CT_UNARY(sigmoid)
CT_UNARY(relu)
CT_UNARY(squeeze)
CT_UNARY(contiguous)
CT_UNARY(clone)
#undef CT_UNARY

ct_status ct_tensor_where(const ct_tensor* cond, const ct_tensor* a, const ct_tensor* b, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_where", [&] {
    CT_OPERATOR(op, "where.self");
    return call(op, {&tensor_arg(cond, "ct_tensor_where", "cond"), &tensor_arg(a, "ct_tensor_where", "a"),
                     &tensor_arg(b, "ct_tensor_where", "b")});
  });
}

ct_status ct_tensor_clamp(const ct_tensor* a, const ct_scalar* lo, const ct_scalar* hi, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_clamp", [&] {
    const TensorImpl& x = tensor_arg(a, "ct_tensor_clamp", "a");
    std::optional<Scalar> l, h;
    if (lo) l = capi::scalar_arg(lo, "ct_tensor_clamp", "lo");
    if (hi) h = capi::scalar_arg(hi, "ct_tensor_clamp", "hi");
    return ops::clamp(Tensor::borrow(&x), l, h);
  });
}

ct_status ct_tensor_to(const ct_tensor* a, ct_dtype dtype, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_to", [&] {
    const TensorImpl& x = tensor_arg(a, "ct_tensor_to", "a");
    return ops::to(Tensor::borrow(&x), capi::dtype_arg(dtype, "ct_tensor_to"));
  });
}

ct_status ct_tensor_to_device(const ct_tensor* a, const char* device, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_to_device", [&] {
    const TensorImpl& x = tensor_arg(a, "ct_tensor_to_device", "a");
    CT_CHECK(device, CT_ERROR_INVALID_ARGUMENT, "ct_tensor_to_device: device is NULL. Name one (\"cpu\", \"cuda:0\")");
    const Device d = parse_device(device);
    return ops::to(Tensor::borrow(&x), d, x.dtype());
  });
}

// ---- Shapes and views ----

#define CT_LIST_OP(name, op_full, arg)                                                                    \
  ct_status ct_tensor_##name(const ct_tensor* a, const int64_t* v, size_t n, ct_tensor** out) {          \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                            \
      CT_OPERATOR(op, op_full);                                                                          \
      const TensorImpl& x = tensor_arg(a, "ct_tensor_" #name, "a");                                      \
      return call(op, {&x, int_list_arg(v, n, "ct_tensor_" #name, arg)});                                \
    });                                                                                                  \
  }
CT_LIST_OP(view, "view", "sizes")
CT_LIST_OP(reshape, "reshape", "sizes")
CT_LIST_OP(permute, "permute", "dims")
CT_LIST_OP(expand, "expand", "sizes")
#undef CT_LIST_OP

#define CT_INT_OP(name, op_full)                                                        \
  ct_status ct_tensor_##name(const ct_tensor* a, int64_t dim, ct_tensor** out) {        \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                           \
      CT_OPERATOR(op, op_full);                                                         \
      return call(op, {&tensor_arg(a, "ct_tensor_" #name, "a"), dim});                  \
    });                                                                                 \
  }
CT_INT_OP(squeeze_dim, "squeeze.dim")
CT_INT_OP(unsqueeze, "unsqueeze")
#undef CT_INT_OP

#define CT_INT2_OP(name, op_full)                                                                   \
  ct_status ct_tensor_##name(const ct_tensor* a, int64_t x, int64_t y, ct_tensor** out) {           \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                       \
      CT_OPERATOR(op, op_full);                                                                     \
      return call(op, {&tensor_arg(a, "ct_tensor_" #name, "a"), x, y});                             \
    });                                                                                             \
  }
CT_INT2_OP(transpose, "transpose.int")
CT_INT2_OP(select, "select.int")
CT_INT2_OP(flatten, "flatten.using_ints")
#undef CT_INT2_OP

ct_status ct_tensor_narrow(const ct_tensor* a, int64_t dim, int64_t start, int64_t length, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_narrow", [&] {
    CT_OPERATOR(op, "narrow");
    return call(op, {&tensor_arg(a, "ct_tensor_narrow", "a"), dim, start, length});
  });
}

#define CT_JOIN_OP(name)                                                                                 \
  ct_status ct_tensor_##name(const ct_tensor* const* ts, size_t n, int64_t dim, ct_tensor** out) {        \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                            \
      CT_OPERATOR(op, #name);                                                                            \
      CT_CHECK(n > 0, CT_ERROR_INVALID_ARGUMENT, "ct_tensor_" #name ": expected a non-empty list of tensors"); \
      return call(op, {capi::tensor_list_arg(ts, n, "ct_tensor_" #name, "tensors"), dim});               \
    });                                                                                                  \
  }
CT_JOIN_OP(cat)
CT_JOIN_OP(stack)
#undef CT_JOIN_OP

// ---- Reductions ----

#define CT_REDUCE(name)                                                                                   \
  ct_status ct_tensor_##name(const ct_tensor* a, const int64_t* dims, size_t n, int keepdim, ct_tensor** out) { \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                             \
      CT_OPERATOR(op, #name ".dim_IntList");                                                              \
      const TensorImpl& x = tensor_arg(a, "ct_tensor_" #name, "a");                                       \
      return call(op, {&x, int_list_arg(dims, n, "ct_tensor_" #name, "dims"), keepdim != 0});             \
    });                                                                                                   \
  }
CT_REDUCE(sum)
CT_REDUCE(mean)
CT_REDUCE(prod)
CT_REDUCE(amax)
CT_REDUCE(amin)
#undef CT_REDUCE

#define CT_ARG_REDUCE(name)                                                                              \
  ct_status ct_tensor_##name(const ct_tensor* a, const int64_t* dim, int keepdim, ct_tensor** out) {     \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                            \
      CT_OPERATOR(op, #name);                                                                            \
      return call(op, {&tensor_arg(a, "ct_tensor_" #name, "a"), dim ? Value(*dim) : Value(), keepdim != 0}); \
    });                                                                                                  \
  }
CT_ARG_REDUCE(argmax)
CT_ARG_REDUCE(argmin)
#undef CT_ARG_REDUCE

// ---- Matrix products ----

#define CT_MATRIX_OP(name)                                                                         \
  ct_status ct_tensor_##name(const ct_tensor* a, const ct_tensor* b, ct_tensor** out) {            \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                      \
      CT_OPERATOR(op, #name);                                                                      \
      return call(op, {&tensor_arg(a, "ct_tensor_" #name, "a"), &tensor_arg(b, "ct_tensor_" #name, "b")}); \
    });                                                                                            \
  }
CT_MATRIX_OP(mm)
CT_MATRIX_OP(bmm)
CT_MATRIX_OP(matmul)
#undef CT_MATRIX_OP

ct_status ct_tensor_addmm(const ct_tensor* self, const ct_tensor* m1, const ct_tensor* m2, const ct_scalar* beta,
                          const ct_scalar* alpha, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_addmm", [&] {
    CT_OPERATOR(op, "addmm");
    const char* fn = "ct_tensor_addmm";
    const Scalar b = beta ? capi::scalar_arg(beta, fn, "beta") : Scalar(1);
    const Scalar a = alpha ? capi::scalar_arg(alpha, fn, "alpha") : Scalar(1);
    return call(op, {&tensor_arg(self, fn, "self"), &tensor_arg(m1, fn, "m1"), &tensor_arg(m2, fn, "m2"), b, a});
  });
}

}  // extern "C"
