// clip_grad.cpp - gradient clipping with the operators torch's clip_grad_norm_ calls, in its order:
// each grad's norm, the norm of those norms, coef = clamp(reciprocal(total + 1e-6) * max_norm,
// max=1) (Python's max_norm / tensor is tensor.reciprocal() * max_norm), grad *= coef, all in the
// grads' dtype. Every operator used is deterministic for any thread count.
#include "train/clip_grad.h"

#include <cmath>

#include "autograd/meta.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "train/no_record.h"
#include "ops/op_common.h"

namespace ct::train {
namespace {

const char* const kNorm = "ct_clip_grad_norm";

std::vector<Tensor> grads_of(const std::vector<Tensor>& params) {
  std::vector<Tensor> grads;
  for (const Tensor& p : params) {
    Tensor g = autograd::grad_of(*p);
    if (g.defined()) grads.push_back(std::move(g));
  }
  return grads;
}


}  // namespace

double clip_grad_norm(const std::vector<Tensor>& params, double max_norm, double norm_type) {
  CT_CHECK(max_norm >= 0, CT_ERROR_INVALID_ARGUMENT, kNorm, ": max_norm is ", max_norm, ". Pass a value >= 0");
  CT_CHECK(norm_type >= 0, CT_ERROR_INVALID_ARGUMENT, kNorm, ": norm_type is ", norm_type,
           ". Pass a value >= 0, or INFINITY for the largest absolute value");
  const std::vector<Tensor> grads = grads_of(params);
  if (grads.empty()) return 0.0;
  for (size_t i = 1; i < grads.size(); ++i) {
    CT_CHECK(grads[i]->dtype() == grads[0]->dtype(), CT_ERROR_DTYPE, kNorm, ": the grads are ", grads[0]->dtype(),
             " and ", grads[i]->dtype(), "; their norms are combined in one dtype. Give the parameters one dtype");
    CT_CHECK(grads[i]->device() == grads[0]->device(), CT_ERROR_DEVICE, kNorm, ": the grads are on ",
             grads[0]->device(), " and ", grads[i]->device(), ". Keep the parameters on one device");
  }
  NoRecordGuard no_record;
  std::vector<Tensor> norms;
  std::vector<const TensorImpl*> parts;
  for (const Tensor& g : grads) {
    norms.push_back(ops::reshape(ops::linalg_vector_norm(g, norm_type), {1}));
    parts.push_back(norms.back().impl());
  }
  Tensor total;
  if (std::isinf(norm_type)) {
    total = ops::amax(ops::cat(parts, 0), {}, false);  // torch: max(stack(norms)), exact either way
  } else {
    total = ops::linalg_vector_norm(ops::cat(parts, 0), norm_type);
  }
  // Python floats are wrapped numbers: they keep the grads' dtype.
  const Tensor shifted = ops::add(total, ops::wrap_scalar(Scalar(1e-6)));
  Tensor coef = ops::mul(ops::reciprocal(shifted), ops::wrap_scalar(Scalar(max_norm)));
  const Scalar one(1.0);
  coef = ops::clamp(coef, std::nullopt, one);
  for (const Tensor& g : grads) ops::mul_(g, coef);  // bumps grad's version, as torch's mul_ does
  return ops::to(total, kCPU, DType::Float64)->data_as<double>()[0];
}

void clip_grad_value(const std::vector<Tensor>& params, double clip_value) {
  CT_CHECK(clip_value >= 0, CT_ERROR_INVALID_ARGUMENT, "ct_clip_grad_value: clip_value is ", clip_value,
           ". Pass a value >= 0");
  NoRecordGuard no_record;
  const Scalar lo(-clip_value), hi(clip_value);
  for (const Tensor& g : grads_of(params)) ops::copy_(g, ops::clamp(g, lo, hi));
}

}  // namespace ct::train
