// print.h - tensors printed the way PyTorch prints them.
#pragma once

#include <string>

#include "core/tensor.h"

namespace ct::io {

/// "tensor([[1., 2.],\n        [3., 4.]])": PyTorch's layout (4 decimals, scientific notation
/// for wide ranges, 80-column wrapping, "..." past 1000 elements), with ctorch dtype names.
std::string to_string(const Tensor& t);

}  // namespace ct::io
