#include "core/tensor_impl.h"

#include <algorithm>
#include <new>
#include <utility>

#include "core/object_pool.h"
#include "symbolic/shape_env.h"

namespace ct {
namespace {
using ImplPool = SlotPool<sizeof(TensorImpl), alignof(TensorImpl)>;
}

size_t live_tensor_count() { return ImplPool::live(); }

namespace {
// The row-major stride of the dim outside one of stride s and size size: s * max(size, 1). Only an
// empty tensor's can overflow ((1, 2^62, 0, 2) has 2^63 there), and any strides will do for one, as
// it has no element to reach: the dims further out keep s.
int64_t outer_stride(int64_t s, int64_t size) {
  int64_t next;
  return __builtin_mul_overflow(s, size > 1 ? size : 1, &next) ? s : next;
}
}  // namespace

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector st;
  st.resize(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = s;
    s = outer_stride(s, sizes[i]);
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

SymDimVector contiguous_strides(SymIntArrayRef sizes) {
  if (!any_symbolic(sizes)) return SymDimVector(as_sym(contiguous_strides(as_ints(sizes)).ref()));
  SymDimVector st;
  st.resize(sizes.size());
  SymInt s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = s;
    s = s * sym_max(sizes[i], 1);
  }
  return st;
}

namespace {
// compute_contiguous for symbolic geometry without guards: a stride counts as expected only when
// it is provably so (equal nodes), so an undecidable layout reads as not contiguous.
bool sym_contiguous(SymIntArrayRef sizes, SymIntArrayRef strides) {
  for (SymInt s : sizes)
    if (s.maybe_int() == 0) return true;
  SymInt expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i].maybe_int() == 1) continue;
    if (strides[i].raw() != expected.raw()) return false;
    expected = expected * sizes[i];
  }
  return true;
}
}  // namespace

bool has_internal_overlap(const TensorImpl& t) {
  for (size_t d = 0; d < t.dim(); ++d)
    if (t.sym_stride(d).maybe_int() == 0 && t.sym_size(d) > 1) return true;  // may guard `s > 1`
  return false;
}

bool is_non_overlapping_and_dense(const TensorImpl& t) {
  DimVector dims;  // the dims of size > 1, by increasing stride
  for (size_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] != 1) dims.push_back(static_cast<int64_t>(d));
  std::sort(dims.begin(), dims.end(), [&](int64_t x, int64_t y) { return t.strides()[x] < t.strides()[y]; });
  int64_t expected = 1;
  for (int64_t d : dims) {
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

bool overlaps_differently(const TensorImpl& a, const TensorImpl& b) {
  if (a.storage() != b.storage()) return false;
  if (!a.is_symbolic() && !b.is_symbolic() && (a.numel() == 0 || b.numel() == 0)) return false;
  return !(a.sym_storage_offset().raw() == b.sym_storage_offset().raw() && identical(a.sym_sizes(), b.sym_sizes()) &&
           identical(a.sym_strides(), b.sym_strides()));
}

void TensorImpl::symbolic_read() const {
  fail(CT_ERROR_GUARD, str("a tensor with symbolic sizes ", sym_sizes(),
                           " reached code that reads concrete sizes: this operation does not support "
                           "symbolic shapes yet. Give the tensor concrete sizes, or mark its dims static"));
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

int64_t checked_nbytes(IntArrayRef sizes, DType dtype, const char* op) {
  // The count can fit while the bytes do not: 2^62 float32 elements are 2^64 bytes, 0 once wrapped.
  int64_t nbytes;
  CT_CHECK(!__builtin_mul_overflow(checked_numel(sizes, op), static_cast<int64_t>(itemsize(dtype)), &nbytes),
           CT_ERROR_INVALID_ARGUMENT, op, ": sizes ", sizes, " of ", dtype,
           " are more bytes than int64 can count. Reduce the sizes");
  return nbytes;
}

SymInt checked_numel(SymIntArrayRef sizes, const char* op) {
  if (!any_symbolic(sizes)) return checked_numel(as_ints(sizes), op);
  CT_CHECK(sizes.size() <= kMaxDims, CT_ERROR_INVALID_ARGUMENT, op, ": ", sizes.size(),
           " dims is more than the ", kMaxDims, " supported. Reshape to fewer dims");
  SymInt n = 1;
  for (SymInt s : sizes) {
    CT_SYM_CHECK(s >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": negative size in ", sizes, ". Sizes must be >= 0");
    n = n * s;
  }
  return n;
}

void TensorImpl::set_sym_geometry(SymIntArrayRef sizes, SymIntArrayRef strides, SymInt offset) {
  sizes_.assign(reinterpret_cast<const int64_t*>(sizes.data()), sizes.size());
  strides_.assign(reinterpret_cast<const int64_t*>(strides.data()), strides.size());
  SymInt n = 1;
  for (SymInt s : sizes) n = n * s;
  numel_ = n.raw();
  offset_ = offset.raw();
  symbolic_ = n.is_symbolic() || offset.is_symbolic() || any_symbolic(sizes) || any_symbolic(strides);
  is_contiguous_ = symbolic_ ? sym_contiguous(sizes, strides) : compute_contiguous(this->sizes(), this->strides());
}

namespace {
// The env of the first symbolic value, checking that all share it.
sym::ShapeEnv* env_of(SymIntArrayRef a, SymIntArrayRef b, SymInt c, sym::ShapeEnv* env, const char* op) {
  auto visit = [&](SymInt x) {
    if (!x.is_symbolic()) return;
    CT_CHECK(!env || env == x.env(), CT_ERROR_INVALID_ARGUMENT, op,
             ": sizes hold symbols of two different ShapeEnvs. Build every symbol of one traced program in one "
             "ShapeEnv");
    env = x.env();
  };
  for (SymInt x : a) visit(x);
  for (SymInt x : b) visit(x);
  visit(c);
  return env;
}
}  // namespace

namespace {
// A tensor being made, released unless it is finished: its geometry allocates when it has more
// dims than fit inline, and a failure there must not leak the tensor or its storage.
class Making {
 public:
  explicit Making(TensorImpl* t) : t_(t) {}
  Making(const Making&) = delete;
  Making& operator=(const Making&) = delete;
  ~Making() {
    if (t_) t_->release();
  }
  TensorImpl* operator->() const { return t_; }
  TensorImpl* done() { return std::exchange(t_, nullptr); }

 private:
  TensorImpl* t_;
};
}  // namespace

TensorImpl* TensorImpl::over(StorageImpl* storage, DType dtype) {
  void* slot;
  try {
    slot = ImplPool::allocate();
  } catch (...) {
    storage->release();
    throw;
  }
  TensorImpl* t = new (slot) TensorImpl;
  t->storage_ = storage;
  t->dtype_ = dtype;
  return t;
}

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides) {
  sizes_.assign(sizes.data(), sizes.size());
  strides_.assign(strides.data(), strides.size());
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;  // callers checked the product (checked_numel)
  numel_ = n;
  // A view's strides computed for an empty tensor may have overflowed (unsqueeze of a (2^62, 0, 2)
  // tensor multiplies 2^62 by 2), and one below -2^62 would read as a symbolic pointer (Note
  // [SymInt representation]). None is ever followed, so row-major ones replace them. (A non-empty
  // tensor's strides are bounded by its storage; only flip's internal views have negative ones.)
  if (n == 0)
    for (int64_t s : strides)
      if (s < 0) {
        const DimVector row_major = contiguous_strides(sizes);
        strides_.assign(row_major.data(), row_major.size());
        break;
      }
  is_contiguous_ = compute_contiguous(sizes, strides);
}

TensorImpl* TensorImpl::create(StorageImpl* storage, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                               DType dtype) {
  Making t(over(storage, dtype));
  t->offset_ = offset;
  t->set_geometry(sizes, strides);
  return t.done();
}

TensorImpl* TensorImpl::empty(IntArrayRef sizes, DType dtype, Device device) {
  // One pass for numel, strides and contiguity: this runs for every operator result.
  const int64_t nbytes = checked_nbytes(sizes, dtype, "empty");
  const int64_t n = nbytes / static_cast<int64_t>(itemsize(dtype));
  Making t(over(StorageImpl::create(static_cast<size_t>(nbytes), device), dtype));
  t->numel_ = n;
  t->sizes_.assign(sizes.data(), sizes.size());
  t->strides_.resize(sizes.size());
  int64_t st = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    t->strides_[i] = st;
    st = outer_stride(st, sizes[i]);
  }
  return t.done();
}

TensorImpl* TensorImpl::empty_in_env(SymIntArrayRef sizes, DType dtype, Device device, sym::ShapeEnv* env) {
  if (!any_symbolic(sizes)) {
    TensorImpl* t = empty(as_ints(sizes), dtype, device);
    if (env && device.is_meta()) t->storage_->set_shape_env(env);
    return t;
  }
  CT_CHECK(device.is_meta(), CT_ERROR_DEVICE, "empty: symbolic sizes ", sizes, " need the meta device, not ", device,
           ". Bind the symbols to values first");
  env = env_of(sizes, {}, 0, env, "empty");
  checked_numel(sizes, "empty");
  const SymDimVector strides = contiguous_strides(sizes);
  StorageImpl* s = StorageImpl::create(0, device);
  s->set_shape_env(env);
  Making t(over(s, dtype));
  t->set_sym_geometry(sizes, strides, 0);
  t->is_contiguous_ = true;  // by construction, whether or not provable from the strides
  return t.done();
}

TensorImpl* TensorImpl::view_of(const TensorImpl& base, SymIntArrayRef sizes, SymIntArrayRef strides, SymInt offset) {
  if (!any_symbolic(sizes) && !any_symbolic(strides) && !offset.is_symbolic())
    return view_of(base, as_ints(sizes), as_ints(strides), offset.raw());
  sym::ShapeEnv* env = env_of(sizes, strides, offset, base.shape_env(), "view");
  CT_CHECK(base.device().is_meta(), CT_ERROR_DEVICE, "view: symbolic sizes ", sizes, " need the meta device, not ",
           base.device());
  checked_numel(sizes, "view");
  base.storage_->retain();
  base.storage_->set_shape_env(env);
  Making t(over(base.storage_, base.dtype_));
  t->set_sym_geometry(sizes, strides, offset);
  t->set_view_base(base);
  return t.done();
}

TensorImpl* TensorImpl::view_of(const TensorImpl& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  checked_numel(sizes, "view");  // before taking a reference, so a failure leaks nothing
  base.storage_->retain();
  TensorImpl* t = create(base.storage_, sizes, strides, offset, base.dtype_);
  t->set_view_base(base);
  return t;
}

void TensorImpl::set_view_base(const TensorImpl& base) {
  is_view_ = true;
  view_base_ = base.view_base_ ? base.view_base_ : &base;
  view_base_->retain();
}

TensorImpl* TensorImpl::view_of(const TensorImpl& base, SymIntArrayRef sizes, SymIntArrayRef strides, SymInt offset,
                                DType dtype) {
  TensorImpl* t = view_of(base, sizes, strides, offset);
  t->dtype_ = dtype;  // geometry counts elements, so only the reading of them changes
  return t;
}

TensorImpl* TensorImpl::alias_of(const TensorImpl& base) {
  base.storage_->retain();
  Making t(over(base.storage_, base.dtype_));
  t->sizes_ = base.sizes_;
  t->strides_ = base.strides_;
  t->numel_ = base.numel_;
  t->offset_ = base.offset_;
  t->is_contiguous_ = base.is_contiguous_;
  t->symbolic_ = base.symbolic_;
  t->wrapped_number_ = base.wrapped_number_;
  t->is_inference_ = base.is_inference_;
  return t.done();
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
  const TensorImpl* base = view_base_;
  this->~TensorImpl();
  // Written into the raw slot after the object's lifetime ended; volatile, because the compiler may
  // drop a store to a dead object, and this one must stay readable (see Note [Handle poisoning]).
  *reinterpret_cast<volatile uint32_t*>(static_cast<void*>(this)) = kDeadTag;
  ImplPool::deallocate(this);
  s->release();
  if (base) base->release();
}

}  // namespace ct
