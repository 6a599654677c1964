#include "runtime/defaults.h"

#include <cstring>
#include <vector>

#include "capi/handle.h"
#include "core/error.h"

namespace ct::runtime {

namespace detail {
std::atomic<int> default_dtype{static_cast<int>(DType::Float32)};
}

namespace {

// Note [Device defaults are per thread]
// A thread's default device and its stack of device contexts are its own: a server thread that
// builds on "meta" to plan shapes never changes where another thread's tensors go. The stack is
// what a `with ctorch.device(...)` block pushes; its top wins over the default.
struct DeviceDefaults {
  Device fallback = kCPU;
  std::vector<Device> stack;
};
thread_local DeviceDefaults device_defaults;

std::atomic<int> precision{static_cast<int>(MatmulPrecision::Highest)};
constexpr const char* kPrecisionNames[] = {"highest", "high", "medium"};

// A device argument from C, resolved by the same parser every other function uses.
Device device_from_c(const char* s, const char* fn) {
  CT_CHECK(s, CT_ERROR_INVALID_ARGUMENT, fn, ": device is NULL. Pass \"cpu\", \"meta\" or \"cuda:N\"");
  return parse_device(s);
}

}  // namespace

Device current_device() {
  const DeviceDefaults& d = device_defaults;
  return d.stack.empty() ? d.fallback : d.stack.back();
}

MatmulPrecision matmul_precision() { return static_cast<MatmulPrecision>(precision.load(std::memory_order_relaxed)); }

}  // namespace ct::runtime

using namespace ct;

extern "C" {

ct_status ct_set_default_dtype(ct_dtype dtype) {
  return capi::guard([&] {
    const DType d = capi::dtype_arg(dtype, "ct_set_default_dtype");
    CT_CHECK(d == DType::Float32 || d == DType::Float64, CT_ERROR_DTYPE, "ct_set_default_dtype: the default must be "
             "float32 or float64, got ", d, ". Pass CT_FLOAT32 or CT_FLOAT64");
    runtime::detail::default_dtype.store(static_cast<int>(d), std::memory_order_relaxed);
  });
}

ct_dtype ct_get_default_dtype(void) { return static_cast<ct_dtype>(runtime::default_dtype()); }

ct_status ct_set_default_device(const char* device) {
  return capi::guard([&] { runtime::device_defaults.fallback = device ? parse_device(device) : kCPU; });
}

ct_status ct_get_default_device(ct_device_type* type, int32_t* index) {
  return capi::guard([&] {
    capi::require_out(type, "ct_get_default_device", "type");
    capi::require_out(index, "ct_get_default_device", "index");
    const Device d = runtime::current_device();
    *type = static_cast<ct_device_type>(d.type);
    *index = d.index;
  });
}

ct_status ct_device_push(const char* device) {
  return capi::guard([&] { runtime::device_defaults.stack.push_back(runtime::device_from_c(device, "ct_device_push")); });
}

ct_status ct_device_pop(void) {
  return capi::guard([&] {
    CT_CHECK(!runtime::device_defaults.stack.empty(), CT_ERROR_INVALID_ARGUMENT,
             "ct_device_pop: this thread has no device context to pop. Pair every ct_device_pop with a "
             "ct_device_push on the same thread");
    runtime::device_defaults.stack.pop_back();
  });
}

ct_status ct_set_float32_matmul_precision(const char* precision) {
  return capi::guard([&] {
    CT_CHECK(precision, CT_ERROR_INVALID_ARGUMENT, "ct_set_float32_matmul_precision: precision is NULL. Pass "
             "\"highest\", \"high\" or \"medium\"");
    for (int i = 0; i < 3; ++i) {
      if (std::strcmp(precision, runtime::kPrecisionNames[i]) == 0) {
        runtime::precision.store(i, std::memory_order_relaxed);
        return;
      }
    }
    fail(CT_ERROR_INVALID_ARGUMENT, str("ct_set_float32_matmul_precision: unknown precision '", precision,
                                        "'. Pass \"highest\", \"high\" or \"medium\""));
  });
}

const char* ct_get_float32_matmul_precision(void) {
  return runtime::kPrecisionNames[static_cast<int>(runtime::matmul_precision())];
}

}  // extern "C"
