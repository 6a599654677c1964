// index_select and embedding against an element-by-element reference: rows of every element size
// (the memcpy row gather of Note [Gathering rows] and the general loop below its row width),
// repeated and boundary indices, strided and flipped tables, and the same bytes at 1 and 2 threads.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ops/cpu/parallel.h"
#include "ops/functions.h"
#include "../cpu/scoped_threads.h"
#include "../patterned_tensor.h"

using ct::DType;
using ct::Tensor;
using ct::TensorImpl;

namespace {

Tensor indices(const std::vector<int64_t>& v, DType dtype = DType::Int64) {
  Tensor t = ct::ops::empty({static_cast<int64_t>(v.size())}, DType::Int64, ct::kCPU);
  std::memcpy(t->data(), v.data(), v.size() * sizeof(int64_t));
  return dtype == DType::Int64 ? t : ct::ops::to(t, dtype);
}

// Bytes of element (i, rest...) of t along dim 0 = index i: t is 2-D [rows, cols] or 3-D [1, rows, cols].
std::vector<unsigned char> expected_rows(const Tensor& table, int64_t dim, const std::vector<int64_t>& idx) {
  const size_t item = ct::itemsize(table->dtype());
  const int64_t cols = table->size(table->dim() - 1);
  const int64_t row_stride = table->stride(dim), col_stride = table->stride(table->dim() - 1);
  const char* base = static_cast<const char*>(table->data());
  std::vector<unsigned char> out(idx.size() * static_cast<size_t>(cols) * item);
  for (size_t j = 0; j < idx.size(); ++j)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(&out[(j * static_cast<size_t>(cols) + static_cast<size_t>(c)) * item],
                  base + (idx[j] * row_stride + c * col_stride) * static_cast<int64_t>(item), item);
  return out;
}

std::vector<unsigned char> raw(const Tensor& t) {
  EXPECT_TRUE(t->is_contiguous());
  const auto* p = static_cast<const unsigned char*>(t->data());
  return {p, p + t->numel() * static_cast<int64_t>(ct::itemsize(t->dtype()))};
}

}  // namespace

TEST(IndexSelect, RepeatedAndBoundaryIndicesPickTheirRowsForEveryRowWidth) {
  const std::vector<int64_t> idx = {0, 9, 9, 3, 0, 9, 5, 5, 5, 1};
  for (DType dt : {DType::Bool, DType::UInt8, DType::Int16, DType::Float16, DType::Float32, DType::Int64,
                   DType::Float64})
    for (int64_t cols : {1, 3, 4, 5, 16, 64, 67}) {
      const Tensor table = patterned({10, cols}, dt, static_cast<uint32_t>(cols));
      for (DType idt : {DType::Int64, DType::Int32}) {
        const Tensor got = ct::ops::index_select(table, 0, indices(idx, idt));
        EXPECT_TRUE(raw(got) == expected_rows(table, 0, idx)) << dt << " cols " << cols << " index " << idt;
      }
    }
}

TEST(IndexSelect, LeadingUnitDimsStridedAndFlippedTablesMatchTheReference) {
  const std::vector<int64_t> idx = {4, 0, 7, 7, 2};
  for (DType dt : {DType::Int8, DType::Float32, DType::Float64}) {
    const Tensor base = patterned({8, 12}, dt, 11);
    // [1, 8, 12], indexed along dim 1.
    const Tensor lead = ct::ops::reshape(base, {1, 8, 12});
    EXPECT_TRUE(raw(ct::ops::index_select(lead, 1, indices(idx))) == expected_rows(lead, 1, idx)) << dt;
    // Rows of every other column: rows not dense, the general loop.
    const Tensor every_other = Tensor::adopt(TensorImpl::view_of(*base, {8, 6}, {12, 2}, 1));
    EXPECT_TRUE(raw(ct::ops::index_select(every_other, 0, indices(idx))) == expected_rows(every_other, 0, idx)) << dt;
    // Rows in reverse order (a negative stride along dim), each row dense.
    const Tensor flipped = Tensor::adopt(TensorImpl::view_of(*base, {8, 12}, {-12, 1}, 7 * 12));
    EXPECT_TRUE(raw(ct::ops::index_select(flipped, 0, indices(idx))) == expected_rows(flipped, 0, idx)) << dt;
  }
}

TEST(IndexSelect, LargeGathersGiveTheSameBytesAtOneAndTwoThreads) {
  // 6000 rows of 128 float32 (3 MiB out) from a 4.9 MiB table: threads split the entries and rows
  // are prefetched.
  std::vector<int64_t> idx(6000);
  uint32_t x = 99;
  for (auto& v : idx) {
    x = x * 1664525u + 1013904223u;
    v = (x >> 8) % 10000;
  }
  idx[0] = 0;
  idx[1] = 9999;
  const Tensor table = patterned({10000, 128}, DType::Float32, 12);
  const std::vector<unsigned char> want = expected_rows(table, 0, idx);
  for (int threads : {1, 2}) {
    ScopedThreads t(threads);
    EXPECT_TRUE(raw(ct::ops::index_select(table, 0, indices(idx))) == want) << threads << " threads";
    const Tensor e = ct::ops::embedding(table, ct::ops::reshape(indices(idx), {60, 100}));
    ASSERT_EQ(e->dim(), 3u);
    EXPECT_TRUE(raw(e) == want) << "embedding at " << threads << " threads";
  }
}

TEST(Embedding, TwoDimIndicesPickRowsInRowMajorOrder) {
  const Tensor table = patterned({7, 8}, DType::Float32, 13);
  const std::vector<int64_t> idx = {6, 0, 0, 3, 6, 1};
  const Tensor e = ct::ops::embedding(table, ct::ops::reshape(indices(idx), {2, 3}));
  ASSERT_EQ(e->dim(), 3u);
  EXPECT_EQ(e->size(0), 2);
  EXPECT_EQ(e->size(1), 3);
  EXPECT_EQ(e->size(2), 8);
  EXPECT_TRUE(raw(e) == expected_rows(table, 0, idx));
}
