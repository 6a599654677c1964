#include "cuda/nvrtc_kernels.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "core/error.h"
#include "cuda/context.h"

namespace ct::cuda {
namespace {

std::atomic<int64_t> g_compiled{0};

}  // namespace

void* nvrtc_kernel(const std::string& source, const char* entry, int device, const char* what) {
  const ct_cuda_driver& d = driver();
  int major = 0, minor = 0;
  check(d.device_properties(device, nullptr, 0, &major, &minor, nullptr, nullptr), what);
  static std::mutex mu;
  static auto* cache = new std::unordered_map<std::string, void*>;
  const std::string key = str(major, ".", minor, "\n", entry, "\n", source);
  std::lock_guard<std::mutex> g(mu);
  if (auto it = cache->find(key); it != cache->end()) return it->second;
  char* image = nullptr;
  size_t size = 0;
  check(d.nvrtc_compile(source.c_str(), (std::string(entry) + ".cu").c_str(), major, minor, &image, &size, nullptr),
        str(what, ": NVRTC").c_str());
  void* module = nullptr;
  const int st = d.module_load(image, &module);
  (void)d.buffer_free(image);
  check(st, str(what, ": loading the module").c_str());
  void* fn = nullptr;
  check(d.module_get_function(module, entry, &fn), what);
  g_compiled.fetch_add(1, std::memory_order_relaxed);
  cache->emplace(key, fn);
  return fn;
}

void* KernelCache::get(int device, const std::function<std::string()>& source, const char* entry, const char* what) {
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& [d, fn] : by_device_)
    if (d == device) return fn;
  void* fn = nvrtc_kernel(source(), entry, device, what);
  by_device_.emplace_back(device, fn);
  return fn;
}

int64_t nvrtc_kernels_compiled() { return g_compiled.load(std::memory_order_relaxed); }

}  // namespace ct::cuda
