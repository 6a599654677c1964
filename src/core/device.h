// device.h - Device: a type plus an index ("cpu", "meta", "cuda:1", "counting:0").
//
// Note [Plugin device types]
// Four device types (PrivateUse1..4) are reserved for backends registered at run time
// (ct_backend_register). Registering gives one of them a name, and from then on that name parses
// and prints like "cuda" does ("counting", "counting:1"). Names are never taken back: a plugin is
// never unloaded, and tensors on its device may outlive anything that could unregister it.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace ct {

/// Values equal ct_device_type's.
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 2, PrivateUse1 = 3, PrivateUse2 = 4, PrivateUse3 = 5, PrivateUse4 = 6 };
constexpr int kNumDeviceTypes = 7;
constexpr int kNumPluginDeviceTypes = 4;

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // INVARIANT: -1 for cpu and meta; >= 0 for an indexed device once resolved
  friend bool operator==(Device a, Device b) { return a.type == b.type && a.index == b.index; }
  friend bool operator!=(Device a, Device b) { return !(a == b); }
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_meta() const { return type == DeviceType::Meta; }
};

constexpr Device kCPU{DeviceType::CPU, -1};
constexpr Device kMeta{DeviceType::Meta, -1};

/// Parses "cpu", "meta", "cuda", "cuda:N" and registered plugin names ("name", "name:N"); NULL
/// means cpu. Raises CT_ERROR_INVALID_ARGUMENT.
Device parse_device(const char* s);
std::string device_string(Device d);
inline std::ostream& operator<<(std::ostream& os, Device d) { return os << device_string(d); }

/// "cpu", "cuda", "meta", a plugin's registered name, or null for an unregistered plugin type.
const char* device_type_name(DeviceType t);
/// Gives the next free plugin device type the name (see Note [Plugin device types]). Raises
/// CT_ERROR_INVALID_ARGUMENT for a name taken or malformed, or when all four types are taken.
DeviceType register_plugin_device(const char* name);

}  // namespace ct
