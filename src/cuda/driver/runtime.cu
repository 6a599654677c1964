// runtime.cu - devices, memory, streams, events and copies: thin checked wrappers over the CUDA
// runtime, each failure turned into a status and a message.
#include <cstring>

#include "status.h"

namespace ct::cuda {

int device_count(int* count) {
  CT_CUDA_ARG(count, "device_count: count is NULL");
  *count = 0;
  const cudaError_t e = cudaGetDeviceCount(count);
  if (e == cudaSuccess) return 0;
  *count = 0;
  cudaGetLastError();
  if (is_no_device_error(e)) {  // not a failure: this machine just has no usable GPU
    fail(CT_CUDA_OK, "no CUDA device: cudaGetDeviceCount says %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    return 0;
  }
  return check(e, "cudaGetDeviceCount");
}

int set_device(int device) {
  CT_CUDA_TRY(cudaSetDevice(device));
  return 0;
}

int get_device(int* device) {
  CT_CUDA_ARG(device, "get_device: device is NULL");
  CT_CUDA_TRY(cudaGetDevice(device));
  return 0;
}

int device_properties(int device, char* name, size_t name_capacity, int* major, int* minor, size_t* total_memory,
                      int* multiprocessor_count) {
  cudaDeviceProp p;
  CT_CUDA_TRY(cudaGetDeviceProperties(&p, device));
  if (name && name_capacity > 0) {
    std::strncpy(name, p.name, name_capacity - 1);
    name[name_capacity - 1] = '\0';
  }
  if (major) *major = p.major;
  if (minor) *minor = p.minor;
  if (total_memory) *total_memory = p.totalGlobalMem;
  if (multiprocessor_count) *multiprocessor_count = p.multiProcessorCount;
  return 0;
}

int mem_get_info(int device, size_t* free_bytes, size_t* total_bytes) {
  DeviceGuard g(device);
  if (g.status()) return g.status();
  size_t f = 0, t = 0;
  CT_CUDA_TRY(cudaMemGetInfo(&f, &t));
  if (free_bytes) *free_bytes = f;
  if (total_bytes) *total_bytes = t;
  return 0;
}

int synchronize_device(int device) {
  DeviceGuard g(device);
  if (g.status()) return g.status();
  CT_CUDA_TRY(cudaDeviceSynchronize());
  return 0;
}

int device_malloc(int device, size_t nbytes, void** ptr) {
  CT_CUDA_ARG(ptr, "malloc: ptr is NULL");
  *ptr = nullptr;
  if (nbytes == 0) return 0;
  DeviceGuard g(device);
  if (g.status()) return g.status();
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, nbytes);
  if (e != cudaSuccess) {
    const int st = check(e, "cudaMalloc");
    if (st == CT_CUDA_ERR_OOM)  // the message the caller's memory-pressure path reports
      fail(st, "malloc: cudaMalloc of %zu bytes on cuda:%d failed: out of memory (cudaErrorMemoryAllocation). "
           "Free cached blocks and retry", nbytes, device);
    return st;
  }
  *ptr = p;
  return 0;
}

int device_free(int device, void* ptr) {
  if (!ptr) return 0;
  DeviceGuard g(device);
  if (g.status()) return g.status();
  CT_CUDA_TRY(cudaFree(ptr));
  return 0;
}

int host_alloc_pinned(size_t nbytes, void** ptr) {
  CT_CUDA_ARG(ptr, "host_alloc_pinned: ptr is NULL");
  *ptr = nullptr;
  if (nbytes == 0) return 0;
  CT_CUDA_TRY(cudaHostAlloc(ptr, nbytes, cudaHostAllocPortable));
  return 0;
}

int host_free_pinned(void* ptr) {
  if (!ptr) return 0;
  CT_CUDA_TRY(cudaFreeHost(ptr));
  return 0;
}

int memcpy_async(void* dst, const void* src, size_t nbytes, int kind, void* stream) {
  static const cudaMemcpyKind kinds[] = {cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                         cudaMemcpyDeviceToDevice, cudaMemcpyDefault};
  CT_CUDA_ARG(kind >= 0 && kind <= CT_CUDA_MEMCPY_DEFAULT, "memcpy_async: unknown kind %d. Pass a "
              "ct_cuda_memcpy_kind", kind);
  if (nbytes == 0) return 0;
  CT_CUDA_ARG(dst && src, "memcpy_async: NULL dst or src for %zu bytes", nbytes);
  CT_CUDA_TRY(cudaMemcpyAsync(dst, src, nbytes, kinds[kind], as_stream(stream)));
  return 0;
}

int memset_async(void* ptr, int value, size_t nbytes, void* stream) {
  if (nbytes == 0) return 0;
  CT_CUDA_ARG(ptr, "memset_async: ptr is NULL for %zu bytes", nbytes);
  CT_CUDA_TRY(cudaMemsetAsync(ptr, value & 0xff, nbytes, as_stream(stream)));
  return 0;
}

int stream_create(int device, void** stream) {
  CT_CUDA_ARG(stream, "stream_create: stream is NULL");
  DeviceGuard g(device);
  if (g.status()) return g.status();
  cudaStream_t s = nullptr;
  CT_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  *stream = s;
  return 0;
}

int stream_destroy(void* stream) {
  if (!stream) return 0;
  CT_CUDA_TRY(cudaStreamDestroy(as_stream(stream)));
  return 0;
}

int stream_synchronize(void* stream) {
  CT_CUDA_TRY(cudaStreamSynchronize(as_stream(stream)));
  return 0;
}

// cudaErrorNotReady is an answer, not a failure.
int ready(cudaError_t e, const char* what, int* done) {
  CT_CUDA_ARG(done, "%s: done is NULL", what);
  if (e == cudaErrorNotReady) {
    cudaGetLastError();
    *done = 0;
    return 0;
  }
  if (const int st = check(e, what)) return st;
  *done = 1;
  return 0;
}

int stream_query(void* stream, int* done) { return ready(cudaStreamQuery(as_stream(stream)), "cudaStreamQuery", done); }

int event_create(int device, int enable_timing, void** event) {
  CT_CUDA_ARG(event, "event_create: event is NULL");
  DeviceGuard g(device);
  if (g.status()) return g.status();
  cudaEvent_t e = nullptr;
  CT_CUDA_TRY(cudaEventCreateWithFlags(&e, enable_timing ? cudaEventDefault : cudaEventDisableTiming));
  *event = e;
  return 0;
}

int event_record(void* event, void* stream) {
  CT_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(event), as_stream(stream)));
  return 0;
}

int event_synchronize(void* event) {
  CT_CUDA_TRY(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
  return 0;
}

int event_query(void* event, int* done) {
  return ready(cudaEventQuery(static_cast<cudaEvent_t>(event)), "cudaEventQuery", done);
}

int event_elapsed_ms(void* start, void* end, float* ms) {
  CT_CUDA_ARG(ms, "event_elapsed_ms: ms is NULL");
  CT_CUDA_TRY(cudaEventElapsedTime(ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
  return 0;
}

int event_destroy(void* event) {
  if (!event) return 0;
  CT_CUDA_TRY(cudaEventDestroy(static_cast<cudaEvent_t>(event)));
  return 0;
}

int stream_wait_event(void* stream, void* event) {
  CT_CUDA_TRY(cudaStreamWaitEvent(as_stream(stream), static_cast<cudaEvent_t>(event), 0));
  return 0;
}

}  // namespace ct::cuda
