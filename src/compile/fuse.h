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

/// When cpu groups run as C++ built by the system compiler (Note [C++ kernels] in fuse_cpp.cpp)
/// instead of their tile loops: never, once hot (built in the background: Note [Building C++
/// kernels in the background]), or from the start (built while fusing).
struct CppKernels {
  enum When { Never, WhenHot, Always } when = Never;
  int64_t hot_after_ns = 20'000'000;   // WhenHot: time a group runs its tile loops before its build
};

/// Replaces each fusible group of call nodes of g by one Fused node (see the Note in fuse.cpp).
void fuse(Graph& g, CppKernels cpp_kernels = {});

}  // namespace ct::compile
