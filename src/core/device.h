// device.h - Device: a type plus an index ("cpu", "meta", "cuda:1").
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace ct {

/// Values equal ct_device_type's.
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 2 };

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

/// Parses "cpu", "meta", "cuda", "cuda:N"; NULL means cpu. Raises CT_ERROR_INVALID_ARGUMENT.
Device parse_device(const char* s);
std::string device_string(Device d);
inline std::ostream& operator<<(std::ostream& os, Device d) { return os << device_string(d); }

}  // namespace ct
