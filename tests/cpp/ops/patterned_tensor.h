// patterned_tensor.h - tensors whose bytes all differ from their neighbours', for tests of kernels
// that move elements (copies, gathers): a misplaced or half-copied element shows.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/tensor.h"
#include "ops/functions.h"

// A contiguous tensor of xorshift bytes (any bits for numbers, NaN patterns included; 0 or 1 for
// bool); seed picks the sequence.
inline ct::Tensor patterned(std::vector<int64_t> sizes, ct::DType dtype, uint32_t seed = 1) {
  ct::Tensor t = ct::ops::empty(sizes, dtype, ct::kCPU);
  auto* p = static_cast<unsigned char*>(t->data());
  const size_t n = static_cast<size_t>(t->numel()) * ct::itemsize(dtype);
  uint32_t x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p[i] = dtype == ct::DType::Bool ? static_cast<unsigned char>(x & 1) : static_cast<unsigned char>(x);
  }
  return t;
}
