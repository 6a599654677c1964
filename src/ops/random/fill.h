// fill.h - the one loop of every random operator: Philox blocks in, E values of T out per block.
#pragma once

#include <algorithm>
#include <cstring>

#include "ops/cpu/isa.h"
#include "ops/cpu/parallel.h"
#include "ops/random/philox.h"
#include "runtime/generator.h"

namespace ct::ops::random {
namespace detail {

// Blocks [b0, b1) of the reserved range fill elements [b0 * E, min(b1 * E, n)) of out. The words
// are drawn for a batch of blocks first, in a loop the compiler vectorizes, then mapped by f.
template <int E, typename T, typename F>
[[gnu::always_inline]] inline void fill_body(T* out, int64_t n, int64_t b0, int64_t b1, runtime::PhiloxRange r,
                                             const F& f) {
  constexpr int64_t kBatch = 64;
  uint32_t w0[kBatch], w1[kBatch], w2[kBatch], w3[kBatch];
  T tmp[kBatch * E];
  for (int64_t b = b0; b < b1; b += kBatch) {
    const int64_t m = std::min(kBatch, b1 - b);
    for (int64_t i = 0; i < m; ++i) {
      const Words x = philox(r.seed, r.first + static_cast<uint64_t>(b + i));
      w0[i] = x.w[0], w1[i] = x.w[1], w2[i] = x.w[2], w3[i] = x.w[3];
    }
    for (int64_t i = 0; i < m; ++i) f(w0[i], w1[i], w2[i], w3[i], tmp + i * E, (b + i) * E);
    std::memcpy(static_cast<void*>(out + b * E), tmp, sizeof(T) * static_cast<size_t>(std::min(m * E, n - b * E)));
  }
}

// The body compiled twice; see Note [CPU capability dispatch].
template <int E, typename T, typename F>
void fill_baseline(T* out, int64_t n, int64_t b0, int64_t b1, runtime::PhiloxRange r, const F& f) {
  fill_body<E>(out, n, b0, b1, r, f);
}
#if CT_HAVE_AVX2_KERNELS
template <int E, typename T, typename F>
CT_TARGET_AVX2 void fill_avx2(T* out, int64_t n, int64_t b0, int64_t b1, runtime::PhiloxRange r, const F& f) {
  fill_body<E>(out, n, b0, b1, r, f);
}
#endif

}  // namespace detail

/// Fills out[0, n) from g, E values per Philox block: f(w0, w1, w2, w3, T* dst, int64_t first)
/// writes dst[0, E), the values of elements first .. first + E - 1. In the last block those may
/// reach past n - 1: their values are dropped, and f must read no per-element input there. Reserves
/// ceil(n / E) blocks of g, and element i's value depends on i and the reservation only (not on the
/// thread count).
template <int E, typename T, typename F>
void fill(T* out, int64_t n, runtime::Generator& g, const F& f) {
  const int64_t blocks = (n + E - 1) / E;
  const runtime::PhiloxRange r = g.reserve(static_cast<uint64_t>(blocks));
  cpu::parallel_for(0, blocks, cpu::kElementwiseGrain / E, [&](int64_t b0, int64_t b1) {
#if CT_HAVE_AVX2_KERNELS
    if (cpu::has_avx2()) return detail::fill_avx2<E>(out, n, b0, b1, r, f);
#endif
    detail::fill_baseline<E>(out, n, b0, b1, r, f);
  });
}

}  // namespace ct::ops::random
