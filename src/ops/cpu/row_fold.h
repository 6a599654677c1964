// row_fold.h - the order in which the reduction engine folds a row (Note [Reproducible reductions]
// in reduce.h), over any loader of its elements. Self-contained (standard headers only): the C++
// kernels the graph compiler generates receive its text and fold in this very order, so their sums
// have the eager reductions' bits (Note [C++ kernels] in compile/fuse_cpp.cpp).
#pragma once

#include <cstdint>
#include <memory>

namespace ct::cpu {

constexpr int64_t kReduceBlock = 16384;
/// 64 lanes are four AVX-512 (eight AVX2) registers of float: four chains of adds in flight hide the
/// add's latency, where 16 lanes waited on it (sum(-1) of 64 rows of 2048 from cache: 11.6 us
/// against 4).
constexpr int kLanes = 64;

/// The pairwise tree over W * 2 lanes: lanes[j] = merge(lanes[j], lanes[j + W]) for W = kLanes / 2,
/// ..., 1. Each level is its own loop of constant trip count, so each becomes a few vector
/// operations; one loop over W left the compiler a variable bound, and a scalar tail per level, in
/// generated kernels (a fifth of layer norm's time on rows of 1024).
template <typename Op, int W, typename A>
[[gnu::always_inline]] inline void merge_lanes(A* lanes) {
  for (int j = 0; j < W; ++j) lanes[j] = Op::merge(lanes[j], lanes[j + W]);
  if constexpr (W > 1) merge_lanes<Op, W / 2>(lanes);
}

/// Op: acc_t, identity(), step(acc, x, index), merge(a, b). Folds load(0) ... load(n - 1), the
/// block of a row starting at element `base`: kLanes interleaved accumulators, then their pairwise
/// tree. PeelFirst starts each lane from its first step, the same arithmetic: inside the eager
/// kernels' target("avx2") functions, g++ set an identity array of 256 bytes with a `rep stos`,
/// about 20 cycles a row (sum(-1) of 2048x2048: 146 us, 134 peeled, the whole sum's 133). The
/// generated kernels, built with -m flags, keep the lanes in registers either way, and the peeled
/// loop ran their layer norm's forward and backward 5% slower, so they do not peel.
template <typename Op, bool PeelFirst = false, typename Load>
[[gnu::always_inline]] inline typename Op::acc_t fold_block(int64_t n, int64_t base, Load load) {
  using A = typename Op::acc_t;
  A lanes[kLanes];
  int64_t i = 0;
  if (PeelFirst && n >= kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] = Op::step(Op::identity(), load(j), base + j);
    i = kLanes;
  } else {
    for (int j = 0; j < kLanes; ++j) lanes[j] = Op::identity();
  }
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lanes[j] = Op::step(lanes[j], load(i + j), base + i + j);
  for (int j = 0; i < n; ++i, ++j) lanes[j] = Op::step(lanes[j], load(i), base + i);
  // The pairwise tree over the lanes: with every lane used, of constant bounds (merge_lanes).
  if (n >= kLanes) {
    merge_lanes<Op, kLanes / 2>(lanes);
    return lanes[0];
  }
  // A short block skips the merges with lanes still at the identity: merge(a, identity) is a itself
  // for every fold, so the bits are those of the whole tree, and 3 elements do not pay 63 merges.
  int64_t live = n;
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int j = 0; j + w < live; ++j) lanes[j] = Op::merge(lanes[j], lanes[j + w]);
    live = live < w ? live : w;
  }
  return lanes[0];
}

/// Combines the results of a row's nb blocks pairwise, in place; part[0] is the row's.
template <typename Op, typename A>
inline A merge_blocks(A* part, int64_t nb) {
  while (nb > 1) {
    const int64_t half = nb / 2;
    for (int64_t i = 0; i < half; ++i) part[i] = Op::merge(part[2 * i], part[2 * i + 1]);
    if (nb % 2) part[half] = part[nb - 1];
    nb = half + nb % 2;
  }
  return part[0];
}

/// Folds a row of k elements, load(0) ... load(k - 1), on the calling thread, in reduce_row's order.
template <typename Op, typename Load>
[[gnu::always_inline]] inline typename Op::acc_t fold_row(int64_t k, Load load) {
  if (k <= kReduceBlock) return fold_block<Op>(k, 0, load);
  const int64_t nb = (k + kReduceBlock - 1) / kReduceBlock;
  std::unique_ptr<typename Op::acc_t[]> part(new typename Op::acc_t[nb]);
  for (int64_t b = 0; b < nb; ++b) {
    const int64_t first = b * kReduceBlock, n = k - first < kReduceBlock ? k - first : kReduceBlock;
    part[b] = fold_block<Op>(n, first, [&](int64_t i) { return load(first + i); });
  }
  return merge_blocks<Op>(part.get(), nb);
}

}  // namespace ct::cpu
