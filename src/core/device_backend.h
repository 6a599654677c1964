// device_backend.h - DeviceBackend: how one device type's memory is obtained, returned and copied.
//
// Storage allocates through it, and to() moves bytes through it, so a backend that supplies these
// four functions (and kernels for the operators it wants) makes its device usable; views, meta
// functions and autograd need nothing more. The CPU backend is built in; meta needs none.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/device.h"

namespace ct {

enum class CopyKind : uint8_t { HostToDevice, DeviceToHost, DeviceToDevice };

struct DeviceBackend {
  void* ctx = nullptr;
  /// Memory for nbytes (> 0) on device `index`; raises (CT_ERROR_OUT_OF_MEMORY when it is full).
  void* (*allocate)(void* ctx, int index, size_t nbytes) = nullptr;
  /// Returns memory from allocate; never raises.
  void (*free)(void* ctx, int index, void* p, size_t nbytes) = nullptr;
  /// Copies nbytes between host memory and device `index` (or within it); raises on failure. The
  /// copy is complete when it returns.
  void (*copy)(void* ctx, CopyKind kind, int index, void* dst, const void* src, size_t nbytes) = nullptr;
  /// Devices of this type in the process.
  int (*device_count)(void* ctx) = nullptr;
  /// Optional: why device_count is 0, for the message of an operation that needed a device.
  const char* (*unavailable_reason)(void* ctx) = nullptr;
};

/// Installs the backend of a device type; b must stay valid for the rest of the process.
void set_device_backend(DeviceType type, const DeviceBackend* b);
/// The backend of a device type, or null when none is loaded (meta never has one).
const DeviceBackend* device_backend(DeviceType type);
/// d's backend, after checking d's index against its device count; raises CT_ERROR_DEVICE naming
/// op when the type has no backend or the index is out of range.
const DeviceBackend& require_backend(Device d, const char* op);

}  // namespace ct
