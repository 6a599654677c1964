// autocast.cpp - automatic mixed precision: the Autocast key's kernel, for every operator.
//
// Note [Autocast]
// With autocast on for a device type (torch.autocast("cpu", dtype=torch.bfloat16)), the dispatcher
// adds the Autocast key to every call on this thread (runtime/autocast.h). Its kernel reads the
// operator's policy (OperatorDef::autocast, set from kPolicies below: PyTorch's lists, kept as one
// table as PyTorch keeps them, so that the policy reads as a whole): LowerPrecision casts the call's float32 (and other non-float64 floating) tensors on that
// device to autocast's dtype, Float32 casts lower-precision ones to float32, and every other
// operator runs as called (a composite's parts meet autocast on their own). The casts are calls
// to `to` dispatched as any other, so autograd records them (gradients come back in each input's
// own dtype) and a compiled function's trace keeps them; the operator itself then runs below the
// Autocast key with autocast excluded, so its parts are not cast again. float64 is never cast, as
// in PyTorch. ctorch keeps no cache of casts: each call casts again (PyTorch caches the casts of
// leaf tensors within one autocast region; the values are the same).
#include <deque>
#include <vector>

#include "dispatch/dispatcher.h"
#include "ops/op_calls.h"
#include "runtime/autocast.h"

namespace ct::ops {
namespace {

// The device type autocast answers for: that of the call's first tensor that is not a number.
bool call_device(const Frame& f, DeviceType* type) {
  for (size_t i = 0; i < f.nargs; ++i) {
    const Value& v = f.args[i];
    if (v.is_tensor() && !f.op.is_number(v.tensor(), i)) return *type = v.tensor().device().type, true;
    if (v.kind() == Value::Kind::TensorList && !v.tensor_list().empty())
      return *type = v.tensor_list()[0]->device().type, true;
  }
  return false;
}

void autocast_kernel(void*, Frame& f) {
  const OperatorDef& def = f.op.alias_of ? *f.op.alias_of : f.op;
  const AutocastPolicy policy = def.autocast;
  const runtime::AutocastState& state = runtime::autocast_state();
  DeviceType device{};
  if (policy == AutocastPolicy::None || !call_device(f, &device) || !state.enabled[static_cast<int>(device)] ||
      (policy == AutocastPolicy::LowerPrecisionCuda && device != DeviceType::CUDA)) {
    redispatch(f);
    return;
  }
  const DType target = policy == AutocastPolicy::Float32 ? DType::Float32 : state.dtype[static_cast<int>(device)];
  auto eligible = [&](const TensorImpl& t) {
    const DType d = t.dtype();
    if (t.device().type != device || !is_floating(d) || d == DType::Float64 || d == target) return false;
    return policy != AutocastPolicy::Float32 || d == DType::Float16 || d == DType::BFloat16;
  };
  std::vector<Value> args(f.args, f.args + f.nargs);
  std::deque<Tensor> casts;  // stable addresses: the frame points into them
  std::deque<std::vector<const TensorImpl*>> lists;
  auto cast = [&](const TensorImpl& t) {
    casts.push_back(to(Tensor::borrow(&t), target));
    return casts.back().impl();
  };
  for (size_t i = 0; i < f.nargs; ++i) {
    const Value& v = f.args[i];
    if (v.is_tensor() && eligible(v.tensor()) && !f.op.is_number(v.tensor(), i)) {
      args[i] = Value(cast(v.tensor()));
    } else if (v.kind() == Value::Kind::TensorList) {
      std::vector<const TensorImpl*>& list = lists.emplace_back();
      for (const TensorImpl* t : v.tensor_list()) list.push_back(eligible(*t) ? cast(*t) : t);
      args[i] = Value(ArrayRef<const TensorImpl*>(list.data(), list.size()));
    }
  }
  DispatchKeyGuard no_autocast{DispatchKeySet(), DispatchKeySet(DispatchKey::Autocast)};
  Frame g{f.op, args.data(), f.nargs, f.keys, f.outs, f.nouts};
  redispatch(g);
}

// PyTorch's cpu lists (its cuda list casts these too, and LowerPrecisionCuda's besides), over the
// operators ctorch has. Every overload of a name takes its policy.
struct Policy {
  const char* name;
  AutocastPolicy policy;
};
constexpr AutocastPolicy kLower = AutocastPolicy::LowerPrecision, kLowerCuda = AutocastPolicy::LowerPrecisionCuda,
                         kFloat32 = AutocastPolicy::Float32;
constexpr Policy kPolicies[] = {
    {"mm", kLower}, {"bmm", kLower}, {"addmm", kLower}, {"baddbmm", kLower}, {"addbmm", kLower},
    {"matmul", kLower}, {"linear", kLower}, {"conv1d", kLower}, {"conv2d", kLower},
    {"conv_transpose2d", kLower}, {"prelu", kLower}, {"scaled_dot_product_attention", kLower},
    {"addmv", kLowerCuda}, {"addr", kLowerCuda}, {"mv", kLowerCuda}, {"einsum", kLowerCuda},
    {"lstm_cell", kLowerCuda}, {"gru_cell", kLowerCuda}, {"rnn_tanh_cell", kLowerCuda}, {"rnn_relu_cell", kLowerCuda},
    {"prod", kFloat32}, {"quantile", kFloat32}, {"nanquantile", kFloat32}, {"cdist", kFloat32}, {"trace", kFloat32},
    {"reflection_pad1d", kFloat32}, {"reflection_pad2d", kFloat32}, {"replication_pad1d", kFloat32},
    {"replication_pad2d", kFloat32}, {"replication_pad3d", kFloat32}, {"mse_loss", kFloat32},
    {"cosine_embedding_loss", kFloat32}, {"nll_loss", kFloat32}, {"nll_loss2d", kFloat32},
    {"hinge_embedding_loss", kFloat32}, {"poisson_nll_loss", kFloat32}, {"smooth_l1_loss", kFloat32},
    {"cross_entropy_loss", kFloat32}, {"l1_loss", kFloat32}, {"huber_loss", kFloat32},
    {"margin_ranking_loss", kFloat32}, {"soft_margin_loss", kFloat32}, {"triplet_margin_loss", kFloat32},
    {"kl_div", kFloat32}, {"binary_cross_entropy", kFloat32}, {"binary_cross_entropy_with_logits", kFloat32},
    {"linalg_norm", kFloat32}, {"linalg_vector_norm", kFloat32}, {"linalg_cross", kFloat32},
};

}  // namespace

void install_autocast(Registry& r) {
  for (const Policy& p : kPolicies) {
    bool found = false;
    for (OperatorDef* op : r.all())
      if (op->builtin && !op->alias_of && op->schema.name == p.name) op->autocast = p.policy, found = true;
    CT_CHECK(found, CT_ERROR_INTERNAL, "install_autocast: the policy table names '", p.name, "', which is not an operator");
  }
  r.set_fallback(DispatchKey::Autocast, Kernel{autocast_kernel, nullptr, nullptr});
}

}  // namespace ct::ops
