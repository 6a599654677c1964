#include "autograd/node.h"

#include "autograd/meta.h"
#include "core/error.h"
#include "dispatch/grad_mode.h"
#include "ops/functions.h"

namespace ct::autograd {

SavedTensor::SavedTensor(const Tensor& t, bool is_output, uint32_t output_nr)
    : version_(t->storage()->version()), output_nr_(output_nr), is_output_(is_output) {
  CT_CHECK(!t->is_inference(), CT_ERROR_INVALID_ARGUMENT, "autograd: an inference tensor (sizes ", t->sizes(),
           ", ", t->dtype(), ") cannot be saved for backward. Clone it outside inference mode to get a normal "
           "tensor, and use that with autograd");
  data_ = Tensor::adopt(TensorImpl::alias_of(*t));
  if (is_output) return;
  Edge edge = gradient_edge(*t);  // Note [Saved inputs]
  input_fn_ = std::move(edge.fn);
  output_nr_ = edge.input_nr;
}

Tensor SavedTensor::unpack(Node& node) const {
  CT_CHECK(!released_, CT_ERROR_INVALID_ARGUMENT, node.name(),
           ": trying to run backward through the graph a second time (or to read saved tensors after they were "
           "freed). Saved values are freed when backward or autograd.grad finishes; pass retain_graph=true to "
           "the first call if you need to run backward through the graph again");
  if (!data_.defined()) return Tensor();
  const uint32_t now = data_->storage()->version();
  CT_CHECK(now == version_, CT_ERROR_INVALID_ARGUMENT, node.name(),
           ": a tensor needed for the gradient computation (sizes ", data_->sizes(), ", ", data_->dtype(),
           ") was modified by an in-place operation: it is at version ", now, ", expected version ", version_,
           ". Change it out of place, or clone it before the in-place operation");
  if (!is_output_ && !input_fn_) return data_;
  // A backward that is itself recorded needs the tensor linked to where its gradient goes: this
  // node for its own result (Note [Saved outputs]), the input's edge as of saving otherwise.
  Tensor t = Tensor::adopt(TensorImpl::alias_of(*data_));
  if (!grad_enabled()) return t;
  set_history(*t, is_output_ ? node.shared_from_this() : input_fn_, output_nr_);
  return t;
}

void Node::run_pre_hooks(std::vector<Tensor>& grads) {
  for (auto& [nr, hook] : pre_hooks) {
    Tensor& g = grads[nr];
    if (!g.defined()) continue;
    Tensor replaced = hook.fn(g);
    if (replaced.defined()) g = checked_replacement(std::move(replaced), g, name());
  }
}

Tensor Node::checked_replacement(Tensor replaced, const Tensor& g, const std::string& who) {
  CT_CHECK(replaced->sizes().equals(g->sizes()), CT_ERROR_SHAPE, who, ": a hook returned a gradient of sizes ",
           replaced->sizes(), " for one of sizes ", g->sizes(), ". Return a gradient of the same sizes, or none");
  CT_CHECK(replaced->device() == g->device(), CT_ERROR_DEVICE, who, ": a hook returned a gradient on ",
           replaced->device(), " for one on ", g->device(), ". Return a gradient on the same device, or none");
  return replaced->dtype() == g->dtype() ? std::move(replaced) : ops::to(replaced, g->dtype());
}

Tensor zeros_for(const OutputInfo& info) { return ops::zeros(info.sizes, info.dtype, info.device); }

}  // namespace ct::autograd
