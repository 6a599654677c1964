// dispatch_key.h - DispatchKey and DispatchKeySet: which layers an operator call passes through.
//
// A key set is a 64-bit mask with one bit per key; a higher bit means higher priority, so the
// kernel to run is the highest key present. Worked example: a CPU tensor that needs grad, traced
// by the compiler, has {CPU, Autograd}; the tracer adds Tracer through the thread-local included
// set, so a call runs Tracer first, whose kernel redispatches to keys below it, reaching Autograd,
// which redispatches to CPU.
#pragma once

#include <cstdint>

#include "core/device.h"

namespace ct {

// Backend keys have the values of their DeviceType (see backend_key).
enum class DispatchKey : uint8_t {
  // Backends (a tensor carries exactly one).
  CPU = 0,
  CUDA = 1,
  Meta = 2,
  PrivateUse1 = 3,
  PrivateUse2 = 4,
  PrivateUse3 = 5,
  PrivateUse4 = 6,
  // Functionality, in rising priority.
  Autograd = 7,
  Profiler = 8,
  Tracer = 9,
  Autocast = 10,  // above the tracer, so a compiled graph records autocast's casts
};
constexpr int kNumDispatchKeys = 11;
constexpr int kNumBackendKeys = 7;
static_assert(static_cast<int>(DispatchKey::PrivateUse1) == static_cast<int>(DeviceType::PrivateUse1) &&
                  static_cast<int>(DispatchKey::PrivateUse4) == static_cast<int>(DeviceType::PrivateUse4) &&
                  kNumBackendKeys == kNumDeviceTypes,
              "backend_key maps plugin device types to keys by value");

const char* dispatch_key_name(DispatchKey k);

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey k) : bits_(uint64_t(1) << static_cast<int>(k)) {}
  static constexpr DispatchKeySet from_bits(uint64_t b) {
    DispatchKeySet s;
    s.bits_ = b;
    return s;
  }
  static constexpr DispatchKeySet backends() { return from_bits((uint64_t(1) << kNumBackendKeys) - 1); }

  constexpr bool has(DispatchKey k) const { return (bits_ >> static_cast<int>(k)) & 1u; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint64_t bits() const { return bits_; }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_bits(bits_ | o.bits_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from_bits(bits_ & o.bits_); }
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return from_bits(bits_ & ~o.bits_); }
  constexpr DispatchKeySet add(DispatchKey k) const { return *this | DispatchKeySet(k); }
  /// The highest-priority key. Precondition: !empty().
  DispatchKey highest() const { return static_cast<DispatchKey>(63 - __builtin_clzll(bits_)); }
  /// The keys strictly below k: what a kernel for k redispatches to.
  constexpr DispatchKeySet below(DispatchKey k) const {
    return from_bits(bits_ & ((uint64_t(1) << static_cast<int>(k)) - 1));
  }

 private:
  uint64_t bits_ = 0;
};

/// The backend key of a device.
inline DispatchKey backend_key(Device d) {
  switch (d.type) {
    case DeviceType::CPU: return DispatchKey::CPU;
    case DeviceType::CUDA: return DispatchKey::CUDA;
    case DeviceType::Meta: return DispatchKey::Meta;
    default: return static_cast<DispatchKey>(d.type);  // PrivateUse1..4 share their values
  }
}

/// Keys the calling thread adds to (included) and removes from (excluded) every call's key set.
struct LocalDispatchKeys {
  DispatchKeySet included;
  DispatchKeySet excluded;
  bool inference = false;  // inference mode: every operator result is marked an inference tensor
};
LocalDispatchKeys& local_dispatch_keys();

/// Includes or excludes keys for the current scope on this thread; restores on exit.
class DispatchKeyGuard {
 public:
  DispatchKeyGuard(DispatchKeySet include, DispatchKeySet exclude) : saved_(local_dispatch_keys()) {
    LocalDispatchKeys& l = local_dispatch_keys();
    l.included = l.included | include;
    l.excluded = l.excluded | exclude;
  }
  ~DispatchKeyGuard() { local_dispatch_keys() = saved_; }
  DispatchKeyGuard(const DispatchKeyGuard&) = delete;
  DispatchKeyGuard& operator=(const DispatchKeyGuard&) = delete;

 private:
  LocalDispatchKeys saved_;
};

}  // namespace ct
