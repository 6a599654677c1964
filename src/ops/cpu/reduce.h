// reduce.h - the reduction engine: rows of K contiguous elements, each folded to one value.
//
// Note [Reproducible reductions]
// A row is cut into blocks of kReduceBlock elements. Each block is folded by kLanes interleaved
// accumulators (so the compiler vectorizes it) that are then combined pairwise; the block results
// are again combined pairwise. That tree depends on K alone. Threads only decide which block or
// row is computed where, never the order of combination, so a float sum gives the same bits on
// one thread or many, and the pairwise tree keeps the rounding error O(log K) as well.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "ops/cpu/cast.h"
#include "ops/cpu/isa.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/row_fold.h"

namespace ct::cpu {

namespace detail {

/// A block of n contiguous elements starting at element `base` of its row, in row_fold.h's order.
template <typename Op, typename T>
[[gnu::always_inline]] inline typename Op::acc_t reduce_block_body(const T* p, int64_t n, int64_t base) {
  const loaded_t<T>* q = reinterpret_cast<const loaded_t<T>*>(p);  // cast.h: a bool as its byte
  return fold_block<Op, true>(n, base, [q](int64_t i) { return static_cast<T>(q[i]); });
}

// The body compiled twice; see Note [CPU capability dispatch].
template <typename Op, typename T>
typename Op::acc_t reduce_block_baseline(const T* p, int64_t n, int64_t base) {
  return reduce_block_body<Op>(p, n, base);
}
#if CT_HAVE_AVX2_KERNELS
template <typename Op, typename T>
CT_TARGET_AVX2 typename Op::acc_t reduce_block_avx2(const T* p, int64_t n, int64_t base) {
  return reduce_block_body<Op>(p, n, base);
}
#endif

}  // namespace detail

/// Folds one block of n contiguous elements starting at element `base` of its row.
template <typename Op, typename T>
typename Op::acc_t reduce_block(const T* p, int64_t n, int64_t base) {
#if CT_HAVE_AVX2_KERNELS
  if (has_avx2()) return detail::reduce_block_avx2<Op>(p, n, base);
#endif
  return detail::reduce_block_baseline<Op>(p, n, base);
}

/// Folds K contiguous elements; blocks run in parallel when not already inside a parallel region.
template <typename Op, typename T>
typename Op::acc_t reduce_row(const T* p, int64_t k) {
  using A = typename Op::acc_t;
  if (k <= kReduceBlock) return reduce_block<Op>(p, k, 0);
  int64_t nb = (k + kReduceBlock - 1) / kReduceBlock;
  std::unique_ptr<A[]> part(new A[static_cast<size_t>(nb)]);  // A may be bool: no vector<bool>
  parallel_for(0, nb, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      part[b] = reduce_block<Op>(p + b * kReduceBlock, std::min(kReduceBlock, k - b * kReduceBlock), b * kReduceBlock);
  });
  return merge_blocks<Op>(part.get(), nb);
}

namespace detail {

// Folds rows [0, k) of columns [0, n) (row stride `stride`) into acc[0, n), rows in order.
template <typename Op, typename T>
[[gnu::always_inline]] inline void fold_rows_body(const T* p, int64_t k, int64_t stride, int64_t n,
                                                  int64_t first_row, typename Op::acc_t* acc) {
  for (int64_t i = 0; i < k; ++i) {
    const T* row = p + i * stride;
    for (int64_t j = 0; j < n; ++j) acc[j] = Op::step(acc[j], row[j], first_row + i);
  }
}
// Not inlined: a caller compiled for AVX-512 (the fused tile loops) runs the same loop as eager's
// column reductions, so even a NaN's sign, which depends on the operand order the compiler picks
// for each add, is the same.
template <typename Op, typename T>
[[gnu::noinline]] void fold_rows_baseline(const T* p, int64_t k, int64_t stride, int64_t n, int64_t first,
                                          typename Op::acc_t* acc) {
  fold_rows_body<Op>(p, k, stride, n, first, acc);
}
#if CT_HAVE_AVX2_KERNELS
template <typename Op, typename T>
[[gnu::noinline]] CT_TARGET_AVX2 void fold_rows_avx2(const T* p, int64_t k, int64_t stride, int64_t n, int64_t first,
                                                     typename Op::acc_t* acc) {
  fold_rows_body<Op>(p, k, stride, n, first, acc);
}
#endif

}  // namespace detail

/// Folds rows [0, k) of columns [0, n) (row stride `stride`) into acc[0, n), rows in order; `first`
/// is the index of row 0 in its column.
template <typename Op, typename T>
void fold_rows(const T* p, int64_t k, int64_t stride, int64_t n, int64_t first, typename Op::acc_t* acc) {
#if CT_HAVE_AVX2_KERNELS
  if (has_avx2()) return detail::fold_rows_avx2<Op>(p, k, stride, n, first, acc);
#endif
  detail::fold_rows_baseline<Op>(p, k, stride, n, first, acc);
}

constexpr int64_t kColumnChunk = 1024;  // columns folded together: their accumulators stay in L1
constexpr int64_t kRowBlock = 64;      // rows folded in order before a block joins the cascade

/// Note [Column reductions]
/// out[o * inner + j] = finish(fold over i < k of p[(o * k + i) * inner + j]): the reduced elements
/// of an output are `inner` apart, as when summing a row-major matrix over dim 0. Rows stream
/// through memory in order and fold into a vector of accumulators. Blocks of kRowBlock rows join a
/// binary cascade (pairwise summation, so rounding error grows with log k, not k). Threads split
/// (slice, column chunk) pairs, so each output's order of combination depends on k alone: the
/// bits do not depend on the thread count (see Note [Reproducible reductions]). The compiler's
/// fused column sums (compile/fuse.cpp) fold the same blocks and join them in the same cascade.

/// The cascade of Note [Column reductions] over columns of at most `width` accumulators: blocks
/// are pushed in row order, each the fold of its rows from Op::identity(); finish() gives the fold
/// of them all. Earlier rows always stay on the left of a merge.
template <typename Op>
class ColumnCascade {
 public:
  using A = typename Op::acc_t;
  explicit ColumnCascade(int64_t width) : width_(width) {}
  void reset() { std::fill(used_.begin(), used_.end(), false); }
  /// Joins the n values of block (which it overwrites).
  void push(A* block, int64_t n) {
    size_t l = 0;  // carry the block up the cascade
    for (; l < used_.size() && used_[l]; ++l) {
      for (int64_t j = 0; j < n; ++j) block[j] = Op::merge(levels_[l][j], block[j]);
      used_[l] = false;
    }
    if (l == used_.size()) {
      // Owned before the vector grows: a growth that fails would leak an array emplaced raw.
      std::unique_ptr<A[]> level(new A[static_cast<size_t>(width_)]);
      levels_.push_back(std::move(level));
      used_.push_back(false);
    }
    std::copy(block, block + n, levels_[l].get());
    used_[l] = true;
  }
  /// The fold of every block pushed since reset(), into out (n values; at least one block pushed).
  void finish(A* out, int64_t n) const {
    bool any = false;  // higher levels hold earlier rows: combine from the top down
    for (size_t l = used_.size(); l-- > 0;) {
      if (!used_[l]) continue;
      if (!any) std::copy(levels_[l].get(), levels_[l].get() + n, out);
      else
        for (int64_t j = 0; j < n; ++j) out[j] = Op::merge(out[j], levels_[l][j]);
      any = true;
    }
  }

 private:
  int64_t width_;
  // Plain arrays, not std::vector<A>: A may be bool, and vector<bool> has no data().
  std::vector<std::unique_ptr<A[]>> levels_;  // levels_[l] holds the fold of 2^l blocks when used_[l]
  std::vector<char> used_;
};

template <typename Op, typename T, typename O, typename Finish>
void reduce_columns(const T* p, int64_t outer, int64_t k, int64_t inner, O* out, Finish finish) {
  using A = typename Op::acc_t;
  const int64_t chunks = (inner + kColumnChunk - 1) / kColumnChunk;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(k * kColumnChunk, 1));
  const int64_t width = std::min(kColumnChunk, inner);  // a small input allocates little
  parallel_for(0, outer * chunks, grain, [&](int64_t u0, int64_t u1) {
    ColumnCascade<Op> cascade(width);
    std::unique_ptr<A[]> block(new A[static_cast<size_t>(std::max<int64_t>(width, 1))]);
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t o = u / chunks, j0 = (u % chunks) * kColumnChunk, n = std::min(kColumnChunk, inner - j0);
      const T* base = p + o * k * inner + j0;
      if (k <= kRowBlock) {  // one block is the whole fold: no cascade to keep
        std::fill(block.get(), block.get() + n, Op::identity());
        fold_rows<Op>(base, k, inner, n, 0, block.get());
      } else {
        cascade.reset();
        for (int64_t r = 0; r < k; r += kRowBlock) {
          std::fill(block.get(), block.get() + n, Op::identity());
          fold_rows<Op>(base + r * inner, std::min(kRowBlock, k - r), inner, n, r, block.get());
          cascade.push(block.get(), n);
        }
        cascade.finish(block.get(), n);
      }
      O* dst = out + o * inner + j0;
      for (int64_t j = 0; j < n; ++j) dst[j] = finish(block[j]);
    }
  });
}

/// out[i] = finish(fold of p[i*k .. i*k+k)) for i < m.
template <typename Op, typename T, typename O, typename Finish>
void reduce_rows(const T* p, int64_t m, int64_t k, O* out, Finish finish) {
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(k, 1));
  parallel_for(0, m, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) out[r] = finish(reduce_row<Op>(p + r * k, k));
  });
}

}  // namespace ct::cpu
