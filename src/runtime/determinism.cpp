#include "runtime/determinism.h"

#include "capi/handle.h"
#include "core/error.h"

namespace ct::runtime::detail {
std::atomic<int> deterministic_mode{0};
}

using namespace ct;
using runtime::DeterministicMode;

extern "C" {

ct_status ct_use_deterministic_algorithms(int mode, int warn_only) {
  return capi::guard([&] {
    runtime::set_deterministic_mode(!mode ? DeterministicMode::Off
                                    : warn_only ? DeterministicMode::Warn
                                                : DeterministicMode::Error);
  });
}

int ct_are_deterministic_algorithms_enabled(void) {
  return runtime::deterministic_mode() != DeterministicMode::Off;
}

int ct_is_deterministic_algorithms_warn_only_enabled(void) {
  return runtime::deterministic_mode() == DeterministicMode::Warn;
}

int32_t ct_get_deterministic_debug_mode(void) { return static_cast<int32_t>(runtime::deterministic_mode()); }

ct_status ct_set_deterministic_debug_mode(int32_t mode) {
  return capi::guard([&] {
    CT_CHECK(mode >= 0 && mode <= 2, CT_ERROR_INVALID_ARGUMENT, "ct_set_deterministic_debug_mode: mode ", mode,
             " is not a debug mode. Pass 0 (off), 1 (warn) or 2 (error)");
    runtime::set_deterministic_mode(static_cast<DeterministicMode>(mode));
  });
}

}  // extern "C"
