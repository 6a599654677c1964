// metrics.cpp - ct_metric_get and ct_metrics_json: one table, one row per metric.
#include <cstring>
#include <string>

#include "capi/handle.h"
#include "capi/plugins.h"
#include "compile/compiled.h"
#include "compile/fuse_cuda.h"
#include "core/allocator.h"
#include "core/error.h"
#include "core/storage.h"
#include "core/tensor_impl.h"
#include "cuda/backend.h"
#include "dispatch/registry.h"
#include "runtime/defaults.h"
#include "runtime/determinism.h"
#include "runtime/json.h"

using namespace ct;

namespace {

// A CUDA allocator figure summed over devices. Reading it never loads CUDA: devices the allocator
// never served read as zeros.
template <size_t CachingAllocator::Stats::*field>
int64_t cuda_total() {
  size_t sum = 0;
  for (int d = 0; d < 128; ++d) sum += cuda::allocator().stats(d).*field;
  return static_cast<int64_t>(sum);
}

struct Metric {
  const char* name;  // documented in ctorch.h under ct_metric_get; a name's meaning never changes
  int64_t (*read)();
};

constexpr Metric kMetrics[] = {
    {"tensors.live", [] { return static_cast<int64_t>(live_tensor_count()); }},
    {"storages.live", [] { return static_cast<int64_t>(live_storage_count()); }},
    {"memory.cpu.bytes_allocated", [] { return static_cast<int64_t>(cpu_allocated_bytes()); }},
    {"memory.cpu.bytes_cached", [] { return static_cast<int64_t>(cpu_cached_bytes()); }},
    {"memory.cpu.allocations_live", [] { return static_cast<int64_t>(cpu_live_allocations()); }},
    {"memory.cuda.bytes_allocated", cuda_total<&CachingAllocator::Stats::allocated_bytes>},
    {"memory.cuda.bytes_reserved", cuda_total<&CachingAllocator::Stats::reserved_bytes>},
    {"memory.cuda.peak_bytes_allocated", cuda_total<&CachingAllocator::Stats::peak_allocated_bytes>},
    {"memory.cuda.out_of_memory", [] {
       int64_t n = 0;
       for (int d = 0; d < 128; ++d) n += static_cast<int64_t>(cuda::allocator().stats(d).ooms);
       return n;
     }},
    {"init.time_us", [] { return Registry::build_time_us() + capi::plugin_autoload_time_us(); }},
    {"plugins.loaded", capi::plugins_loaded},
    {"plugins.load_failures", capi::plugin_load_failures},
    {"determinism.mode", [] { return static_cast<int64_t>(runtime::deterministic_mode()); }},
    {"default_device.type", [] { return static_cast<int64_t>(runtime::current_device().type); }},
    {"matmul.float32_precision", [] { return static_cast<int64_t>(runtime::matmul_precision()); }},
    {"compile.compiles", [] { return compile::global_metrics().compiles.load(); }},
    {"compile.recompiles", [] { return compile::global_metrics().recompiles.load(); }},
    {"compile.graph_breaks", [] { return compile::global_metrics().graph_breaks.load(); }},
    {"compile.guards", [] { return compile::global_metrics().last_guards.load(); }},
    {"compile.latency_p50_us", [] { return compile::global_metrics().latency_percentile(50); }},
    {"compile.latency_p95_us", [] { return compile::global_metrics().latency_percentile(95); }},
    {"compile.cuda_kernels", compile::cuda_kernels_compiled},
};

}  // namespace

extern "C" {

ct_status ct_metric_get(const char* name, int64_t* out) {
  return capi::guard([&] {
    capi::require_out(out, "ct_metric_get", "out");
    CT_CHECK(name, CT_ERROR_INVALID_ARGUMENT, "ct_metric_get: name is NULL");
    std::string known;
    for (const Metric& m : kMetrics) {
      if (std::strcmp(name, m.name) == 0) {
        *out = m.read();
        return;
      }
      known += std::string(known.empty() ? "" : ", ") + m.name;
    }
    fail(CT_ERROR_INVALID_ARGUMENT, str("ct_metric_get: unknown metric '", name, "'. Known: ", known));
  });
}

ct_status ct_metrics_json(char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_metrics_json", "out");
    std::string json = "{";
    for (const Metric& m : kMetrics) {
      if (json.size() > 1) json += ", ";
      runtime::append_json_string(json, m.name);
      json += ": " + std::to_string(m.read());
    }
    json += "}";
    *out = capi::copy_string(json);
  });
}

}  // extern "C"
