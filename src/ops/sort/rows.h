// rows.h - what sorting and selection share: the input as rows along one dim, outputs written
// back from that layout, and the per-row algorithms over sort keys (see Note [Sort keys]).
#pragma once

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "ops/cpu/isa.h"
#include "ops/cpu/parallel.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "ops/sort/order_key.h"

namespace ct::ops::sortrows {

/// a with `dim` moved last, contiguous: `rows` rows of `n` elements.
struct Rows {
  Tensor data;
  DimVector perm;  // the permutation that moved dim last
  int64_t rows = 1, n = 1;
};
Rows rows_along(const TensorImpl& a, int64_t dim);

/// A contiguous [rows, m] buffer in the layout of `rows` for an output `out` whose dim has size m:
/// out itself when moving dim last changes nothing, else a scratch tensor that write_back copies.
Tensor row_buffer(const Tensor& out, const Rows& r);
void write_back(const Tensor& out, const Tensor& buffer, const Rows& r);

/// Runs f(first_row, last_row) over the rows in parallel, a chunk of rows per task.
template <typename F>
void for_rows(int64_t rows, int64_t n, F&& f) {
  const int64_t grain = std::max<int64_t>(1, cpu::kElementwiseGrain / std::max<int64_t>(n, 1));
  cpu::parallel_for(0, rows, grain, f);
}

/// Sorts packed keys (kPackable) by their top key_bits bits: LSD radix, 8 bits a pass, stable, so
/// equal keys keep their index order; passes over a digit every key shares are skipped.
void radix_sort_packed(uint64_t* a, uint64_t* tmp, int64_t n, int key_bits);

/// Per-row scratch, reused across the rows of one task.
template <typename T>
struct Scratch {
  using U = typename sortkey::Key<T>::U;
  std::vector<uint64_t> packed, tmp;
  std::vector<std::pair<U, int64_t>> pairs;  // keys that do not pack (64-bit, or huge rows)
  std::vector<U> mins;                       // select_small_k's column minima
};

template <typename T>
bool packs(int64_t n) {
  return sortkey::kPackable<T> && n < (int64_t(1) << 32);
}

/// The row in (key, index) order: values and indices of every element.
template <typename T>
void sort_row(const T* row, int64_t n, bool descending, T* vals, int64_t* idx, Scratch<T>& s) {
  if (packs<T>(n)) {
    s.packed.resize(static_cast<size_t>(n));
    s.tmp.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) s.packed[i] = sortkey::packed_key(row[i], descending, static_cast<uint64_t>(i));
    if (n < 256) std::sort(s.packed.begin(), s.packed.end());
    else radix_sort_packed(s.packed.data(), s.tmp.data(), n, 64 - sortkey::kKeyShift<T>);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = sortkey::packed_index<T>(s.packed[i]);
      idx[i] = j;
      vals[i] = row[j];
    }
    return;
  }
  s.pairs.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) s.pairs[i] = {sortkey::key(row[i], descending), i};
  std::sort(s.pairs.begin(), s.pairs.end());  // (key, index) pairs are distinct: the stable order
  for (int64_t i = 0; i < n; ++i) {
    idx[i] = s.pairs[i].second;
    vals[i] = row[idx[i]];
  }
}

/// For one long row and a small k: the packed keys of every element whose key is at most a
/// threshold read off a strided sample (expected about 2k + n / 256 of them); one streaming pass. False, with nothing kept, when the sample misjudged and fewer than k
/// came through. The threshold only decides how much work follows, never the answer.
template <typename T>
bool select_by_sample(const T* row, int64_t n, int64_t k, bool descending, std::vector<uint64_t>& out) {
  using U = typename sortkey::Key<T>::U;
  constexpr int64_t m = 4096;
  std::vector<U> sample(static_cast<size_t>(m));
  const int64_t stride = n / m;
  for (int64_t i = 0; i < m; ++i) sample[static_cast<size_t>(i)] = sortkey::key(row[i * stride], descending);
  const int64_t pos = std::min<int64_t>(m - 1, 2 * k * m / n + 16);
  std::nth_element(sample.begin(), sample.begin() + pos, sample.end());
  const U limit = sample[static_cast<size_t>(pos)];
  // One thread: the pass streams at memory speed, and splitting it made it wait on the slowest
  // thread of a busy machine for little gain.
  out.clear();
  out.reserve(static_cast<size_t>(2 * k + n / 256));
  for (int64_t i = 0; i < n; ++i) {
    const U key = sortkey::key(row[i], descending);
    if (key <= limit) out.push_back(uint64_t(key) << sortkey::kKeyShift<T> | static_cast<uint64_t>(i));
  }
  if (static_cast<int64_t>(out.size()) < k) {
    out.clear();
    return false;
  }
  return true;
}

// Note [Small-k selection by group minima]
// topk(8) of a 2048-long row, or kthvalue(3), needs the few smallest keys of the row. Building a
// key for every element and running nth_element over them costs several passes and branches;
// instead select_small_k reads the row as a [16, G] matrix (G = n / 16, the tail apart) and takes
// the minimum key of each column, a vertical min that vectorizes with no horizontal step. Let T be
// the k-th smallest of the G column minima: k columns hold a key <= T, so the k-th smallest key of
// the row is <= T, and every element of the answer has a key <= T. Only the columns whose minimum
// is <= T (k of them, more with ties) and the tail can hold such keys, so the candidates are
// about 16k elements, gathered with their indices and partially sorted. T only bounds the work:
// the answer is exactly the first k of the stable (key, index) order. A row of equal keys makes
// every element a candidate, which is slower but still right.
constexpr int64_t kSmallK = 32;
constexpr int64_t kGroupRows = 16;

/// mins[g] = the smallest key of row[g + r G], r < kGroupRows.
template <typename T, bool Descending>
[[gnu::always_inline]] inline void column_min_keys(const T* row, int64_t G, typename sortkey::Key<T>::U* mins) {
  for (int64_t g = 0; g < G; ++g) mins[g] = sortkey::key(row[g], Descending);
  for (int64_t r = 1; r < kGroupRows; ++r) {
    const T* p = row + r * G;
    for (int64_t g = 0; g < G; ++g) {
      const auto k = sortkey::key(p[g], Descending);
      mins[g] = k < mins[g] ? k : mins[g];
    }
  }
}
template <typename T, bool Descending>
void column_min_keys_default(const T* row, int64_t G, typename sortkey::Key<T>::U* mins) {
  column_min_keys<T, Descending>(row, G, mins);
}
#if CT_HAVE_AVX2_KERNELS
template <typename T, bool Descending>
CT_TARGET_AVX2 void column_min_keys_avx2(const T* row, int64_t G, typename sortkey::Key<T>::U* mins) {
  column_min_keys<T, Descending>(row, G, mins);
}
#endif

/// The entry of an element from its key: the packed key or a (key, index) pair.
template <typename T>
inline uint64_t make_entry(typename sortkey::Key<T>::U key, int64_t i, uint64_t*) {
  return uint64_t(key) << sortkey::kKeyShift<T> | static_cast<uint64_t>(i);
}
template <typename T, typename U>
inline std::pair<U, int64_t> make_entry(U key, int64_t i, std::pair<U, int64_t>*) {
  return {key, i};
}

/// The k smallest entries of the row (k <= kSmallK, n >= kGroupRows k), sorted, in best[0, k); see
/// Note [Small-k selection by group minima]. E is the packed key (uint64_t) or a (key, index) pair.
template <typename T, bool Descending, typename E>
void select_small_k(const T* row, int64_t n, int64_t k, std::vector<E>& best,
                    std::vector<typename sortkey::Key<T>::U>& mins) {
  using U = typename sortkey::Key<T>::U;
  const int64_t G = n / kGroupRows;
  mins.resize(static_cast<size_t>(G));
#if CT_HAVE_AVX2_KERNELS
  if (cpu::has_avx2()) column_min_keys_avx2<T, Descending>(row, G, mins.data());
  else
#endif
    column_min_keys_default<T, Descending>(row, G, mins.data());
  // The k-th smallest minimum: the k smallest seen so far, kept sorted; few minima beat the
  // largest of them, so this is mostly one compare each (nth_element on a copy cost more).
  U low[kSmallK];
  std::copy(mins.begin(), mins.begin() + k, low);
  std::sort(low, low + k);
  for (int64_t g = k; g < G; ++g) {
    const U m = mins[static_cast<size_t>(g)];
    if (m >= low[k - 1]) continue;
    int64_t at = k - 1;
    for (; at > 0 && m < low[at - 1]; --at) low[at] = low[at - 1];
    low[at] = m;
  }
  const U limit = low[k - 1];
  // Every element is written and only those at or below the limit are counted: no branch on
  // scattered keys.
  if (best.size() < static_cast<size_t>(n)) best.resize(static_cast<size_t>(n));
  E* out = best.data();
  int64_t count = 0;
  const auto consider = [&](int64_t i) {
    const U key = sortkey::key(row[i], Descending);
    out[count] = make_entry<T>(key, i, out);
    count += key <= limit;
  };
  for (int64_t g = 0; g < G; ++g)
    if (mins[static_cast<size_t>(g)] <= limit)
      for (int64_t r = 0; r < kGroupRows; ++r) consider(g + r * G);
  for (int64_t i = kGroupRows * G; i < n; ++i) consider(i);
  std::partial_sort(out, out + k, out + count);
}

/// Selects the k smallest (key, index) of the row (1 <= k <= n): afterwards element k-1 of the
/// scratch holds the k-th and those before it the smaller ones (in no order unless `sorted`; in
/// order always when k is small, see select_small_k). Read the result with selected_index.
///
/// Long rows first keep only candidates: by a sampled threshold (select_by_sample), else by
/// counting the keys' top 11 bits and keeping the elements whose bucket is at or below the one
/// holding the k-th. nth_element then runs over about k + n / 256 candidates, not the whole row.
template <typename T>
void select_row(const T* row, int64_t n, int64_t k, bool descending, bool sorted, Scratch<T>& s) {
  if (k <= kSmallK && n >= kGroupRows * k) {
    const auto scan = [&](auto& best) {
      if (descending) select_small_k<T, true>(row, n, k, best, s.mins);
      else select_small_k<T, false>(row, n, k, best, s.mins);
    };
    if (packs<T>(n)) scan(s.packed);
    else scan(s.pairs);
    return;
  }
  if (packs<T>(n)) {
    std::vector<uint64_t>& c = s.packed;
    c.clear();
    if (n >= 65536 && k <= n / 64 && select_by_sample(row, n, k, descending, c)) {
      // candidates gathered
    } else if (n >= 4096 && k <= n / 8) {
      int64_t hist[2048] = {};
      for (int64_t i = 0; i < n; ++i) ++hist[sortkey::packed_key(row[i], descending, 0) >> 53];
      int64_t cum = 0, bucket = 0;
      for (; bucket < 2048; ++bucket)
        if ((cum += hist[bucket]) >= k) break;
      c.reserve(static_cast<size_t>(cum));
      const uint64_t limit = (static_cast<uint64_t>(bucket) + 1) << 53;  // keys below the next bucket
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t p = sortkey::packed_key(row[i], descending, static_cast<uint64_t>(i));
        if (p < limit || bucket == 2047) c.push_back(p);
      }
    } else {
      c.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) c[i] = sortkey::packed_key(row[i], descending, static_cast<uint64_t>(i));
    }
    std::nth_element(c.begin(), c.begin() + (k - 1), c.end());
    if (sorted) std::sort(c.begin(), c.begin() + k);
    return;
  }
  s.pairs.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) s.pairs[i] = {sortkey::key(row[i], descending), i};
  std::nth_element(s.pairs.begin(), s.pairs.begin() + (k - 1), s.pairs.end());
  if (sorted) std::sort(s.pairs.begin(), s.pairs.begin() + k);
}

/// The index of the i-th selected element (i < k) after select_row.
template <typename T>
int64_t selected_index(const Scratch<T>& s, int64_t n, int64_t i) {
  if (packs<T>(n)) return sortkey::packed_index<T>(s.packed[static_cast<size_t>(i)]);
  return s.pairs[static_cast<size_t>(i)].second;
}

}  // namespace ct::ops::sortrows
