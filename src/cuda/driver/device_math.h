// device_math.h - the libm overloads the CUDA library's kernels call: element_math.h's device
// branch (Note [Element functions]), under the name dm the kernels use.
#pragma once

#include "ops/pointwise/element_math.h"

namespace ct::cuda {
namespace dm = ::ct::em;
}  // namespace ct::cuda
