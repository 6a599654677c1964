#include "core/tensor_impl.h"

#include <new>

#include "core/object_pool.h"

namespace ct {
namespace {
using ImplPool = SlotPool<sizeof(TensorImpl), alignof(TensorImpl)>;
}

size_t live_tensor_count() { return ImplPool::live(); }

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector st;
  st.resize(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = s;
    s *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return st;
}

bool compute_contiguous(IntArrayRef sizes, IntArrayRef strides) {
  for (int64_t s : sizes)
    if (s == 0) return true;  // no element: any strides will do
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

bool has_internal_overlap(const TensorImpl& t) {
  for (size_t d = 0; d < t.dim(); ++d)
    if (t.size(d) > 1 && t.stride(d) == 0) return true;
  return false;
}

bool overlaps_differently(const TensorImpl& a, const TensorImpl& b) {
  if (a.storage() != b.storage() || a.numel() == 0 || b.numel() == 0) return false;
  return !(a.storage_offset() == b.storage_offset() && a.sizes().equals(b.sizes()) && a.strides().equals(b.strides()));
}

int64_t checked_numel(IntArrayRef sizes, const char* op) {
  CT_CHECK(sizes.size() <= kMaxDims, CT_ERROR_INVALID_ARGUMENT, op, ": ", sizes.size(),
           " dims is more than the ", kMaxDims, " supported. Reshape to fewer dims");
  int64_t n = 1;
  for (int64_t s : sizes) {
    CT_CHECK(s >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": negative size in ", sizes, ". Sizes must be >= 0");
    CT_CHECK(!__builtin_mul_overflow(n, s, &n), CT_ERROR_INVALID_ARGUMENT, op, ": sizes ", sizes,
             " overflow int64 elements");
  }
  return n;
}

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides) {
  sizes_.assign(sizes.data(), sizes.size());
  strides_.assign(strides.data(), strides.size());
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;  // callers checked the product (checked_numel)
  numel_ = n;
  is_contiguous_ = compute_contiguous(sizes, strides);
}

TensorImpl* TensorImpl::create(StorageImpl* storage, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                               DType dtype) {
  TensorImpl* t = new (ImplPool::allocate()) TensorImpl;
  t->storage_ = storage;
  t->dtype_ = dtype;
  t->offset_ = offset;
  t->set_geometry(sizes, strides);
  return t;
}

TensorImpl* TensorImpl::empty(IntArrayRef sizes, DType dtype, Device device) {
  // One pass for numel, strides and contiguity: this runs for every operator result.
  const int64_t n = checked_numel(sizes, "empty");
  StorageImpl* s = StorageImpl::create(static_cast<size_t>(n) * itemsize(dtype), device);
  TensorImpl* t = new (ImplPool::allocate()) TensorImpl;
  t->storage_ = s;
  t->dtype_ = dtype;
  t->numel_ = n;
  t->sizes_.assign(sizes.data(), sizes.size());
  t->strides_.resize(sizes.size());
  int64_t st = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    t->strides_[i] = st;
    st *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return t;
}

TensorImpl* TensorImpl::view_of(const TensorImpl& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  checked_numel(sizes, "view");  // before taking a reference, so a failure leaks nothing
  base.storage_->retain();
  TensorImpl* t = create(base.storage_, sizes, strides, offset, base.dtype_);
  t->is_view_ = true;
  return t;
}

TensorImpl* TensorImpl::alias_of(const TensorImpl& base) {
  base.storage_->retain();
  TensorImpl* t = create(base.storage_, base.sizes_, base.strides_, base.offset_, base.dtype_);
  t->wrapped_number_ = base.wrapped_number_;
  t->is_inference_ = base.is_inference_;
  return t;
}

void TensorImpl::set_autograd_meta(AutogradMetaBase* meta) const {
  AutogradMetaBase* old = autograd_meta_;
  autograd_meta_ = meta;
  delete old;
}

void TensorImpl::destroy() {
  StorageImpl* s = storage_;
  // The meta may hold the last reference to a graph whose nodes hold tensors: free it first, while
  // this tensor is still whole.
  delete autograd_meta_;
  autograd_meta_ = nullptr;
  this->~TensorImpl();
  // Written into the raw slot after the object's lifetime ended; volatile, because the compiler may
  // drop a store to a dead object, and this one must stay readable (see Note [Handle poisoning]).
  *reinterpret_cast<volatile uint32_t*>(static_cast<void*>(this)) = kDeadTag;
  ImplPool::deallocate(this);
  s->release();
}

}  // namespace ct
