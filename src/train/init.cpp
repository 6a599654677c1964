// init.cpp - torch.nn.init's formulas (bounds and standard deviations computed in double as its
// Python does), filled by the uniform_ and normal_ operators, so the numbers come from the Philox
// stream and are the same for every thread count.
#include "train/init.h"

#include <cmath>
#include <cstring>

#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "train/no_record.h"

namespace ct::train {
namespace {

void fill(const char* op_name, const Tensor& t, double a, double b, runtime::Generator* gen) {
  // torch.nn.init runs under no_grad, so a parameter that requires grad can be filled.
  NoRecordGuard no_record;
  call(builtin_op(op_name), {t, a, b, Value(gen)});
}

// torch.nn.init would hand a NaN or infinite gain on to uniform_/normal_ as bounds the caller never
// gave; refused here, under the caller's function and argument.
void check_finite(double v, const char* fn, const char* arg) {
  CT_CHECK(std::isfinite(v), CT_ERROR_INVALID_ARGUMENT, fn, ": ", arg, " (", v, ") must be finite. Pass a finite ",
           arg);
}

}  // namespace

Fans fans_of(const TensorImpl& t, const char* fn) {
  CT_CHECK(t.dim() >= 2, CT_ERROR_SHAPE, fn, ": fan in and fan out are defined for 2 or more dims, got sizes ",
           t.sizes(), ". Use uniform_ or normal_ for vectors");
  int64_t receptive = 1;
  for (size_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

double calculate_gain(const char* nonlinearity, double param, const char* fn) {
  CT_CHECK(nonlinearity, CT_ERROR_INVALID_ARGUMENT, fn, ": nonlinearity is NULL");
  const std::string n = nonlinearity;
  for (const char* linear : {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                             "conv_transpose3d", "sigmoid"})
    if (n == linear) return 1;
  if (n == "tanh") return 5.0 / 3;
  if (n == "relu") return std::sqrt(2.0);
  if (n == "leaky_relu") return std::sqrt(2.0 / (1 + param * param));
  if (n == "selu") return 3.0 / 4;
  fail(CT_ERROR_INVALID_ARGUMENT,
       str(fn, ": unsupported nonlinearity '", n, "'. Use linear, conv1d, conv2d, conv3d, conv_transpose1d, ",
           "conv_transpose2d, conv_transpose3d, sigmoid, tanh, relu, leaky_relu or selu"));
}

void init_uniform(const Tensor& t, double a, double b, runtime::Generator* gen) { fill("uniform_", t, a, b, gen); }
void init_normal(const Tensor& t, double mean, double std, runtime::Generator* gen) {
  fill("normal_", t, mean, std, gen);
}

void init_xavier_uniform(const Tensor& t, double gain, runtime::Generator* gen, const char* fn) {
  check_finite(gain, fn, "gain");
  const Fans f = fans_of(*t, fn);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(f.in + f.out));
  const double a = std::sqrt(3.0) * std;
  fill("uniform_", t, -a, a, gen);
}

void init_xavier_normal(const Tensor& t, double gain, runtime::Generator* gen, const char* fn) {
  check_finite(gain, fn, "gain");
  const Fans f = fans_of(*t, fn);
  fill("normal_", t, 0.0, gain * std::sqrt(2.0 / static_cast<double>(f.in + f.out)), gen);
}

void init_kaiming(const Tensor& t, bool uniform, double a, const char* mode, const char* nonlinearity,
                  runtime::Generator* gen, const char* fn) {
  if (t->numel() == 0) return;  // torch: "Initializing zero-element tensors is a no-op", before any check
  const std::string m = mode ? mode : "fan_in";
  CT_CHECK(m == "fan_in" || m == "fan_out", CT_ERROR_INVALID_ARGUMENT, fn, ": mode '", m,
           "' is not supported. Use fan_in or fan_out");
  check_finite(a, fn, "a");
  const double gain = calculate_gain(nonlinearity ? nonlinearity : "leaky_relu", a, fn);
  const Fans f = fans_of(*t, fn);
  const double std = gain / std::sqrt(static_cast<double>(m == "fan_in" ? f.in : f.out));
  if (uniform) {
    const double bound = std::sqrt(3.0) * std;
    fill("uniform_", t, -bound, bound, gen);
  } else {
    fill("normal_", t, 0.0, std, gen);
  }
}

void init_linear(const Tensor& weight, const Tensor& bias, runtime::Generator* gen, const char* fn) {
  const Fans f = fans_of(*weight, fn);
  init_kaiming(weight, true, std::sqrt(5.0), "fan_in", "leaky_relu", gen, fn);
  if (!bias.defined()) return;
  const double bound = f.in > 0 ? 1 / std::sqrt(static_cast<double>(f.in)) : 0.0;
  fill("uniform_", bias, -bound, bound, gen);
}

}  // namespace ct::train
