#include "compile/joint.h"

#include <algorithm>
#include <map>

#include "autograd/meta.h"
#include "autograd/node.h"
#include "compile/passes.h"
#include "compile/run.h"
#include "dispatch/grad_mode.h"
#include "ops/functions.h"

namespace ct::compile {

namespace {

/// Marks every node that the Refs in roots reach through arguments, not looking past a node for
/// which stop(i) holds (marked itself).
template <typename Stop>
std::vector<bool> reach(const Graph& g, const std::vector<Ref>& roots, Stop stop) {
  std::vector<bool> seen(g.nodes.size(), false);
  std::vector<int32_t> todo;
  for (Ref r : roots) todo.push_back(r.node);
  while (!todo.empty()) {
    const int32_t i = todo.back();
    todo.pop_back();
    if (seen[i]) continue;
    seen[i] = true;
    if (stop(i)) continue;
    for (const Arg& a : g.nodes[i].args)
      for (Ref r : a.refs) todo.push_back(r.node);
  }
  return seen;
}

bool is_placeholder(const Graph& g, int32_t i) { return g.nodes[i].kind == Node::Kind::Placeholder; }
bool is_constant(const Graph& g, int32_t i) { return g.nodes[i].kind == Node::Kind::Constant; }

/// See Note [Partitioning a joint graph]: takes out of saved each value that a pointwise operator
/// makes from what the backward holds anyway (saved values, inputs, constants); the backward then
/// computes it again. Returns the nodes to copy into the backward for that. (Saving a smaller
/// value to recompute a larger one, layer norm's x - mean from the mean, measured slower: fusion
/// does not copy the recomputation into each group that reads it, so the backward writes it.)
std::vector<bool> choose_recomputed(const Graph& g, const std::vector<Ref>& outputs, std::vector<Ref>& saved) {
  std::vector<bool> recompute(g.nodes.size(), false);
  auto held = [&](Ref r) {
    const Node& n = g.nodes[r.node];
    return n.kind == Node::Kind::Constant || n.kind == Node::Kind::Placeholder || recompute[r.node] ||
           std::find(saved.begin(), saved.end(), r) != saved.end();
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = saved.begin(); it != saved.end(); ++it) {
      const Node& n = g.nodes[it->node];
      if (n.kind != Node::Kind::Call || !n.op->has(Tag::Pointwise) || is_random(*n.op) || n.op->schema.mutates() ||
          n.outs.size() != 1 || std::find(outputs.begin(), outputs.end(), *it) != outputs.end())
        continue;
      bool from_held = true;
      for (const Arg& a : n.args)
        for (Ref r : a.refs) from_held &= !(r == *it) && held(r);
      if (!from_held) continue;
      recompute[it->node] = true;
      saved.erase(it);
      for (const Arg& a : n.args)  // an input it reads is saved now if it was not
        for (Ref r : a.refs)
          if (is_placeholder(g, r.node) && std::find(saved.begin(), saved.end(), r) == saved.end()) saved.push_back(r);
      changed = true;
      break;
    }
  }
  return recompute;
}

}  // namespace

JointPlan partition(JointTrace&& j) {
  Graph& g = j.graph;
  const size_t nouts = j.num_outputs;
  const std::vector<Ref> outputs(g.outputs.begin(), g.outputs.begin() + static_cast<ptrdiff_t>(nouts));
  const std::vector<Ref> grads(g.outputs.begin() + static_cast<ptrdiff_t>(nouts), g.outputs.end());
  const std::vector<bool> fwd = reach(g, outputs, [](int32_t) { return false; });
  // The backward's own nodes: what the gradients reach before a forward value, an input or a tangent.
  const std::vector<bool> bwd = reach(g, grads, [&](int32_t i) { return fwd[i] || is_placeholder(g, i); });

  // The saved values: forward values and inputs that a backward node or a gradient reads.
  std::map<std::pair<int32_t, int32_t>, int32_t> saved_index;
  std::vector<Ref> saved;
  auto is_saved = [&](Ref r) {
    const Node& n = g.nodes[r.node];
    const bool input = n.kind == Node::Kind::Placeholder && static_cast<size_t>(n.index) < g.num_inputs;
    return (fwd[r.node] && !is_constant(g, r.node)) || input;
  };
  auto note = [&](Ref r) {
    if (is_saved(r) && saved_index.emplace(std::make_pair(r.node, r.out), static_cast<int32_t>(saved.size())).second)
      saved.push_back(r);
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!bwd[i] || fwd[i] || is_placeholder(g, static_cast<int32_t>(i))) continue;
    for (const Arg& a : g.nodes[i].args)
      for (Ref r : a.refs) note(r);
  }
  for (Ref r : grads) note(r);
  const std::vector<bool> recompute = choose_recomputed(g, outputs, saved);

  JointPlan plan;
  plan.num_outputs = nouts;
  plan.tangent = j.tangent;
  plan.leaves = j.leaves;
  for (const GradLeaf& l : j.leaves) plan.leaf_constant.push_back(l.constant >= 0 ? g.constants[l.constant] : Tensor());
  for (Ref r : saved) {
    auto it = std::find(outputs.begin(), outputs.end(), r);
    plan.saved_output.push_back(it == outputs.end() ? -1 : static_cast<int32_t>(it - outputs.begin()));
  }

  // The backward graph: saved placeholders, tangent placeholders, then its nodes in order.
  Graph& b = plan.backward;
  b.set_env(g.env_ptr());
  std::vector<std::vector<Ref>> to_b(g.nodes.size());
  auto placeholder = [&](const TensorMeta& meta, const std::string& name) {
    Node n;
    n.kind = Node::Kind::Placeholder;
    n.name = b.fresh_name(name);
    n.index = static_cast<int64_t>(b.num_inputs++);
    n.outs.push_back(meta);
    b.nodes.push_back(std::move(n));
    return Ref{static_cast<int32_t>(b.nodes.size() - 1), 0};
  };
  for (Ref r : saved) {
    std::vector<Ref>& m = to_b[r.node];
    m.resize(g.nodes[r.node].outs.size());
    m[r.out] = placeholder(g.meta(r), "saved_" + g.nodes[r.node].name);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.kind == Node::Kind::Placeholder && static_cast<size_t>(n.index) >= g.num_inputs)
      to_b[i].assign(1, placeholder(n.outs[0], n.name));
  }
  auto copy = [&](size_t i) {
    Node n = g.nodes[i];
    n.name = b.fresh_name(n.name);
    if (n.kind == Node::Kind::Constant) {
      b.constants.push_back(g.constants[n.index]);
      n.index = static_cast<int64_t>(b.constants.size() - 1);
    }
    b.nodes.push_back(std::move(n));
    to_b[i].clear();
    for (size_t k = 0; k < b.nodes.back().outs.size(); ++k)
      to_b[i].push_back(Ref{static_cast<int32_t>(b.nodes.size() - 1), static_cast<int32_t>(k)});
  };
  // A constant is copied where the backward first reads it.
  auto in_b = [&](Ref r) {
    if (to_b[r.node].empty() && is_constant(g, r.node)) copy(static_cast<size_t>(r.node));
    return to_b[r.node][r.out];
  };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].kind != Node::Kind::Call || !((bwd[i] && !fwd[i]) || recompute[i])) continue;
    std::vector<Arg> args = g.nodes[i].args;
    for (Arg& a : args)
      for (Ref& r : a.refs) r = in_b(r);
    copy(i);
    b.nodes.back().args = std::move(args);
  }
  for (Ref r : grads) b.outputs.push_back(in_b(r));

  // The forward graph: the joint graph down to what its outputs and the saved values need.
  Graph& f = plan.forward;
  f = std::move(g);
  f.outputs = outputs;
  f.outputs.insert(f.outputs.end(), saved.begin(), saved.end());
  std::vector<bool> keep(f.nodes.size());
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    const Node& n = f.nodes[i];
    keep[i] = fwd[i] || (n.kind == Node::Kind::Placeholder && static_cast<size_t>(n.index) < f.num_inputs);
  }
  compact(f, keep);
  return plan;
}

std::string JointPlan::to_string() const {
  return "forward:\n" + forward.to_string() + "backward:\n" + backward.to_string();
}

namespace {

/// The backward of one compiled call: the backward graph over what the forward saved.
class CompiledBackward final : public autograd::Node {
 public:
  explicit CompiledBackward(std::shared_ptr<const JointPlan> plan) : plan_(std::move(plan)) {}
  std::string name() const override { return "CompiledFunctionBackward"; }

  std::vector<Tensor> apply(std::vector<Tensor>& grads, const std::vector<bool>&) override {
    // As with torch.compile: the backward graph's fused kernels record nothing to differentiate.
    CT_CHECK(!autograd::grad_enabled(), CT_ERROR_NOT_IMPLEMENTED, name(),
             ": a compiled function's backward is not differentiable (create_graph, double backward). Compute "
             "higher derivatives of the uncompiled function, or compile with the option fusion=false");
    std::vector<Tensor> held;
    held.reserve(saved.size() + grads.size());
    for (const autograd::SavedTensor& s : saved) held.push_back(s.unpack(*this));
    for (size_t k = 0; k < plan_->num_outputs; ++k) {
      if (plan_->tangent[k] < 0) continue;
      // Tangents were traced contiguous: a broadcast gradient (sum's) is made dense once here.
      held.push_back(grads[k].defined() ? ops::expect_contiguous(grads[k]) : autograd::zeros_for(outputs[k]));
    }
    std::vector<const TensorImpl*> inputs;
    for (const Tensor& t : held) inputs.push_back(t.impl());
    std::vector<sym::BoundValue> binding;
    std::vector<Tensor> out;
    run_graph(plan_->backward, inputs, binding, out);
    return out;
  }
  void release_saved() override {
    for (autograd::SavedTensor& s : saved) s.reset();
  }

  std::vector<autograd::SavedTensor> saved;

 private:
  std::shared_ptr<const JointPlan> plan_;
};

}  // namespace

void run_joint(const std::shared_ptr<const JointPlan>& plan, ArrayRef<const TensorImpl*> inputs,
               std::vector<Tensor>& outs) {
  std::vector<Tensor> all;
  {
    autograd::GradModeGuard no_grad(autograd::GradMode::NoGrad);
    std::vector<sym::BoundValue> binding;
    run_graph(plan->forward, inputs, binding, all);
  }
  const size_t nouts = plan->num_outputs;
  auto node = std::make_shared<CompiledBackward>(plan);
  for (size_t i = 0; i < plan->leaves.size(); ++i) {
    const GradLeaf& l = plan->leaves[i];
    node->next_edges.push_back(autograd::gradient_edge(l.input >= 0 ? *inputs[l.input] : *plan->leaf_constant[i]));
  }
  for (size_t k = 0; k < nouts; ++k)
    node->outputs.push_back(autograd::OutputInfo{DimVector(all[k]->sizes()), all[k]->dtype(), all[k]->device()});
  for (size_t i = nouts; i < all.size(); ++i) {
    const int32_t out = plan->saved_output[i - nouts];
    node->saved.emplace_back(all[i], out >= 0, static_cast<uint32_t>(std::max(out, 0)));
  }
  for (size_t k = 0; k < nouts; ++k)
    if (plan->tangent[k] >= 0) autograd::set_history(*all[k], node, static_cast<uint32_t>(k));
  all.resize(nouts);
  outs = std::move(all);
}

}  // namespace ct::compile
