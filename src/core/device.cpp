#include "core/device.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/error.h"

namespace ct {
namespace {

// Plugin names, written once under the mutex and read without it (never changed afterwards).
std::atomic<const char*> g_plugin_names[kNumPluginDeviceTypes] = {};
std::mutex g_register_mu;

constexpr int kFirstPlugin = static_cast<int>(DeviceType::PrivateUse1);

bool valid_name(const char* s) {
  if (!(*s >= 'a' && *s <= 'z')) return false;
  size_t n = 0;
  for (; s[n]; ++n)
    if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_')) return false;
  return n <= 32;
}

// The type named by the n characters at s, or -1.
int type_named(const char* s, size_t n) {
  auto is = [&](const char* name) { return name && std::strlen(name) == n && std::strncmp(s, name, n) == 0; };
  if (is("cuda")) return static_cast<int>(DeviceType::CUDA);
  for (int i = 0; i < kNumPluginDeviceTypes; ++i)
    if (is(g_plugin_names[i].load(std::memory_order_acquire))) return kFirstPlugin + i;
  return -1;
}

std::string known_names() {
  std::string s = "\"cpu\", \"meta\", \"cuda\"";
  for (int i = 0; i < kNumPluginDeviceTypes; ++i)
    if (const char* n = g_plugin_names[i].load(std::memory_order_acquire)) s += str(", \"", n, "\"");
  return s + " (an indexed type may add \":N\")";
}

}  // namespace

Device parse_device(const char* s) {
  if (!s || std::strcmp(s, "cpu") == 0) return kCPU;
  if (std::strcmp(s, "meta") == 0) return kMeta;
  const char* colon = std::strchr(s, ':');
  const int type = type_named(s, colon ? static_cast<size_t>(colon - s) : std::strlen(s));
  if (type >= 0) {
    if (!colon) return Device{static_cast<DeviceType>(type), 0};
    if (colon[1] >= '0' && colon[1] <= '9') {
      char* end = nullptr;
      long idx = std::strtol(colon + 1, &end, 10);
      if (*end == '\0' && idx < 128) return Device{static_cast<DeviceType>(type), static_cast<int8_t>(idx)};
    }
  }
  fail(CT_ERROR_INVALID_ARGUMENT, str("device: cannot parse '", s, "'. Use one of ", known_names()));
}

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::Meta: return "meta";
    case DeviceType::CUDA: return "cuda";
    default: {
      const int i = static_cast<int>(t) - kFirstPlugin;
      return i >= 0 && i < kNumPluginDeviceTypes ? g_plugin_names[i].load(std::memory_order_acquire) : nullptr;
    }
  }
}

std::string device_string(Device d) {
  if (d.is_cpu() || d.is_meta()) return device_type_name(d.type);
  const char* name = device_type_name(d.type);
  return str(name ? name : "unregistered_plugin", ":", d.index < 0 ? 0 : d.index);
}

DeviceType register_plugin_device(const char* name) {
  CT_CHECK(name && valid_name(name), CT_ERROR_INVALID_ARGUMENT, "ct_backend_register: the device name '",
           name ? name : "(null)", "' is not valid. Use 1 to 32 lowercase letters, digits or '_', starting with a letter");
  std::lock_guard<std::mutex> g(g_register_mu);
  CT_CHECK(std::strcmp(name, "cpu") && std::strcmp(name, "meta") && type_named(name, std::strlen(name)) < 0,
           CT_ERROR_INVALID_ARGUMENT, "ct_backend_register: the device '", name,
           "' is already registered (built-in or by an earlier call). A device name is registered once per process");
  for (int i = 0; i < kNumPluginDeviceTypes; ++i) {
    if (g_plugin_names[i].load(std::memory_order_relaxed)) continue;
    char* copy = strdup(name);  // never freed: see the Note
    CT_CHECK(copy, CT_ERROR_OUT_OF_MEMORY, "ct_backend_register: out of memory copying the name '", name, "'");
    g_plugin_names[i].store(copy, std::memory_order_release);
    return static_cast<DeviceType>(kFirstPlugin + i);
  }
  fail(CT_ERROR_INVALID_ARGUMENT, str("ct_backend_register: cannot register '", name, "': all ", kNumPluginDeviceTypes,
                                      " plugin device types are taken (", known_names(), ")"));
}

}  // namespace ct
