// tensor.h - Tensor, an owning reference to a TensorImpl (intrusive refcount, like a shared_ptr).
#pragma once

#include <utility>

#include "core/tensor_impl.h"

namespace ct {

class Tensor {
 public:
  Tensor() = default;
  /// Takes ownership of one reference (from TensorImpl::create and friends).
  static Tensor adopt(TensorImpl* impl) { return Tensor(impl); }
  /// Adds a reference to a borrowed impl.
  static Tensor borrow(const TensorImpl* impl) {
    impl->retain();
    return Tensor(const_cast<TensorImpl*>(impl));
  }
  Tensor(const Tensor& o) : impl_(o.impl_) {
    if (impl_) impl_->retain();
  }
  Tensor(Tensor&& o) noexcept : impl_(o.impl_) { o.impl_ = nullptr; }
  Tensor& operator=(const Tensor& o) {
    Tensor(o).swap(*this);
    return *this;
  }
  Tensor& operator=(Tensor&& o) noexcept {
    Tensor(std::move(o)).swap(*this);
    return *this;
  }
  ~Tensor() {
    if (impl_) impl_->release();
  }
  void swap(Tensor& o) noexcept { std::swap(impl_, o.impl_); }
  /// Gives up ownership of the reference (for handing a handle to C).
  TensorImpl* release_ownership() {
    TensorImpl* p = impl_;
    impl_ = nullptr;
    return p;
  }

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_; }
  TensorImpl* operator->() const { return impl_; }
  const TensorImpl& operator*() const { return *impl_; }

 private:
  explicit Tensor(TensorImpl* impl) : impl_(impl) {}
  TensorImpl* impl_ = nullptr;
};

}  // namespace ct
