// backend.cpp - ct_backend_register: a device backend written in C behind a DeviceBackend.
#include <cstring>

#include "capi/handle.h"
#include "core/device_backend.h"
#include "core/error.h"

using namespace ct;

namespace {

// One registered C backend. Never freed: see Note [Plugin device types].
struct CBackend {
  DeviceBackend device;  // ctx points back at this struct
  ct_backend fns;
  void* user_data;
  const char* name;
};

const CBackend& of(void* ctx) { return *static_cast<const CBackend*>(ctx); }

// Runs a backend function, turning its failure into the status and message it reported.
template <typename Call>
void call_backend(const CBackend& b, const char* what, int index, Call call) {
  const int st = capi::call_back(what, call);
  if (st != CT_OK) capi::fail_callback(st, str(what, " on ", b.name, ":", index));
}

void* allocate(void* ctx, int index, size_t nbytes) {
  const CBackend& b = of(ctx);
  void* p = nullptr;
  call_backend(b, str("allocating ", nbytes, " bytes").c_str(), index,
               [&] { return b.fns.allocate(b.user_data, index, nbytes, &p); });
  CT_CHECK(p, CT_ERROR_BACKEND, "the ", b.name, " backend's allocate returned CT_OK but no memory for ", nbytes,
           " bytes. It must write a pointer to *out");
  return p;
}

void free_memory(void* ctx, int index, void* p, size_t nbytes) {
  const CBackend& b = of(ctx);
  b.fns.free(b.user_data, index, p, nbytes);
}

void copy(void* ctx, CopyKind kind, int index, void* dst, const void* src, size_t nbytes) {
  const CBackend& b = of(ctx);
  CT_CHECK(kind != CopyKind::DeviceToDevice, CT_ERROR_INTERNAL, "the ", b.name,
           " backend has no device-to-device copy; ctorch copies through the host");
  if (kind == CopyKind::HostToDevice)
    call_backend(b, "copying to the device", index, [&] { return b.fns.copy_to_device(b.user_data, index, dst, src, nbytes); });
  else
    call_backend(b, "copying to the host", index, [&] { return b.fns.copy_to_host(b.user_data, index, dst, src, nbytes); });
}

int device_count(void* ctx) {
  const CBackend& b = of(ctx);
  return b.fns.device_count(b.user_data);
}

}  // namespace

extern "C" {

const char* ct_device_type_name(ct_device_type type) {
  const int t = capi::raw_enum(type);
  return t >= 0 && t < kNumDeviceTypes ? device_type_name(static_cast<DeviceType>(t)) : nullptr;
}

ct_status ct_backend_register(const char* name, const ct_backend* backend, void* user_data, ct_device_type* type) {
  return capi::guard([&] {
    const char* f = "ct_backend_register";
    CT_CHECK(name && backend, CT_ERROR_INVALID_ARGUMENT, f, ": name and backend must not be NULL");
    CT_CHECK(backend->struct_size >= sizeof(ct_backend), CT_ERROR_INVALID_ARGUMENT, f, ": backend->struct_size is ",
             backend->struct_size, " but a ct_backend has ", sizeof(ct_backend),
             " bytes. Set struct_size = sizeof(ct_backend)");
    CT_CHECK(backend->device_count && backend->allocate && backend->free && backend->copy_to_device &&
                 backend->copy_to_host,
             CT_ERROR_INVALID_ARGUMENT, f, ": backend '", name,
             "' leaves a function NULL. Give device_count, allocate, free, copy_to_device and copy_to_host");
    auto* b = new CBackend{DeviceBackend{}, *backend, user_data, nullptr};
    DeviceType t;
    try {
      t = register_plugin_device(name);
    } catch (...) {
      delete b;
      throw;
    }
    b->name = device_type_name(t);
    b->device = DeviceBackend{b, allocate, free_memory, copy, device_count};
    set_device_backend(t, &b->device);
    if (type) *type = static_cast<ct_device_type>(t);
  });
}

}  // extern "C"
