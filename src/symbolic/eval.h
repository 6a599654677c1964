// eval.h - one node's operation applied to its arguments' values (the evaluator and the hints).
#pragma once

#include "symbolic/shape_env.h"

namespace ct::sym {

/// n's operation on argument values argv (one per n.args, in order). Const and Symbol nodes are
/// not operations: their value comes from the node or the binding.
BoundValue apply(const Node& n, const BoundValue* argv);

/// n's value under binding (one value per symbol of the env), walking the tree; an Ite evaluates
/// only its chosen branch.
BoundValue evaluate(const Node* n, ArrayRef<BoundValue> binding);

}  // namespace ct::sym
