// cuda.cpp - ct_cuda_*: devices, synchronization and the caching allocator's cache.
#include <new>

#include "capi/handle.h"
#include "core/error.h"
#include "core/fault_injection.h"
#include "cuda/backend.h"
#include "cuda/context.h"
#include "cuda/pinned.h"

using namespace ct;

extern "C" {

int32_t ct_cuda_device_count(void) {
  try {
    return cuda::device_count();
  } catch (const std::bad_alloc&) {  // as in ct_has_feature: no memory to look for the backend, no device
    fault::failure_absorbed();
    return 0;
  }
}

ct_status ct_cuda_synchronize(int32_t device) {
  return capi::guard([&] {
    const int n = cuda::device_count();
    CT_CHECK(n > 0, CT_ERROR_DEVICE, "ct_cuda_synchronize: no cuda device is available: ", cuda::unavailable_reason());
    CT_CHECK(device >= 0 && device < n, CT_ERROR_DEVICE, "ct_cuda_synchronize: device ", device,
             " does not exist: this process has ", n, " cuda device", n == 1 ? "" : "s");
    cuda::check(cuda::driver().synchronize_device(device), "ct_cuda_synchronize");
  });
}

ct_status ct_tensor_pin_memory(const ct_tensor* t, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_pin_memory", [&] {
    return cuda::pin_memory(capi::tensor_arg(t, "ct_tensor_pin_memory", "t"));
  });
}

ct_status ct_tensor_is_pinned(const ct_tensor* t, int* out) {
  return capi::guard([&] {
    const TensorImpl& x = capi::tensor_arg(t, "ct_tensor_is_pinned", "t");
    capi::require_out(out, "ct_tensor_is_pinned", "out");
    *out = cuda::is_pinned(x);
  });
}

ct_status ct_cuda_empty_cache(void) {
  return capi::guard([&] {
    if (cuda::device_count() > 0) cuda::allocator().empty_cache();
  });
}

}  // extern "C"
