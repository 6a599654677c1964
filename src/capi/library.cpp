// library.cpp - versions, init, features, status names, threads, dtype names (metrics: metrics.cpp).
#include <cstring>

#include <mutex>
#include <new>

#include "capi/handle.h"
#include "capi/plugins.h"
#include "core/allocator.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/fault_injection.h"
#include "core/tensor_impl.h"
#include "cuda/context.h"
#include "dispatch/dispatcher.h"
#include "dispatch/registry.h"
#include "ops/cpu/parallel.h"

using namespace ct;

namespace {

struct PressureHandler {
  ct_memory_pressure_fn fn = nullptr;
  void* user_data = nullptr;
  ct_destroy_fn destroy = nullptr;
};

bool call_pressure_handler(void* ctx, DeviceType device, size_t nbytes) {
  const PressureHandler* h = static_cast<const PressureHandler*>(ctx);
  return h->fn(h->user_data, static_cast<int>(device), nbytes) != 0;
}

}  // namespace

extern "C" {

const char* ct_version(void) { return CT_VERSION_STRING; }

int32_t ct_abi_version(void) { return CT_ABI_VERSION; }

const char* ct_status_name(ct_status s) {
  static constexpr const char* names[] = {
      "CT_OK",           "CT_ERROR_INVALID_ARGUMENT", "CT_ERROR_SHAPE",          "CT_ERROR_DTYPE",
      "CT_ERROR_DEVICE", "CT_ERROR_OUT_OF_MEMORY",    "CT_ERROR_NOT_IMPLEMENTED", "CT_ERROR_INDEX",
      "CT_ERROR_NONDETERMINISTIC", "CT_ERROR_GUARD",  "CT_ERROR_GRAPH_BREAK",    "CT_ERROR_RECOMPILE_LIMIT",
      "CT_ERROR_IO",     "CT_ERROR_FORMAT",           "CT_ERROR_BACKEND",        "CT_ERROR_VERSION",
      "CT_ERROR_INTERNAL", "CT_ERROR_LINALG",           "CT_ERROR_TIMEOUT",        "CT_ERROR_DISTRIBUTED"};
  const int i = capi::raw_enum(s);
  return i >= 0 && i < static_cast<int>(sizeof names / sizeof names[0]) ? names[i] : "CT_ERROR_UNKNOWN";
}

ct_status ct_init(int32_t header_abi_version) {
  return capi::guard([&] {
    CT_CHECK(header_abi_version <= CT_ABI_VERSION, CT_ERROR_VERSION, "ct_init: this program was built against ctorch ABI ",
             header_abi_version, " but the loaded library implements ABI ", CT_ABI_VERSION, " (ctorch ",
             CT_VERSION_STRING, "). Link the libctorch that came with your ctorch.h");
    Registry::get();
    capi::autoload_plugins();  // see Note [Plugin autoloading]
  });
}

ct_status ct_set_memory_pressure_handler(ct_memory_pressure_fn fn, void* user_data, ct_destroy_fn destroy) {
  static std::mutex mu;
  static PressureHandler* current = nullptr;
  return capi::guard([&] {
    PressureHandler* next = fn ? new PressureHandler{fn, user_data, destroy} : nullptr;
    PressureHandler* old;
    {
      std::lock_guard<std::mutex> g(mu);
      old = current;
      current = next;
      set_memory_pressure_hook(next ? call_pressure_handler : nullptr, next);
    }
    if (old && old->destroy) old->destroy(old->user_data);
    delete old;
  });
}

int ct_has_feature(const char* name) {
  if (!name) return 0;
  // Finding the CUDA backend the first time allocates; without memory for it, the answer is no
  // (and the next call looks again).
  try {
    if (std::strcmp(name, "cuda") == 0) return cuda::device_count() > 0;
    if (std::strcmp(name, "nvrtc") == 0) return cuda::library() != nullptr;
  } catch (const std::bad_alloc&) {
    fault::failure_absorbed();
    return 0;
  }
  return std::strcmp(name, "cpu") == 0 || std::strcmp(name, "openblas") == 0 || std::strcmp(name, "threads") == 0 ||
         std::strcmp(name, "compile") == 0;
}

ct_status ct_set_num_threads(int32_t n) {
  return capi::guard([&] {
    CT_CHECK(n >= 1 && n <= 1024, CT_ERROR_INVALID_ARGUMENT, "ct_set_num_threads: ", n,
             " threads is out of range. Pass 1 to 1024");
    cpu::set_num_threads(n);
  });
}

ct_status ct_get_num_threads(int32_t* out) {
  return capi::guard([&] {
    capi::require_out(out, "ct_get_num_threads", "out");
    *out = cpu::get_num_threads();
  });
}

const char* ct_dtype_name(ct_dtype d) {
  const int i = capi::raw_enum(d);
  return i >= 0 && i < kNumDTypes ? dtype_name(static_cast<DType>(i)) : "unknown";
}

size_t ct_dtype_itemsize(ct_dtype d) {
  const int i = capi::raw_enum(d);
  return i >= 0 && i < kNumDTypes ? itemsize(static_cast<DType>(i)) : 0;
}

ct_status ct_promote_types(ct_dtype a, ct_dtype b, ct_dtype* out) {
  return capi::guard([&] {
    const DType x = capi::dtype_arg(a, "ct_promote_types"), y = capi::dtype_arg(b, "ct_promote_types");
    CT_CHECK(out, CT_ERROR_INVALID_ARGUMENT, "ct_promote_types: out is NULL. Pass a ct_dtype to fill");
    *out = static_cast<ct_dtype>(promote_types(x, y));
  });
}

ct_status ct_can_cast(ct_dtype from, ct_dtype to, int* out) {
  return capi::guard([&] {
    const DType x = capi::dtype_arg(from, "ct_can_cast"), y = capi::dtype_arg(to, "ct_can_cast");
    CT_CHECK(out, CT_ERROR_INVALID_ARGUMENT, "ct_can_cast: out is NULL. Pass an int to fill");
    *out = can_cast(x, y);
  });
}

}  // extern "C"
