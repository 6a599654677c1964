// ops_nn.cpp - the typed C functions of the nn family: softmax, normalization, two losses and
// attention. Optional tensors are NULL handles; everything else is checked by the operators.
#include "capi/handle.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"

using namespace ct;
using capi::tensor_arg;

namespace {

Value opt_tensor(const ct_tensor* t, const char* fn, const char* arg) {
  return t ? Value(&tensor_arg(t, fn, arg)) : Value();
}

IntArrayRef shape_arg(const int64_t* v, size_t n, const char* fn) {
  return capi::int_list_arg(v, n, fn, "normalized_shape");
}

ct_status softmax_like(const char* fn, const char* full, const ct_tensor* input, int64_t dim, const ct_dtype* dtype,
                       ct_tensor** out) {
  return capi::tensor_result(out, fn, [&] {
    const Value d = dtype ? Value(capi::dtype_arg(*dtype, fn)) : Value();
    return call(builtin_op(full), {&tensor_arg(input, fn, "input"), dim, d});
  });
}

}  // namespace

extern "C" {

ct_status ct_tensor_softmax(const ct_tensor* input, int64_t dim, const ct_dtype* dtype, ct_tensor** out) {
  return softmax_like("ct_tensor_softmax", "softmax.int", input, dim, dtype, out);
}

ct_status ct_tensor_log_softmax(const ct_tensor* input, int64_t dim, const ct_dtype* dtype, ct_tensor** out) {
  return softmax_like("ct_tensor_log_softmax", "log_softmax.int", input, dim, dtype, out);
}

ct_status ct_tensor_layer_norm(const ct_tensor* input, const int64_t* normalized_shape, size_t n,
                               const ct_tensor* weight, const ct_tensor* bias, double eps, ct_tensor** out) {
  const char* fn = "ct_tensor_layer_norm";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "layer_norm");
    return call(op, {&tensor_arg(input, fn, "input"), shape_arg(normalized_shape, n, fn),
                     opt_tensor(weight, fn, "weight"), opt_tensor(bias, fn, "bias"), eps, true});
  });
}

ct_status ct_tensor_rms_norm(const ct_tensor* input, const int64_t* normalized_shape, size_t n,
                             const ct_tensor* weight, const double* eps, ct_tensor** out) {
  const char* fn = "ct_tensor_rms_norm";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "rms_norm");
    return call(op, {&tensor_arg(input, fn, "input"), shape_arg(normalized_shape, n, fn),
                     opt_tensor(weight, fn, "weight"), eps ? Value(*eps) : Value()});
  });
}

ct_status ct_tensor_batch_norm(const ct_tensor* input, const ct_tensor* weight, const ct_tensor* bias,
                               ct_tensor* running_mean, ct_tensor* running_var, int training, double momentum,
                               double eps, ct_tensor** out) {
  const char* fn = "ct_tensor_batch_norm";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "batch_norm");
    return call(op, {&tensor_arg(input, fn, "input"), opt_tensor(weight, fn, "weight"), opt_tensor(bias, fn, "bias"),
                     opt_tensor(running_mean, fn, "running_mean"), opt_tensor(running_var, fn, "running_var"),
                     training != 0, momentum, eps, false});
  });
}

ct_status ct_tensor_cross_entropy(const ct_tensor* input, const ct_tensor* target, const ct_tensor* weight,
                                  ct_reduction reduction, int64_t ignore_index, double label_smoothing,
                                  ct_tensor** out) {
  const char* fn = "ct_tensor_cross_entropy";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "cross_entropy_loss");
    return call(op, {&tensor_arg(input, fn, "input"), &tensor_arg(target, fn, "target"), opt_tensor(weight, fn, "weight"),
                     int64_t(capi::raw_enum(reduction)), ignore_index, label_smoothing});
  });
}

ct_status ct_tensor_mse_loss(const ct_tensor* input, const ct_tensor* target, ct_reduction reduction,
                             ct_tensor** out) {
  const char* fn = "ct_tensor_mse_loss";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "mse_loss");
    return call(op, {&tensor_arg(input, fn, "input"), &tensor_arg(target, fn, "target"),
                     int64_t(capi::raw_enum(reduction))});
  });
}

ct_status ct_tensor_scaled_dot_product_attention(const ct_tensor* query, const ct_tensor* key, const ct_tensor* value,
                                                 const ct_tensor* attn_mask, double dropout_p, int is_causal,
                                                 const double* scale, ct_generator* gen, ct_tensor** out) {
  const char* fn = "ct_tensor_scaled_dot_product_attention";
  return capi::tensor_result(out, fn, [&] {
    CT_OPERATOR(op, "scaled_dot_product_attention");
    return call(op, {&tensor_arg(query, fn, "query"), &tensor_arg(key, fn, "key"), &tensor_arg(value, fn, "value"),
                     opt_tensor(attn_mask, fn, "attn_mask"), dropout_p, is_causal != 0, scale ? Value(*scale) : Value(),
                     Value(capi::generator_arg(gen, fn, true))});
  });
}

}  // extern "C"
