// ops_pointwise.cpp - the typed C functions of the pointwise family (unary math, rounding,
// predicates, activations, binary and ternary arithmetic): handle checks, then one dispatch of the
// registered operator (looked up once per function).
#include <cmath>

#include "capi/handle.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"

using namespace ct;
using capi::tensor_arg;

extern "C" {

#define CT_PW_UNARY(name)                                                   \
  ct_status ct_tensor_##name(const ct_tensor* a, ct_tensor** out) {         \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {               \
      CT_OPERATOR(op, #name);                                               \
      return call(op, {&tensor_arg(a, "ct_tensor_" #name, "a")});           \
    });                                                                     \
  }
CT_PW_UNARY(exp2)
CT_PW_UNARY(expm1)
CT_PW_UNARY(log1p)
CT_PW_UNARY(log2)
CT_PW_UNARY(log10)
CT_PW_UNARY(tan)
CT_PW_UNARY(asin)
CT_PW_UNARY(acos)
CT_PW_UNARY(atan)
CT_PW_UNARY(sinh)
CT_PW_UNARY(cosh)
CT_PW_UNARY(asinh)
CT_PW_UNARY(acosh)
CT_PW_UNARY(atanh)
CT_PW_UNARY(erf)
CT_PW_UNARY(erfc)
CT_PW_UNARY(erfinv)
CT_PW_UNARY(reciprocal)
CT_PW_UNARY(floor)
CT_PW_UNARY(ceil)
CT_PW_UNARY(round)
CT_PW_UNARY(trunc)
CT_PW_UNARY(frac)
CT_PW_UNARY(sign)
CT_PW_UNARY(square)
CT_PW_UNARY(isnan)
CT_PW_UNARY(isinf)
CT_PW_UNARY(isfinite)
CT_PW_UNARY(logical_not)
CT_PW_UNARY(bitwise_not)
CT_PW_UNARY(silu)
CT_PW_UNARY(mish)
CT_PW_UNARY(selu)
CT_PW_UNARY(hardsigmoid)
CT_PW_UNARY(hardswish)
#undef CT_PW_UNARY

ct_status ct_tensor_round_decimals(const ct_tensor* a, int64_t decimals, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_round_decimals", [&] {
    CT_OPERATOR(op, "round.decimals");
    return call(op, {&tensor_arg(a, "ct_tensor_round_decimals", "a"), decimals});
  });
}

ct_status ct_tensor_nan_to_num(const ct_tensor* a, const double* nan, const double* posinf, const double* neginf,
                               ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_nan_to_num", [&] {
    CT_OPERATOR(op, "nan_to_num");
    auto opt = [](const double* v) { return v ? Value(*v) : Value(); };
    return call(op, {&tensor_arg(a, "ct_tensor_nan_to_num", "a"), opt(nan), opt(posinf), opt(neginf)});
  });
}

ct_status ct_tensor_gelu(const ct_tensor* a, const char* approximate, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_gelu", [&] {
    CT_OPERATOR(op, "gelu");
    return call(op, {&tensor_arg(a, "ct_tensor_gelu", "a"), approximate ? approximate : "none"});
  });
}

ct_status ct_tensor_softplus(const ct_tensor* a, double beta, double threshold, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_softplus", [&] {
    CT_OPERATOR(op, "softplus");
    return call(op, {&tensor_arg(a, "ct_tensor_softplus", "a"), beta, threshold});
  });
}

ct_status ct_tensor_elu(const ct_tensor* a, double alpha, double scale, double input_scale, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_elu", [&] {
    CT_OPERATOR(op, "elu");
    return call(op, {&tensor_arg(a, "ct_tensor_elu", "a"), alpha, scale, input_scale});
  });
}

ct_status ct_tensor_leaky_relu(const ct_tensor* a, double negative_slope, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_leaky_relu", [&] {
    CT_OPERATOR(op, "leaky_relu");
    return call(op, {&tensor_arg(a, "ct_tensor_leaky_relu", "a"), negative_slope});
  });
}

ct_status ct_tensor_hardtanh(const ct_tensor* a, double min_val, double max_val, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_hardtanh", [&] {
    CT_OPERATOR(op, "hardtanh");
    return call(op, {&tensor_arg(a, "ct_tensor_hardtanh", "a"), min_val, max_val});
  });
}

#define CT_PW_BOUND(name)                                                                      \
  ct_status ct_tensor_##name(const ct_tensor* a, const ct_scalar* bound, ct_tensor** out) {    \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                  \
      CT_OPERATOR(op, #name);                                                                  \
      const TensorImpl& x = tensor_arg(a, "ct_tensor_" #name, "a");                            \
      return call(op, {&x, capi::scalar_arg(bound, "ct_tensor_" #name, "bound")});             \
    });                                                                                        \
  }
CT_PW_BOUND(clamp_min)
CT_PW_BOUND(clamp_max)
#undef CT_PW_BOUND

#define CT_PW_BINARY(name)                                                                      \
  ct_status ct_tensor_##name(const ct_tensor* a, const ct_tensor* b, ct_tensor** out) {         \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                   \
      CT_OPERATOR(op, #name ".Tensor");                                                         \
      return call(op, {&tensor_arg(a, "ct_tensor_" #name, "a"), &tensor_arg(b, "ct_tensor_" #name, "b")}); \
    });                                                                                         \
  }
CT_PW_BINARY(atan2)
CT_PW_BINARY(hypot)
CT_PW_BINARY(fmod)
CT_PW_BINARY(remainder)
CT_PW_BINARY(floor_divide)
CT_PW_BINARY(bitwise_and)
CT_PW_BINARY(bitwise_or)
CT_PW_BINARY(bitwise_xor)
CT_PW_BINARY(bitwise_left_shift)
CT_PW_BINARY(bitwise_right_shift)
CT_PW_BINARY(logical_and)
CT_PW_BINARY(logical_or)
CT_PW_BINARY(logical_xor)
#undef CT_PW_BINARY

#define CT_PW_BINARY_SCALAR(name)                                                                 \
  ct_status ct_tensor_##name##_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out) {  \
    return capi::tensor_result(out, "ct_tensor_" #name "_scalar", [&] {                           \
      CT_OPERATOR(op, #name ".Scalar");                                                           \
      const TensorImpl& x = tensor_arg(a, "ct_tensor_" #name "_scalar", "a");                     \
      return call(op, {&x, capi::scalar_arg(s, "ct_tensor_" #name "_scalar", "s")});              \
    });                                                                                           \
  }
CT_PW_BINARY_SCALAR(fmod)
CT_PW_BINARY_SCALAR(remainder)
CT_PW_BINARY_SCALAR(floor_divide)
#undef CT_PW_BINARY_SCALAR

ct_status ct_tensor_lerp(const ct_tensor* a, const ct_tensor* end, const ct_scalar* weight, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_lerp", [&] {
    CT_OPERATOR(op, "lerp.Scalar");
    const TensorImpl& x = tensor_arg(a, "ct_tensor_lerp", "a");
    const TensorImpl& e = tensor_arg(end, "ct_tensor_lerp", "end");
    return call(op, {&x, &e, capi::scalar_arg(weight, "ct_tensor_lerp", "weight")});
  });
}

ct_status ct_tensor_lerp_tensor(const ct_tensor* a, const ct_tensor* end, const ct_tensor* weight, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_lerp_tensor", [&] {
    CT_OPERATOR(op, "lerp.Tensor");
    return call(op, {&tensor_arg(a, "ct_tensor_lerp_tensor", "a"), &tensor_arg(end, "ct_tensor_lerp_tensor", "end"),
                     &tensor_arg(weight, "ct_tensor_lerp_tensor", "weight")});
  });
}

#define CT_PW_ADDC(name)                                                                              \
  ct_status ct_tensor_##name(const ct_tensor* a, const ct_tensor* t1, const ct_tensor* t2,           \
                             const ct_scalar* value, ct_tensor** out) {                               \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                         \
      CT_OPERATOR(op, #name);                                                                         \
      const TensorImpl& x = tensor_arg(a, "ct_tensor_" #name, "a");                                   \
      const TensorImpl& y = tensor_arg(t1, "ct_tensor_" #name, "tensor1");                            \
      const TensorImpl& z = tensor_arg(t2, "ct_tensor_" #name, "tensor2");                            \
      const Scalar v = value ? capi::scalar_arg(value, "ct_tensor_" #name, "value") : Scalar(int64_t(1)); \
      return call(op, {&x, &y, &z, v});                                                               \
    });                                                                                               \
  }
CT_PW_ADDC(addcmul)
CT_PW_ADDC(addcdiv)
#undef CT_PW_ADDC

}  // extern "C"
