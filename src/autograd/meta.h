// meta.h - AutogradMeta, the autograd state of one tensor, and the operations on it that the C ABI
// and the engine share: requires_grad, grad, grad_fn, leaves' AccumulateGrad nodes, detach.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "autograd/node.h"

namespace ct::autograd {

/// What a leaf's AccumulateGrad node writes to and runs: shared by the leaf's AutogradMeta and the
/// node, so the node never owns the leaf.
///
/// Note [AccumulateGrad does not own its leaf]
/// A leaf stops being one when an in-place operation gives it a history (after requires_grad was
/// switched off, or on a tensor that never required it). If that history reaches the leaf's own
/// AccumulateGrad (s = x.sum(); x.requires_grad_(false); x.add_(s)) and the node owned x, x would
/// own a node that owns x, and neither would ever go.
struct LeafGrad {
  /// Runs after a gradient was added into grad, with the leaf (Tensor.register_post_accumulate_grad_hook).
  using PostHookFn = std::function<void(const TensorImpl& leaf)>;
  struct PostHook {
    int64_t id;
    PostHookFn fn;
  };

  Tensor grad;              // the accumulated gradient
  std::vector<Hook> hooks;  // run on each incoming gradient before it is added
  // Shared so that AccumulateGrad can run a snapshot of them outside mu while one is removed.
  std::vector<std::shared_ptr<PostHook>> post_hooks;
  // The leaf itself, for post hooks. INVARIANT: set while post_hooks is not empty, valid while
  // leaf_alive. See Note [Post-accumulate hooks see a whole leaf].
  const TensorImpl* owner = nullptr;
  // False once the leaf is gone: nothing could read a gradient added then, and one recorded by
  // create_graph would keep its own graph, and this, alive in a cycle.
  bool leaf_alive = true;
  // Threads that run backward through graphs sharing this leaf meet here.
  std::mutex mu;
  // Held while post hooks run, and by the leaf's destruction before leaf_alive turns false.
  // Recursive: a hook may run backward through its own leaf, or release the leaf's last reference.
  std::recursive_mutex post_mu;
};

class AutogradMeta final : public AutogradMetaBase {
 public:
  /// Drops a leaf's gradient, which nothing can read once the leaf is gone, and keeps later ones
  /// from being added: one recorded by create_graph can reach the leaf's AccumulateGrad, which
  /// keeps the LeafGrad holding it, and would otherwise live on in that cycle.
  ~AutogradMeta() override;

  std::shared_ptr<LeafGrad> leaf;         // made when first needed: requires_grad, a grad, a hook
  std::shared_ptr<Node> grad_fn;          // non-leaves: the node that made this tensor
  std::weak_ptr<Node> grad_accumulator;   // leaves: their AccumulateGrad node, while a graph uses it
  std::shared_ptr<GradSlot> retained;     // non-leaves after retain_grad()
  uint32_t output_nr = 0;
  bool leaf_requires_grad = false;
  // Views an operator made while recording: their base's grad_fn as of this view's history, so
  // that a write through another view is noticed (Note [Writing through a view]).
  bool tracks_base = false;
  std::shared_ptr<Node> base_fn;
  // Threads that record graphs sharing this leaf meet here: it guards leaf and grad_accumulator.
  std::mutex mu;
};

/// t's meta, or null.
inline AutogradMeta* meta_of(const TensorImpl& t) { return static_cast<AutogradMeta*>(t.autograd_meta()); }
/// t's meta, created when missing.
AutogradMeta& meta_for(const TensorImpl& t);

inline bool is_leaf(const TensorImpl& t) {
  const AutogradMeta* m = meta_of(t);
  return !m || !m->grad_fn;
}
/// Whether retain_grad() was called on this non-leaf (its gradient is kept in grad).
inline bool retains_grad(const TensorImpl& t) {
  const AutogradMeta* m = meta_of(t);
  return m && m->grad_fn && m->retained;
}
/// Which result of its grad_fn t is (0 for a leaf and a single result).
inline uint32_t output_nr(const TensorImpl& t) {
  const AutogradMeta* m = meta_of(t);
  return m && m->grad_fn ? m->output_nr : 0;
}
/// ct_tensor_set_requires_grad: only leaves, only floating dtypes, never inference tensors.
void set_requires_grad(const TensorImpl& t, bool requires_grad, const char* fn);
/// Makes t the output_nr-th result of node (an operator's result, or self after an in-place one).
void set_history(const TensorImpl& t, const std::shared_ptr<Node>& node, uint32_t output_nr);
/// Where t's gradient goes: its grad_fn, or its leaf's AccumulateGrad node; invalid when t does
/// not require grad.
Edge gradient_edge(const TensorImpl& t);
/// A new tensor over t's elements that requires no grad (Tensor.detach()).
Tensor detach(const TensorImpl& t);
/// The gradient stored for t: a leaf's accumulated grad, a retained non-leaf's, else undefined.
Tensor grad_of(const TensorImpl& t);
/// Replaces a leaf's grad (undefined clears it); the sizes and dtype must match t's.
void set_grad(const TensorImpl& t, const Tensor& grad, const char* fn);
/// retain_grad(): a non-leaf keeps its gradient in grad after backward; a no-op on leaves.
void retain_grad(const TensorImpl& t, const char* fn);
/// Registers a hook on t's gradient; returns its id for remove_hook.
int64_t add_hook(const TensorImpl& t, HookFn fn, const char* fn_name);
/// Registers a hook run after each gradient is added into leaf t's grad; returns its id for
/// remove_hook. CT_ERROR_INVALID_ARGUMENT when t is not a leaf that requires grad.
int64_t add_post_accumulate_hook(const TensorImpl& t, LeafGrad::PostHookFn fn, const char* fn_name);
/// True when a hook with that id (a gradient hook or a post-accumulate hook) was found on t and removed.
bool remove_hook(const TensorImpl& t, int64_t id);

/// The node that adds incoming gradients into a leaf's grad.
class AccumulateGrad final : public Node {
 public:
  AccumulateGrad(std::shared_ptr<LeafGrad> leaf, OutputInfo info);
  std::string name() const override { return "AccumulateGrad"; }
  std::vector<Tensor> apply(std::vector<Tensor>& grads, const std::vector<bool>& wanted) override;
  void run_pre_hooks(std::vector<Tensor>& grads) override;

 private:
  void run_post_hooks(const std::vector<std::shared_ptr<LeafGrad::PostHook>>& hooks);

  std::shared_ptr<LeafGrad> leaf_;  // Note [AccumulateGrad does not own its leaf]
};

}  // namespace ct::autograd
