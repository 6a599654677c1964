// graphs.cu - CUDA graph capture and replay of a stream's work.
#include "status.h"

namespace ct::cuda {

int graph_capture_begin(void* stream) {
  CT_CUDA_ARG(stream && stream != CT_CUDA_STREAM_PER_THREAD, "graph_capture_begin: capture needs a stream from "
              "stream_create, not a default stream");
  // Thread-local mode: only this thread's unsafe calls (cudaMalloc, syncs) invalidate the capture.
  CT_CUDA_TRY(cudaStreamBeginCapture(as_stream(stream), cudaStreamCaptureModeThreadLocal));
  return 0;
}

int graph_capture_end(void* stream, void** graph_exec) {
  CT_CUDA_ARG(graph_exec, "graph_capture_end: graph_exec is NULL");
  cudaGraph_t graph = nullptr;
  const cudaError_t e = cudaStreamEndCapture(as_stream(stream), &graph);
  if (e != cudaSuccess) {
    if (graph) cudaGraphDestroy(graph);
    return check(e, "cudaStreamEndCapture (the capture was invalidated by an earlier call)");
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t ie = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);  // the executable graph keeps what it needs
  if (const int st = check(ie, "cudaGraphInstantiate")) return st;
  *graph_exec = exec;
  return 0;
}

int graph_launch(void* graph_exec, void* stream) {
  CT_CUDA_ARG(graph_exec, "graph_launch: graph_exec is NULL");
  CT_CUDA_TRY(cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph_exec), as_stream(stream)));
  return 0;
}

int graph_destroy(void* graph_exec) {
  if (!graph_exec) return 0;
  CT_CUDA_TRY(cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(graph_exec)));
  return 0;
}

}  // namespace ct::cuda
