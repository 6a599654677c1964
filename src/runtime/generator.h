// generator.h - Generator: the state of a counter-based Philox4x32-10 random stream.
//
// Note [Counter-based random numbers]
// A Philox generator is a seed (the key) and an offset (the next unused 128-bit counter block). A
// random operator reserves the blocks it needs in one step and then computes element i from block
// offset + i * words / 4 alone, so the numbers do not depend on how the work is split between
// threads, and a CUDA kernel computing the same blocks gives the same bits. The state is 16 bytes,
// so a checkpoint is cheap, and set_offset replays any part of the stream.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "core/device.h"

namespace ct::runtime {

/// A reserved stretch of one stream: blocks [first, first + count) under key seed.
struct PhiloxRange {
  uint64_t seed = 0;
  uint64_t first = 0;
};

class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;  // PyTorch's default, for familiarity
  static constexpr uint32_t kLiveTag = 0x4e454721;              // "!GEN": see Note [Handle poisoning]
  static constexpr size_t kStateSize = 24;                      // CT_GENERATOR_STATE_SIZE

  explicit Generator(Device device, uint64_t seed = kDefaultSeed) : device_(device), seed_(seed) {}
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  /// The default generator of a device (meta shares cpu's; each other device has its own, made
  /// on first use). Lives for the process. CT_ERROR_DEVICE for a device the process does not have.
  static Generator& default_for(Device d);
  /// Seeds the default generator of every device, those not made yet included (torch.manual_seed):
  /// one seed then gives every device the same stream, so cuda draws the cpu's numbers.
  static void manual_seed_all(uint64_t seed);
  /// A new generator for a handle, in a pool slot so that a released handle reads as dead (see
  /// Note [Handle poisoning]); release() ends it.
  static Generator* create(Device d);

  /// Reserves blocks counter blocks and returns where they start.
  PhiloxRange reserve(uint64_t blocks);

  Device device() const { return device_; }
  void manual_seed(uint64_t seed);  // also rewinds the offset to 0
  uint64_t initial_seed() const;
  uint64_t offset() const;
  void set_offset(uint64_t offset);
  /// The 24-byte checkpoint: magic, format version, seed, offset (little-endian).
  void get_state(uint8_t* out) const;
  /// Raises CT_ERROR_FORMAT when state is not one get_state wrote.
  void set_state(const uint8_t* state);

  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  /// Drops a reference; ends the generator when it was the last one (never a default one).
  void release();
  bool is_live() const { return tag_ == kLiveTag; }

 private:
  uint32_t tag_ = kLiveTag;  // INVARIANT: first member, so a handle's tag is read at offset 0
  std::atomic<int64_t> refs_{1};
  bool is_default_ = false;
  Device device_;
  mutable std::mutex mu_;
  uint64_t seed_;        // guarded by mu_
  uint64_t offset_ = 0;  // guarded by mu_; in 128-bit blocks
};

}  // namespace ct::runtime
