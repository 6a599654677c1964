// ops_linalg_conv.cpp - typed C functions of the linear-algebra, convolution and pooling family:
// handle and option checks, then one dispatch of the registered operator.

#include "capi/handle.h"
#include "core/error.h"
#include "ctorch.h"
#include "dispatch/dispatcher.h"

using namespace ct;
using capi::tensor_arg;

namespace {

Value optional_tensor(const ct_tensor* t, const char* fn, const char* arg) {
  return t ? Value(&tensor_arg(t, fn, arg)) : Value();
}

Scalar scalar_or_one(const ct_scalar* s, const char* fn, const char* arg) {
  return s ? capi::scalar_arg(s, fn, arg) : Scalar(int64_t(1));
}

template <typename O>
void check_options(const O* o, const char* fn) {
  CT_CHECK(!o || o->struct_size == sizeof(O), CT_ERROR_INVALID_ARGUMENT, fn, ": options->struct_size is ",
           o ? o->struct_size : 0, ", expected ", sizeof(O), ". Initialize the options with their _DEFAULT macro");
}

}  // namespace

extern "C" {

#define CT_PRODUCT(name, op_name)                                                                          \
  ct_status ct_tensor_##name(const ct_tensor* a, const ct_tensor* b, ct_tensor** out) {                    \
    return capi::tensor_result(out, "ct_tensor_" #name, [&] {                                              \
      CT_OPERATOR(op, op_name);                                                                            \
      return call(op, {&tensor_arg(a, "ct_tensor_" #name, "a"), &tensor_arg(b, "ct_tensor_" #name, "b")}); \
    });                                                                                                    \
  }
CT_PRODUCT(dot, "dot")
CT_PRODUCT(outer, "outer")
CT_PRODUCT(mv, "mv")
#undef CT_PRODUCT

ct_status ct_tensor_baddbmm(const ct_tensor* self, const ct_tensor* batch1, const ct_tensor* batch2,
                            const ct_scalar* beta, const ct_scalar* alpha, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_baddbmm", [&] {
    CT_OPERATOR(op, "baddbmm");
    const char* fn = "ct_tensor_baddbmm";
    return call(op,
                {&tensor_arg(self, fn, "self"), &tensor_arg(batch1, fn, "batch1"), &tensor_arg(batch2, fn, "batch2"),
                 scalar_or_one(beta, fn, "beta"), scalar_or_one(alpha, fn, "alpha")});
  });
}

ct_status ct_tensor_einsum(const char* equation, const ct_tensor* const* operands, size_t n, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_einsum", [&] {
    CT_OPERATOR(op, "einsum");
    const char* fn = "ct_tensor_einsum";
    CT_CHECK(equation, CT_ERROR_INVALID_ARGUMENT, fn, ": equation is NULL. Pass a string such as \"ij,jk->ik\"");
    CT_CHECK(operands && n > 0, CT_ERROR_INVALID_ARGUMENT, fn, ": operands is NULL or n is 0. Pass n >= 1 handles");
    return call(op, {equation, capi::tensor_list_arg(operands, n, fn, "operands"), Value()});
  });
}

ct_status ct_tensor_linear(const ct_tensor* input, const ct_tensor* weight, const ct_tensor* bias, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_linear", [&] {
    CT_OPERATOR(op, "linear");
    const char* fn = "ct_tensor_linear";
    return call(
        op, {&tensor_arg(input, fn, "input"), &tensor_arg(weight, fn, "weight"), optional_tensor(bias, fn, "bias")});
  });
}

ct_status ct_tensor_conv2d(const ct_tensor* input, const ct_tensor* weight, const ct_tensor* bias,
                           const ct_conv2d_options* options, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_conv2d", [&] {
    CT_OPERATOR(op, "conv2d");
    const char* fn = "ct_tensor_conv2d";
    check_options(options, fn);
    const ct_conv2d_options defaults = CT_CONV2D_OPTIONS_DEFAULT;
    const ct_conv2d_options o = options ? *options : defaults;
    return call(op,
                {&tensor_arg(input, fn, "input"), &tensor_arg(weight, fn, "weight"), optional_tensor(bias, fn, "bias"),
                 IntArrayRef(o.stride, 2), IntArrayRef(o.padding, 2), IntArrayRef(o.dilation, 2), o.groups});
  });
}

ct_status ct_tensor_max_pool2d(const ct_tensor* input, const ct_pool2d_options* options, ct_tensor** out,
                               ct_tensor** indices) {
  if (out) *out = nullptr;
  if (indices) *indices = nullptr;
  return capi::guard([&] {
    CT_OPERATOR(op, "max_pool2d_with_indices");
    const char* fn = "ct_tensor_max_pool2d";
    capi::require_out(out, fn, "out");
    CT_CHECK(options, CT_ERROR_INVALID_ARGUMENT, fn, ": options is NULL. Pass options with kernel_size set");
    check_options(options, fn);
    const ct_pool2d_options& o = *options;
    const bool default_stride = o.stride[0] == 0 && o.stride[1] == 0;
    const Value args[6] = {&tensor_arg(input, fn, "input"),
                           IntArrayRef(o.kernel_size, 2),
                           default_stride ? IntArrayRef() : IntArrayRef(o.stride, 2),
                           IntArrayRef(o.padding, 2),
                           IntArrayRef(o.dilation, 2),
                           o.ceil_mode != 0};
    Tensor outs[2];
    dispatch(op, args, 6, outs, 2);
    *out = capi::to_handle(outs[0]);
    if (indices) *indices = capi::to_handle(outs[1]);
  });
}

ct_status ct_tensor_avg_pool2d(const ct_tensor* input, const ct_pool2d_options* options, int count_include_pad,
                               int64_t divisor_override, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_avg_pool2d", [&] {
    CT_OPERATOR(op, "avg_pool2d");
    const char* fn = "ct_tensor_avg_pool2d";
    CT_CHECK(options, CT_ERROR_INVALID_ARGUMENT, fn, ": options is NULL. Pass options with kernel_size set");
    check_options(options, fn);
    const ct_pool2d_options& o = *options;
    CT_CHECK(o.dilation[0] == 1 && o.dilation[1] == 1, CT_ERROR_INVALID_ARGUMENT, fn,
             ": average pooling has no dilation; set options->dilation to {1, 1}");
    const bool default_stride = o.stride[0] == 0 && o.stride[1] == 0;
    return call(op, {&tensor_arg(input, fn, "input"), IntArrayRef(o.kernel_size, 2),
                     default_stride ? IntArrayRef() : IntArrayRef(o.stride, 2), IntArrayRef(o.padding, 2),
                     o.ceil_mode != 0, count_include_pad != 0, divisor_override ? Value(divisor_override) : Value()});
  });
}

ct_status ct_tensor_adaptive_avg_pool2d(const ct_tensor* input, int64_t output_h, int64_t output_w, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_adaptive_avg_pool2d", [&] {
    CT_OPERATOR(op, "adaptive_avg_pool2d");
    const int64_t size[2] = {output_h, output_w};
    return call(op, {&tensor_arg(input, "ct_tensor_adaptive_avg_pool2d", "input"), IntArrayRef(size, 2)});
  });
}

}  // extern "C"
