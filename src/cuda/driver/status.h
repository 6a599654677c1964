// status.h - how every member of the table turns a CUDA, cuBLAS or NVRTC failure into a status
// code plus a thread-local message (never an abort).
#pragma once

#include <cuda_runtime.h>

#include "ct_cuda_driver.h"

namespace ct::cuda {

/// Formats the thread's last_error message (printf-style) and returns code.
int fail(int code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/// 0 when e is cudaSuccess; otherwise records "<what> failed: <string> (<name>)", clears the
/// runtime's non-sticky last error (so a later launch check does not see it again) and returns
/// CT_CUDA_ERR_OOM, CT_CUDA_ERR_NO_DEVICE or CT_CUDA_ERR_CUDA.
int check(cudaError_t e, const char* what);

/// True for the errors that mean "this machine has no usable CUDA device or driver".
bool is_no_device_error(cudaError_t e);

/// The status of the last kernel launch on this thread (cudaGetLastError), naming the kernel.
inline int check_launch(const char* kernel) { return check(cudaGetLastError(), kernel); }

/// Switches to device for a scope and restores the previous current device.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    status_ = check(cudaGetDevice(&prev_), "cudaGetDevice");
    if (!status_ && prev_ != device) {
      status_ = check(cudaSetDevice(device), "cudaSetDevice");
      switched_ = status_ == 0;
    }
  }
  ~DeviceGuard() {
    if (switched_) cudaSetDevice(prev_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  int status() const { return status_; }

 private:
  int prev_ = 0;
  int status_ = 0;
  bool switched_ = false;
};

inline cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

}  // namespace ct::cuda

// Returns the status of a failing CUDA runtime call from the enclosing function.
#define CT_CUDA_TRY(call)                                 \
  do {                                                    \
    const int ct_status_ = ::ct::cuda::check((call), #call); \
    if (ct_status_) return ct_status_;                    \
  } while (0)

// Returns CT_CUDA_ERR_INVALID_ARGUMENT with a message when cond does not hold.
#define CT_CUDA_ARG(cond, ...)                                                         \
  do {                                                                                 \
    if (!(cond)) return ::ct::cuda::fail(CT_CUDA_ERR_INVALID_ARGUMENT, __VA_ARGS__); \
  } while (0)
