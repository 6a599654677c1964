#include "core/device.h"

#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace ct {

Device parse_device(const char* s) {
  if (!s || std::strcmp(s, "cpu") == 0) return kCPU;
  if (std::strcmp(s, "meta") == 0) return kMeta;
  if (std::strncmp(s, "cuda", 4) == 0) {
    if (s[4] == '\0') return Device{DeviceType::CUDA, 0};
    if (s[4] == ':' && s[5] >= '0' && s[5] <= '9') {
      char* end = nullptr;
      long idx = std::strtol(s + 5, &end, 10);
      if (*end == '\0' && idx < 128) return Device{DeviceType::CUDA, static_cast<int8_t>(idx)};
    }
  }
  fail(CT_ERROR_INVALID_ARGUMENT,
       str("device: cannot parse '", s, "'. Use \"cpu\", \"meta\", \"cuda\" or \"cuda:N\""));
}

std::string device_string(Device d) {
  switch (d.type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::Meta: return "meta";
    case DeviceType::CUDA: return "cuda:" + std::to_string(d.index < 0 ? 0 : d.index);
  }
  return "unknown";
}

}  // namespace ct
