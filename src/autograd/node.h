// node.h - the backward graph: Node (one recorded operation), Edge (where a gradient goes next),
// SavedTensor (a tensor kept for backward) and Hook (a function run on a gradient).
//
// Note [The backward graph]
// Every differentiable result of an operator that saw an input requiring grad points, through its
// AutogradMeta, at the Node that made it (grad_fn) and at which of that node's outputs it is
// (output_nr). A node's next_edges point the other way, one per tensor input: at the input's own
// grad_fn, at the AccumulateGrad node of a leaf, or nowhere for an input that needs no gradient.
// Nodes own the nodes behind them (shared_ptr) and tensors own their grad_fn, but a node owns no
// tensor that has autograd state: not its outputs (Note [Saved outputs]), not its inputs (Note
// [Saved inputs]), not its leaf (Note [AccumulateGrad does not own its leaf], meta.h). So the graph
// has no cycles and goes away with the last tensor that reaches it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace ct::autograd {

class Node;

struct Edge {
  std::shared_ptr<Node> fn;  // null: no gradient flows to this input
  uint32_t input_nr = 0;     // which of fn's inputs (that is, fn's forward outputs) it feeds
  bool valid() const { return fn != nullptr; }
};

/// Runs on a gradient before it is used; returns a replacement, or an undefined Tensor to keep it.
using HookFn = std::function<Tensor(const Tensor& grad)>;
struct Hook {
  int64_t id;
  HookFn fn;
};

/// Where a non-leaf tensor's retained gradient goes (retain_grad): owned by the tensor, seen weakly
/// by the node that produces the gradient, so a gradient recorded by create_graph, whose graph may
/// reach that node, keeps nothing alive in a cycle, and one for a tensor that is gone is dropped.
struct GradSlot {
  Tensor grad;
};

/// Sizes, dtype and device of a node's forward output: what a missing gradient is made of.
struct OutputInfo {
  DimVector sizes;
  DType dtype = DType::Float32;
  Device device;
};

/// A tensor kept for backward, with the version its storage had when saved.
///
/// Note [Saved outputs]
/// A node that saves its own result must not own that result's AutogradMeta (it points back at
/// the node: a cycle). It keeps an alias of the result's elements without autograd state, and
/// rebuilds the link to itself on unpack when backward is itself being recorded (create_graph).
///
/// Note [Saved inputs]
/// A saved input is kept the same way, as an alias plus its gradient edge as of saving: the node
/// that made it, or its leaf's AccumulateGrad. Owning the input itself would own whatever node it
/// gets later: an in-place operation that reads this node's output makes the input's new node save
/// that output, and the two nodes would keep each other alive (b = f(a); a.mul_(b) leaked both).
/// Leaves are no exception: a leaf whose requires_grad is switched off, or a constant that never
/// required it, may be changed in place by an operation that reads this node's output.
class SavedTensor {
 public:
  SavedTensor() = default;
  /// Saves t; is_output when t is the saving node's own result number output_nr.
  SavedTensor(const Tensor& t, bool is_output, uint32_t output_nr);
  /// The tensor, checked against in-place changes since saving; raises otherwise, naming node.
  Tensor unpack(Node& node) const;
  void reset() {
    data_ = Tensor();
    input_fn_.reset();
    released_ = true;
  }
  bool defined() const { return data_.defined() || released_; }

 private:
  Tensor data_;
  std::shared_ptr<Node> input_fn_;  // an input's gradient edge when saved (Note [Saved inputs])
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool released_ = false;
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  virtual ~Node() = default;
  /// "MulBackward" for mul.Tensor; custom functions give their own.
  virtual std::string name() const = 0;
  /// Maps one gradient per forward output (undefined: none arrived) to one per next edge. wanted
  /// says which edges lead to a gradient the caller asked for (autograd.grad's inputs); empty: all
  /// of them. A node may skip the others' work: their gradients are dropped.
  virtual std::vector<Tensor> apply(std::vector<Tensor>& grads, const std::vector<bool>& wanted) = 0;
  /// Frees what backward kept alive (saved tensors); called after a backward without retain_graph.
  virtual void release_saved() {}
  /// Runs the hooks on incoming gradients, in registration order; AccumulateGrad adds its leaf's.
  virtual void run_pre_hooks(std::vector<Tensor>& grads);
  /// A hook's replacement for gradient g: the same sizes and device (CT_ERROR_SHAPE or
  /// CT_ERROR_DEVICE naming who, the node), converted to g's dtype. See Note [Gradients fit their
  /// tensors] (engine.cpp).
  static Tensor checked_replacement(Tensor replaced, const Tensor& g, const std::string& who);

  std::vector<Edge> next_edges;
  std::vector<OutputInfo> outputs;  // one per forward output
  std::vector<std::pair<uint32_t, Hook>> pre_hooks;                      // (output_nr, hook)
  std::vector<std::pair<uint32_t, std::weak_ptr<GradSlot>>> retained;  // (output_nr, slot)
};

/// The gradient for forward output i when none arrived: zeros of its sizes and dtype.
Tensor zeros_for(const OutputInfo& info);

}  // namespace ct::autograd
