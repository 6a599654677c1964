// train.cpp - gradient clipping (ct_clip_grad_*) and initializers (ct_init_*) through the C ABI.
#include <cmath>

#include "capi/handle.h"
#include "train/clip_grad.h"
#include "train/init.h"

using namespace ct;
using capi::generator_arg;

namespace {

// A tensor an initializer writes: live, floating, with data. (The operators it calls check the rest.)
Tensor init_target(const ct_tensor* t, const char* fn, const char* arg) {
  const TensorImpl& x = capi::tensor_arg(t, fn, arg);
  CT_CHECK(is_floating(x.dtype()), CT_ERROR_DTYPE, fn, ": ", arg, " is ", x.dtype(),
           "; initializers fill floating tensors. Convert it with to()");
  CT_CHECK(!x.device().is_meta(), CT_ERROR_DEVICE, fn, ": ", arg, " is a meta tensor, which has no data to fill");
  return Tensor::borrow(&x);
}

}  // namespace

extern "C" {

ct_status ct_clip_grad_norm(const ct_tensor* const* params, size_t n, double max_norm, double norm_type,
                            double* total_norm) {
  return capi::guard([&] {
    const double total =
        train::clip_grad_norm(capi::tensor_list(params, n, "ct_clip_grad_norm", "params", false), max_norm, norm_type);
    if (total_norm) *total_norm = total;
  });
}

ct_status ct_clip_grad_value(const ct_tensor* const* params, size_t n, double clip_value) {
  return capi::guard([&] {
    train::clip_grad_value(capi::tensor_list(params, n, "ct_clip_grad_value", "params", false), clip_value);
  });
}

ct_status ct_init_uniform_(ct_tensor* t, double a, double b, ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_init_uniform_";
    train::init_uniform(init_target(t, fn, "t"), a, b, generator_arg(gen, fn, true));
  });
}

ct_status ct_init_normal_(ct_tensor* t, double mean, double std, ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_init_normal_";
    train::init_normal(init_target(t, fn, "t"), mean, std, generator_arg(gen, fn, true));
  });
}

ct_status ct_init_xavier_uniform_(ct_tensor* t, double gain, ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_init_xavier_uniform_";
    train::init_xavier_uniform(init_target(t, fn, "t"), gain, generator_arg(gen, fn, true), fn);
  });
}

ct_status ct_init_xavier_normal_(ct_tensor* t, double gain, ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_init_xavier_normal_";
    train::init_xavier_normal(init_target(t, fn, "t"), gain, generator_arg(gen, fn, true), fn);
  });
}

ct_status ct_init_kaiming_uniform_(ct_tensor* t, double a, const char* mode, const char* nonlinearity,
                                   ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_init_kaiming_uniform_";
    train::init_kaiming(init_target(t, fn, "t"), true, a, mode, nonlinearity, generator_arg(gen, fn, true), fn);
  });
}

ct_status ct_init_trunc_normal_(ct_tensor* t, double mean, double std, double a, double b, ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_init_trunc_normal_";
    train::init_trunc_normal(init_target(t, fn, "t"), mean, std, a, b, generator_arg(gen, fn, true), fn);
  });
}

ct_status ct_init_orthogonal_(ct_tensor* t, double gain, ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_init_orthogonal_";
    train::init_orthogonal(init_target(t, fn, "t"), gain, generator_arg(gen, fn, true), fn);
  });
}

ct_status ct_init_sparse_(ct_tensor* t, double sparsity, double std, ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_init_sparse_";
    train::init_sparse(init_target(t, fn, "t"), sparsity, std, generator_arg(gen, fn, true), fn);
  });
}

ct_status ct_init_eye_(ct_tensor* t) {
  return capi::guard([&] { train::init_eye(init_target(t, "ct_init_eye_", "t"), "ct_init_eye_"); });
}

ct_status ct_init_dirac_(ct_tensor* t, int64_t groups) {
  return capi::guard([&] { train::init_dirac(init_target(t, "ct_init_dirac_", "t"), groups, "ct_init_dirac_"); });
}

ct_status ct_init_kaiming_normal_(ct_tensor* t, double a, const char* mode, const char* nonlinearity,
                                  ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_init_kaiming_normal_";
    train::init_kaiming(init_target(t, fn, "t"), false, a, mode, nonlinearity, generator_arg(gen, fn, true), fn);
  });
}

ct_status ct_init_linear_(ct_tensor* weight, ct_tensor* bias, ct_generator* gen) {
  return capi::guard([&] {
    const char* fn = "ct_init_linear_";
    const Tensor w = init_target(weight, fn, "weight");
    const Tensor b = bias ? init_target(bias, fn, "bias") : Tensor();
    train::init_linear(w, b, generator_arg(gen, fn, true), fn);
  });
}

ct_status ct_init_calculate_gain(const char* nonlinearity, double param, double* out) {
  return capi::guard([&] {
    const char* fn = "ct_init_calculate_gain";
    capi::require_out(out, fn, "out");
    *out = train::calculate_gain(nonlinearity, param, fn);
  });
}

ct_status ct_init_calculate_fan_in_and_fan_out(const ct_tensor* t, int64_t* fan_in, int64_t* fan_out) {
  return capi::guard([&] {
    const char* fn = "ct_init_calculate_fan_in_and_fan_out";
    const TensorImpl& x = capi::tensor_arg(t, fn, "t");
    capi::require_out(fan_in, fn, "fan_in");
    capi::require_out(fan_out, fn, "fan_out");
    const train::Fans f = train::fans_of(x, fn);
    *fan_in = f.in;
    *fan_out = f.out;
  });
}

}  // extern "C"
