// joint.h - a compiled forward and backward from one joint graph (Note [Joint forward/backward
// graphs] in trace.h), and the autograd node that runs the backward.
//
// Note [Partitioning a joint graph]
// The forward graph keeps what the function's outputs need; every other node the gradients need
// moves to the backward graph, which recomputes it from saved values there instead of keeping it
// alive between the two. The values the backward reads from the forward (an input, an output, an
// intermediate) are saved: the forward graph returns them after its outputs, and they are the
// backward graph's first placeholders, before the tangents. A saved intermediate that a pointwise
// operator makes from what the backward holds anyway (RMSNorm's x * rsqrt from x and the rsqrt)
// is computed again in the backward rather than written by the forward and read back: memory
// traffic, not arithmetic, is what such an operator costs. Constants are copied into both rather
// than saved. Each graph is then optimized and fused on its own, so a compiled training step runs
// fused kernels in both directions and autograd records one node per call instead of one per
// operator.
#pragma once

#include <memory>
#include <vector>

#include "compile/trace.h"

namespace ct::compile {

struct JointPlan {
  Graph forward;   // the inputs -> the function's outputs, then the saved values
  Graph backward;  // the saved values, then the tangents -> one gradient per leaf
  size_t num_outputs = 0;
  std::vector<int32_t> tangent;       // per output: its tangent's number, or -1 (no gradient flows)
  std::vector<GradLeaf> leaves;       // per gradient
  std::vector<Tensor> leaf_constant;  // per gradient: the captured tensor it is for (undefined for an input)
  std::vector<int32_t> saved_output;  // per saved value: the output it is, or -1

  /// Both graphs as text, for ct_compiled_graph.
  std::string to_string() const;
};

/// Splits j (see Note [Partitioning a joint graph]); the graphs are left unoptimized.
JointPlan partition(JointTrace&& j);

/// Runs plan's forward graph on inputs without recording, then links the differentiable outputs to
/// one backward node (CompiledFunctionBackward) that runs plan's backward graph. outs receives the
/// function's outputs.
void run_joint(const std::shared_ptr<const JointPlan>& plan, ArrayRef<const TensorImpl*> inputs,
               std::vector<Tensor>& outs);

}  // namespace ct::compile
