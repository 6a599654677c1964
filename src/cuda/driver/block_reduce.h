// block_reduce.h - the fixed combination tree every reduction kernel ends with.
//
// Note [Deterministic CUDA reductions]: a reduction never uses atomics. Each block owns whole
// outputs; thread (tx, ty) of a TX x TY block folds its share of the reduced elements in index
// order (ty, ty + TY, ...), then the TY partials of column tx are combined by a binary tree whose
// shape depends only on TY. TX and TY are functions of the problem shape alone, never of the
// device (SM count, occupancy), so a given input gives the same bits on every run. A reduction with
// few outputs splits its reduced dim in two passes (Note [Split reductions] in reduce.cu), by a
// split count that is a function of the shape too.
#pragma once

#include <cstdint>

namespace ct::cuda {

/// Combines the TY partials v of column tx (TY a power of two) through shared memory sh (TX * TY
/// entries) by a fixed tree; every thread of the block gets its column's result. All threads of
/// the block must call it (it synchronizes).
template <typename Acc, typename Combine>
__device__ Acc tree_reduce(Acc v, Acc* sh, int tx, int ty, int TX, int TY, const Combine& combine) {
  sh[ty * TX + tx] = v;
  __syncthreads();
  for (int s = TY / 2; s > 0; s >>= 1) {
    if (ty < s) sh[ty * TX + tx] = combine(sh[ty * TX + tx], sh[(ty + s) * TX + tx]);
    __syncthreads();
  }
  const Acc r = sh[tx];
  __syncthreads();  // sh is free for the next tree
  return r;
}

/// Typed view of the block's dynamic shared memory.
template <typename T>
__device__ T* shared_as() {
  extern __shared__ __align__(16) unsigned char ct_shared_bytes[];
  return reinterpret_cast<T*>(ct_shared_bytes);
}

}  // namespace ct::cuda
