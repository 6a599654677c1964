#include "compile/trace.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "dispatch/dispatcher.h"
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
};

thread_local TraceState* t_active = nullptr;

int32_t append(TraceState& s, Node&& n) {
  s.graph.nodes.push_back(std::move(n));
  return static_cast<int32_t>(s.graph.nodes.size() - 1);
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
  CT_CHECK(!t->device().is_meta() || t->shape_env() != s.env, CT_ERROR_GRAPH_BREAK, op.full_name,
           ": an argument (", t->sym_sizes(), ", ", t->dtype(), ") was made from traced tensors outside the "
           "operator library, so the graph cannot say how. Compute it with ctorch operators");
  CT_CHECK(!t->is_symbolic(), CT_ERROR_GRAPH_BREAK, op.full_name, ": an argument (", t->sym_sizes(),
           ") has symbols of another ShapeEnv; pass it as an input of the traced function instead");
  Node c;
  c.kind = Node::Kind::Constant;
  c.name = s.graph.fresh_name("c");
  c.index = static_cast<int64_t>(s.graph.constants.size());
  c.outs.push_back(TensorMeta{t->sym_sizes(), t->dtype(), t->device()});
  s.graph.constants.push_back(Tensor::borrow(t));
  ref = Ref{append(s, std::move(c)), 0};
  Tensor standin = Tensor::adopt(TensorImpl::empty_sym(t->sym_sizes(), t->dtype(), Device{DeviceType::Meta, 0}, s.env));
  const TensorImpl* m = standin.impl();
  s.refs[m] = ref;
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

// Note [The Tracer fallback] records op as a node, then computes it on the meta device with the
// Tracer and Autograd keys off: proxies carry no gradients, and composites record as one node.
void tracer_kernel(void*, Frame& f) {
  TraceState* s = t_active;
  if (!s) return redispatch(f);
  const OperatorDef& op = f.op;
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
    }
  }
  // Any other Device argument says where the result goes (to.device, zeros_like(device=...)).
  for (size_t i = 0; i < f.nargs && op.device_arg < 0; ++i)
    if (f.args[i].kind() == Value::Kind::Device) device = f.args[i].device();
  if (op.device_arg >= 0) {
    const Value& d = f.args[op.device_arg];
    device = d.kind() == Value::Kind::Device ? d.device() : runtime::current_device();
    args[op.device_arg] = Value(Device{DeviceType::Meta, 0});
  }
  if (op.schema.mutates() && f.nargs && f.args[0].is_tensor())
    CT_CHECK(s->graph.nodes[node.args[0].refs[0].node].kind != Node::Kind::Constant, CT_ERROR_GRAPH_BREAK,
             op.full_name, ": writes in place to a tensor captured from outside the traced function. Pass that "
             "tensor as an input, or write to a copy");
  {
    DispatchKeyGuard off(DispatchKeySet(), DispatchKeySet(DispatchKey::Tracer).add(DispatchKey::Autograd));
    dispatch(op, args.data(), args.size(), f.outs, f.nouts);
  }
  for (size_t i = 0; i < f.nouts; ++i)
    node.outs.push_back(f.outs[i].defined() ? TensorMeta{f.outs[i]->sym_sizes(), f.outs[i]->dtype(), device}
                                            : TensorMeta{});
  node.name = s->graph.fresh_name(op.schema.name);
  const int32_t idx = append(*s, std::move(node));
  for (size_t i = 0; i < f.nouts; ++i) {
    if (!f.outs[i].defined()) continue;
    s->refs[f.outs[i].impl()] = Ref{idx, static_cast<int32_t>(i)};
    s->keep.push_back(f.outs[i]);
  }
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
  for (size_t i = 0; i < inputs.size(); ++i) {
    Tensor p = make_proxy(inputs[i], env);
    Node n;
    n.kind = Node::Kind::Placeholder;
    n.name = s.graph.fresh_name("x" + std::to_string(i));
    n.index = static_cast<int64_t>(i);
    n.outs.push_back(TensorMeta{p->sym_sizes(), inputs[i].dtype, inputs[i].device});
    s.refs[p.impl()] = Ref{append(s, std::move(n)), 0};
    proxies.push_back(p.impl());
    s.keep.push_back(std::move(p));
  }
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
