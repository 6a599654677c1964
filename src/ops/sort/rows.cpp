// rows.cpp - the row layout of sorting and selection, and the radix sort of packed keys.
#include "ops/sort/rows.h"

namespace ct::ops::sortrows {

Rows rows_along(const TensorImpl& a, int64_t dim) {
  Rows r;
  const int64_t nd = static_cast<int64_t>(a.dim());
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim) {
      r.perm.push_back(d);
      r.rows *= a.size(d);
    }
  if (nd > 0) {
    r.perm.push_back(dim);
    r.n = a.size(dim);
  }
  r.data = expect_contiguous(nd > 0 ? permute(Tensor::borrow(&a), r.perm) : Tensor::borrow(&a));
  return r;
}

// Moving dim last changes no memory order when every dim after it has size 1.
static bool dim_is_last(const Tensor& out, const Rows& r) {
  const size_t nd = r.perm.size();
  if (nd == 0) return true;
  const int64_t dim = r.perm[nd - 1];
  for (size_t d = static_cast<size_t>(dim) + 1; d < nd; ++d)
    if (out->size(static_cast<int64_t>(d)) != 1) return false;
  return true;
}

Tensor row_buffer(const Tensor& out, const Rows& r) {
  if (dim_is_last(out, r)) return out;
  return empty(permute(out, r.perm)->sizes(), out->dtype(), out->device());
}

void write_back(const Tensor& out, const Tensor& buffer, const Rows& r) {
  if (buffer.impl() == out.impl()) return;
  copy_(permute(out, r.perm), buffer);
}

void radix_sort_packed(uint64_t* a, uint64_t* tmp, int64_t n, int key_bits) {
  const int passes = key_bits / 8;
  std::vector<int64_t> hist(static_cast<size_t>(passes) * 256, 0);
  const int low = 64 - key_bits;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t v = a[i] >> low;
    for (int p = 0; p < passes; ++p) ++hist[static_cast<size_t>(p) * 256 + ((v >> (8 * p)) & 255)];
  }
  uint64_t* src = a;
  uint64_t* dst = tmp;
  for (int p = 0; p < passes; ++p) {
    int64_t* h = &hist[static_cast<size_t>(p) * 256];
    const int shift = low + 8 * p;
    if (h[(src[0] >> shift) & 255] == n) continue;  // every key shares this digit
    int64_t offset = 0;
    for (int d = 0; d < 256; ++d) {
      const int64_t c = h[d];
      h[d] = offset;
      offset += c;
    }
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t v = src[i];
      dst[h[(v >> shift) & 255]++] = v;
    }
    std::swap(src, dst);
  }
  if (src != a) std::memcpy(a, src, static_cast<size_t>(n) * sizeof(uint64_t));
}

}  // namespace ct::ops::sortrows
