// context.h - libctorch's side of the CUDA backend: the driver table, errors, devices, streams.
//
// Note [The CUDA backend in two halves]
// Everything that touches CUDA (the runtime, cuBLAS, NVRTC, kernels) is in libctorch_cuda.so
// (src/cuda/driver/, behind the versioned C table of ct_cuda_driver.h); libctorch never links
// CUDA, so it loads and runs on machines without CUDA libraries. The host half here, inside
// libctorch, is the dispatch glue: it loads the table on first CUDA use, runs the same meta
// functions as every device, plans loops the way the CPU loop engine does, owns the caching
// allocator's policy, and calls one table member per kernel. The glue needs libctorch's internal
// C++ (TensorImpl, Registry, meta functions), which is not exported; that is why the split runs
// along "touches CUDA" rather than making CUDA a plugin over the public C ABI.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/driver/ct_cuda_driver.h"

namespace ct::cuda {

/// The driver table, loading libctorch_cuda.so on first use. Raises CT_ERROR_DEVICE saying why
/// CUDA is unavailable (no library, no driver, no device) and how to fix it.
const ct_cuda_driver& driver();
/// The table when libctorch_cuda.so loaded, even with no device (NVRTC compiles without one);
/// null otherwise. Never raises.
const ct_cuda_driver* library();
/// Devices CUDA sees; 0 when libctorch_cuda.so cannot be loaded or sees no device. Never raises.
int device_count();
/// Why device_count() is 0 ("" when it is not).
const char* unavailable_reason();

/// Raises for a driver status other than CT_CUDA_OK: CT_ERROR_OUT_OF_MEMORY for
/// CT_CUDA_ERR_OOM, CT_ERROR_NOT_IMPLEMENTED for CT_CUDA_ERR_UNSUPPORTED, CT_ERROR_BACKEND
/// otherwise; the message is "<what>: <the driver's last_error()>".
void check(int status, const char* what);

/// Makes device current on the calling thread (kernels launch on the current device).
void set_device(int device);
/// The stream ctorch's work on device runs on: the calling thread's per-thread default stream, so
/// threads do not serialize behind one another and every call on one thread is ordered; inside a
/// StreamOverride, its stream.
void* current_stream(int device);

/// Runs this thread's CUDA work on another stream for its scope (CUDA graph capture and replay).
class StreamOverride {
 public:
  explicit StreamOverride(void* stream);
  ~StreamOverride();
  StreamOverride(const StreamOverride&) = delete;
  StreamOverride& operator=(const StreamOverride&) = delete;

 private:
  void* saved_;
};

}  // namespace ct::cuda
