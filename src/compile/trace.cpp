#include "compile/trace.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "autograd/autograd.h"
#include "autograd/engine.h"
#include "autograd/meta.h"
#include "dispatch/dispatcher.h"
#include "dispatch/grad_mode.h"
#include "dispatch/registry.h"
#include "runtime/defaults.h"

namespace ct::compile {

namespace {

struct Captured {
  Ref ref;
  Tensor standin;  // the meta tensor operators read in its place while tracing
};

struct TraceState {
  Graph graph;
  sym::ShapeEnv* env = nullptr;
  std::unordered_map<const TensorImpl*, Ref> refs;  // proxies and every result computed from them
  std::unordered_map<const TensorImpl*, Captured> captured;
  std::vector<Tensor> keep;  // holds every proxy, so no address in refs is reused while tracing
  // Joint tracing (Note [Joint forward/backward graphs]).
  bool joint = false;
  bool backward = false;  // autograd.grad is running: writes in place may only touch its own results
  int32_t first_tangent = 0;  // the node number where the backward's placeholders start
  Device device;          // what a meta device argument stands for
  std::vector<std::pair<int64_t, Tensor>> grad_constants;  // (constants index, standin requiring grad)
  std::unordered_map<const StorageImpl*, std::vector<const TensorImpl*>> by_storage;
  std::vector<const OperatorDef*> composites;  // the composites running, outermost first (for messages)
};

/// " (inside layer_norm)" while a composite of a joint trace runs, for messages.
std::string inside(const TraceState& s) {
  std::string r;
  for (const OperatorDef* op : s.composites) r += (r.empty() ? " (inside " : " < ") + op->full_name;
  return r.empty() ? r : r + ")";
}

thread_local TraceState* t_active = nullptr;

int32_t append(TraceState& s, Node&& n) {
  s.graph.nodes.push_back(std::move(n));
  return static_cast<int32_t>(s.graph.nodes.size() - 1);
}

/// Names t by r for the rest of the trace, keeping t alive so its address is not reused.
void bind(TraceState& s, Tensor t, Ref r) {
  s.refs[t.impl()] = r;
  if (s.joint) s.by_storage[t->storage()].push_back(t.impl());
  s.keep.push_back(std::move(t));
}

/// In a joint trace: the Ref of a known tensor with t's elements (a saved tensor's alias).
bool find_alias(TraceState& s, const TensorImpl* t, Ref& ref) {
  if (!s.joint || t->is_symbolic()) return false;
  auto it = s.by_storage.find(t->storage());
  if (it == s.by_storage.end()) return false;
  for (const TensorImpl* k : it->second) {
    if (k->dtype() != t->dtype() || k->storage_offset() != t->storage_offset() || !k->sizes().equals(t->sizes()) ||
        !k->strides().equals(t->strides()))
      continue;
    ref = s.refs.at(k);
    bind(s, Tensor::borrow(t), ref);
    return true;
  }
  return false;
}

/// The Ref of t when the trace knows it, directly or as an alias.
bool known(TraceState& s, const TensorImpl* t, Ref& ref) {
  if (auto it = s.refs.find(t); it != s.refs.end()) {
    ref = it->second;
    return true;
  }
  return find_alias(s, t, ref);
}

/// The graph's name for tensor argument t of op, and the tensor the meta computation reads for it.
const TensorImpl* enter(TraceState& s, const TensorImpl* t, Ref& ref, const OperatorDef& op) {
  if (auto it = s.refs.find(t); it != s.refs.end()) {
    ref = it->second;
    return t;
  }
  if (auto it = s.captured.find(t); it != s.captured.end()) {
    ref = it->second.ref;
    return it->second.standin.impl();
  }
  if (find_alias(s, t, ref)) return t;
  CT_CHECK(!t->device().is_meta() || t->shape_env() != s.env, CT_ERROR_GRAPH_BREAK, op.full_name,
           ": an argument (", t->sym_sizes(), ", ", t->dtype(), ") was made from traced tensors outside the "
           "operator library, so the graph cannot say how. Compute it with ctorch operators");
  CT_CHECK(!t->is_symbolic(), CT_ERROR_GRAPH_BREAK, op.full_name, ": an argument (", t->sym_sizes(),
           ") has symbols of another ShapeEnv; pass it as an input of the traced function instead");
  Node c;
  c.kind = Node::Kind::Constant;
  c.name = s.graph.fresh_name("c");
  const int64_t c_index = static_cast<int64_t>(s.graph.constants.size());
  c.index = c_index;
  c.outs.push_back(TensorMeta{t->sym_sizes(), t->dtype(), t->device()});
  s.graph.constants.push_back(Tensor::borrow(t));
  ref = Ref{append(s, std::move(c)), 0};
  Tensor standin = Tensor::adopt(TensorImpl::empty_sym(t->sym_sizes(), t->dtype(), Device{DeviceType::Meta, 0}, s.env));
  const TensorImpl* m = standin.impl();
  if (s.joint && t->requires_grad()) {
    autograd::set_requires_grad(*m, true, "ct_compile");
    s.grad_constants.emplace_back(c_index, standin);
  }
  bind(s, standin, ref);
  s.captured.emplace(t, Captured{ref, std::move(standin)});
  return m;
}

Arg to_arg(const Value& v) {
  Arg a;
  switch (v.kind()) {
    case Value::Kind::None: break;
    case Value::Kind::Int: a.kind = Arg::Kind::Int; a.i = v.to_int(); break;
    case Value::Kind::SymInt: a.kind = Arg::Kind::SymInt; a.ints.push_back(v.to_symint()); break;
    case Value::Kind::Double: a.kind = Arg::Kind::Double; a.d = v.to_double(); break;
    case Value::Kind::Bool: a.kind = Arg::Kind::Bool; a.i = v.to_bool(); break;
    case Value::Kind::IntList:
    case Value::Kind::SymIntList:
      a.kind = v.is_symbolic() ? Arg::Kind::SymIntList : Arg::Kind::IntList;
      for (SymInt x : v.sym_int_list()) a.ints.push_back(x);
      break;
    case Value::Kind::DType: a.kind = Arg::Kind::DType; a.i = static_cast<int64_t>(v.dtype()); break;
    case Value::Kind::Device: a.kind = Arg::Kind::Device; a.device = v.device(); break;
    case Value::Kind::String: a.kind = Arg::Kind::String; a.s = v.str(); break;
    case Value::Kind::Tensor:
    case Value::Kind::TensorList:
    case Value::Kind::Generator: break;  // handled by the caller
  }
  return a;
}

/// A joint trace's forward may write in place to a tensor it just made (dropout's bernoulli_ into
/// an empty tensor): no other node has read it, it needs no gradient and aliases nothing, so the
/// write is as functional as the factory and the partition may treat both as one value.
bool is_fresh(const TraceState& s, Ref target, const Value& v) {
  const Node& made = s.graph.nodes[target.node];
  if (made.kind != Node::Kind::Call || made.op->is_view || v.tensor().requires_grad()) return false;
  for (size_t i = static_cast<size_t>(target.node) + 1; i < s.graph.nodes.size(); ++i)
    for (const Arg& a : s.graph.nodes[i].args)
      for (Ref r : a.refs)
        if (r.node == target.node) return false;
  return true;
}

// Note [The Tracer fallback] records op as a node, then computes it on the meta device with the
// Tracer and Autograd keys off: proxies carry no gradients, and composites record as one node.
// A joint trace keeps Autograd on where an argument requires grad (Note [Joint forward/backward
// graphs]).
void tracer_kernel(void*, Frame& f) {
  TraceState* s = t_active;
  if (!s) return redispatch(f);
  const OperatorDef& op = f.op;
  // A meta device made by the joint trace's backward (zeros for a missing gradient) is the
  // inputs' device in the graph.
  auto real = [s](Device d) { return s->joint && d.is_meta() ? s->device : d; };
  Node node;
  node.kind = Node::Kind::Call;
  node.op = &op;
  std::vector<Value> args(f.args, f.args + f.nargs);
  std::vector<std::vector<const TensorImpl*>> lists(f.nargs);
  Device device = runtime::current_device();
  bool have_device = false;
  for (size_t i = 0; i < f.nargs; ++i) {
    const Value& v = f.args[i];
    if (v.is_tensor()) {
      Arg a;
      a.kind = Arg::Kind::Tensor;
      a.refs.resize(1);
      args[i] = Value(enter(*s, v.tensor_ptr(), a.refs[0], op));
      if (!have_device) device = s->graph.meta(a.refs[0]).device;
      have_device = true;
      node.args.push_back(std::move(a));
    } else if (v.kind() == Value::Kind::TensorList) {
      Arg a;
      a.kind = Arg::Kind::TensorList;
      for (const TensorImpl* t : v.tensor_list()) {
        a.refs.emplace_back();
        lists[i].push_back(enter(*s, t, a.refs.back(), op));
      }
      if (!have_device && !a.refs.empty()) device = s->graph.meta(a.refs[0]).device;
      have_device |= !a.refs.empty();
      args[i] = Value(ArrayRef<const TensorImpl*>(lists[i]));
      node.args.push_back(std::move(a));
    } else {
      CT_CHECK(v.kind() != Value::Kind::Generator, CT_ERROR_GRAPH_BREAK, op.full_name,
               ": an explicit generator cannot be traced (its state is not part of the graph). Leave the "
               "generator out to draw from the default one");
      node.args.push_back(to_arg(v));
      if (v.kind() == Value::Kind::Device) node.args.back().device = real(v.device());
    }
  }
  // Any other Device argument says where the result goes (to.device, zeros_like(device=...)).
  for (size_t i = 0; i < f.nargs && op.device_arg < 0; ++i)
    if (f.args[i].kind() == Value::Kind::Device) device = real(f.args[i].device());
  if (op.device_arg >= 0) {
    const Value& d = f.args[op.device_arg];
    device = d.kind() == Value::Kind::Device ? real(d.device()) : runtime::current_device();
    args[op.device_arg] = Value(Device{DeviceType::Meta, 0});
  }
  const bool mutates = op.schema.mutates() && f.nargs && f.args[0].is_tensor();
  if (mutates)
    CT_CHECK(s->graph.nodes[node.args[0].refs[0].node].kind != Node::Kind::Constant, CT_ERROR_GRAPH_BREAK,
             op.full_name, ": writes in place to a tensor captured from outside the traced function. Pass that "
             "tensor as an input, or write to a copy");
  const bool record_grad = s->joint && autograd::grad_enabled() && autograd::any_requires_grad(args.data(), args.size());
  if (s->joint && mutates)
    CT_CHECK(s->backward ? node.args[0].refs[0].node >= s->first_tangent : is_fresh(*s, node.args[0].refs[0], args[0]),
             CT_ERROR_NOT_IMPLEMENTED, op.full_name, inside(*s), ": writes in place to a tensor of the forward "
             "computation that was read before or needs a gradient; a compiled backward needs such writes out of place");
  if (record_grad && (op.functional ? *op.functional : op).derivative.kind == Differentiability::Implicit) {
    // The composite's own operators record themselves, each with its derivative.
    const Kernel& k = op.kernels[static_cast<int>(DispatchKey::Meta)];
    CT_CHECK(k.fn, CT_ERROR_NOT_IMPLEMENTED, op.full_name, ": a composite with no meta kernel cannot be traced "
             "with autograd");
    Frame inner{op, args.data(), args.size(), DispatchKeySet(), f.outs, f.nouts};
    s->composites.push_back(&op);
    k.fn(k.data, inner);
    s->composites.pop_back();
    return;
  }
  {
    const DispatchKeySet off = record_grad ? DispatchKeySet(DispatchKey::Tracer)
                                           : DispatchKeySet(DispatchKey::Tracer).add(DispatchKey::Autograd);
    DispatchKeyGuard guard(DispatchKeySet(), off);
    dispatch(op, args.data(), args.size(), f.outs, f.nouts);
  }
  for (size_t i = 0; i < f.nouts; ++i)
    node.outs.push_back(f.outs[i].defined() ? TensorMeta{f.outs[i]->sym_sizes(), f.outs[i]->dtype(), device}
                                            : TensorMeta{});
  node.name = s->graph.fresh_name(op.schema.name);
  const int32_t idx = append(*s, std::move(node));
  for (size_t i = 0; i < f.nouts; ++i)
    if (f.outs[i].defined()) bind(*s, f.outs[i], Ref{idx, static_cast<int32_t>(i)});
}

void install_tracer() {
  static std::once_flag once;
  std::call_once(once, [] { Registry::get().set_fallback(DispatchKey::Tracer, Kernel{tracer_kernel, nullptr, nullptr}); });
}

Tensor make_proxy(const ProxySpec& p, sym::ShapeEnv* env) {
  const Device meta{DeviceType::Meta, 0};
  if (p.strides.empty()) return Tensor::adopt(TensorImpl::empty_sym(p.sizes, p.dtype, meta, env));
  int64_t extent = 1;
  for (size_t d = 0; d < p.strides.size(); ++d) extent += (p.sizes[d].expect_int("a strided proxy's size") - 1) * p.strides[d];
  Tensor base = Tensor::adopt(TensorImpl::empty_sym(SymDimVector{SymInt(extent)}, p.dtype, meta, env));
  DimVector sizes;
  for (SymInt v : p.sizes) sizes.push_back(v.expect_int());
  return Tensor::adopt(TensorImpl::view_of(*base.impl(), sizes, IntArrayRef(p.strides), 0));
}

void collect_symbols(const sym::Node* n, std::vector<int32_t>& out) {
  if (n->op == sym::Op::Symbol) {
    if (std::find(out.begin(), out.end(), n->value.i) == out.end()) out.push_back(static_cast<int32_t>(n->value.i));
    return;
  }
  for (const sym::Node* a : n->args) collect_symbols(a, out);
}

struct ActiveTrace {
  explicit ActiveTrace(TraceState* s) : saved(t_active), keys(DispatchKeySet(DispatchKey::Tracer), DispatchKeySet()) {
    t_active = s;
  }
  ~ActiveTrace() { t_active = saved; }
  TraceState* saved;
  DispatchKeyGuard keys;
};

/// Appends the next placeholder, for a proxy of spec, and returns the proxy.
const TensorImpl* add_placeholder(TraceState& s, const ProxySpec& spec, const std::string& name) {
  Tensor p = make_proxy(spec, s.env);
  Node n;
  n.kind = Node::Kind::Placeholder;
  n.name = s.graph.fresh_name(name);
  n.index = 0;
  for (const Node& m : s.graph.nodes) n.index += m.kind == Node::Kind::Placeholder;
  n.outs.push_back(TensorMeta{p->sym_sizes(), spec.dtype, spec.device});
  const TensorImpl* impl = p.impl();
  bind(s, std::move(p), Ref{append(s, std::move(n)), 0});
  return impl;
}

}  // namespace

Graph trace(sym::ShapeEnv* env, const std::vector<ProxySpec>& inputs, std::vector<SymbolSource> sources,
            const TraceFn& fn, size_t nouts) {
  install_tracer();
  TraceState s;
  s.env = env;
  s.graph.set_env(env);
  s.graph.num_inputs = inputs.size();
  s.graph.sources = std::move(sources);
  std::vector<const TensorImpl*> proxies;
  for (size_t i = 0; i < inputs.size(); ++i) proxies.push_back(add_placeholder(s, inputs[i], "x" + std::to_string(i)));
  std::vector<Tensor> outs(nouts);
  {
    ActiveTrace active(&s);
    fn(proxies.data(), proxies.size(), outs.data(), nouts);
  }
  for (size_t i = 0; i < nouts; ++i) {
    CT_CHECK(outs[i].defined(), CT_ERROR_INVALID_ARGUMENT, "trace: the function left output ", i, " unset");
    Ref r;
    auto it = s.refs.find(outs[i].impl());
    if (it != s.refs.end()) {
      r = it->second;
    } else {
      CT_CHECK(!outs[i]->device().is_meta() || outs[i]->shape_env() != env, CT_ERROR_GRAPH_BREAK, "trace: output ", i,
               " was made from traced tensors outside the operator library. Compute it with ctorch operators");
      ActiveTrace active(&s);  // a captured tensor returned as is becomes a constant output
      enter(s, outs[i].impl(), r, builtin_op("clone"));
    }
    s.graph.outputs.push_back(r);
  }
  CT_CHECK(env->num_symbols() == s.graph.sources.size(), CT_ERROR_GRAPH_BREAK, "trace: the function made ",
           env->num_symbols() - s.graph.sources.size(),
           " symbol(s) the graph cannot bind from its inputs. Use sizes of the inputs, or ct_tensor_sym_item of an input");
  for (const auto& [cond, message] : env->runtime_asserts()) {
    RuntimeAssert a;
    a.cond = cond;
    a.message = message;
    collect_symbols(cond, a.symbols);
    s.graph.asserts.push_back(std::move(a));
  }
  return std::move(s.graph);
}

JointTrace trace_joint(sym::ShapeEnv* env, const std::vector<ProxySpec>& inputs, const std::vector<bool>& requires_grad,
                       const TraceFn& fn, size_t nouts) {
  install_tracer();
  TraceState s;
  s.env = env;
  s.joint = true;
  s.device = inputs.empty() ? runtime::current_device() : inputs[0].device;
  s.graph.set_env(env);
  s.graph.num_inputs = inputs.size();
  std::vector<const TensorImpl*> proxies;
  std::vector<Tensor> leaves;
  JointTrace j;
  for (size_t i = 0; i < inputs.size(); ++i) {
    proxies.push_back(add_placeholder(s, inputs[i], "x" + std::to_string(i)));
    if (!requires_grad[i]) continue;
    autograd::set_requires_grad(*proxies.back(), true, "ct_compile");
    leaves.push_back(Tensor::borrow(proxies.back()));
    j.leaves.push_back(GradLeaf{static_cast<int32_t>(i), -1});
  }
  std::vector<Tensor> outs(nouts), grads;
  {
    ActiveTrace active(&s);
    fn(proxies.data(), proxies.size(), outs.data(), nouts);
    for (const auto& [index, standin] : s.grad_constants) {
      leaves.push_back(standin);
      j.leaves.push_back(GradLeaf{-1, index});
    }
    std::vector<Tensor> roots, tangents;
    s.first_tangent = static_cast<int32_t>(s.graph.nodes.size());
    for (size_t k = 0; k < nouts; ++k) {
      CT_CHECK(outs[k].defined(), CT_ERROR_INVALID_ARGUMENT, "trace: the function left output ", k, " unset");
      Ref r;
      CT_CHECK(known(s, outs[k].impl(), r), CT_ERROR_NOT_IMPLEMENTED, "trace: output ", k,
               " is a captured tensor or was made outside the operator library");
      const Node::Kind kind = s.graph.nodes[r.node].kind;
      CT_CHECK(kind == Node::Kind::Call, CT_ERROR_NOT_IMPLEMENTED, "trace: output ", k,
               " is an input or a captured tensor as is; a compiled backward needs every output computed");
      CT_CHECK(std::find(s.graph.outputs.begin(), s.graph.outputs.end(), r) == s.graph.outputs.end(),
               CT_ERROR_NOT_IMPLEMENTED, "trace: output ", k, " repeats an earlier output");
      s.graph.outputs.push_back(r);
      j.tangent.push_back(-1);
      if (!outs[k]->requires_grad()) continue;
      ProxySpec spec;
      for (int64_t n : outs[k]->sizes()) spec.sizes.push_back(SymInt(n));
      spec.dtype = outs[k]->dtype();
      spec.device = s.graph.meta(r).device;
      j.tangent.back() = static_cast<int32_t>(tangents.size());
      tangents.push_back(Tensor::borrow(add_placeholder(s, spec, "tangent" + std::to_string(tangents.size()))));
      roots.push_back(outs[k]);
    }
    s.backward = true;
    if (!roots.empty() && !leaves.empty()) {
      autograd::BackwardOptions opt;
      opt.allow_unused = true;
      grads = autograd::grad(roots, tangents, leaves, opt, "ct_compile");
    }
  }
  // A leaf no output depends on gets no gradient output.
  std::vector<GradLeaf> used;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) continue;
    Ref r;
    CT_CHECK(known(s, grads[i].impl(), r), CT_ERROR_NOT_IMPLEMENTED,
             "trace: the gradient of a leaf was made outside the operator library");
    s.graph.outputs.push_back(r);
    used.push_back(j.leaves[i]);
  }
  j.leaves = std::move(used);
  CT_CHECK(env->num_symbols() == 0, CT_ERROR_NOT_IMPLEMENTED, "trace: a joint graph needs static sizes");
  j.num_outputs = nouts;
  j.graph = std::move(s.graph);
  return j;
}

// A composite operator may build a result without the env (a 0-dim meta tensor from a factory),
// so what the graph recorded counts too.
bool is_proxy(const TensorImpl& t) {
  const TraceState* s = t_active;
  return s && t.device().is_meta() && (t.shape_env() == s->env || s->refs.count(&t));
}

void check_data_read(const TensorImpl& t, const char* what) {
  CT_CHECK(!is_proxy(t), CT_ERROR_GRAPH_BREAK, what, ": reads the data of a traced tensor (", t.sym_sizes(), ", ",
           t.dtype(), "), which tracing does not have. Keep data reads outside the compiled function, or use "
           "ct_tensor_sym_item for a size or count");
}

void record_item(const TensorImpl& t, SymInt symbol) {
  TraceState* s = t_active;
  if (!s || !is_proxy(t)) return;
  auto it = s->refs.find(&t);
  CT_CHECK(it != s->refs.end(), CT_ERROR_GRAPH_BREAK, "ct_tensor_sym_item: the tensor was made outside the "
           "operator library, so the graph cannot say where its value comes from");
  const int64_t k = symbol.node()->value.i;
  CT_CHECK(k == static_cast<int64_t>(s->graph.sources.size()), CT_ERROR_GRAPH_BREAK,
           "ct_tensor_sym_item: symbols were made in the traced function's ShapeEnv other than by sym_item of "
           "its tensors; the graph cannot bind them");
  Node n;
  n.kind = Node::Kind::Item;
  n.name = s->graph.fresh_name("item");
  n.index = k;
  n.src = it->second;
  const int32_t idx = append(*s, std::move(n));
  SymbolSource src;
  src.kind = SymbolSource::Kind::Item;
  src.node = idx;
  s->graph.sources.push_back(src);
}

}  // namespace ct::compile
