// nvrtc_kernels.h - kernels generated as CUDA C at run time (fused kernels, the eager kernels of
// element functions), compiled with NVRTC through the driver table and cached for the process.
#pragma once

#include <cstdint>
#include <string>

namespace ct::cuda {

/// The kernel `entry` of `source` for device's architecture: compiled on first use, then cached
/// by architecture and source for the life of the process (modules are never unloaded, as callers
/// keep the function). `what` names the caller in errors (CT_ERROR_BACKEND with NVRTC's log).
void* nvrtc_kernel(const std::string& source, const char* entry, int device, const char* what);

/// Kernels compiled with NVRTC so far (the metric compile.cuda_kernels).
int64_t nvrtc_kernels_compiled();

}  // namespace ct::cuda
