// status.cu - the thread-local error message behind last_error().
#include <cstdarg>
#include <cstdio>

#include "status.h"

namespace ct::cuda {
namespace {
// A fixed buffer: recording an out-of-memory error must not allocate. NVRTC logs longer than
// this are cut (the full log is returned through nvrtc_compile's log argument).
thread_local char t_message[8192];
}  // namespace

const char* last_error_message() { return t_message; }

int fail(int code, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(t_message, sizeof t_message, fmt, ap);
  va_end(ap);
  return code;
}

bool is_no_device_error(cudaError_t e) {
  switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorInitializationError:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemNotReady:
    case cudaErrorStubLibrary:
      return true;
    default:
      return false;
  }
}

int check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return 0;
  cudaGetLastError();  // non-sticky errors would otherwise resurface at the next launch check
  const int code = e == cudaErrorMemoryAllocation ? CT_CUDA_ERR_OOM
                   : is_no_device_error(e)         ? CT_CUDA_ERR_NO_DEVICE
                                                   : CT_CUDA_ERR_CUDA;
  return fail(code, "%s failed: %s (%s)%s", what, cudaGetErrorString(e), cudaGetErrorName(e),
              code == CT_CUDA_ERR_OOM ? ". Free cached memory and retry" : "");
}

}  // namespace ct::cuda
