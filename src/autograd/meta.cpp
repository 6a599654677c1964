#include "autograd/meta.h"

#include <algorithm>

#include "core/error.h"
#include "dispatch/grad_mode.h"
#include "ops/functions.h"

namespace ct::autograd {

AutogradMeta& meta_for(const TensorImpl& t) {
  if (AutogradMeta* m = meta_of(t)) return *m;
  auto* m = new AutogradMeta;
  t.set_autograd_meta(m);
  return *m;
}

AutogradMeta::~AutogradMeta() {
  Tensor dropped;  // destroyed after the lock is released: it may take a whole graph with it
  std::vector<std::shared_ptr<LeafGrad::PostHook>> post;  // the same: their destroy callbacks run unlocked
  if (leaf) {
    // Post hooks running now on another thread read this leaf: wait for them.
    // See Note [Post-accumulate hooks see a whole leaf].
    std::lock_guard<std::recursive_mutex> hooks_done(leaf->post_mu);
    std::lock_guard<std::mutex> lock(leaf->mu);
    dropped = std::move(leaf->grad);
    post = std::move(leaf->post_hooks);
    leaf->owner = nullptr;
    leaf->leaf_alive = false;
  }
}

namespace {

/// m's LeafGrad, made when missing; the caller holds m.mu.
const std::shared_ptr<LeafGrad>& leaf_locked(AutogradMeta& m) {
  if (!m.leaf) m.leaf = std::make_shared<LeafGrad>();
  return m.leaf;
}

std::shared_ptr<LeafGrad> leaf_of(AutogradMeta& m) {
  std::lock_guard<std::mutex> lock(m.mu);
  return leaf_locked(m);
}

/// m's LeafGrad when it has one.
std::shared_ptr<LeafGrad> existing_leaf(AutogradMeta& m) {
  std::lock_guard<std::mutex> lock(m.mu);
  return m.leaf;
}

}  // namespace

void set_requires_grad(const TensorImpl& t, bool requires_grad, const char* fn) {
  if (!is_leaf(t)) {
    CT_CHECK(requires_grad, CT_ERROR_INVALID_ARGUMENT, fn,
             ": requires_grad can only be changed on leaf tensors; this one was computed from tensors that require "
             "grad. To use its value without gradient tracking, take detach() of it");
    return;
  }
  if (requires_grad) {
    CT_CHECK(is_differentiable(t.dtype()), CT_ERROR_DTYPE, fn,
             ": only tensors of a floating or complex dtype can require gradients, and this one is ", t.dtype(),
             ". Convert it with to() first");
    CT_CHECK(!t.is_inference() || grad_mode() == GradMode::Inference, CT_ERROR_INVALID_ARGUMENT, fn,
             ": an inference tensor cannot require grad outside inference mode. Clone it first");
  }
  if (!requires_grad && !meta_of(t)) return;
  meta_for(t).leaf_requires_grad = requires_grad;
  t.set_requires_grad_bit(requires_grad);
}

void set_history(const TensorImpl& t, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  AutogradMeta& m = meta_for(t);
  m.grad_fn = node;
  m.output_nr = output_nr;
  m.retained.reset();
  t.set_requires_grad_bit(true);
}

Edge gradient_edge(const TensorImpl& t) {
  AutogradMeta* m = meta_of(t);
  if (!m || !t.requires_grad()) return Edge{};
  if (m->grad_fn) return Edge{m->grad_fn, m->output_nr};
  std::lock_guard<std::mutex> lock(m->mu);
  std::shared_ptr<Node> acc = m->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(leaf_locked(*m), OutputInfo{DimVector(t.sizes()), t.dtype(), t.device()});
    m->grad_accumulator = acc;
  }
  return Edge{acc, 0};
}

Tensor detach(const TensorImpl& t) { return Tensor::adopt(TensorImpl::alias_of(t)); }

Tensor grad_of(const TensorImpl& t) {
  AutogradMeta* m = meta_of(t);
  if (!m) return Tensor();
  if (m->grad_fn && m->retained) return m->retained->grad;
  const std::shared_ptr<LeafGrad> leaf = existing_leaf(*m);
  if (!leaf) return Tensor();
  std::lock_guard<std::mutex> lock(leaf->mu);
  return leaf->grad;
}

void set_grad(const TensorImpl& t, const Tensor& grad, const char* fn) {
  if (grad.defined()) {
    CT_CHECK(grad->sizes().equals(t.sizes()) && grad->dtype() == t.dtype() && grad->device() == t.device(),
             CT_ERROR_SHAPE, fn, ": the gradient (", grad->sizes(), ", ", grad->dtype(), ", ", grad->device(),
             ") must match the tensor (", t.sizes(), ", ", t.dtype(), ", ", t.device(), ")");
  }
  AutogradMeta* m = grad.defined() ? &meta_for(t) : meta_of(t);
  if (!m) return;
  if (m->grad_fn && m->retained) {
    m->retained->grad = grad;
    return;
  }
  const std::shared_ptr<LeafGrad> leaf = grad.defined() ? leaf_of(*m) : existing_leaf(*m);
  if (!leaf) return;
  std::lock_guard<std::mutex> lock(leaf->mu);
  leaf->grad = grad;
}

void retain_grad(const TensorImpl& t, const char* fn) {
  CT_CHECK(t.requires_grad(), CT_ERROR_INVALID_ARGUMENT, fn,
           ": retain_grad on a tensor that does not require grad. Set requires_grad on the inputs first");
  AutogradMeta& m = meta_for(t);
  if (!m.grad_fn || m.retained) return;
  m.retained = std::make_shared<GradSlot>();
  m.grad_fn->retained.emplace_back(m.output_nr, m.retained);
}

namespace {
std::atomic<int64_t> next_hook_id{1};
}

int64_t add_hook(const TensorImpl& t, HookFn fn, const char* fn_name) {
  CT_CHECK(t.requires_grad(), CT_ERROR_INVALID_ARGUMENT, fn_name,
           ": cannot register a hook on a tensor that does not require grad. Set requires_grad first");
  AutogradMeta& m = meta_for(t);
  const int64_t id = next_hook_id.fetch_add(1, std::memory_order_relaxed);
  if (m.grad_fn) {
    m.grad_fn->pre_hooks.emplace_back(m.output_nr, Hook{id, std::move(fn)});
  } else {
    const std::shared_ptr<LeafGrad> leaf = leaf_of(m);
    std::lock_guard<std::mutex> lock(leaf->mu);
    leaf->hooks.push_back(Hook{id, std::move(fn)});
  }
  return id;
}

int64_t add_post_accumulate_hook(const TensorImpl& t, LeafGrad::PostHookFn fn, const char* fn_name) {
  CT_CHECK(is_leaf(t), CT_ERROR_INVALID_ARGUMENT, fn_name,
           ": post-accumulate-grad hooks can only be registered on leaf tensors, and this one was computed from "
           "tensors that require grad. Register it on the leaf, or use ct_tensor_register_hook");
  CT_CHECK(t.requires_grad(), CT_ERROR_INVALID_ARGUMENT, fn_name,
           ": cannot register a post-accumulate-grad hook on a tensor that does not require grad. Set requires_grad "
           "first");
  AutogradMeta& m = meta_for(t);
  const int64_t id = next_hook_id.fetch_add(1, std::memory_order_relaxed);
  auto hook = std::make_shared<LeafGrad::PostHook>(LeafGrad::PostHook{id, std::move(fn)});
  const std::shared_ptr<LeafGrad> leaf = leaf_of(m);
  std::lock_guard<std::mutex> lock(leaf->mu);
  leaf->owner = &t;
  leaf->post_hooks.push_back(std::move(hook));
  return id;
}

bool remove_hook(const TensorImpl& t, int64_t id) {
  AutogradMeta* m = meta_of(t);
  if (!m) return false;
  if (const std::shared_ptr<LeafGrad> leaf = existing_leaf(*m)) {
    std::shared_ptr<LeafGrad::PostHook> removed;  // destroyed after the lock: its destroy callback is the host's
    std::lock_guard<std::mutex> lock(leaf->mu);
    for (auto it = leaf->hooks.begin(); it != leaf->hooks.end(); ++it)
      if (it->id == id) {
        leaf->hooks.erase(it);
        return true;
      }
    for (auto it = leaf->post_hooks.begin(); it != leaf->post_hooks.end(); ++it)
      if ((*it)->id == id) {
        removed = std::move(*it);
        leaf->post_hooks.erase(it);
        return true;
      }
  }
  if (!m->grad_fn) return false;
  auto& hooks = m->grad_fn->pre_hooks;
  for (auto it = hooks.begin(); it != hooks.end(); ++it)
    if (it->second.id == id) {
      hooks.erase(it);
      return true;
    }
  return false;
}

AccumulateGrad::AccumulateGrad(std::shared_ptr<LeafGrad> leaf, OutputInfo info) : leaf_(std::move(leaf)) {
  outputs.push_back(std::move(info));
}

void AccumulateGrad::run_pre_hooks(std::vector<Tensor>& grads) {
  Tensor& g = grads[0];
  for (Hook& h : leaf_->hooks) {
    if (!g.defined()) return;
    Tensor replaced = h.fn(g);
    if (replaced.defined()) g = checked_replacement(std::move(replaced), g, "AccumulateGrad");
  }
}

// Note [Accumulating into grad]
// The first gradient is stored as is when nothing else holds it and it is a plain dense tensor
// (later backward calls add into it in place); an expanded or shared gradient is copied first.
// When backward is recorded (create_graph) it is always copied, recorded, so grad keeps its
// history without sharing memory with a gradient the graph or the caller still uses, and
// accumulation is out of place, so the sum stays differentiable.
std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>& grads, const std::vector<bool>&) {
  Tensor& g = grads[0];
  if (!g.defined()) return {};
  std::vector<std::shared_ptr<LeafGrad::PostHook>> post;
  {
    std::lock_guard<std::mutex> lock(leaf_->mu);
    if (!leaf_->leaf_alive) return {};
    Tensor& grad = leaf_->grad;
    const bool recorded = grad_enabled();
    if (!grad.defined()) {
      const bool own = g->use_count() == 1 && g->is_contiguous() && !g->is_view() && !g->is_wrapped_number();
      grad = own && !recorded ? std::move(g) : ops::clone(g);
    } else if (recorded) {
      grad = ops::add(grad, g);
    } else {
      ops::add_(grad, g);
    }
    post = leaf_->post_hooks;
  }
  if (!post.empty()) run_post_hooks(post);
  return {};
}

// Note [Post-accumulate hooks see a whole leaf]
// A post-accumulate hook is given the leaf itself, to read or replace its grad, but AccumulateGrad
// does not own its leaf (Note [AccumulateGrad does not own its leaf]), and the leaf's last
// reference may go on another thread while backward runs. So the hooks run holding post_mu, which
// the leaf's destruction (~AutogradMeta) takes before it marks the leaf gone: a leaf seen alive
// under post_mu stays whole until its hooks return, and one that is gone runs none. The hooks run
// outside mu, so they may read and set the grad. post_mu is recursive, so a hook may run backward
// through its own leaf or drop the leaf's last reference on this thread. What a hook must not do is
// wait for a thread that is dropping the leaf's last reference (that thread waits for the hook).
void AccumulateGrad::run_post_hooks(const std::vector<std::shared_ptr<LeafGrad::PostHook>>& hooks) {
  std::lock_guard<std::recursive_mutex> whole(leaf_->post_mu);
  for (const std::shared_ptr<LeafGrad::PostHook>& h : hooks) {
    const TensorImpl* leaf = nullptr;
    {
      std::lock_guard<std::mutex> lock(leaf_->mu);
      if (!leaf_->leaf_alive) return;  // an earlier hook dropped the leaf
      const auto& now = leaf_->post_hooks;
      if (std::find(now.begin(), now.end(), h) == now.end()) continue;  // an earlier hook removed it
      leaf = leaf_->owner;
    }
    h->fn(*leaf);
  }
}

}  // namespace ct::autograd
