#include "runtime/autocast.h"

namespace ct::runtime {

AutocastState& autocast_state() {
  thread_local AutocastState state;
  return state;
}

void set_autocast_enabled(DeviceType type, bool enabled) {
  AutocastState& s = autocast_state();
  s.enabled[static_cast<int>(type)] = enabled;
  s.any = false;
  for (bool e : s.enabled) s.any |= e;
}

}  // namespace ct::runtime
