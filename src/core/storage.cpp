#include "core/storage.h"

#include <new>

#include "core/allocator.h"
#include "core/error.h"
#include "core/object_pool.h"
#include "symbolic/shape_env.h"

namespace ct {
namespace {

using StoragePool = SlotPool<sizeof(StorageImpl), alignof(StorageImpl)>;

const DeviceAllocator kCpuAllocator{cpu_allocate, cpu_free};
std::atomic<const DeviceAllocator*> g_allocators[3] = {&kCpuAllocator, nullptr, nullptr};

}  // namespace

size_t live_storage_count() { return StoragePool::live(); }

void set_device_allocator(DeviceType type, const DeviceAllocator* a) {
  g_allocators[static_cast<int>(type)].store(a, std::memory_order_release);
}

bool has_device_allocator(DeviceType type) {
  return type == DeviceType::Meta || g_allocators[static_cast<int>(type)].load(std::memory_order_acquire);
}

StorageImpl* StorageImpl::create(size_t nbytes, Device device) {
  const DeviceAllocator* a = nullptr;
  if (!device.is_meta()) {
    a = g_allocators[static_cast<int>(device.type)].load(std::memory_order_acquire);
    CT_CHECK(a, CT_ERROR_DEVICE, "allocate: no backend for device ", device,
             " is loaded in this process. Use cpu, or load the backend for this device");
  }
  void* data = nullptr;
  Owner owner = Owner::None;
  StorageImpl* s = new (StoragePool::allocate()) StorageImpl;
  if (device.is_cpu() && nbytes <= sizeof(s->inline_)) {
    data = s->inline_;
    owner = Owner::Inline;
  } else if (a) {
    try {
      data = a->allocate(nbytes);
    } catch (...) {
      s->~StorageImpl();
      StoragePool::deallocate(s);
      throw;
    }
    owner = Owner::Allocator;
  }
  s->device_ = device;
  s->owner_ = owner;
  s->data_ = data;
  s->nbytes_ = nbytes;
  return s;
}

StorageImpl* StorageImpl::from_blob(void* data, size_t nbytes, BlobDeleter deleter, void* user_data) {
  StorageImpl* s = new (StoragePool::allocate()) StorageImpl;
  s->device_ = kCPU;
  s->owner_ = Owner::Blob;
  s->data_ = data;
  s->nbytes_ = nbytes;
  s->deleter_ = deleter;
  s->user_data_ = user_data;
  return s;
}

void StorageImpl::set_shape_env(sym::ShapeEnv* env) {
  if (env == shape_env_) return;
  if (env) env->retain();
  if (shape_env_) shape_env_->release();
  shape_env_ = env;
}

void StorageImpl::destroy() {
  if (shape_env_) shape_env_->release();
  if (owner_ == Owner::Allocator) {
    g_allocators[static_cast<int>(device_.type)].load(std::memory_order_acquire)->free(data_, nbytes_);
  } else if (owner_ == Owner::Blob && deleter_) {
    deleter_(data_, user_data_);
  }
  this->~StorageImpl();
  StoragePool::deallocate(this);
}

}  // namespace ct
