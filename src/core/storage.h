// storage.h - StorageImpl: a refcounted block of device memory that tensors (and views) share.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/device.h"

namespace ct {

namespace sym {
class ShapeEnv;  // symbolic/shape_env.h
}

using BlobDeleter = void (*)(void* data, void* user_data);

/// StorageImpls alive now, on every device (metrics; exact while no other thread changes them).
size_t live_storage_count();

class StorageImpl {
 public:
  /// New storage of nbytes on device (meta: no memory), from the device's DeviceBackend. Refcount 1.
  static StorageImpl* create(size_t nbytes, Device device);
  /// Storage over caller memory on device (cpu unless given: DLPack brings CUDA memory too);
  /// deleter(data, user_data) runs when the last user goes.
  static StorageImpl* from_blob(void* data, size_t nbytes, BlobDeleter deleter, void* user_data, Device device = kCPU);

  void retain() { refcount_.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy();
  }
  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  /// Bumped by every in-place write; autograd compares it with the value saved at record time.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }
  /// The ShapeEnv whose symbols this (meta) storage's tensors use, or null. A tensor with symbolic
  /// sizes keeps its env alive through its storage, which every view shares.
  sym::ShapeEnv* shape_env() const { return shape_env_; }
  /// The deleter of caller memory (from_blob), or null: tells page-locked host memory apart.
  BlobDeleter blob_deleter() const { return deleter_; }
  /// Adopts env (retained here; released with the storage). Set once, right after creation.
  void set_shape_env(sym::ShapeEnv* env);
  /// Caller memory that must not be written (a read-only numpy array, a DLPack READ_ONLY capsule):
  /// every in-place write to a tensor over this storage is refused (see check_writable).
  bool read_only() const { return read_only_; }
  /// Marks the storage read-only. Set once, right after creation, before any tensor is shared.
  void set_read_only() { read_only_ = true; }
  /// Caller memory refused after wrapping it: the caller keeps it, so no deleter runs on release.
  void forget_deleter() { deleter_ = nullptr; }

 private:
  enum class Owner : uint8_t { Inline, Allocator, Blob, None };
  StorageImpl() = default;
  void destroy();

  std::atomic<int32_t> refcount_{1};
  std::atomic<uint32_t> version_{0};
  Device device_;
  Owner owner_ = Owner::None;
  bool read_only_ = false;
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  BlobDeleter deleter_ = nullptr;
  void* user_data_ = nullptr;
  sym::ShapeEnv* shape_env_ = nullptr;  // one reference owned
  // Small tensors (scalars, short vectors) keep their bytes here: no allocation at all.
  alignas(64) unsigned char inline_[64];
};

}  // namespace ct
