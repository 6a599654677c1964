#include "core/device_backend.h"

#include <atomic>
#include <cstring>

#include "core/allocator.h"
#include "core/error.h"

namespace ct {
namespace {

void* cpu_backend_allocate(void*, int, size_t nbytes) { return cpu_allocate(nbytes); }
void cpu_backend_free(void*, int, void* p, size_t nbytes) { cpu_free(p, nbytes); }
void cpu_backend_copy(void*, CopyKind, int, void* dst, const void* src, size_t nbytes) { std::memcpy(dst, src, nbytes); }
int cpu_backend_count(void*) { return 1; }

const DeviceBackend kCpuBackend{nullptr, cpu_backend_allocate, cpu_backend_free, cpu_backend_copy, cpu_backend_count};
std::atomic<const DeviceBackend*> g_backends[kNumDeviceTypes] = {&kCpuBackend};

}  // namespace

void set_device_backend(DeviceType type, const DeviceBackend* b) {
  g_backends[static_cast<int>(type)].store(b, std::memory_order_release);
}

const DeviceBackend* device_backend(DeviceType type) {
  return g_backends[static_cast<int>(type)].load(std::memory_order_acquire);
}

const DeviceBackend& require_backend(Device d, const char* op) {
  const DeviceBackend* b = device_backend(d.type);
  CT_CHECK(b, CT_ERROR_DEVICE, op, ": no backend for device ", d,
           " is loaded in this process. Use cpu, or load the backend for this device");
  if (!d.is_cpu()) {
    const int n = b->device_count(b->ctx);
    CT_CHECK(n > 0 || !b->unavailable_reason, CT_ERROR_DEVICE, op, ": no ", device_type_name(d.type),
             " device is available: ", b->unavailable_reason(b->ctx));
    CT_CHECK(d.index >= 0 && d.index < n, CT_ERROR_DEVICE, op, ": device ", d, " does not exist: this process has ", n,
             " ", device_type_name(d.type), " device", n == 1 ? "" : "s", ". Use an index below ", n);
  }
  return *b;
}

}  // namespace ct
