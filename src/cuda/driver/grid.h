// grid.h - launch shape of the indexing, sorting, sampling and convolution kernels: blocks of
// kThreads threads, each kernel a grid-stride loop, so the grid size never changes a result.
#pragma once

#include <cstdint>

namespace ct::cuda {

constexpr int kThreads = 256;

/// Blocks for n elements, capped (the grid-stride loop covers the rest).
inline unsigned grid_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 * 8 ? (b < 1 ? 1 : b) : 65535 * 8);
}

}  // namespace ct::cuda

/// for p in [0, n) over every thread of the grid.
#define CT_GRID_LOOP(p, n) \
  for (int64_t p = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; p < (n); p += int64_t(gridDim.x) * blockDim.x)
