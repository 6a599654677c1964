#include "cuda/backend.h"

#include "core/device_backend.h"
#include "core/error.h"
#include "cuda/context.h"

namespace ct::cuda {
namespace {

// cudaMalloc for the caching allocator: false on out of memory, so it can flush its cache, ask
// the host's memory-pressure callback and retry (Note [Device out of memory]).
bool raw_allocate(void*, int device, size_t nbytes, void** out) {
  const int st = driver().malloc(device, nbytes, out);
  if (st == CT_CUDA_ERR_OOM) return false;
  check(st, "cuda: allocate");
  return true;
}

void raw_free(void*, int device, void* p) {
  // cudaFree can only fail for a pointer it did not hand out or a broken context; the allocator
  // must not raise while freeing, and there is nothing better to do with the block.
  (void)driver().free(device, p);
}

void* allocate(void*, int index, size_t nbytes) { return allocator().allocate(index, nbytes, current_stream(index)); }

void release(void*, int, void* p, size_t) { allocator().free(p); }

// Copies are complete when they return (DeviceBackend's contract): the stream is synchronized.
void copy(void*, CopyKind kind, int index, void* dst, const void* src, size_t nbytes) {
  const ct_cuda_driver& d = driver();
  set_device(index);
  void* stream = current_stream(index);
  const int k = kind == CopyKind::HostToDevice   ? CT_CUDA_MEMCPY_H2D
                : kind == CopyKind::DeviceToHost ? CT_CUDA_MEMCPY_D2H
                                                 : CT_CUDA_MEMCPY_D2D;
  check(d.memcpy_async(dst, src, nbytes, k, stream), "cuda: copy");
  check(d.stream_synchronize(stream), "cuda: copy");
}

int count(void*) { return device_count(); }

const char* why_none(void*) { return unavailable_reason(); }

}  // namespace

CachingAllocator& allocator() {
  static CachingAllocator* a = new CachingAllocator(RawDeviceMemory{nullptr, raw_allocate, raw_free}, DeviceType::CUDA);
  return *a;  // never destroyed: tensors may be freed during static destruction
}

void install_backend() {
  static const DeviceBackend backend{nullptr, allocate, release, copy, count, why_none};
  set_device_backend(DeviceType::CUDA, &backend);
}

}  // namespace ct::cuda
