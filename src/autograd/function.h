// function.h - custom autograd functions: a forward and a backward given as callables (C callbacks
// through the ABI, Python's autograd.Function through the binding), with tensors saved between.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/node.h"

namespace ct::autograd {

/// What forward and backward share: the tensors forward saved.
class FunctionCtx {
 public:
  /// Forward: keep tensors for backward (an output among them is kept per Note [Saved outputs]).
  void save(const Tensor& t);
  /// Backward: how many tensors forward saved (refused in forward, where they are not saved yet).
  size_t saved_count() const;
  /// Backward: saved tensor i, checked against in-place changes since forward.
  Tensor saved(size_t i) const;

 private:
  friend std::vector<Tensor> apply_function(const std::string&, const std::vector<Tensor>&,
                                            const std::function<std::vector<Tensor>(FunctionCtx&)>&,
                                            std::function<std::vector<Tensor>(FunctionCtx&, std::vector<Tensor>&)>,
                                            std::shared_ptr<void>);
  friend class FunctionNode;
  std::vector<Tensor> to_save_;  // during forward
  std::vector<SavedTensor> saved_;
  Node* node_ = nullptr;
};

using FunctionForward = std::function<std::vector<Tensor>(FunctionCtx& ctx)>;
/// Maps one gradient per output to one per input (undefined: no gradient for that input).
using FunctionBackward = std::function<std::vector<Tensor>(FunctionCtx& ctx, std::vector<Tensor>& grads)>;

/// Runs forward under no-grad; when an input requires grad (and grad mode is on), links the
/// floating outputs to a node named name + "Backward" that calls backward. keepalive (the
/// callbacks' state) lives as long as that node, or ends here when nothing is recorded.
std::vector<Tensor> apply_function(const std::string& name, const std::vector<Tensor>& inputs,
                                   const FunctionForward& forward, FunctionBackward backward,
                                   std::shared_ptr<void> keepalive);

}  // namespace ct::autograd
