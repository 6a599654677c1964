// cuda_graph.h - mode "reduce-overhead" on CUDA: a compiled graph captured once as a CUDA graph and
// replayed, so a call costs one graph launch instead of one launch per kernel.
//
// Note [CUDA graphs for compiled functions]
// An entry whose inputs all live on one CUDA device, need no gradient, and whose graph reads no
// tensor elsewhere and no value on the host (no item), is replayable. Its first call runs as
// usual (warming up NVRTC, cuBLAS handles and the caching allocator). The second captures: the
// inputs are copied into static input tensors the entry owns, the graph runs once on a private
// stream so that stream's allocator pool holds every block it needs, and then runs again under
// stream capture: every allocation is served from that pool (cudaMalloc is not allowed while
// capturing), and the outputs it allocates become the entry's static outputs. Every later call
// copies its inputs into the static inputs, replays, and returns copies of the static outputs (so
// results stay valid after the next call, unlike torch's cudagraph outputs). Ordering with the
// caller's stream is by events. If capture fails (an allocation the pool cannot serve, a
// synchronizing operation), the entry warns once and runs as usual from then on. Sizes are those
// of the capture: a call of a dynamic entry with other sizes runs as usual. Calls of one entry from
// several threads take turns, since they share the static tensors.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "compile/graph.h"

namespace ct::compile {

class CudaGraphReplay {
 public:
  /// A replay for graph g when g is replayable (see the Note), else null.
  static std::unique_ptr<CudaGraphReplay> make_if_replayable(const Graph& g);
  ~CudaGraphReplay();

  /// Runs g on inputs (warm-up, capture or replay; see the Note).
  void run(const Graph& g, ArrayRef<const TensorImpl*> inputs, std::vector<sym::BoundValue>& binding,
           std::vector<Tensor>& outs);

 private:
  explicit CudaGraphReplay(int device) : device_(device) {}
  void capture(const Graph& g, ArrayRef<const TensorImpl*> inputs, std::vector<sym::BoundValue>& binding);
  void replay(ArrayRef<const TensorImpl*> inputs, std::vector<Tensor>& outs);
  bool same_sizes(ArrayRef<const TensorImpl*> inputs) const;

  std::mutex mu_;  // one call at a time: calls share the static tensors
  int device_;
  int calls_ = 0;
  bool failed_ = false;
  void* stream_ = nullptr;
  void* exec_ = nullptr;
  void* before_ = nullptr;  // event: the caller's stream reached the call
  void* after_ = nullptr;   // event: the replay finished
  std::vector<Tensor> static_inputs_, static_outputs_;
};

}  // namespace ct::compile
