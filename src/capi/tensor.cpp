// tensor.cpp - tensor lifecycle, creation, inspection and printing through the C ABI.
#include <complex>
#include <cstring>

#include "capi/handle.h"
#include "compile/trace.h"
#include "core/error.h"
#include "ops/cpu/cast.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "io/print.h"

using namespace ct;
using capi::sizes_arg;
using capi::tensor_arg;

namespace {

// x itself on the cpu (or meta), else a host copy of it: what the functions that read elements see.
Tensor on_host(const TensorImpl& x) {
  return x.device().is_cpu() || x.device().is_meta() ? Tensor::borrow(&x) : ops::to(Tensor::borrow(&x), kCPU, x.dtype());
}

// Runs body(t) for an inspection function: checks t and out, fills out.
template <typename Out, typename F>
ct_status inspect(const ct_tensor* t, Out* out, const char* fn, F&& body) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, fn, "t");
    capi::require_out(out, fn, "out");
    body(x);
  });
}

// Sizes and strides as plain integers. A tensor being traced may hold symbols there: reading them
// as integers specializes them (a guard s0 == 8, see Note [Tracing]). Other symbolic tensors are
// refused by the plain accessors, with a message.
DimVector specialized(SymIntArrayRef v) {
  DimVector out;
  for (SymInt s : v) out.push_back(s.guard_int());
  return out;
}
DimVector plain_sizes(const TensorImpl& x) {
  return x.is_symbolic() && compile::is_proxy(x) ? specialized(x.sym_sizes()) : DimVector(x.sizes());
}
DimVector plain_strides(const TensorImpl& x) {
  return x.is_symbolic() && compile::is_proxy(x) ? specialized(x.sym_strides()) : DimVector(x.strides());
}

}  // namespace

// Note [Bool bytes at the boundary]
// C++ kernels read a bool element as bool, and a byte other than 0 or 1 there is undefined
// behaviour (a sum of [0, 1, 2, 255] read as bool gave 258). ctorch makes every bool it owns 0 or 1,
// so only memory lent from outside can hold other bytes: zero-copy imports (from_blob, DLPack,
// numpy buffers) refuse them here, naming an offending element (the first holding the largest
// byte: one reduction finds it), as the checkpoint reader refuses them in a file; ct_tensor_from_data, which copies, maps every non-zero byte to 1 as
// numpy's truth value does.
void capi::check_bool_bytes(const char* fn, const TensorImpl& t) {
  if (t.dtype() != DType::Bool || t.numel() == 0) return;
  StorageImpl* storage = t.storage();
  storage->retain();  // the byte view below adopts a reference
  const Tensor bytes = Tensor::adopt(TensorImpl::create(storage, t.sizes(), t.strides(), t.storage_offset(), DType::UInt8));
  const Tensor top = ops::to(ops::amax(bytes, {}, false), kCPU, DType::UInt8);
  const uint8_t byte = *top->data_as<uint8_t>();
  if (byte <= 1) return;
  const int64_t flat[1] = {-1};
  const Tensor at = ops::to(ops::argmax(ops::reshape(bytes, IntArrayRef(flat, 1))),
                                   kCPU, DType::Int64);
  fail(CT_ERROR_INVALID_ARGUMENT, str(fn, ": bool element ", *at->data_as<int64_t>(), " (row-major) of ", t.sizes(),
                                      " holds the byte ", int{byte}, ", and a bool must be 0 or 1. Pass 0/1 bytes "
                                      "(numpy: a != 0), or copy the data in with ct_tensor_from_data, which maps "
                                      "non-zero bytes to 1"));
}

Tensor capi::blob_tensor(const char* fn, void* data, IntArrayRef s, const int64_t* strides, DType d,
                         BlobDeleter deleter, void* user_data, Device device, bool read_only) {
  const size_t ndim = s.size();
  const int64_t n = checked_numel(s, fn);
  CT_CHECK(data || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": data is NULL for ", n, " elements");
  DimVector st = strides ? DimVector(IntArrayRef(strides, ndim)) : contiguous_strides(s);
  int64_t span = n ? 1 : 0;  // elements reachable: 1 + sum (size - 1) * stride
  for (size_t i = 0; i < ndim && n; ++i) {
    CT_CHECK(st[i] >= 0, CT_ERROR_INVALID_ARGUMENT, fn, ": negative stride ", st[i], " in dim ", i,
             ". Strides must be >= 0");
    int64_t reach = 0;
    CT_CHECK(!__builtin_mul_overflow(s[i] - 1, st[i], &reach) && !__builtin_add_overflow(span, reach, &span) &&
                 !__builtin_mul_overflow(span, static_cast<int64_t>(itemsize(d)), &reach),
             CT_ERROR_INVALID_ARGUMENT, fn, ": sizes ", s, " with strides ", IntArrayRef(st.data(), ndim),
             " reach beyond any addressable memory. Check the strides");
  }
  const size_t nbytes = static_cast<size_t>(span) * itemsize(d);
  if (n) {
    // Kernels load whole elements: a misaligned one is undefined behaviour in C++ (and faults in
    // vector loads). The range must not wrap around the address space, nor reach the upper half,
    // which no 64-bit process maps (a hostile DLPack byte_offset of 2^63 pointed there).
    const uintptr_t base = reinterpret_cast<uintptr_t>(data);
    CT_CHECK(base % itemsize(d) == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": data (", data, ") is not aligned to the ",
             itemsize(d), "-byte ", d, " elements of ", s, ". Pass memory aligned to the element size, or copy it in "
             "with ct_tensor_from_data");
    uintptr_t end = 0;
    CT_CHECK(!__builtin_add_overflow(base, nbytes, &end) && end <= static_cast<uintptr_t>(INTPTR_MAX),
             CT_ERROR_INVALID_ARGUMENT, fn, ": data (", data, ") plus the ", nbytes, " bytes that sizes ", s,
             " and strides ", IntArrayRef(st.data(), ndim), " reach runs past the addressable memory. Check data, "
             "sizes and strides");
  }
  // An allocation failure in TensorImpl::create after this leaks the storage slot instead of
  // running deleter: on failure the memory still belongs to the caller.
  StorageImpl* storage = StorageImpl::from_blob(data, nbytes, deleter, user_data, device);
  if (read_only) storage->set_read_only();
  Tensor t = Tensor::adopt(TensorImpl::create(storage, s, st, 0, d));
  try {
    check_bool_bytes(fn, *t);
  } catch (...) {
    // Refused: the memory stays the caller's, so the storage must not call deleter on release.
    storage->forget_deleter();
    throw;
  }
  return t;
}

extern "C" {

ct_status ct_tensor_retain(ct_tensor* t) {
  return capi::guard([&] { tensor_arg(t, "ct_tensor_retain", "t").retain(); });
}

void ct_tensor_release(ct_tensor* t) {
  if (!t) return;
  uint32_t tag;
  std::memcpy(&tag, t, sizeof tag);  // see Note [Handle poisoning]
  if (tag == TensorImpl::kLiveTag) capi::impl_of(t)->release();
}

ct_status ct_tensor_from_data(const void* data, const int64_t* sizes, size_t ndim, ct_dtype dtype, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_from_data", [&] {
    IntArrayRef s = sizes_arg(sizes, ndim, "ct_tensor_from_data");
    const DType d = capi::dtype_arg(dtype, "ct_tensor_from_data");
    const int64_t nbytes = checked_nbytes(s, d, "ct_tensor_from_data");
    CT_CHECK(data || nbytes == 0, CT_ERROR_INVALID_ARGUMENT, "ct_tensor_from_data: data is NULL for ",
             nbytes / static_cast<int64_t>(itemsize(d)), " elements. Pass a buffer of numel * itemsize bytes");
    Tensor t = Tensor::adopt(TensorImpl::empty(s, d, kCPU));
    if (d == DType::Bool) {  // see Note [Bool bytes at the boundary]
      const auto* from = static_cast<const uint8_t*>(data);
      auto* to = t->data_as<uint8_t>();
      for (int64_t i = 0; i < nbytes; ++i) to[i] = from[i] != 0;
    } else if (nbytes) {
      std::memcpy(t->data(), data, static_cast<size_t>(nbytes));
    }
    return t;
  });
}

ct_status ct_tensor_from_blob(void* data, const int64_t* sizes, const int64_t* strides, size_t ndim, ct_dtype dtype,
                              ct_deleter_fn deleter, void* user_data, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_from_blob", [&] {
    const char* fn = "ct_tensor_from_blob";
    IntArrayRef s = sizes_arg(sizes, ndim, fn);
    const DType d = capi::dtype_arg(dtype, fn);
    return capi::blob_tensor(fn, data, s, strides, d, deleter, user_data);
  });
}

ct_status ct_tensor_from_blob_v2(void* data, const int64_t* sizes, const int64_t* strides, size_t ndim, ct_dtype dtype,
                                 uint32_t flags, ct_deleter_fn deleter, void* user_data, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_from_blob_v2", [&] {
    const char* fn = "ct_tensor_from_blob_v2";
    CT_CHECK((flags & ~uint32_t{CT_BLOB_READ_ONLY}) == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": flags ", flags,
             " has bits ctorch does not know. Pass 0 or CT_BLOB_READ_ONLY");
    IntArrayRef s = sizes_arg(sizes, ndim, fn);
    const DType d = capi::dtype_arg(dtype, fn);
    return capi::blob_tensor(fn, data, s, strides, d, deleter, user_data, kCPU, (flags & CT_BLOB_READ_ONLY) != 0);
  });
}

ct_status ct_tensor_is_read_only(const ct_tensor* t, int* out) {
  return inspect(t, out, "ct_tensor_is_read_only", [&](const TensorImpl& x) { *out = x.storage()->read_only(); });
}

#define CT_SIZED_FACTORY(cname, op)                                                                         \
  ct_status cname(const int64_t* sizes, size_t ndim, ct_dtype dtype, const char* device, ct_tensor** out) { \
    return capi::tensor_result(out, #cname, [&] {                                                           \
      return ops::op(sizes_arg(sizes, ndim, #cname), capi::dtype_arg(dtype, #cname), capi::device_arg(device));           \
    });                                                                                                     \
  }
CT_SIZED_FACTORY(ct_tensor_empty, empty)
CT_SIZED_FACTORY(ct_tensor_zeros, zeros)
CT_SIZED_FACTORY(ct_tensor_ones, ones)
#undef CT_SIZED_FACTORY

ct_status ct_tensor_full(const int64_t* sizes, size_t ndim, const ct_scalar* value, ct_dtype dtype, const char* device,
                         ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_full", [&] {
    return ops::full(sizes_arg(sizes, ndim, "ct_tensor_full"), capi::scalar_arg(value, "ct_tensor_full", "value"),
                     capi::dtype_arg(dtype, "ct_tensor_full"), capi::device_arg(device));
  });
}

ct_status ct_tensor_arange(double start, double end, double step, ct_dtype dtype, const char* device, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_arange",
                             [&] { return ops::arange(start, end, step, capi::dtype_arg(dtype, "ct_tensor_arange"), capi::device_arg(device)); });
}

ct_status ct_tensor_linspace(double start, double end, int64_t steps, ct_dtype dtype, const char* device,
                             ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_linspace",
                             [&] { return ops::linspace(start, end, steps, capi::dtype_arg(dtype, "ct_tensor_linspace"), capi::device_arg(device)); });
}

ct_status ct_tensor_eye(int64_t n, int64_t m, ct_dtype dtype, const char* device, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_eye",
                             [&] { return ops::eye(n, m, capi::dtype_arg(dtype, "ct_tensor_eye"), capi::device_arg(device)); });
}

ct_status ct_tensor_ndim(const ct_tensor* t, size_t* out) {
  return inspect(t, out, "ct_tensor_ndim", [&](const TensorImpl& x) { *out = x.dim(); });
}

ct_status ct_tensor_size(const ct_tensor* t, int64_t dim, int64_t* out) {
  return inspect(t, out, "ct_tensor_size", [&](const TensorImpl& x) {
    const int64_t n = static_cast<int64_t>(x.dim());
    CT_CHECK(dim >= -n && dim < n, CT_ERROR_INDEX, "ct_tensor_size: dim ", dim, " is out of range for a tensor of ", n,
             " dims ", x.sym_sizes(), ". Pass a dim in [", -n, ", ", n - 1, "]");
    *out = plain_sizes(x)[dim < 0 ? dim + n : dim];
  });
}

static ct_status fill_dims(const ct_tensor* t, int64_t* out, size_t n, const char* fn, bool strides) {
  return inspect(t, out, fn, [&](const TensorImpl& x) {
    CT_CHECK(n == x.dim(), CT_ERROR_INVALID_ARGUMENT, fn, ": n is ", n, " but the tensor ", x.sym_sizes(), " has ",
             x.dim(), " dims. Pass n = ct_tensor_ndim()");
    const DimVector src = strides ? plain_strides(x) : plain_sizes(x);
    if (n) std::memcpy(out, src.data(), n * sizeof(int64_t));
  });
}

ct_status ct_tensor_sizes(const ct_tensor* t, int64_t* out, size_t n) {
  if (n == 0 && !out) {  // a 0-dim tensor needs no buffer
    static int64_t unused;
    out = &unused;
  }
  return fill_dims(t, out, n, "ct_tensor_sizes", false);
}

ct_status ct_tensor_strides(const ct_tensor* t, int64_t* out, size_t n) {
  if (n == 0 && !out) {
    static int64_t unused;
    out = &unused;
  }
  return fill_dims(t, out, n, "ct_tensor_strides", true);
}

ct_status ct_tensor_numel(const ct_tensor* t, int64_t* out) {
  return inspect(t, out, "ct_tensor_numel", [&](const TensorImpl& x) {
    int64_t n = 1;
    for (int64_t s : plain_sizes(x)) n *= s;
    *out = n;
  });
}

ct_status ct_tensor_dtype(const ct_tensor* t, ct_dtype* out) {
  return inspect(t, out, "ct_tensor_dtype", [&](const TensorImpl& x) { *out = static_cast<ct_dtype>(x.dtype()); });
}

ct_status ct_tensor_device(const ct_tensor* t, ct_device_type* type, int32_t* index) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_device", "t");
    capi::require_out(type, "ct_tensor_device", "type");
    capi::require_out(index, "ct_tensor_device", "index");
    *type = static_cast<ct_device_type>(x.device().type);
    *index = x.device().index;
  });
}

ct_status ct_tensor_is_contiguous(const ct_tensor* t, int* out) {
  return inspect(t, out, "ct_tensor_is_contiguous", [&](const TensorImpl& x) { *out = x.is_contiguous() ? 1 : 0; });
}

ct_status ct_tensor_storage_offset(const ct_tensor* t, int64_t* out) {
  return inspect(t, out, "ct_tensor_storage_offset", [&](const TensorImpl& x) { *out = x.storage_offset(); });
}

ct_status ct_tensor_data_ptr(const ct_tensor* t, void** out) {
  if (out) *out = nullptr;
  return inspect(t, out, "ct_tensor_data_ptr", [&](const TensorImpl& x) {
    compile::check_data_read(x, "ct_tensor_data_ptr");
    CT_CHECK(!x.device().is_meta(), CT_ERROR_DEVICE, "ct_tensor_data_ptr: the meta tensor ", x.sym_sizes(),
             " has no data. Compute it on a real device");
    *out = x.data();
  });
}

ct_status ct_tensor_copy_to(const ct_tensor* t, void* dst, size_t nbytes) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_copy_to", "t");
    compile::check_data_read(x, "ct_tensor_copy_to");
    const size_t need = static_cast<size_t>(x.numel()) * itemsize(x.dtype());
    CT_CHECK(nbytes == need, CT_ERROR_INVALID_ARGUMENT, "ct_tensor_copy_to: nbytes is ", nbytes, " but the tensor ",
             x.sizes(), " of ", x.dtype(), " holds ", need, " bytes. Pass numel * itemsize");
    CT_CHECK(dst || need == 0, CT_ERROR_INVALID_ARGUMENT, "ct_tensor_copy_to: dst is NULL");
    CT_CHECK(!x.device().is_meta(), CT_ERROR_DEVICE, "ct_tensor_copy_to: a meta tensor ", x.sizes(),
             " has no data. Compute it on a real device");
    if (need == 0) return;
    const Tensor c = ops::host_contiguous(Tensor::borrow(&x));
    std::memcpy(dst, c->data(), need);
  });
}

ct_status ct_tensor_item(const ct_tensor* t, ct_scalar* out) {
  return inspect(t, out, "ct_tensor_item", [&](const TensorImpl& x) {
    compile::check_data_read(x, "ct_tensor_item");
    CT_CHECK(x.sym_numel() == 1, CT_ERROR_SHAPE, "ct_tensor_item: the tensor ", x.sym_sizes(), " has ",
             x.sym_numel(), " elements, not 1. Select or reduce to one element first");
    CT_CHECK(!x.device().is_meta(), CT_ERROR_DEVICE, "ct_tensor_item: a meta tensor has no value");
    CT_CHECK(!is_complex(x.dtype()), CT_ERROR_DTYPE, "ct_tensor_item: the value of a ", x.dtype(),
             " tensor is complex, which a ct_scalar cannot hold. Read it with ct_tensor_item_complex");
    const Tensor host = on_host(x);
    visit_dtype(x.dtype(), "item", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T v = *host->data_as<T>();
      ct_scalar s{};
      if (x.dtype() == DType::Bool) {
        s.kind = CT_SCALAR_BOOL;
        s.i = cpu::cast_value<bool>(v) ? 1 : 0;
      } else if (is_floating(x.dtype())) {
        s.kind = CT_SCALAR_FLOAT;
        s.f = cpu::cast_value<double>(v);
      } else {
        s.kind = CT_SCALAR_INT;
        s.i = cpu::cast_value<int64_t>(v);
      }
      *out = s;
    });
  });
}

ct_status ct_tensor_item_complex(const ct_tensor* t, double* real, double* imag) {
  return capi::guard([&] {
    const TensorImpl& x = tensor_arg(t, "ct_tensor_item_complex", "t");
    capi::require_out(real, "ct_tensor_item_complex", "real");
    capi::require_out(imag, "ct_tensor_item_complex", "imag");
    compile::check_data_read(x, "ct_tensor_item_complex");
    CT_CHECK(x.sym_numel() == 1, CT_ERROR_SHAPE, "ct_tensor_item_complex: the tensor ", x.sym_sizes(), " has ",
             x.sym_numel(), " elements, not 1. Select or reduce to one element first");
    CT_CHECK(!x.device().is_meta(), CT_ERROR_DEVICE, "ct_tensor_item_complex: a meta tensor has no value");
    const Tensor z = ops::to(on_host(x), DType::Complex128);
    const std::complex<double> v = *z->data_as<std::complex<double>>();
    *real = v.real();
    *imag = v.imag();
  });
}

ct_status ct_tensor_complex_scalar(double real, double imag, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_complex_scalar", [&] {
    Tensor t = Tensor::adopt(TensorImpl::empty({}, DType::Complex128, kCPU));
    *t->data_as<std::complex<double>>() = std::complex<double>(real, imag);
    t->set_wrapped_number(true);  // Note [Wrapped numbers]: it promotes as a Python complex
    return t;
  });
}

ct_status ct_tensor_to_string(const ct_tensor* t, char** out) {
  if (out) *out = nullptr;
  return inspect(t, out, "ct_tensor_to_string",
                 [&](const TensorImpl& x) {
                   compile::check_data_read(x, "ct_tensor_to_string");
                   *out = capi::copy_string(io::to_string(on_host(x)));
                 });
}

void ct_string_release(char* s) { std::free(s); }

}  // extern "C"
