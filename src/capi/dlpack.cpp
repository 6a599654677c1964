// dlpack.cpp - DLPack import and export through the C ABI: zero-copy, DLPack 1.0 and the legacy
// unversioned capsule.
//
// Note [DLPack capsules]
// Export: one malloc holds the DLManagedTensorVersioned the consumer sees, followed by its shape
// and strides (ndim int64 each); manager_ctx is the exported TensorImpl, retained. The deleter
// releases that reference and frees the block, so a capsule costs one allocation and a refcount.
// Import: the capsule itself is the user_data of a blob storage (StorageImpl::from_blob) over its
// data, so the storage's last release (on whatever thread) calls the capsule's deleter once. The
// tensor copies shape and strides, so nothing but the deleter touches the capsule after the call.
//
// CUDA memory (kDLCUDA) goes both ways. DLPack leaves stream order to the exchange: ctorch's work
// on a device runs on the calling thread's per-thread default stream, so an exporter synchronizes
// that stream before handing out the pointer (the consumer may read at once on any stream), and an
// importer expects the producer to have ordered its writes before the per-thread default stream
// (Python passes stream=2, DLPack's code for it, to the producer's __dlpack__; to one that refuses
// it, as torch does, stream=1, the legacy default stream, which per-thread streams wait for).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <new>

#include "capi/handle.h"
#include "compile/trace.h"
#include "core/device_backend.h"
#include "core/error.h"
#include "core/fault_injection.h"
#include "cuda/context.h"
#include "ctorch_dlpack.h"

using namespace ct;

#if UINTPTR_MAX == UINT64_MAX  // the DLPack ABI on 64-bit targets, as dlpack.h lays it out
static_assert(sizeof(DLDataType) == 4 && sizeof(DLDevice) == 8, "DLPack ABI");
static_assert(sizeof(DLTensor) == 48 && offsetof(DLTensor, byte_offset) == 40, "DLPack ABI");
static_assert(sizeof(DLManagedTensor) == 64 && offsetof(DLManagedTensor, deleter) == 56, "DLPack ABI");
static_assert(sizeof(DLManagedTensorVersioned) == 80 && offsetof(DLManagedTensorVersioned, flags) == 24 &&
                  offsetof(DLManagedTensorVersioned, dl_tensor) == 32,
              "DLPack ABI");
#endif

namespace {

constexpr uint32_t kDLPackMajor = 1;  // the one major version ctorch reads and writes

DLDataType dl_dtype(uint8_t code, uint8_t bits) {
  DLDataType t;
  t.code = code;
  t.bits = bits;
  t.lanes = 1;
  return t;
}

DLDataType to_dl_dtype(DType d) {
  switch (d) {
    case DType::Bool: return dl_dtype(kDLBool, 8);
    case DType::UInt8: return dl_dtype(kDLUInt, 8);
    case DType::Int8: return dl_dtype(kDLInt, 8);
    case DType::Int16: return dl_dtype(kDLInt, 16);
    case DType::Int32: return dl_dtype(kDLInt, 32);
    case DType::Int64: return dl_dtype(kDLInt, 64);
    case DType::Float16: return dl_dtype(kDLFloat, 16);
    case DType::BFloat16: return dl_dtype(kDLBfloat, 16);
    case DType::Float32: return dl_dtype(kDLFloat, 32);
    case DType::Float64: return dl_dtype(kDLFloat, 64);
    case DType::Complex64: return dl_dtype(kDLComplex, 64);
    case DType::Complex128: return dl_dtype(kDLComplex, 128);
  }
  fail(CT_ERROR_INTERNAL, str("ct_tensor_to_dlpack: no DLPack dtype for ", d, ". Please report it"));
}

DType from_dl_dtype(DLDataType t, const char* fn) {
  CT_CHECK(t.lanes == 1, CT_ERROR_DTYPE, fn, ": the capsule holds vector elements (code ", int(t.code), ", bits ",
           int(t.bits), ", lanes ", t.lanes, "); ctorch tensors hold scalars. Export with lanes 1");
  switch (t.code) {
    case kDLBool:
      if (t.bits == 8) return DType::Bool;
      break;
    case kDLUInt:
      if (t.bits == 8) return DType::UInt8;
      break;
    case kDLInt:
      if (t.bits == 8) return DType::Int8;
      if (t.bits == 16) return DType::Int16;
      if (t.bits == 32) return DType::Int32;
      if (t.bits == 64) return DType::Int64;
      break;
    case kDLFloat:
      if (t.bits == 16) return DType::Float16;
      if (t.bits == 32) return DType::Float32;
      if (t.bits == 64) return DType::Float64;
      break;
    case kDLBfloat:
      if (t.bits == 16) return DType::BFloat16;
      break;
    case kDLComplex:
      if (t.bits == 64) return DType::Complex64;
      if (t.bits == 128) return DType::Complex128;
      break;
  }
  fail(CT_ERROR_DTYPE, str(fn, ": the capsule's dtype (code ", int(t.code), ", bits ", int(t.bits),
                           ") has no ctorch dtype. Convert it to bool, uint8, int8/16/32/64, float16, bfloat16, "
                           "float32, float64, complex64 or complex128 before exporting"));
}

std::string dl_device_name(DLDevice d) {
  switch (static_cast<int32_t>(d.device_type)) {
    case kDLCUDA: return str("cuda:", d.device_id, " (kDLCUDA)");
    case kDLCUDAHost: return "pinned CUDA host memory (kDLCUDAHost)";
    case kDLCUDAManaged: return "CUDA managed memory (kDLCUDAManaged)";
    case kDLROCM: return str("rocm:", d.device_id, " (kDLROCM)");
  }
  return str("DLPack device type ", static_cast<int32_t>(d.device_type), ":", d.device_id);
}

// The tensor over a capsule's DLTensor; deleter(data, capsule) runs when its last user goes.
Tensor import_dl_tensor(const char* fn, const DLTensor& dl, BlobDeleter deleter, void* capsule, bool read_only) {
  CT_CHECK(dl.device.device_type == kDLCPU || dl.device.device_type == kDLCUDA, CT_ERROR_DEVICE, fn,
           ": the capsule's memory is on ", dl_device_name(dl.device),
           ", and ctorch imports cpu (kDLCPU) and cuda (kDLCUDA) memory. Copy it to one of those first");
  Device device = kCPU;
  if (dl.device.device_type == kDLCUDA) {
    CT_CHECK(dl.device.device_id >= 0 && dl.device.device_id < 128, CT_ERROR_DEVICE, fn, ": the capsule names ",
             dl_device_name(dl.device), ", which is not a device index");
    device = Device{DeviceType::CUDA, static_cast<int8_t>(dl.device.device_id)};
    require_backend(device, fn);  // that device exists in this process
  }
  const DType d = from_dl_dtype(dl.dtype, fn);
  CT_CHECK(dl.ndim >= 0 && static_cast<size_t>(dl.ndim) <= kMaxDims, CT_ERROR_INVALID_ARGUMENT, fn,
           ": the capsule has ndim ", dl.ndim, ". ctorch supports 0 to ", kMaxDims, " dims");
  const size_t ndim = static_cast<size_t>(dl.ndim);
  CT_CHECK(dl.shape || ndim == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": the capsule's shape is NULL but ndim is ", ndim,
           ". A producer must give ndim sizes");
  IntArrayRef sizes(dl.shape, ndim);
  // In integers: a hostile byte_offset must be refused, and pointer arithmetic past the address
  // space is undefined before any check could see it.
  const uintptr_t base = reinterpret_cast<uintptr_t>(dl.data);
  CT_CHECK(!dl.data || base + dl.byte_offset >= base, CT_ERROR_INVALID_ARGUMENT, fn, ": byte_offset ",
           dl.byte_offset, " runs past the end of the address space. Pass the offset of the first element");
  char* data = dl.data ? reinterpret_cast<char*>(base + dl.byte_offset) : nullptr;
  return capi::blob_tensor(fn, data, sizes, dl.strides, d, deleter, capsule, device, read_only);
}

void call_versioned_deleter(void*, void* capsule) {
  auto* m = static_cast<DLManagedTensorVersioned*>(capsule);
  if (m->deleter) m->deleter(m);
}

void call_unversioned_deleter(void*, void* capsule) {
  auto* m = static_cast<DLManagedTensor*>(capsule);
  if (m->deleter) m->deleter(m);
}

// The deleter of exported capsules: see Note [DLPack capsules].
template <typename Capsule>
void release_export(Capsule* self) {
  if (!self) return;
  static_cast<const TensorImpl*>(self->manager_ctx)->release();
  std::free(self);
}

// One block: the capsule, then shape and strides; the capsule retains x.
template <typename Capsule>
Capsule* export_capsule(const TensorImpl& x, const char* fn) {
  static_assert(sizeof(Capsule) % alignof(int64_t) == 0, "shape follows the capsule in one block");
  const Device dev = x.device();
  // The legacy capsule has no flags, so its consumer would take read-only memory as writable.
  constexpr bool versioned = std::is_same<Capsule, DLManagedTensorVersioned>::value;
  CT_CHECK(versioned || !x.storage()->read_only(),
           CT_ERROR_INVALID_ARGUMENT, fn, ": the tensor ", x.sizes(), " is read-only memory, and an unversioned "
           "capsule cannot say so. Export it with ct_tensor_to_dlpack (DLPack 1.0 sets READ_ONLY; Python: "
           "__dlpack__(max_version=(1, 0))), or clone it first");
  CT_CHECK(dev.is_cpu() || dev.type == DeviceType::CUDA, CT_ERROR_DEVICE, fn, ": the tensor ", x.sizes(), " is on ",
           dev, ", and DLPack export shares cpu and cuda memory. Move it with ct_tensor_to_device first");
  if (dev.type == DeviceType::CUDA) {  // see Note [DLPack capsules]: the data is complete on return
    cuda::set_device(dev.index);
    cuda::check(cuda::driver().stream_synchronize(cuda::current_stream(dev.index)), fn);
  }
  const size_t ndim = x.dim();
  void* block = ct::fault::malloc(sizeof(Capsule) + 2 * ndim * sizeof(int64_t));
  if (!block) throw std::bad_alloc();
  auto* m = new (block) Capsule();
  int64_t* dims = reinterpret_cast<int64_t*>(m + 1);
  if (ndim) {
    std::memcpy(dims, x.sizes().data(), ndim * sizeof(int64_t));
    std::memcpy(dims + ndim, x.strides().data(), ndim * sizeof(int64_t));
  }
  if constexpr (std::is_same<Capsule, DLManagedTensorVersioned>::value) {
    m->version.major = kDLPackMajor;
    m->version.minor = 0;
    m->flags = x.storage()->read_only() ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  }
  m->deleter = release_export<Capsule>;
  DLTensor& dl = m->dl_tensor;
  dl.data = x.data();
  dl.device.device_type = dev.is_cpu() ? kDLCPU : kDLCUDA;
  dl.device.device_id = dev.is_cpu() ? 0 : dev.index;
  dl.ndim = static_cast<int32_t>(ndim);
  dl.dtype = to_dl_dtype(x.dtype());
  dl.shape = dims;
  dl.strides = dims + ndim;
  dl.byte_offset = 0;
  x.retain();  // nothing below can fail
  m->manager_ctx = const_cast<TensorImpl*>(&x);
  return m;
}

}  // namespace

extern "C" {

ct_status ct_tensor_to_dlpack(const ct_tensor* t, DLManagedTensorVersioned** out) {
  const char* fn = "ct_tensor_to_dlpack";
  if (out) *out = nullptr;
  return capi::guard([&] {
    const TensorImpl& x = capi::tensor_arg(t, fn, "t");
    capi::require_out(out, fn, "out");
    compile::check_data_read(x, fn);
    *out = export_capsule<DLManagedTensorVersioned>(x, fn);
  });
}

ct_status ct_tensor_to_dlpack_unversioned(const ct_tensor* t, DLManagedTensor** out) {
  const char* fn = "ct_tensor_to_dlpack_unversioned";
  if (out) *out = nullptr;
  return capi::guard([&] {
    const TensorImpl& x = capi::tensor_arg(t, fn, "t");
    capi::require_out(out, fn, "out");
    compile::check_data_read(x, fn);
    *out = export_capsule<DLManagedTensor>(x, fn);
  });
}

ct_status ct_tensor_from_dlpack(DLManagedTensorVersioned* src, ct_tensor** out) {
  const char* fn = "ct_tensor_from_dlpack";
  return capi::tensor_result(out, fn, [&] {
    CT_CHECK(src, CT_ERROR_INVALID_ARGUMENT, fn, ": argument src is NULL. Pass a DLManagedTensorVersioned*");
    // DLPack: a consumer reads nothing else from a capsule whose major version it does not know.
    CT_CHECK(src->version.major == kDLPackMajor, CT_ERROR_VERSION, fn, ": the capsule is DLPack ",
             src->version.major, ".", src->version.minor, " and ctorch reads DLPack ", kDLPackMajor,
             ".x. Ask the producer for a 1.x capsule (Python: __dlpack__(max_version=(1, 0)))");
    return import_dl_tensor(fn, src->dl_tensor, call_versioned_deleter, src,
                            (src->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0);
  });
}

ct_status ct_tensor_from_dlpack_unversioned(DLManagedTensor* src, ct_tensor** out) {
  const char* fn = "ct_tensor_from_dlpack_unversioned";
  return capi::tensor_result(out, fn, [&] {
    CT_CHECK(src, CT_ERROR_INVALID_ARGUMENT, fn, ": argument src is NULL. Pass a DLManagedTensor*");
    return import_dl_tensor(fn, src->dl_tensor, call_unversioned_deleter, src, false);
  });
}

}  // extern "C"
