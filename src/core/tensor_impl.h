// tensor_impl.h - TensorImpl: sizes, strides, offset and dtype over a shared StorageImpl.
//
// Note [TensorImpl size constraints]
// One TensorImpl is allocated per tensor result, so its size is a budget: every field needs a
// reason. Sizes and strides keep six dims inline; a view's base pointer took the budget from 192
// to 200 bytes. The handle a C caller holds is the TensorImpl itself (DESIGN §3: one allocation
// per handle); its first word is the liveness tag that the C ABI checks on entry (see Note [Handle
// poisoning] in object_pool.h).
#pragma once

#include <atomic>
#include <cstdint>

#include "core/array_ref.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/storage.h"
#include "symbolic/sym_int.h"

namespace ct {

constexpr size_t kMaxDims = 64;

/// What autograd keeps on a tensor that takes part in differentiation (autograd/meta.h defines it).
/// The core only owns and frees it, so it depends on nothing above it.
class AutogradMetaBase {
 public:
  virtual ~AutogradMetaBase() = default;
};

class TensorImpl {
 public:
  static constexpr uint32_t kLiveTag = 0x4354544eu;  // "CTTN"
  static constexpr uint32_t kDeadTag = 0xdeadc0deu;

  /// A new tensor over storage (adopted: its reference moves in). Refcount 1.
  static TensorImpl* create(StorageImpl* storage, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                            DType dtype);
  /// A new contiguous tensor with fresh storage on device.
  static TensorImpl* empty(IntArrayRef sizes, DType dtype, Device device);
  /// The same with sizes that may be symbolic: those need the meta device (CT_ERROR_DEVICE
  /// otherwise); the storage keeps their ShapeEnv, or env when given and no size is symbolic.
  static TensorImpl* empty_sym(SymIntArrayRef sizes, DType dtype, Device device, sym::ShapeEnv* env = nullptr) {
    if (!env && !any_symbolic(sizes)) return empty(as_ints(sizes), dtype, device);
    return empty_in_env(sizes, dtype, device, env);
  }
  /// A view of base's storage (retained) with new geometry; CT_ERROR_INVALID_ARGUMENT when the
  /// sizes' product overflows. is_view() is true on the result.
  static TensorImpl* view_of(const TensorImpl& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
  static TensorImpl* view_of(const TensorImpl& base, SymIntArrayRef sizes, SymIntArrayRef strides, SymInt offset);
  /// The same, reading base's bytes as dtype (view_as_real, view_as_complex): sizes, strides and
  /// offset count elements of dtype, which the caller has checked lie within base's elements.
  static TensorImpl* view_of(const TensorImpl& base, SymIntArrayRef sizes, SymIntArrayRef strides, SymInt offset,
                             DType dtype);
  /// Another tensor over exactly base's elements, with no autograd state (detach, saved outputs).
  static TensorImpl* alias_of(const TensorImpl& base);

  bool alive() const { return tag_ == kLiveTag; }
  void retain() const { refcount_.fetch_add(1, std::memory_order_relaxed); }
  void release() const {
    if (refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) const_cast<TensorImpl*>(this)->destroy();
  }
  int32_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

  DType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  size_t dim() const { return sizes_.size(); }

  /// Note [Symbolic tensors]
  /// A meta tensor may have symbolic sizes, strides, numel or offset (SymInts holding nodes of a
  /// ShapeEnv, kept alive by its storage). Code that handles them reads the sym_* accessors; the
  /// plain ones raise CT_ERROR_GUARD on such a tensor instead of handing out tagged bits, so an
  /// operator not yet written for symbolic sizes fails with a message rather than a wrong shape.
  bool is_symbolic() const { return symbolic_; }
  IntArrayRef sizes() const { return concrete(sizes_); }
  IntArrayRef strides() const { return concrete(strides_); }
  int64_t size(size_t d) const { return sizes().data()[d]; }
  int64_t stride(size_t d) const { return strides().data()[d]; }
  int64_t numel() const { return concrete(numel_); }
  int64_t storage_offset() const { return concrete(offset_); }
  /// The same as SymInts (see Note [SymInt representation]): valid on every tensor.
  SymIntArrayRef sym_sizes() const { return as_sym_bits(sizes_); }
  SymIntArrayRef sym_strides() const { return as_sym_bits(strides_); }
  SymInt sym_size(size_t d) const { return SymInt::from_raw(sizes_[d]); }
  SymInt sym_stride(size_t d) const { return SymInt::from_raw(strides_[d]); }
  SymInt sym_numel() const { return SymInt::from_raw(numel_); }
  SymInt sym_storage_offset() const { return SymInt::from_raw(offset_); }
  /// The ShapeEnv this tensor's symbols (or, for item(), its future symbols) belong to, or null.
  sym::ShapeEnv* shape_env() const { return storage_->shape_env(); }
  bool is_contiguous() const { return is_contiguous_; }
  StorageImpl* storage() const { return storage_; }
  /// Address of element 0 (null for meta tensors).
  void* data() const {
    char* base = static_cast<char*>(storage_->data());
    return base ? base + offset_ * static_cast<int64_t>(itemsize(dtype_)) : nullptr;
  }
  template <typename T>
  T* data_as() const { return static_cast<T*>(data()); }

  /// Note [Wrapped numbers]: a 0-dim tensor made from a C or Python number. Type promotion ranks it
  /// below tensors of its category (int tensor + 2.0 is float32, not float64).
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool v) { wrapped_number_ = v; }

  /// Note [Autograd state is mutable]: requires_grad, grad and grad_fn describe how a tensor takes
  /// part in differentiation, not its value, so they change through const references (a C handle
  /// and an operator argument are const), as PyTorch's Variable metadata does. requires_grad() is
  /// the one bit the dispatcher reads on every call; the rest lives in autograd_meta().
  bool requires_grad() const { return requires_grad_; }
  void set_requires_grad_bit(bool v) const { requires_grad_ = v; }
  AutogradMetaBase* autograd_meta() const { return autograd_meta_; }
  /// Installs meta (owned from now on); the previous one is freed.
  void set_autograd_meta(AutogradMetaBase* meta) const;
  /// Made by a view operator: shares its base's storage with another layout's meaning.
  bool is_view() const { return is_view_; }
  /// A view's base: the tensor, itself no view, whose storage the view reads (a view of a view
  /// names the first view's base). Null for tensors that are not views. The view keeps it alive, so
  /// that an in-place change through the view can give the base its history (autograd/op_node.cpp,
  /// Note [Writing through a view]); the base never points back.
  const TensorImpl* view_base() const { return view_base_; }
  /// Made in inference mode: may never be saved for backward (see dispatch/grad_mode.h).
  bool is_inference() const { return is_inference_; }
  void set_inference() const { is_inference_ = true; }

 private:
  TensorImpl() = default;
  /// A new tensor over storage (its reference moves in, and is released if the tensor cannot be
  /// made), with no geometry yet. Refcount 1.
  static TensorImpl* over(StorageImpl* storage, DType dtype);
  void destroy();
  void set_geometry(IntArrayRef sizes, IntArrayRef strides);
  void set_view_base(const TensorImpl& base);
  void set_sym_geometry(SymIntArrayRef sizes, SymIntArrayRef strides, SymInt offset);
  static TensorImpl* empty_in_env(SymIntArrayRef sizes, DType dtype, Device device, sym::ShapeEnv* env);
  static SymIntArrayRef as_sym_bits(const DimVector& v) {
    return SymIntArrayRef(reinterpret_cast<const SymInt*>(v.data()), v.size());
  }
  template <typename T>
  const T& concrete(const T& v) const {
    if (__builtin_expect(symbolic_, 0)) symbolic_read();
    return v;
  }
  [[noreturn]] void symbolic_read() const;

  uint32_t tag_ = kLiveTag;  // INVARIANT: first field; kLiveTag while refcount_ > 0
  mutable std::atomic<int32_t> refcount_{1};
  DType dtype_ = DType::Float32;
  bool is_contiguous_ = true;  // INVARIANT: equals compute_contiguous(sizes_, strides_)
  bool wrapped_number_ = false;
  bool is_view_ = false;
  mutable bool requires_grad_ = false;  // see Note [Autograd state is mutable]
  mutable bool is_inference_ = false;
  bool symbolic_ = false;  // some size, stride, numel or the offset is symbolic (Note [Symbolic tensors])
  int64_t numel_ = 1;   // INVARIANT: product of sizes_
  int64_t offset_ = 0;  // in elements
  StorageImpl* storage_ = nullptr;  // INVARIANT: non-null, one reference owned
  mutable AutogradMetaBase* autograd_meta_ = nullptr;  // owned
  const TensorImpl* view_base_ = nullptr;  // views: one reference owned
  DimVector sizes_;
  DimVector strides_;  // in elements
};

static_assert(sizeof(TensorImpl) <= 200, "See Note [TensorImpl size constraints]");

/// True when some memory location backs more than one element (a stride of 0 on a dim of size > 1,
/// as expand makes). Writing such a tensor in place is ill-defined.
bool has_internal_overlap(const TensorImpl& t);
/// True when t's strides reach each of its elements exactly once with no gaps between them: a
/// permutation of a row-major layout (size-1 dims take any stride). Concrete sizes only.
bool is_non_overlapping_and_dense(const TensorImpl& t);
/// True when a and b read the same storage through a different layout, so writing one while
/// reading the other elementwise would read already-written values. Conservative: disjoint views
/// of one storage also count.
bool overlaps_differently(const TensorImpl& a, const TensorImpl& b);

/// TensorImpls alive now (metrics; exact while no other thread creates or frees tensors).
size_t live_tensor_count();

/// Row-major strides for sizes.
DimVector contiguous_strides(IntArrayRef sizes);
/// True when strides are row-major for sizes (size-1 dims may have any stride).
bool compute_contiguous(IntArrayRef sizes, IntArrayRef strides);
/// Product of sizes; raises CT_ERROR_INVALID_ARGUMENT for negative sizes or overflow.
int64_t checked_numel(IntArrayRef sizes, const char* op);
/// The same for sizes that may be symbolic: a symbolic size must be >= 0 (a guard, or for an
/// unbacked size a runtime assertion).
SymInt checked_numel(SymIntArrayRef sizes, const char* op);
/// Bytes of a contiguous dtype tensor of sizes; raises CT_ERROR_INVALID_ARGUMENT as checked_numel
/// does, and when the count fits but the bytes overflow int64.
int64_t checked_nbytes(IntArrayRef sizes, DType dtype, const char* op);
/// Row-major strides for sizes that may be symbolic (max(size, 1) products, as for concrete sizes).
SymDimVector contiguous_strides(SymIntArrayRef sizes);

}  // namespace ct
