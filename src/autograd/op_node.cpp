// op_node.cpp - OpNode, the backward node of one operator call, and the autograd kernel that
// records it (see Note [The autograd kernel]).
#include <cctype>
#include <string>

#include "autograd/autograd.h"
#include "autograd/meta.h"
#include "autograd/view_write.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "dispatch/grad_mode.h"
#include "ops/functions.h"

namespace ct::autograd {

class OpNode final : public Node {
 public:
  explicit OpNode(const OperatorDef& def) : def(def) {}

  std::string name() const override {
    std::string n;
    bool up = true;
    for (char c : def.schema.name) {
      if (c == '_') {
        up = true;
        continue;
      }
      n += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      up = false;
    }
    return n + "Backward";
  }
  std::vector<Tensor> apply(std::vector<Tensor>& grads, const std::vector<bool>& wanted) override {
    std::vector<Tensor> out(next_edges.size());
    GradCtx ctx(*this, def.schema, grads, out, wanted);
    def.derivative.fn(ctx);
    return out;
  }
  void release_saved() override {
    for (SavedTensor& s : saved) s.reset();
    for (SavedTensor& r : results) r.reset();
  }

  struct Slot {
    uint32_t first = 0;  // the argument's first edge
    uint32_t count = 0;  // 1 for a tensor, the length of a tensor list, 0 otherwise
  };

  const OperatorDef& def;
  std::vector<Value> args;           // non-tensor arguments, owned (tensor arguments: None)
  std::vector<DimVector> lists;      // storage behind IntList arguments
  std::vector<std::string> strings;  // storage behind str arguments (gelu's approximate)
  std::vector<Slot> slots;           // per argument
  std::vector<OutputInfo> inputs;    // per edge: what its gradient must look like
  std::vector<SavedTensor> saved;    // per argument; only those the derivative reads
  std::vector<SavedTensor> results;  // per result, when the derivative reads them (save_result)
};

Tensor sum_to(const Tensor& g, IntArrayRef to) {
  if (g->sizes().equals(to)) return g;
  const size_t lead = g->dim() - to.size();
  DimVector dims;
  for (size_t i = 0; i < lead; ++i) dims.push_back(static_cast<int64_t>(i));
  for (size_t i = 0; i < to.size(); ++i)
    if (to[i] == 1 && g->size(lead + i) != 1) dims.push_back(static_cast<int64_t>(lead + i));
  Tensor r = dims.empty() ? g : ops::sum(g, dims, true);
  return r->sizes().equals(to) ? r : ops::reshape(r, to);
}

Tensor scaled(const Tensor& g, const Scalar& s) { return s.equals(1.0) ? g : ops::mul(g, s); }

const Tensor& GradCtx::grad(size_t i) {
  if (!grads_[i].defined()) grads_[i] = zeros_for(node_.outputs[i]);
  return grads_[i];
}
Tensor GradCtx::saved(size_t arg) const {
  CT_CHECK(arg < node_.saved.size() && node_.saved[arg].defined(), CT_ERROR_INTERNAL, node_.name(),
           ": the derivative reads argument ", arg, " but the operator's Saves does not keep it");
  return node_.saved[arg].unpack(node_);
}
Tensor GradCtx::result(size_t i) const {
  CT_CHECK(i < node_.results.size() && node_.results[i].defined(), CT_ERROR_INTERNAL, node_.name(),
           ": the derivative reads result ", i, " but the operator's Saves does not keep it");
  return node_.results[i].unpack(node_);
}
const Value& GradCtx::arg(size_t i) const { return node_.args[i]; }
void GradCtx::unknown_argument(std::string_view name) const {
  fail(CT_ERROR_INTERNAL, str(node_.name(), ": the derivative names argument '", name, "', which ",
                              node_.def.full_name, " does not have"));
}
IntArrayRef GradCtx::sizes(size_t arg, size_t j) const { return node_.inputs[node_.slots[arg].first + j].sizes; }
size_t GradCtx::list_size(size_t arg) const { return node_.slots[arg].count; }
// An omitted optional tensor (a None bias) has no slot: it needs nothing, and its `first` would
// point at the next argument's edge.
bool GradCtx::needs(size_t arg, size_t j) const {
  const auto& s = node_.slots[arg];
  return j < s.count && node_.next_edges[s.first + j].valid() && (wanted_.empty() || wanted_[s.first + j]);
}

void GradCtx::set(size_t arg, size_t j, Tensor g) {
  if (!needs(arg, j) || !g.defined()) return;
  const size_t e = node_.slots[arg].first + j;
  const OutputInfo& want = node_.inputs[e];
  g = sum_to(g, want.sizes);
  if (g->device() != want.device) g = ops::to(g, want.device, want.dtype);  // to.device's backward
  if (g->dtype() != want.dtype) g = ops::to(g, want.dtype);
  out_[e] = std::move(g);
}

bool any_requires_grad(const Value* args, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const Value& v = args[i];
    if (v.is_tensor() && v.tensor().requires_grad()) return true;
    if (v.kind() == Value::Kind::TensorList)
      for (const TensorImpl* t : v.tensor_list())
        if (t->requires_grad()) return true;
  }
  return false;
}

namespace {

void run_below_autograd(Frame& f) {
  DispatchKeyGuard g({}, DispatchKeySet(DispatchKey::Autograd));
  redispatch(f);
}

// PyTorch's rules for writing in place while recording: a leaf that requires grad would lose the
// value its gradient is about; a view's change goes into its base's history (Note [Writing through
// a view]), which a base of another dtype, a non-contiguous or a symbolic one cannot take yet.
void check_inplace(const Frame& f) {
  const TensorImpl& self = f.tensor(0);
  CT_CHECK(!(self.requires_grad() && is_leaf(self)), CT_ERROR_INVALID_ARGUMENT, f.name(),
           ": a leaf tensor that requires grad (sizes ", self.sizes(),
           ") is used in an in-place operation. Update it under no_grad (as optimizers do), or work on a clone");
  CT_CHECK(!self.is_view() || can_write_through(self, f.name()), CT_ERROR_NOT_IMPLEMENTED, f.name(),
           ": changing a view (sizes ", self.sizes(), ") in place while recording gradients is supported only "
           "when its base is contiguous and of the view's dtype. Clone the view first, or build the result out of "
           "place (cat, stack, where)");
}

std::shared_ptr<OpNode> record(const OperatorDef& def, const Frame& f, bool inplace, Edge self_edge,
                               Tensor self_before) {
  auto node = std::make_shared<OpNode>(def);
  const uint32_t save_mask = def.derivative.saved_args;
  node->args.resize(f.nargs);
  node->slots.resize(f.nargs);
  node->saved.resize(f.nargs);
  size_t n_lists = 0;  // reserved up front: args[i] points into lists
  size_t n_strings = 0;  // likewise for strings (a move would invalidate a short string's c_str)
  for (size_t i = 0; i < f.nargs; ++i) {
    n_lists += f.args[i].kind() == Value::Kind::IntList || f.args[i].kind() == Value::Kind::SymIntList;
    n_strings += f.args[i].kind() == Value::Kind::String;
  }
  node->lists.reserve(n_lists);
  node->strings.reserve(n_strings);
  auto add_input = [&](const TensorImpl& t, Edge e) {
    node->next_edges.push_back(std::move(e));
    node->inputs.push_back(OutputInfo{DimVector(t.sizes()), t.dtype(), t.device()});
  };
  for (size_t i = 0; i < f.nargs; ++i) {
    const Value& v = f.args[i];
    OpNode::Slot& slot = node->slots[i];
    slot.first = static_cast<uint32_t>(node->next_edges.size());
    if (v.is_tensor()) {
      slot.count = 1;
      const bool self = inplace && i == 0;
      if (!self) refresh_view_history(v.tensor());
      add_input(v.tensor(), self ? std::move(self_edge) : gradient_edge(v.tensor()));
      // An argument that is self itself (y.mul_(y)) is this node's output once it has run: kept per
      // Note [Saved outputs], since keeping y would keep the node that y's grad_fn will point at.
      const bool is_self = inplace && i > 0 && v.tensor_ptr() == f.args[0].tensor_ptr();
      if (save_mask >> i & 1)
        node->saved[i] = SavedTensor(self ? self_before : Tensor::borrow(v.tensor_ptr()), is_self, 0);
    } else if (v.kind() == Value::Kind::TensorList) {
      slot.count = static_cast<uint32_t>(v.tensor_list().size());
      for (const TensorImpl* t : v.tensor_list()) {
        refresh_view_history(*t);
        add_input(*t, gradient_edge(*t));
      }
    } else if (v.kind() == Value::Kind::IntList) {
      node->lists.emplace_back(v.int_list());
      node->args[i] = Value(node->lists.back().ref());
    } else if (v.kind() == Value::Kind::SymIntList) {  // kept as its bits, still a symbolic list
      node->lists.emplace_back(as_ints(v.sym_int_list()));
      node->args[i] = Value(as_sym(node->lists.back().ref()));
    } else if (v.kind() == Value::Kind::String) {
      node->strings.emplace_back(v.str());
      node->args[i] = Value(node->strings.back().c_str());
    } else if (v.kind() != Value::Kind::Generator) {  // borrowed: not kept
      node->args[i] = v;
    }
  }
  return node;
}

void autograd_kernel(void*, Frame& f) {
  const OperatorDef& def = f.op.functional ? *f.op.functional : f.op;
  const Differentiability kind = def.derivative.kind;
  if (kind == Differentiability::Implicit) {
    redispatch(f);
    return;
  }
  if (kind == Differentiability::None || !any_requires_grad(f.args, f.nargs)) {
    run_below_autograd(f);
    return;
  }
  CT_CHECK(kind == Differentiability::Defined, CT_ERROR_NOT_IMPLEMENTED, f.name(),
           ": no derivative is defined for this operator, and an input requires grad. Call it on detached "
           "inputs or under no_grad, or wrap it in a custom autograd function that gives its backward");
  const bool inplace = f.op.schema.mutates();
  Edge self_edge;
  Tensor self_before;
  if (inplace) {
    check_inplace(f);
    refresh_view_history(f.tensor(0));
    self_edge = gradient_edge(f.tensor(0));
    // The derivative reads self's value from before the write: keep a copy, recorded, so that
    // backward through it is differentiable too (create_graph).
    if (def.derivative.saved_args & 1) self_before = ops::clone(Tensor::borrow(f.args[0].tensor_ptr()));
  }
  // Saved before the call: an argument that shares self's memory (y.mul_(y)) is then saved at its
  // version from before the write, and backward reports the change instead of using the new value.
  std::shared_ptr<OpNode> node = record(def, f, inplace, std::move(self_edge), std::move(self_before));
  run_below_autograd(f);
  bool differentiable = false;
  for (size_t k = 0; k < f.nouts; ++k) differentiable |= f.outs[k].defined() && is_differentiable(f.outs[k]->dtype());
  if (!differentiable) return;
  for (size_t k = 0; k < f.nouts; ++k) {
    const Tensor& out = f.outs[k];
    node->outputs.push_back(OutputInfo{DimVector(out->sizes()), out->dtype(), out->device()});
    if (!is_differentiable(out->dtype())) continue;
    set_history(*out, node, static_cast<uint32_t>(k));
    if (!inplace && out->is_view()) note_view_made(*out);
  }
  if (inplace && f.tensor(0).is_view()) write_through(f.tensor(0), node);
  // Every result: a factorization's derivative reads all of its factors (U, S and Vh of svd). An
  // integer result (pivots, info) has no history to link back to on unpack.
  if (def.derivative.saves_result)
    for (size_t k = 0; k < f.nouts; ++k)
      node->results.emplace_back(f.outs[k], is_differentiable(f.outs[k]->dtype()), static_cast<uint32_t>(k));
}

}  // namespace

void install(Registry& r) { r.set_fallback(DispatchKey::Autograd, Kernel{autograd_kernel, nullptr, nullptr}); }

}  // namespace ct::autograd
