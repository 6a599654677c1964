#include "runtime/defaults.h"

#include <cstring>
#include <mutex>
#include <vector>

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

std::mutex print_mu;
PrintOptions print_settings;  // guarded by print_mu

}  // namespace

Device current_device() {
  const DeviceDefaults& d = device_defaults;
  return d.stack.empty() ? d.fallback : d.stack.back();
}

void set_default_dtype(DType d) { detail::default_dtype.store(static_cast<int>(d), std::memory_order_relaxed); }

void set_default_device(Device d) { device_defaults.fallback = d; }

void push_device(Device d) { device_defaults.stack.push_back(d); }

bool pop_device() {
  if (device_defaults.stack.empty()) return false;
  device_defaults.stack.pop_back();
  return true;
}

MatmulPrecision matmul_precision() { return static_cast<MatmulPrecision>(precision.load(std::memory_order_relaxed)); }

bool set_matmul_precision(const char* name) {
  for (int i = 0; i < 3; ++i) {
    if (std::strcmp(name, kPrecisionNames[i]) == 0) {
      precision.store(i, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

const char* matmul_precision_name() { return kPrecisionNames[static_cast<int>(matmul_precision())]; }

PrintOptions print_options() {
  std::lock_guard<std::mutex> lock(print_mu);
  return print_settings;
}

void set_print_options(const PrintOptions& o) {
  std::lock_guard<std::mutex> lock(print_mu);
  print_settings = o;
}

}  // namespace ct::runtime
