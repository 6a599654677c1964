// graph_builder.h - small graphs built by hand for the compile tests. Each call is computed eagerly
// as it is added, which gives the node its result metas and the test its reference value.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "compile/graph.h"
#include "compile/run.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"

namespace ct::compile::graph_testing {

inline Arg tensor_arg(Ref r) {
  Arg a;
  a.kind = Arg::Kind::Tensor;
  a.refs = {r};
  return a;
}
inline Arg int_arg(int64_t v) {
  Arg a;
  a.kind = Arg::Kind::Int;
  a.i = v;
  return a;
}
inline Arg double_arg(double v) {
  Arg a;
  a.kind = Arg::Kind::Double;
  a.d = v;
  return a;
}
inline Arg bool_arg(bool v) {
  Arg a;
  a.kind = Arg::Kind::Bool;
  a.i = v;
  return a;
}
inline Arg list_arg(std::vector<int64_t> v) {
  Arg a;
  a.kind = Arg::Kind::IntList;
  for (int64_t x : v) a.ints.push_back(SymInt(x));
  return a;
}
inline Arg none_arg() { return Arg(); }

inline TensorMeta meta_of(const Tensor& t) { return TensorMeta{SymDimVector(as_sym(t->sizes())), t->dtype(), t->device()}; }

/// A contiguous tensor of sizes with values in [-2, 2) from a fixed linear congruential sequence.
inline Tensor filled(IntArrayRef sizes, DType dtype = DType::Float32, uint32_t seed = 1) {
  Tensor t = ops::empty(sizes, DType::Float64, kCPU);
  double* p = t->data_as<double>();
  for (int64_t i = 0; i < t->numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = static_cast<double>(seed >> 8) / static_cast<double>(1u << 24) * 4.0 - 2.0;
  }
  return ops::to(t, dtype);
}

/// True when a and b have the same sizes, dtype and element bits.
inline bool same_bits(const Tensor& a, const Tensor& b) {
  if (a->dtype() != b->dtype() || !identical(as_sym(a->sizes()), as_sym(b->sizes()))) return false;
  const Tensor x = ops::contiguous(a), y = ops::contiguous(b);
  return std::memcmp(x->data(), y->data(), static_cast<size_t>(x->numel()) * itemsize(x->dtype())) == 0;
}

class GraphBuilder {
 public:
  Graph g;
  std::vector<std::vector<Tensor>> values;  // each node's eager results
  std::vector<Tensor> inputs;

  Ref input(const Tensor& t) {
    Node n;
    n.kind = Node::Kind::Placeholder;
    n.name = g.fresh_name("x" + std::to_string(g.num_inputs));
    n.index = static_cast<int64_t>(g.num_inputs++);
    n.outs = {meta_of(t)};
    inputs.push_back(t);
    return add(std::move(n), {t});
  }

  Ref constant(const Tensor& t, bool folded = false) {
    Node n;
    n.kind = Node::Kind::Constant;
    n.name = g.fresh_name("c");
    n.index = static_cast<int64_t>(g.constants.size());
    n.folded = folded;
    n.outs = {meta_of(t)};
    g.constants.push_back(t);
    return add(std::move(n), {t});
  }

  /// A call of op (its full name) with every schema argument given, computed eagerly now.
  Ref call(const std::string& op, std::vector<Arg> args) {
    Node n;
    n.op = Registry::get().find(op);
    n.name = g.fresh_name(n.op->schema.name);
    n.args = std::move(args);
    BoxedArgs boxed;
    box_args(n, values, {}, boxed);
    std::vector<Tensor> outs(n.op->num_returns());
    dispatch(*n.op, boxed.values.data(), boxed.values.size(), outs.data(), outs.size());
    for (const Tensor& t : outs) n.outs.push_back(meta_of(t));
    return add(std::move(n), std::move(outs));
  }

  const Tensor& value(Ref r) const { return values[r.node][r.out]; }

  /// Runs g on ins (its inputs by default).
  std::vector<Tensor> run(const std::vector<Tensor>& ins = {}) const {
    std::vector<const TensorImpl*> ptrs;
    for (const Tensor& t : ins.empty() ? inputs : ins) ptrs.push_back(t.impl());
    std::vector<sym::BoundValue> binding = bind_inputs(g, ptrs);
    std::vector<Tensor> outs;
    run_graph(g, ptrs, binding, outs);
    return outs;
  }

 private:
  Ref add(Node n, std::vector<Tensor> results) {
    g.nodes.push_back(std::move(n));
    values.push_back(std::move(results));
    return Ref{static_cast<int32_t>(g.nodes.size() - 1), 0};
  }
};

/// Number of nodes of g of kind k.
inline size_t count(const Graph& g, Node::Kind k) {
  size_t c = 0;
  for (const Node& n : g.nodes) c += n.kind == k;
  return c;
}

}  // namespace ct::compile::graph_testing
