#include "compile/passes.h"

#include <cstring>
#include <sstream>
#include <unordered_map>

#include "compile/run.h"
#include "dispatch/dispatcher.h"
#include "dispatch/grad_mode.h"

namespace ct::compile {

bool is_random(const OperatorDef& op) {
  for (const Argument& a : op.schema.args)
    if (a.type == ArgType::Generator) return true;
  return false;
}

void compact(Graph& g, const std::vector<bool>& keep, const std::function<Ref(Ref)>& forward) {
  std::vector<int32_t> index(g.nodes.size(), -1);
  int32_t kept = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (keep[i]) index[i] = kept++;
  auto map = [&](Ref r) {
    if (forward) r = forward(r);
    CT_CHECK(index[r.node] >= 0, CT_ERROR_INTERNAL, "compile: a pass dropped node ", g.nodes[r.node].name,
             " that is still used");
    return Ref{index[r.node], r.out};
  };
  std::vector<int64_t> constant_index(g.constants.size(), -1);
  std::vector<Tensor> constants;
  std::vector<Node> nodes;
  nodes.reserve(static_cast<size_t>(kept));
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!keep[i]) continue;
    Node n = std::move(g.nodes[i]);
    for (Arg& a : n.args)
      for (Ref& r : a.refs) r = map(r);
    if (n.kind == Node::Kind::Item) n.src = map(n.src);
    if (n.kind == Node::Kind::Constant) {
      int64_t& k = constant_index[n.index];
      if (k < 0) {
        k = static_cast<int64_t>(constants.size());
        constants.push_back(std::move(g.constants[n.index]));
      }
      n.index = k;
    }
    nodes.push_back(std::move(n));
  }
  for (Ref& r : g.outputs) r = map(r);
  for (SymbolSource& s : g.sources)
    if (s.kind == SymbolSource::Kind::Item) s.node = index[s.node];
  g.nodes = std::move(nodes);
  g.constants = std::move(constants);
}

namespace {

bool has_mutation(const Graph& g) {
  for (const Node& n : g.nodes)
    if (n.kind == Node::Kind::Call && n.op->schema.mutates()) return true;
  return false;
}

// Two calls compute the same thing exactly when these keys are equal: the operator, then every
// argument with Refs already forwarded to their first equal node, doubles by their bits (0.0 and
// -0.0 give different sums) and SymInts by their raw bits (nodes are hash-consed).
std::string call_key(const Node& n, const std::vector<int32_t>& first) {
  std::ostringstream os;
  os << static_cast<const void*>(n.op);
  for (const Arg& a : n.args) {
    uint64_t d;
    std::memcpy(&d, &a.d, sizeof d);
    os << '|' << int(a.kind) << ':' << a.i << ':' << d << ':' << a.device << ':' << a.s.size() << ':' << a.s;
    for (Ref r : a.refs) os << ",%" << first[r.node] << '.' << r.out;
    for (SymInt v : a.ints) os << ",#" << v.raw();
  }
  return os.str();
}

}  // namespace

void eliminate_dead_code(Graph& g) {
  std::vector<bool> live(g.nodes.size(), false);
  for (Ref r : g.outputs) live[r.node] = true;
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    if (n.kind == Node::Kind::Placeholder || n.kind == Node::Kind::Item ||
        (n.kind == Node::Kind::Call && (n.op->schema.mutates() || is_random(*n.op))))
      live[i] = true;
    if (!live[i]) continue;
    for (const Arg& a : n.args)
      for (Ref r : a.refs) live[r.node] = true;
    if (n.kind == Node::Kind::Item) live[n.src.node] = true;
  }
  compact(g, live);
}

void eliminate_common_subexpressions(Graph& g) {
  if (has_mutation(g)) return;
  std::vector<int32_t> first(g.nodes.size());
  std::vector<bool> keep(g.nodes.size(), true);
  std::unordered_map<std::string, int32_t> seen;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    first[i] = static_cast<int32_t>(i);
    const Node& n = g.nodes[i];
    if (n.kind != Node::Kind::Call || is_random(*n.op)) continue;
    auto [it, added] = seen.emplace(call_key(n, first), static_cast<int32_t>(i));
    if (added) continue;
    first[i] = it->second;
    keep[i] = false;
  }
  compact(g, keep, [&](Ref r) { return Ref{first[r.node], r.out}; });
}

namespace {

bool foldable(const Graph& g, const Node& n) {
  if (n.kind != Node::Kind::Call || is_random(*n.op) || n.outs.size() != 1) return false;
  int64_t numel = 1;
  for (SymInt s : n.outs[0].sizes) {
    if (s.is_symbolic()) return false;
    numel *= s.raw();
    if (numel > kMaxFoldedNumel) return false;
  }
  for (const Arg& a : n.args) {
    if (a.kind == Arg::Kind::SymInt || a.kind == Arg::Kind::SymIntList) return false;
    for (Ref r : a.refs)
      if (g.nodes[r.node].kind != Node::Kind::Constant || !g.nodes[r.node].folded) return false;
  }
  return true;
}

}  // namespace

void fold_constants(Graph& g) {
  // A folded constant is shared by every call: an in-place write would change it for the next.
  if (has_mutation(g)) return;
  // Nor may the caller get a constant, or a view of one, to write into.
  std::vector<bool> exposed(g.nodes.size(), false);
  for (Ref r : g.outputs) exposed[r.node] = true;
  for (const Node& n : g.nodes)
    if (n.kind == Node::Kind::Call && n.op->is_view)
      for (const Arg& a : n.args)
        for (Ref r : a.refs) exposed[r.node] = true;
  std::vector<std::vector<Tensor>> env(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].kind == Node::Kind::Constant) env[i].push_back(g.constants[g.nodes[i].index]);
  autograd::GradModeGuard no_grad(autograd::GradMode::NoGrad);
  BoxedArgs boxed;
  bool changed = false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (exposed[i] || !foldable(g, n)) continue;
    Tensor result;
    try {
      box_args(n, env, {}, boxed);
      dispatch(*n.op, boxed.values.data(), boxed.values.size(), &result, 1);
    } catch (const Error&) {
      continue;  // the call fails at run time too, with the message eager gives
    }
    env[i].push_back(result);
    n.kind = Node::Kind::Constant;
    n.op = nullptr;
    n.args.clear();
    n.index = static_cast<int64_t>(g.constants.size());
    n.folded = true;
    g.constants.push_back(std::move(result));
    changed = true;
  }
  if (changed) eliminate_dead_code(g);
}

void scalarize_wrapped_numbers(Graph& g) {
  for (Node& n : g.nodes) {
    if (n.kind != Node::Kind::Call || n.op->element_form != ElementForm::Binary || n.op->schema.mutates() ||
        n.args.size() < 2 || n.args[1].kind != Arg::Kind::Tensor)
      continue;
    const Node& c = g.nodes[n.args[1].refs[0].node];
    if (c.kind != Node::Kind::Constant) continue;
    const TensorImpl& t = *g.constants[c.index];
    if (!t.is_wrapped_number() || t.dim() != 0 || !t.device().is_cpu()) continue;
    const OperatorDef* scalar = nullptr;
    for (const OperatorDef* o : Registry::get().overloads(n.op->schema.name))
      if (o->element_form == ElementForm::BinaryScalar && o->schema.args.size() == n.args.size()) scalar = o;
    if (!scalar) continue;
    Arg a;
    if (t.dtype() == DType::Float64) {
      a.kind = Arg::Kind::Double;
      a.d = *t.data_as<double>();
    } else if (t.dtype() == DType::Int64) {
      a.kind = Arg::Kind::Int;
      a.i = *t.data_as<int64_t>();
    } else {
      continue;
    }
    n.op = scalar;
    n.args[1] = std::move(a);
  }
}

namespace {

// Whether broadcasting a against b gives out, judged from the sizes alone (SymInts by identity).
bool broadcasts_to(SymIntArrayRef a, SymIntArrayRef b, SymIntArrayRef out) {
  if (out.size() != std::max(a.size(), b.size())) return false;
  for (size_t k = 1; k <= out.size(); ++k) {
    const SymInt x = k <= a.size() ? a[a.size() - k] : SymInt(1);
    const SymInt y = k <= b.size() ? b[b.size() - k] : SymInt(1);
    auto one = [](SymInt v) { return !v.is_symbolic() && v.raw() == 1; };
    SymInt want;
    if (x.raw() == y.raw() || one(y)) {
      want = x;
    } else if (one(x)) {
      want = y;
    } else {
      return false;
    }
    if (want.raw() != out[out.size() - k].raw()) return false;
  }
  return true;
}

}  // namespace

void absorb_expands(Graph& g) {
  const OperatorDef& expand = builtin_op("expand");
  bool changed = false;
  for (Node& n : g.nodes) {
    if (n.kind != Node::Kind::Call || n.op->element_form != ElementForm::Binary || n.op->schema.mutates() ||
        n.args.size() < 2 || n.args[0].kind != Arg::Kind::Tensor || n.args[1].kind != Arg::Kind::Tensor)
      continue;
    for (int side = 0; side < 2; ++side) {
      const Node& e = g.nodes[n.args[side].refs[0].node];
      if (e.kind != Node::Kind::Call || e.op != &expand) continue;
      const Ref src = e.args[0].refs[0];
      const Ref other = n.args[1 - side].refs[0];
      if (!broadcasts_to(g.meta(src).sizes, g.meta(other).sizes, n.outs[0].sizes)) continue;
      n.args[side].refs[0] = src;
      changed = true;
    }
  }
  if (changed) eliminate_dead_code(g);
}

}  // namespace ct::compile
