// backend.h - the CUDA DeviceBackend: caching allocator over cudaMalloc, copies on the stream.
#pragma once

#include "core/caching_allocator.h"

namespace ct::cuda {

/// Installs the CUDA DeviceBackend (see core/device_backend.h). Loads nothing: CUDA is touched on
/// first use (an allocation, a copy, device_count).
void install_backend();
/// The allocator behind CUDA storage (ct_cuda_empty_cache, the memory.cuda.* metrics).
CachingAllocator& allocator();

}  // namespace ct::cuda
