// pinned.h - page-locked host tensors (torch's pin_memory): cpu tensors whose memory CUDA copies
// to and from without staging it first.
#pragma once

#include "core/tensor.h"

namespace ct::cuda {

/// A contiguous copy of t (a cpu tensor) in page-locked host memory; t itself when it already is.
/// CT_ERROR_DEVICE without CUDA.
Tensor pin_memory(const TensorImpl& t);
/// Whether t's memory is page-locked host memory from pin_memory.
bool is_pinned(const TensorImpl& t);

}  // namespace ct::cuda
