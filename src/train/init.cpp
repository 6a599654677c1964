// init.cpp - torch.nn.init's formulas (bounds and standard deviations computed in double as its
// Python does), filled by the uniform_ and normal_ operators, so the numbers come from the Philox
// stream and are the same for every thread count.
#include "train/init.h"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/linalg/lapack.h"
#include "runtime/generator.h"
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

void init_trunc_normal(const Tensor& t, double mean, double std, double a, double b, runtime::Generator* gen,
                       const char* fn) {
  check_finite(mean, fn, "mean");
  CT_CHECK(std::isfinite(std) && std > 0, CT_ERROR_INVALID_ARGUMENT, fn, ": std is ", std, ". Pass a finite std > 0");
  CT_CHECK(std::isfinite(a) && std::isfinite(b) && a < b, CT_ERROR_INVALID_ARGUMENT, fn, ": the bounds are [", a, ", ",
           b, "]. Pass finite bounds a < b");
  if (t->numel() == 0) return;
  // Uniform over the normal CDF's values at the bounds, mapped back through the inverse CDF:
  // Phi^-1(u) = sqrt(2) erfinv(2u - 1). The clamp catches values rounding past the bounds.
  auto cdf = [](double x) { return (1 + std::erf(x / std::sqrt(2.0))) / 2; };
  const double lo = cdf((a - mean) / std), hi = cdf((b - mean) / std);
  fill("uniform_", t, 2 * lo - 1, 2 * hi - 1, gen);
  NoRecordGuard no_record;
  ops::erfinv_(t);
  ops::mul_(t, Scalar(std * std::sqrt(2.0)));
  ops::add_(t, Scalar(mean));
  ops::clamp_(t, Scalar(a), Scalar(b));
}

void init_orthogonal(const Tensor& t, double gain, runtime::Generator* gen, const char* fn) {
  CT_CHECK(t->dim() >= 2, CT_ERROR_SHAPE, fn, ": only tensors with 2 or more dims are supported, got sizes ",
           t->sizes(), ". Use normal_ for vectors");
  check_finite(gain, fn, "gain");
  if (t->numel() == 0) return;
  const int64_t rows = t->size(0), cols = t->numel() / rows;
  const Tensor flat = ops::empty({rows, cols}, t->dtype(), t->device());
  fill("normal_", flat, 0.0, 1.0, gen);
  NoRecordGuard no_record;
  // LAPACK factors the taller orientation, column-major: the row-major bytes of flat^T (or of
  // flat, when it is wide) are that matrix.
  const bool wide = rows < cols;
  const int64_t m = wide ? cols : rows, n = wide ? rows : cols;
  Tensor host = ops::contiguous(ops::to(wide ? flat : ops::transpose(flat, 0, 1), kCPU, DType::Float64));
  std::vector<double> r_diag(static_cast<size_t>(n));
  double* q = host->data_as<double>();
  ops::lapack::qr_reduced(q, m, n, r_diag.data(), fn);
  // Q R is unique once R's diagonal is positive: scaling Q's columns by its signs makes Q
  // Haar-distributed (torch's q *= sign(diag(r)); a zero diagonal zeroes the column, as there).
  for (int64_t j = 0; j < n; ++j) {
    const double s = r_diag[static_cast<size_t>(j)] > 0 ? 1.0 : r_diag[static_cast<size_t>(j)] < 0 ? -1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) q[j * m + i] *= s;
  }
  // host's bytes are Q column-major, i.e. Q^T row-major ([n, m]): the [rows, cols] result is Q^T
  // itself when wide, and its transpose when tall.
  const Tensor result = wide ? host : ops::transpose(host, 0, 1);
  ops::copy_(t, ops::reshape(result, t->sizes()));
  ops::mul_(t, Scalar(gain));
}

void init_sparse(const Tensor& t, double sparsity, double std, runtime::Generator* gen, const char* fn) {
  CT_CHECK(t->dim() == 2, CT_ERROR_SHAPE, fn, ": only 2-D tensors are supported, got sizes ", t->sizes());
  CT_CHECK(sparsity >= 0 && sparsity <= 1, CT_ERROR_INVALID_ARGUMENT, fn, ": sparsity is ", sparsity,
           ". Pass the fraction of each column to zero, in [0, 1]");
  CT_CHECK(std::isfinite(std) && std >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": std is ", std,
           ". Pass a finite std >= 0");
  const int64_t rows = t->size(0), cols = t->size(1);
  const int64_t zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  fill("normal_", t, 0.0, std, gen);
  if (zeros == 0 || cols == 0) return;
  NoRecordGuard no_record;
  // Each column zeroes the rows a fresh permutation puts first (drawn on the CPU, as torch's
  // randperm is; from gen when it is a CPU generator).
  runtime::Generator* perm_gen = gen && gen->device().is_cpu() ? gen : nullptr;
  Tensor mask = ops::zeros({rows, cols}, DType::Bool, kCPU);
  bool* m = mask->data_as<bool>();
  for (int64_t c = 0; c < cols; ++c) {
    const Tensor perm = ops::randperm(rows, perm_gen, DType::Int64, kCPU);
    const int64_t* p = perm->data_as<int64_t>();
    for (int64_t k = 0; k < zeros; ++k) m[p[k] * cols + c] = true;
  }
  ops::masked_fill_(t, t->device().is_cpu() ? mask : ops::to(mask, t->device(), DType::Bool), Scalar(0.0));
}

void init_eye(const Tensor& t, const char* fn) {
  CT_CHECK(t->dim() == 2, CT_ERROR_SHAPE, fn, ": only 2-D tensors are supported, got sizes ", t->sizes());
  NoRecordGuard no_record;
  ops::copy_(t, ops::eye(t->size(0), t->size(1), t->dtype(), t->device()));
}

void init_dirac(const Tensor& t, int64_t groups, const char* fn) {
  CT_CHECK(t->dim() >= 3 && t->dim() <= 5, CT_ERROR_SHAPE, fn, ": only 3, 4 and 5-D tensors are supported, got sizes ",
           t->sizes());
  CT_CHECK(groups >= 1 && t->size(0) % groups == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": dim 0 (", t->size(0),
           ") must be divisible by groups (", groups, ")");
  NoRecordGuard no_record;
  // One 1 per (group, d) at the kernel's center: out channel g * out_per_group + d, in channel d.
  const int64_t out_per_group = t->size(0) / groups, channels = std::min(out_per_group, t->size(1));
  Tensor host = ops::zeros(t->sizes(), DType::Float64, kCPU);
  double* h = host->data_as<double>();
  int64_t spatial = 1, center = 0;
  for (size_t d = 2; d < t->dim(); ++d) {
    spatial *= t->size(d);
    center = center * t->size(d) + t->size(d) / 2;
  }
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t d = 0; d < channels; ++d) h[((g * out_per_group + d) * t->size(1) + d) * spatial + center] = 1;
  ops::copy_(t, host);
}

void init_linear(const Tensor& weight, const Tensor& bias, runtime::Generator* gen, const char* fn) {
  const Fans f = fans_of(*weight, fn);
  init_kaiming(weight, true, std::sqrt(5.0), "fan_in", "leaky_relu", gen, fn);
  if (!bias.defined()) return;
  const double bound = f.in > 0 ? 1 / std::sqrt(static_cast<double>(f.in)) : 0.0;
  fill("uniform_", bias, -bound, bound, gen);
}

}  // namespace ct::train
