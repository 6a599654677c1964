// engine.cpp - runs a backward graph on the calling thread.
//
// Note [Backward order]
// The engine first walks the graph from the roots and counts, for every node, the edges that
// lead into it. It then runs nodes in an order where each node comes after every node that sends
// it a gradient (Kahn's algorithm), adding up the gradients that arrive for the same input. With
// autograd.grad, only nodes on a path to a requested input run, and the requested gradients are
// read where they arrive instead of being accumulated.
#include "autograd/engine.h"

#include <atomic>
#include <unordered_map>

#include "autograd/meta.h"
#include "core/error.h"
#include "dispatch/grad_ctx.h"
#include "dispatch/grad_mode.h"
#include "ops/functions.h"

namespace ct::autograd {
namespace {

std::atomic<bool> anomaly_on{false}, anomaly_nan{true};

// Anomaly mode's check: the first gradient n returned that holds a NaN stops backward.
void check_no_nan(const Node& n, const std::vector<Tensor>& outs) {
  for (size_t k = 0; k < outs.size(); ++k) {
    const Tensor& g = outs[k];
    if (!g.defined() || !is_floating(g->dtype()) || g->device().is_meta()) continue;  // isnan takes real dtypes
    GradModeGuard no_grad(GradMode::NoGrad);
    const Tensor any = ops::to(ops::any(ops::isnan(g)), kCPU, DType::Bool);
    CT_CHECK(!any->data_as<bool>()[0], CT_ERROR_INVALID_ARGUMENT, "Function '", n.name(),
             "' returned nan values in its ", k, "th output (anomaly detection is on). Look at the forward "
             "operator that made it: an input outside its domain, or an overflow");
  }
}

struct Task {
  int deps = 0;  // edges into the node not yet ordered
  bool needed = true;  // leads to a captured gradient (autograd.grad), or always (backward)
  bool feeds = true;   // some node after it is needed: apply must run
  std::vector<Tensor> buffer;  // incoming gradient per forward output
  std::vector<std::pair<uint32_t, size_t>> captures;  // (input_nr, index into the result)
};

std::vector<Edge> root_edges(const std::vector<Tensor>& roots, std::vector<Tensor>& grads, const char* fn) {
  CT_CHECK(grads.empty() || grads.size() == roots.size(), CT_ERROR_INVALID_ARGUMENT, fn, ": ", roots.size(),
           " outputs but ", grads.size(), " gradients. Pass one gradient per output, or none");
  grads.resize(roots.size());
  std::vector<Edge> edges;
  for (size_t i = 0; i < roots.size(); ++i) {
    const TensorImpl& r = *roots[i];
    CT_CHECK(r.requires_grad(), CT_ERROR_INVALID_ARGUMENT, fn, ": output ", i, " (sizes ", r.sizes(),
             ") does not require grad and has no grad_fn. Set requires_grad on an input it was computed from, "
             "outside no_grad");
    Tensor& g = grads[i];
    if (!g.defined()) {
      CT_CHECK(r.numel() == 1, CT_ERROR_SHAPE, fn, ": a gradient can be implied only for an output with one "
               "element, and output ", i, " has sizes ", r.sizes(), ". Pass its gradient explicitly");
      g = ops::ones(r.sizes(), r.dtype(), r.device());
    } else {
      CT_CHECK(g->sizes().equals(r.sizes()), CT_ERROR_SHAPE, fn, ": the gradient for output ", i, " has sizes ",
               g->sizes(), " but the output has ", r.sizes(), ". Pass a gradient of the output's sizes");
      CT_CHECK(g->device() == r.device(), CT_ERROR_DEVICE, fn, ": the gradient for output ", i, " is on ",
               g->device(), " but the output is on ", r.device(), ". Pass a gradient on the output's device");
      if (g->dtype() != r.dtype()) g = ops::to(g, r.dtype());
    }
    edges.push_back(gradient_edge(r));
  }
  return edges;
}

// Note [Gradients fit their tensors]
// Every gradient that reaches a node is checked against the tensor it is for, whoever computed
// it: an operator's derivative or a custom function's backward (here, at each edge), a hook's
// replacement (Node::checked_replacement: the gradient it replaces already fits). Sizes that
// broadcast to the gradient's are summed down to them and a dtype that differs is converted, as
// PyTorch's engine does; a gradient on another device is refused (it would be accumulated into a
// leaf, or read by a kernel of the wrong device), except a 0-dim one, which is moved (the
// gradient of a cpu number used with cuda tensors). The messages name the producing node. The
// common case, a gradient that fits, costs three comparisons.
[[gnu::cold]] Tensor refit_gradient(Tensor g, const OutputInfo& want, const Node& producer) {
  if (!g->sizes().equals(want.sizes)) {
    bool broadcasts = g->dim() >= want.sizes.size();
    for (size_t d = 0; broadcasts && d < want.sizes.size(); ++d) {
      const int64_t have = g->size(g->dim() - want.sizes.size() + d);
      broadcasts = have == want.sizes[d] || want.sizes[d] == 1;
    }
    CT_CHECK(broadcasts, CT_ERROR_SHAPE, producer.name(), ": a gradient of sizes ", g->sizes(),
             " arrived for a tensor of sizes ", want.sizes, ". Return gradients of the sizes of the tensors they are for");
    g = sum_to(g, want.sizes);
  }
  if (g->device() != want.device) {
    CT_CHECK(g->dim() == 0, CT_ERROR_DEVICE, producer.name(), ": a gradient on ", g->device(), " (sizes ",
             g->sizes(), ") arrived for a tensor on ", want.device,
             ". Return gradients on the devices of the tensors they are for");
    g = ops::to(g, want.device, g->dtype());
  }
  if (g->dtype() != want.dtype) g = ops::to(g, want.dtype);
  return g;
}

inline Tensor fit_gradient(Tensor g, const OutputInfo& want, const Node& producer) {
  if (__builtin_expect(g->device() == want.device && g->dtype() == want.dtype && g->sizes().equals(want.sizes), 1))
    return g;
  return refit_gradient(std::move(g), want, producer);
}

void accumulate(Tensor& slot, Tensor g) {
  if (!g.defined()) return;
  slot = slot.defined() ? ops::add(slot, g) : std::move(g);
}

// See Note [Backward order]. capture: (edge, index) pairs whose arriving gradient goes to result.
std::vector<Tensor> execute(const std::vector<Edge>& roots, std::vector<Tensor>& root_grads,
                            const std::vector<Edge>& captured, const BackwardOptions& opt) {
  std::unordered_map<Node*, Task> tasks;
  std::vector<Node*> stack;
  for (const Edge& e : roots) {
    if (tasks.emplace(e.fn.get(), Task{}).second) stack.push_back(e.fn.get());
  }
  std::vector<Node*> all;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    all.push_back(n);
    for (const Edge& e : n->next_edges) {
      if (!e.valid()) continue;
      auto [it, fresh] = tasks.emplace(e.fn.get(), Task{});
      ++it->second.deps;
      if (fresh) stack.push_back(e.fn.get());
    }
  }
  // Kahn's order; the counts are not needed afterwards.
  std::vector<Node*> order;
  for (Node* n : all)
    if (tasks[n].deps == 0) order.push_back(n);
  for (size_t i = 0; i < order.size(); ++i)
    for (const Edge& e : order[i]->next_edges)
      if (e.valid() && --tasks[e.fn.get()].deps == 0) order.push_back(e.fn.get());
  std::vector<Tensor> result(captured.size());
  const bool capturing = !captured.empty();
  if (capturing) {
    for (size_t i = 0; i < captured.size(); ++i) {
      auto it = tasks.find(captured[i].fn.get());
      if (it != tasks.end()) it->second.captures.emplace_back(captured[i].input_nr, i);
    }
    // A node runs only when some node after it leads to a captured gradient; visit successors first.
    for (size_t i = order.size(); i-- > 0;) {
      Task& t = tasks[order[i]];
      t.feeds = false;
      for (const Edge& e : order[i]->next_edges)
        if (e.valid()) t.feeds |= tasks[e.fn.get()].needed;
      t.needed = t.feeds || !t.captures.empty();
    }
  }
  for (size_t i = 0; i < roots.size(); ++i) {
    Task& t = tasks[roots[i].fn.get()];
    t.buffer.resize(roots[i].fn->outputs.size());
    accumulate(t.buffer[roots[i].input_nr], std::move(root_grads[i]));
  }
  GradModeGuard mode(opt.create_graph ? GradMode::Enabled : GradMode::NoGrad);
  for (Node* n : order) {
    Task& t = tasks[n];
    std::vector<Tensor> grads = std::move(t.buffer);
    grads.resize(n->outputs.size());
    bool any = false;
    for (const Tensor& g : grads) any |= g.defined();
    if (any) {
      n->run_pre_hooks(grads);  // a replacement is checked there: Node::checked_replacement
      for (auto& [nr, weak_slot] : n->retained)
        if (const std::shared_ptr<GradSlot> slot = weak_slot.lock(); slot && grads[nr].defined())
          slot->grad = slot->grad.defined() ? ops::add(slot->grad, grads[nr]) : grads[nr];
      for (auto& [nr, index] : t.captures) accumulate(result[index], grads[nr]);
    }
    std::vector<Tensor> outs;
    const bool run = any && t.feeds;
    if (run) {
      // Under autograd.grad, the edges that lead to no captured gradient are not computed.
      std::vector<bool> wanted;
      if (capturing) {
        wanted.resize(n->next_edges.size());
        for (size_t k = 0; k < wanted.size(); ++k) {
          const Edge& e = n->next_edges[k];
          wanted[k] = e.valid() && tasks[e.fn.get()].needed;
        }
      }
      outs = n->apply(grads, wanted);
      CT_CHECK(outs.size() == n->next_edges.size() || outs.empty(), CT_ERROR_INTERNAL, n->name(), ": returned ",
               outs.size(), " gradients for ", n->next_edges.size(), " inputs");
      if (anomaly_check_nan()) check_no_nan(*n, outs);
    }
    if (!opt.retain_graph) n->release_saved();
    for (size_t k = 0; k < n->next_edges.size(); ++k) {
      const Edge& e = n->next_edges[k];
      if (!e.valid() || k >= outs.size() || !outs[k].defined()) continue;
      Task& next = tasks[e.fn.get()];
      next.buffer.resize(e.fn->outputs.size());
      accumulate(next.buffer[e.input_nr], fit_gradient(std::move(outs[k]), e.fn->outputs[e.input_nr], *n));
    }
  }
  return result;
}

}  // namespace

void set_anomaly_mode(bool enabled, bool check_nan) {
  anomaly_nan.store(check_nan, std::memory_order_relaxed);
  anomaly_on.store(enabled, std::memory_order_relaxed);
}
bool anomaly_enabled() { return anomaly_on.load(std::memory_order_relaxed); }
bool anomaly_check_nan() { return anomaly_enabled() && anomaly_nan.load(std::memory_order_relaxed); }

void backward(const std::vector<Tensor>& roots, std::vector<Tensor> root_grads, const BackwardOptions& opt,
              const char* fn) {
  std::vector<Edge> edges = root_edges(roots, root_grads, fn);
  execute(edges, root_grads, {}, opt);
}

std::vector<Tensor> grad(const std::vector<Tensor>& roots, std::vector<Tensor> root_grads,
                         const std::vector<Tensor>& inputs, const BackwardOptions& opt, const char* fn) {
  std::vector<Edge> edges = root_edges(roots, root_grads, fn);
  std::vector<Edge> wanted;
  for (size_t i = 0; i < inputs.size(); ++i) {
    CT_CHECK(inputs[i]->requires_grad(), CT_ERROR_INVALID_ARGUMENT, fn, ": input ", i, " (sizes ", inputs[i]->sizes(),
             ") does not require grad. Ask only for gradients of tensors that require grad");
    wanted.push_back(gradient_edge(*inputs[i]));
  }
  std::vector<Tensor> result = execute(edges, root_grads, wanted, opt);
  for (size_t i = 0; i < result.size(); ++i)
    CT_CHECK(result[i].defined() || opt.allow_unused, CT_ERROR_INVALID_ARGUMENT, fn, ": input ", i, " (sizes ",
             inputs[i]->sizes(), ") was not used to compute the outputs. Pass allow_unused to get no gradient "
             "for it instead of this error");
  return result;
}

}  // namespace ct::autograd
