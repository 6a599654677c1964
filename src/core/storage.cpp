#include "core/storage.h"

#include <new>

#include "core/device_backend.h"
#include "core/error.h"
#include "core/object_pool.h"
#include "symbolic/shape_env.h"

namespace ct {
namespace {

using StoragePool = SlotPool<sizeof(StorageImpl), alignof(StorageImpl)>;

}  // namespace

size_t live_storage_count() { return StoragePool::live(); }

StorageImpl* StorageImpl::create(size_t nbytes, Device device) {
  const DeviceBackend* a = device.is_meta() ? nullptr : &require_backend(device, "allocate");
  void* data = nullptr;
  Owner owner = Owner::None;
  StorageImpl* s = new (StoragePool::allocate()) StorageImpl;
  if (device.is_cpu() && nbytes <= sizeof(s->inline_)) {
    data = s->inline_;
    owner = Owner::Inline;
  } else if (a && nbytes > 0) {
    try {
      data = a->allocate(a->ctx, device.index, nbytes);
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

StorageImpl* StorageImpl::from_blob(void* data, size_t nbytes, BlobDeleter deleter, void* user_data, Device device) {
  StorageImpl* s = new (StoragePool::allocate()) StorageImpl;
  s->device_ = device;
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
    const DeviceBackend* b = device_backend(device_.type);
    b->free(b->ctx, device_.index, data_, nbytes_);
  } else if (owner_ == Owner::Blob && deleter_) {
    deleter_(data_, user_data_);
  }
  this->~StorageImpl();
  StoragePool::deallocate(this);
}

}  // namespace ct
