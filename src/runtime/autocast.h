// autocast.h - automatic mixed precision (torch.autocast): the calling thread's switch per device
// type and the lower-precision dtype it casts to. See Note [Autocast] in ops/autocast.cpp.
#pragma once

#include "core/device.h"
#include "core/dtype.h"

namespace ct::runtime {

struct AutocastState {
  bool enabled[kNumDeviceTypes] = {};
  DType dtype[kNumDeviceTypes] = {DType::BFloat16, DType::Float16, DType::BFloat16, DType::BFloat16,
                                  DType::BFloat16, DType::BFloat16, DType::BFloat16};
  bool any = false;  // some device type is enabled: the dispatcher adds the Autocast key
};

/// This thread's state (a new thread starts with autocast off, as in PyTorch).
AutocastState& autocast_state();

/// Turns autocast on or off for one device type, keeping its dtype.
void set_autocast_enabled(DeviceType type, bool enabled);

}  // namespace ct::runtime
