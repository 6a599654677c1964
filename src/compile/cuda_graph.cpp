#include "compile/cuda_graph.h"

#include "compile/run.h"
#include "core/error.h"
#include "cuda/context.h"
#include "ops/functions.h"
#include "runtime/log.h"

namespace ct::compile {
namespace {

// Releases what a failed capture made; nothing here may throw.
void destroy(const ct_cuda_driver& d, void*& stream, void*& exec, void*& before, void*& after) {
  if (stream) (void)d.stream_synchronize(stream);
  (void)d.graph_destroy(exec);
  (void)d.event_destroy(before);
  (void)d.event_destroy(after);
  (void)d.stream_destroy(stream);
  stream = exec = before = after = nullptr;
}

}  // namespace

std::unique_ptr<CudaGraphReplay> CudaGraphReplay::make_if_replayable(const Graph& g) {
  int device = -1;
  auto on_one_cuda_device = [&](Device d) {
    if (d.type != DeviceType::CUDA || (device >= 0 && d.index != device)) return false;
    device = d.index;
    return true;
  };
  for (const Node& n : g.nodes) {
    if (n.kind == Node::Kind::Item) return nullptr;  // a value read on the host
    for (const TensorMeta& m : n.outs)
      if (!on_one_cuda_device(m.device)) return nullptr;
  }
  for (const Tensor& c : g.constants)
    if (c.defined() && !on_one_cuda_device(c->device())) return nullptr;
  if (device < 0) return nullptr;
  return std::unique_ptr<CudaGraphReplay>(new CudaGraphReplay(device));
}

CudaGraphReplay::~CudaGraphReplay() {
  if (stream_) destroy(cuda::driver(), stream_, exec_, before_, after_);
}

bool CudaGraphReplay::same_sizes(ArrayRef<const TensorImpl*> inputs) const {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i]->sizes().equals(static_inputs_[i]->sizes())) return false;
  return true;
}

void CudaGraphReplay::run(const Graph& g, ArrayRef<const TensorImpl*> inputs, std::vector<sym::BoundValue>& binding,
                          std::vector<Tensor>& outs) {
  std::lock_guard<std::mutex> lock(mu_);
  bool grad = false;
  for (const TensorImpl* t : inputs) grad |= t->requires_grad();
  if (failed_ || grad || calls_++ == 0 || (exec_ && !same_sizes(inputs))) return run_graph(g, inputs, binding, outs);
  if (!exec_) {
    try {
      capture(g, inputs, binding);
    } catch (const Error& e) {
      failed_ = true;
      static_inputs_.clear();
      static_outputs_.clear();
      destroy(cuda::driver(), stream_, exec_, before_, after_);
      runtime::warn_once(str("cuda_graph:", static_cast<const void*>(this)),
                         str("ct_compile (reduce-overhead): capturing a CUDA graph failed, so this entry runs "
                             "kernel by kernel from now on: ", e.message()));
      return run_graph(g, inputs, binding, outs);
    }
  }
  replay(inputs, outs);
}

void CudaGraphReplay::capture(const Graph& g, ArrayRef<const TensorImpl*> inputs, std::vector<sym::BoundValue>& binding) {
  const ct_cuda_driver& d = cuda::driver();
  cuda::set_device(device_);
  for (const TensorImpl* t : inputs) static_inputs_.push_back(ops::clone(Tensor::borrow(t)));
  cuda::check(d.stream_create(device_, &stream_), "ct_compile (reduce-overhead)");
  cuda::check(d.event_create(device_, 0, &before_), "ct_compile (reduce-overhead)");
  cuda::check(d.event_create(device_, 0, &after_), "ct_compile (reduce-overhead)");
  cuda::check(d.event_record(before_, cuda::current_stream(device_)), "ct_compile (reduce-overhead)");
  cuda::check(d.stream_wait_event(stream_, before_), "ct_compile (reduce-overhead)");
  std::vector<const TensorImpl*> ins;
  for (const Tensor& t : static_inputs_) ins.push_back(t.impl());
  cuda::StreamOverride on(stream_);
  {
    std::vector<Tensor> warm;  // fills the private stream's pool; freed before the capture
    run_graph(g, ins, binding, warm);
  }
  cuda::check(d.stream_synchronize(stream_), "ct_compile (reduce-overhead): warm-up");
  cuda::check(d.graph_capture_begin(stream_), "ct_compile (reduce-overhead)");
  try {
    run_graph(g, ins, binding, static_outputs_);
  } catch (...) {
    void* broken = nullptr;
    (void)d.graph_capture_end(stream_, &broken);  // ends the capture; its error is the one thrown
    (void)d.graph_destroy(broken);
    throw;
  }
  cuda::check(d.graph_capture_end(stream_, &exec_), "ct_compile (reduce-overhead): capture");
}

void CudaGraphReplay::replay(ArrayRef<const TensorImpl*> inputs, std::vector<Tensor>& outs) {
  const ct_cuda_driver& d = cuda::driver();
  cuda::set_device(device_);
  void* caller = cuda::current_stream(device_);
  cuda::check(d.event_record(before_, caller), "ct_compile (reduce-overhead)");
  cuda::check(d.stream_wait_event(stream_, before_), "ct_compile (reduce-overhead)");
  {
    cuda::StreamOverride on(stream_);
    for (size_t i = 0; i < inputs.size(); ++i) ops::copy_(static_inputs_[i], Tensor::borrow(inputs[i]));
    cuda::check(d.graph_launch(exec_, stream_), "ct_compile (reduce-overhead): replay");
  }
  cuda::check(d.event_record(after_, stream_), "ct_compile (reduce-overhead)");
  cuda::check(d.stream_wait_event(caller, after_), "ct_compile (reduce-overhead)");
  outs.clear();
  for (const Tensor& t : static_outputs_) outs.push_back(ops::clone(t));
}

}  // namespace ct::compile
