// shape.cpp - CUDA compute for the shape operators that copy: cat and flip, as the cpu's
// cat_compute and flip_compute (ops/shape/cat.cpp, repeat.cpp) but through copy_into directly, the
// COPY kernel over strided loops.
#include "core/error.h"
#include "cuda/kernel_util.h"
#include "cuda/kernels.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::cuda {
namespace {

// cat(Tensor[] tensors, int dim=0) and flip(Tensor self, int[] dims).

// PyTorch skips 1-D empty tensors in cat whatever the other inputs' rank (legacy behaviour).
bool cat_skipped(const TensorImpl& t) { return t.dim() == 1 && t.size(0) == 0; }

void cat_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  ArrayRef<const TensorImpl*> ts = f.arg(0).tensor_list();
  if (outs[0]->numel() == 0) return;
  const int64_t d = ops::wrap_dim("cat", f.arg(1).to_int(), outs[0]->dim());
  void* stream = stream_for(*outs[0]);
  int64_t offset = 0;
  for (const TensorImpl* t : ts) {
    if (cat_skipped(*t)) continue;
    const int64_t len = t->size(static_cast<size_t>(d));
    if (len > 0 && t->numel() > 0) {
      const Tensor part = ops::narrow(outs[0], d, offset, len);
      copy_into("cat", *part, *t, stream);
    }
    offset += len;
  }
}

void flip_cuda(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& a = f.tensor(0);
  if (a.numel() == 0) return;
  DimVector strides(a.strides());
  int64_t offset = a.storage_offset();
  const int64_t nd = static_cast<int64_t>(a.dim());
  uint64_t seen = 0;
  for (int64_t d : f.arg(1).int_list()) {
    if (nd == 0) break;  // dims 0 and -1 name a 0-dim tensor itself: nothing to reverse
    const int64_t w = ops::wrap_dim("flip", d, nd);
    if (w < 64 && (seen >> w & 1)) continue;  // the meta function has refused repeats
    if (w < 64) seen |= uint64_t(1) << w;
    offset += (a.size(static_cast<size_t>(w)) - 1) * a.stride(static_cast<size_t>(w));
    strides[static_cast<size_t>(w)] = -a.stride(static_cast<size_t>(w));
  }
  // A view walking the flipped dims backwards (negative strides, never handed out).
  const Tensor reversed = Tensor::adopt(TensorImpl::view_of(a, a.sizes(), strides, offset));
  copy_into("flip", *outs[0], *reversed, stream_for(*outs[0]));
}

}  // namespace

void register_shape_kernels(Registry& r) {
  set_cuda_compute(r, "cat", cat_cuda);
  set_cuda_compute(r, "flip", flip_cuda);
}

}  // namespace ct::cuda
