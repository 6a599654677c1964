// fuse.h - fusion of pointwise chains and their trailing reductions into one kernel (CPU tile
// loops, or CUDA C compiled with NVRTC: see fuse_cuda.h).
//
// A FusedKernel replaces a connected group of call nodes in a graph by one Fused node: it reads the
// group's inputs once and computes every element of its outputs tile by tile, with the
// intermediates kept in cache-sized buffers instead of full tensors.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compile/graph.h"

namespace ct::compile {

class FusedKernel {
 public:
  virtual ~FusedKernel() = default;
  /// Computes the region's outputs (one per Node::outs of its Fused node) from its inputs (one
  /// per Node::args, in order), with the graph's symbols bound by binding.
  virtual void run(ArrayRef<const TensorImpl*> inputs, ArrayRef<sym::BoundValue> binding, Tensor* outs) const = 0;
  /// Text for graph printing: "fused[mul, sigmoid, add]".
  virtual std::string describe() const = 0;
  /// The source of the kernel generated for a device ("" on the cpu, which runs tile loops), and
  /// its pointer parameters in order: each an output (true) or input (false) of the node, by number.
  virtual std::string device_source() const { return ""; }
  virtual std::vector<std::pair<bool, int32_t>> device_params() const { return {}; }
};

/// Replaces each fusible group of call nodes of g by one Fused node (see the Note in fuse.cpp).
/// With cpp_kernels, cpu groups run as C++ built by the system compiler (Note [C++ kernels] in
/// fuse_cpp.cpp) where it can be built.
void fuse(Graph& g, bool cpp_kernels = false);

}  // namespace ct::compile
