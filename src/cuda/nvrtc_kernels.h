// nvrtc_kernels.h - kernels generated as CUDA C at run time (fused kernels, the eager kernels of
// element functions), compiled with NVRTC through the driver table and cached for the process.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ct::cuda {

/// The kernel `entry` of `source` for device's architecture: compiled on first use, then cached
/// by architecture and source for the life of the process (modules are never unloaded, as callers
/// keep the function). `what` names the caller in errors (CT_ERROR_BACKEND with NVRTC's log).
void* nvrtc_kernel(const std::string& source, const char* entry, int device, const char* what);

/// One generated kernel's function per device, held by whoever owns its source (a fused kernel, an
/// element function's kernel): a launch then looks up a device index, not the source text, which
/// starts with the whole element preamble (some 10 KB).
class KernelCache {
 public:
  /// The function of `entry` on device: nvrtc_kernel of source() the first time (source is only
  /// built then), remembered after.
  void* get(int device, const std::function<std::string()>& source, const char* entry, const char* what);

 private:
  std::mutex mu_;
  std::vector<std::pair<int, void*>> by_device_;
};

/// Kernels compiled with NVRTC so far (the metric compile.cuda_kernels).
int64_t nvrtc_kernels_compiled();

}  // namespace ct::cuda
