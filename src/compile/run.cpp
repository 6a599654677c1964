#include "compile/run.h"

#include "compile/fuse.h"
#include "dispatch/dispatcher.h"
#include "ops/cpu/cast.h"
#include "symbolic/eval.h"

namespace ct::compile {

std::vector<sym::BoundValue> bind_inputs(const Graph& g, ArrayRef<const TensorImpl*> inputs) {
  std::vector<sym::BoundValue> binding(g.sources.size());
  for (size_t k = 0; k < g.sources.size(); ++k) {
    const SymbolSource& s = g.sources[k];
    binding[k].i = s.kind == SymbolSource::Kind::InputSize ? inputs[s.input]->sym_sizes()[s.dim].expect_int() : 0;
  }
  return binding;
}

void box_args(const Node& node, const std::vector<std::vector<Tensor>>& env, ArrayRef<sym::BoundValue> binding,
              BoxedArgs& out) {
  out.values.clear();
  out.int_lists.assign(node.args.size(), {});
  out.tensor_lists.assign(node.args.size(), {});
  for (size_t i = 0; i < node.args.size(); ++i) {
    const Arg& a = node.args[i];
    switch (a.kind) {
      case Arg::Kind::None: out.values.emplace_back(); break;
      case Arg::Kind::Tensor: out.values.emplace_back(env[a.refs[0].node][a.refs[0].out].impl()); break;
      case Arg::Kind::TensorList:
        for (Ref r : a.refs) out.tensor_lists[i].push_back(env[r.node][r.out].impl());
        out.values.emplace_back(ArrayRef<const TensorImpl*>(out.tensor_lists[i]));
        break;
      case Arg::Kind::Int: out.values.emplace_back(a.i); break;
      case Arg::Kind::SymInt: out.values.emplace_back(eval_symint(a.ints[0], binding)); break;
      case Arg::Kind::Double: out.values.emplace_back(a.d); break;
      case Arg::Kind::Bool: out.values.emplace_back(a.i != 0); break;
      case Arg::Kind::IntList:
      case Arg::Kind::SymIntList:
        for (SymInt v : a.ints) out.int_lists[i].push_back(eval_symint(v, binding));
        out.values.emplace_back(IntArrayRef(out.int_lists[i]));
        break;
      case Arg::Kind::DType: out.values.emplace_back(static_cast<DType>(a.i)); break;
      case Arg::Kind::Device: out.values.emplace_back(a.device); break;
      case Arg::Kind::String: out.values.emplace_back(a.s.c_str()); break;
    }
  }
}

namespace {

int64_t read_item(const Graph& g, const Node& n, const Tensor& t) {
  const TensorImpl& x = *t.impl();
  CT_CHECK(x.numel() == 1 && is_integral(x.dtype(), true), CT_ERROR_SHAPE, "item node ", n.name, " (",
           g.env().symbols()[n.index].name, "): needs one integer or bool element, got ", x.sizes(), " of ",
           x.dtype(), ". Pass a one-element integer tensor");
  CT_CHECK(x.device().is_cpu(), CT_ERROR_DEVICE, "item node ", n.name, ": the tensor is on ", x.device(),
           "; pass it on the CPU");
  int64_t v = 0;
  visit_dtype(x.dtype(), "item", [&](auto tag) {
    using T = typename decltype(tag)::type;
    v = cpu::cast_value<int64_t>(*x.data_as<T>());
  });
  return v;
}

void check_asserts(const Graph& g, ArrayRef<sym::BoundValue> binding, const std::vector<bool>& bound, int32_t symbol) {
  for (const RuntimeAssert& a : g.asserts) {
    bool ready = false, all = true;
    for (int32_t s : a.symbols) {
      ready |= s == symbol;
      all &= bound[s];
    }
    if (!ready || !all) continue;
    CT_CHECK(sym::evaluate(a.cond, binding).i != 0, CT_ERROR_GUARD, "runtime assertion ", g.env().to_string(a.cond),
             " failed with ", g.env().symbols()[symbol].name, " = ", binding[symbol].i, ": ", a.message);
  }
}

}  // namespace

void run_graph(const Graph& g, ArrayRef<const TensorImpl*> inputs, std::vector<sym::BoundValue>& binding,
               std::vector<Tensor>& outs) {
  std::vector<std::vector<Tensor>> env(g.nodes.size());
  std::vector<bool> bound(g.sources.size());
  for (size_t k = 0; k < g.sources.size(); ++k) bound[k] = g.sources[k].kind == SymbolSource::Kind::InputSize;
  std::vector<int32_t> left = g.use_counts();  // uses not yet run
  BoxedArgs boxed;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::vector<Tensor>& results = env[i];
    switch (n.kind) {
      case Node::Kind::Placeholder: results.push_back(Tensor::borrow(inputs[n.index])); break;
      case Node::Kind::Constant: results.push_back(g.constants[n.index]); break;
      case Node::Kind::Item: {
        binding[n.index].i = read_item(g, n, env[n.src.node][n.src.out]);
        bound[n.index] = true;
        check_asserts(g, binding, bound, static_cast<int32_t>(n.index));
        break;
      }
      case Node::Kind::Call: {
        box_args(n, env, binding, boxed);
        results.resize(n.outs.size());
        dispatch(*n.op, boxed.values.data(), boxed.values.size(), results.data(), results.size());
        break;
      }
      case Node::Kind::Fused: {
        std::vector<const TensorImpl*> ins;
        for (const Arg& a : n.args) ins.push_back(env[a.refs[0].node][a.refs[0].out].impl());
        results.resize(n.outs.size());
        n.fused->run(ins, binding, results.data());
        break;
      }
    }
    // Free intermediates at their last use, so peak memory is what eager execution would hold.
    for (const Arg& a : n.args)
      for (Ref r : a.refs)
        if (--left[r.node] == 0) env[r.node].clear();
    if (n.kind == Node::Kind::Item && --left[n.src.node] == 0) env[n.src.node].clear();
  }
  outs.clear();
  for (Ref r : g.outputs) outs.push_back(env[r.node][r.out]);
}

}  // namespace ct::compile
