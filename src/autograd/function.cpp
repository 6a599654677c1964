#include "autograd/function.h"

#include "autograd/meta.h"
#include "core/error.h"
#include "dispatch/grad_ctx.h"
#include "dispatch/grad_mode.h"
#include "ops/functions.h"

namespace ct::autograd {

class FunctionNode final : public Node {
 public:
  FunctionNode(std::string name, FunctionBackward backward, std::shared_ptr<void> keepalive)
      : name_(std::move(name)), backward_(std::move(backward)), keepalive_(std::move(keepalive)) {}
  std::string name() const override { return name_ + "Backward"; }
  std::vector<Tensor> apply(std::vector<Tensor>& grads, const std::vector<bool>&) override {
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined()) grads[i] = zeros_for(outputs[i]);
    ctx.node_ = this;
    std::vector<Tensor> out = backward_(ctx, grads);
    CT_CHECK(out.size() == inputs.size(), CT_ERROR_INVALID_ARGUMENT, name(), ": backward returned ", out.size(),
             " gradients for ", inputs.size(), " inputs. Return one per input (none for an input without one)");
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i].defined() || !next_edges[i].valid()) {
        out[i] = Tensor();
        continue;
      }
      const OutputInfo& want = inputs[i];
      const Tensor& g = out[i];
      CT_CHECK(g->dim() >= want.sizes.size(), CT_ERROR_SHAPE, name(), ": backward returned a gradient of sizes ",
               g->sizes(), " for input ", i, " of sizes ", want.sizes.ref(), ". Return the input's sizes");
      for (size_t d = 0; d < want.sizes.size(); ++d) {
        const int64_t have = g->size(g->dim() - want.sizes.size() + d);
        CT_CHECK(have == want.sizes[d] || want.sizes[d] == 1, CT_ERROR_SHAPE, name(),
                 ": backward returned a gradient of sizes ", g->sizes(), " for input ", i, " of sizes ",
                 want.sizes.ref(), ". Return the input's sizes");
      }
      out[i] = sum_to(g, want.sizes);
      if (out[i]->dtype() != want.dtype) out[i] = ops::to(out[i], want.dtype);
    }
    return out;
  }
  void release_saved() override {
    for (SavedTensor& s : ctx.saved_) s.reset();
  }

  FunctionCtx ctx;
  std::vector<OutputInfo> inputs;

 private:
  std::string name_;
  FunctionBackward backward_;
  std::shared_ptr<void> keepalive_;
};

void FunctionCtx::save(const Tensor& t) {
  CT_CHECK(!node_, CT_ERROR_INVALID_ARGUMENT, node_ ? node_->name() : "", ": tensors can be saved in forward only");
  to_save_.push_back(t);
}

size_t FunctionCtx::saved_count() const {
  CT_CHECK(node_, CT_ERROR_INVALID_ARGUMENT, "autograd function: saved tensors are readable in backward only");
  return saved_.size();
}

Tensor FunctionCtx::saved(size_t i) const {
  CT_CHECK(node_, CT_ERROR_INVALID_ARGUMENT, "autograd function: saved tensors are readable in backward only");
  CT_CHECK(i < saved_.size(), CT_ERROR_INDEX, node_->name(), ": saved tensor ", i, " requested but forward saved ",
           saved_.size());
  return saved_[i].unpack(*node_);
}

std::vector<Tensor> apply_function(const std::string& name, const std::vector<Tensor>& inputs,
                                   const FunctionForward& forward, FunctionBackward backward,
                                   std::shared_ptr<void> keepalive) {
  auto node = std::make_shared<FunctionNode>(name, std::move(backward), std::move(keepalive));
  bool record = grad_enabled();
  if (record) {
    record = false;
    for (const Tensor& t : inputs) record |= t->requires_grad();
  }
  std::vector<Tensor> outs;
  {
    GradModeGuard no_grad(grad_mode() == GradMode::Inference ? GradMode::Inference : GradMode::NoGrad);
    outs = forward(node->ctx);
  }
  for (const Tensor& o : outs)
    CT_CHECK(o.defined(), CT_ERROR_INVALID_ARGUMENT, name, ": forward returned an empty output. Return tensors");
  if (!record) return outs;
  for (const Tensor& t : inputs) {
    node->next_edges.push_back(gradient_edge(*t));
    node->inputs.push_back(OutputInfo{DimVector(t->sizes()), t->dtype(), t->device()});
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    for (const Tensor& t : inputs)  // an input handed back as is becomes a new tensor with this history
      if (t.impl() == outs[k].impl()) outs[k] = detach(*outs[k]);
    node->outputs.push_back(OutputInfo{DimVector(outs[k]->sizes()), outs[k]->dtype(), outs[k]->device()});
    if (is_differentiable(outs[k]->dtype())) set_history(*outs[k], node, static_cast<uint32_t>(k));
  }
  FunctionCtx& ctx = node->ctx;
  for (const Tensor& t : ctx.to_save_) {
    uint32_t nr = 0;
    while (nr < outs.size() && outs[nr].impl() != t.impl()) ++nr;
    ctx.saved_.push_back(nr < outs.size() ? SavedTensor(t, true, nr) : SavedTensor(t, false, 0));
  }
  ctx.to_save_.clear();
  return outs;
}

}  // namespace ct::autograd
