#include "cuda/pinned.h"

#include <cstring>

#include "core/error.h"
#include "core/storage.h"
#include "core/tensor_impl.h"
#include "cuda/context.h"
#include "ops/functions.h"

namespace ct::cuda {
namespace {

// A blob deleter, and the mark is_pinned looks for. cudaFreeHost waits for copies still using the
// memory; its failure has nowhere to go from a deleter.
void free_pinned(void* data, void*) { (void)driver().host_free_pinned(data); }

}  // namespace

bool is_pinned(const TensorImpl& t) { return t.device().is_cpu() && t.storage()->blob_deleter() == free_pinned; }

Tensor pin_memory(const TensorImpl& t) {
  CT_CHECK(t.device().is_cpu(), CT_ERROR_DEVICE, "pin_memory: the tensor ", t.sym_sizes(), " is on ", t.device(),
           "; only cpu tensors can be pinned");
  if (is_pinned(t)) return Tensor::borrow(&t);
  CT_CHECK(device_count() > 0, CT_ERROR_DEVICE, "pin_memory: no cuda device is available: ", unavailable_reason());
  const ct_cuda_driver& d = driver();
  const Tensor src = ops::expect_contiguous(Tensor::borrow(&t));
  const size_t nbytes = static_cast<size_t>(src->numel()) * itemsize(src->dtype());
  void* p = nullptr;
  check(d.host_alloc_pinned(nbytes > 0 ? nbytes : 1, &p), "pin_memory");
  if (nbytes) std::memcpy(p, src->data(), nbytes);
  StorageImpl* storage = StorageImpl::from_blob(p, nbytes, free_pinned, nullptr);
  return Tensor::adopt(TensorImpl::create(storage, src->sizes(), src->strides(), 0, src->dtype()));
}

}  // namespace ct::cuda
