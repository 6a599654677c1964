// run.h - running a graph: the interpreter behind the "eager" backend, ct_program_call, and the
// steps of the fused backend that stay unfused.
#pragma once

#include <vector>

#include "compile/graph.h"

namespace ct::compile {

/// The binding of g's symbols that inputs give (InputSize sources); Item symbols are left 0 until
/// the graph runs.
std::vector<sym::BoundValue> bind_inputs(const Graph& g, ArrayRef<const TensorImpl*> inputs);

/// Runs g on inputs (one per placeholder), dispatching every call node (so autograd records them
/// when inputs need grad) and running fused nodes' kernels; outs receives one tensor per output.
/// binding comes from bind_inputs; item nodes complete it, and each runtime assertion is checked
/// as soon as its symbols are bound (CT_ERROR_GUARD naming it when it fails).
void run_graph(const Graph& g, ArrayRef<const TensorImpl*> inputs, std::vector<sym::BoundValue>& binding,
               std::vector<Tensor>& outs);

/// Fills values (and the lists they borrow, kept in storage) with node's arguments as the
/// dispatcher takes them, reading tensor Refs from env and evaluating SymInts under binding.
struct BoxedArgs {
  std::vector<Value> values;
  std::vector<std::vector<int64_t>> int_lists;
  std::vector<std::vector<const TensorImpl*>> tensor_lists;
};
void box_args(const Node& node, const std::vector<std::vector<Tensor>>& env, ArrayRef<sym::BoundValue> binding,
              BoxedArgs& out);

}  // namespace ct::compile
