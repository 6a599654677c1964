// determinism.h - the deterministic-algorithms switch (ct_use_deterministic_algorithms).
#pragma once

#include <atomic>

namespace ct::runtime {

/// The one state behind every determinism getter and setter. Values equal the debug modes of
/// ct_get_deterministic_debug_mode, so "enabled" and "warn only" are read from one atomic and can
/// never disagree.
enum class DeterministicMode : int { Off = 0, Warn = 1, Error = 2 };

namespace detail {
extern std::atomic<int> deterministic_mode;
}

inline DeterministicMode deterministic_mode() {
  return static_cast<DeterministicMode>(detail::deterministic_mode.load(std::memory_order_relaxed));
}
inline void set_deterministic_mode(DeterministicMode m) {
  detail::deterministic_mode.store(static_cast<int>(m), std::memory_order_relaxed);
}

}  // namespace ct::runtime
