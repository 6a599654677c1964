// copy_, contiguous and clone of permuted, sliced, flipped and expanded views, byte for byte against
// an element-by-element reference, for every element size and both thread counts (copy_tiled.cpp,
// and the plan order of loop.cpp for copies into transposed views).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "ops/cpu/parallel.h"
#include "ops/functions.h"
#include "scoped_threads.h"
#include "../patterned_tensor.h"

using ct::DType;
using ct::Tensor;
using ct::TensorImpl;

namespace {

constexpr DType kAllDTypes[] = {DType::Bool,    DType::UInt8,    DType::Int8,    DType::Int16, DType::Int32,
                                DType::Int64,   DType::Float16,  DType::BFloat16, DType::Float32, DType::Float64};

// The bytes of t's elements in row-major order, read through its strides one at a time.
std::vector<unsigned char> elements(const Tensor& t) {
  const size_t item = ct::itemsize(t->dtype());
  const int64_t nd = static_cast<int64_t>(t->dim());
  std::vector<unsigned char> out(static_cast<size_t>(t->numel()) * item);
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  const char* base = static_cast<const char*>(t->data());
  for (int64_t e = 0; e < t->numel(); ++e) {
    int64_t off = 0;
    for (int64_t d = 0; d < nd; ++d) off += idx[d] * t->stride(d);
    std::memcpy(&out[static_cast<size_t>(e) * item], base + off * static_cast<int64_t>(item), item);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < t->size(d)) break;
      idx[d] = 0;
    }
  }
  return out;
}

// The raw bytes of a contiguous tensor.
std::vector<unsigned char> raw(const Tensor& t) {
  EXPECT_TRUE(t->is_contiguous());
  const auto* p = static_cast<const unsigned char*>(t->data());
  return {p, p + t->numel() * static_cast<int64_t>(ct::itemsize(t->dtype()))};
}

Tensor view_of(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) {
  return Tensor::adopt(TensorImpl::view_of(*base, sizes, strides, offset));
}

// contiguous() of v, at 1 and 2 threads: the reference's bytes both times.
void expect_contiguous_copies(const Tensor& v, const char* what) {
  const std::vector<unsigned char> want = elements(v);
  for (int threads : {1, 2}) {
    ScopedThreads t(threads);
    const Tensor c = ct::ops::contiguous(v);
    ASSERT_TRUE(c->is_contiguous());
    EXPECT_TRUE(raw(c) == want) << what << " " << v->dtype() << " sizes " << v->sizes() << " strides "
                                << v->strides() << " at " << threads << " threads";
  }
}

}  // namespace

TEST(CopyTiled, TransposesOfOddSizesMatchTheReferenceForEveryDType) {
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1},  {1, 9},   {7, 13},  {8, 8},    {9, 17},
                                                           {16, 4}, {64, 64}, {65, 130}, {127, 3}, {3, 127},
                                                           {300, 200}};
  for (DType dt : kAllDTypes)
    for (auto [r, c] : shapes) {
      const Tensor x = patterned({r, c}, dt, static_cast<uint32_t>(r * 1000 + c));
      expect_contiguous_copies(ct::ops::transpose(x, 0, 1), "transpose");
    }
}

TEST(CopyTiled, EveryPermutationOf3DAndSome4DPermutesMatchTheReference) {
  for (DType dt : {DType::UInt8, DType::Int16, DType::Float32, DType::Float64}) {
    const Tensor x = patterned({5, 70, 9}, dt, 3);
    std::vector<int64_t> perm = {0, 1, 2};
    do {
      expect_contiguous_copies(ct::ops::permute(x, perm), "permute3");
    } while (std::next_permutation(perm.begin(), perm.end()));
    const Tensor y = patterned({3, 4, 33, 10}, dt, 4);
    for (std::vector<int64_t> p4 : {std::vector<int64_t>{0, 2, 3, 1}, {3, 2, 1, 0}, {1, 3, 0, 2}, {0, 1, 3, 2}})
      expect_contiguous_copies(ct::ops::permute(y, p4), "permute4");
  }
}

TEST(CopyTiled, SlicedFlippedAndExpandedViewsMatchTheReference) {
  for (DType dt : {DType::Bool, DType::Int8, DType::BFloat16, DType::Int32, DType::Int64}) {
    const Tensor x = patterned({40, 50}, dt, 5);
    // Every other row and column, transposed: neither dim dense.
    expect_contiguous_copies(view_of(x, {25, 20}, {2, 100}, 0), "strided transpose");
    // A transposed view read backwards along each dim (negative strides).
    expect_contiguous_copies(view_of(x, {50, 40}, {-1, 50}, 49), "flipped rows");
    expect_contiguous_copies(view_of(x, {50, 40}, {1, -50}, 39 * 50), "flipped columns");
    expect_contiguous_copies(view_of(x, {50, 40}, {-1, -50}, 39 * 50 + 49), "flipped both");
    // One column expanded across the output's rows, and one row down its columns.
    const Tensor col = view_of(x, {40, 1}, {50, 1}, 3);
    expect_contiguous_copies(ct::ops::expand(col, {40, 33}), "expanded column");
    const Tensor row = view_of(x, {1, 50}, {50, 1}, 50);
    expect_contiguous_copies(ct::ops::transpose(ct::ops::expand(row, {21, 50}), 0, 1), "expanded row, transposed");
  }
}

TEST(CopyTiled, CopyIntoATransposedDestinationWritesEveryElementOnce) {
  for (DType dt : {DType::UInt8, DType::Float16, DType::Float32, DType::Float64}) {
    for (int threads : {1, 2}) {
      ScopedThreads t(threads);
      const Tensor src = patterned({130, 67}, dt, 6);
      const Tensor dst_base = ct::ops::empty({67, 130}, dt, ct::kCPU);
      const Tensor dst = ct::ops::transpose(dst_base, 0, 1);  // sizes [130, 67], strides [1, 130]
      ct::ops::copy_(dst, src);
      EXPECT_TRUE(elements(dst) == raw(src)) << dt << " at " << threads << " threads";
    }
  }
}

TEST(CopyTiled, LargeTransposesGiveTheSameBytesAtOneAndTwoThreads) {
  for (DType dt : {DType::UInt8, DType::Int16, DType::Float32, DType::Float64}) {
    const Tensor x = patterned({513, 1031}, dt, 7);
    const Tensor y = patterned({6, 129, 257}, dt, 8);
    expect_contiguous_copies(ct::ops::transpose(x, 0, 1), "large transpose");
    expect_contiguous_copies(ct::ops::permute(y, {2, 0, 1}), "large permute");
  }
}

TEST(CopyTiled, ConvertingCopiesOfTransposesStillConvertEachElement) {
  const Tensor x = ct::ops::reshape(ct::ops::arange(0, 600, 1, DType::Int32, ct::kCPU), {20, 30});
  const Tensor f = ct::ops::to(ct::ops::transpose(x, 0, 1), DType::Float64);
  ASSERT_TRUE(f->is_contiguous());
  const double* p = f->data_as<const double>();
  for (int64_t i = 0; i < 30; ++i)
    for (int64_t j = 0; j < 20; ++j) ASSERT_EQ(p[i * 20 + j], static_cast<double>(j * 30 + i)) << i << " " << j;
}

TEST(Clone, OfAPermutedTensorIsAContiguousCopy) {  // ctorch.h: "always a new contiguous copy"
  const Tensor x = patterned({4, 6, 5}, DType::Float32, 9);
  const Tensor p = ct::ops::permute(x, {2, 0, 1});
  const Tensor c = ct::ops::clone(p);
  EXPECT_TRUE(c->is_contiguous());
  EXPECT_FALSE(c->is_view());
  EXPECT_TRUE(raw(c) == elements(p));
}

TEST(Clone, MakesNonDenseOrFlippedViewsContiguous) {
  const Tensor x = patterned({10, 12}, DType::Int16, 10);
  for (const Tensor& v : {view_of(x, {5, 12}, {24, 1}, 0), view_of(x, {12, 10}, {-1, 12}, 11),
                          ct::ops::expand(view_of(x, {1, 12}, {12, 1}, 0), {3, 12})}) {
    const Tensor c = ct::ops::clone(v);
    EXPECT_TRUE(c->is_contiguous()) << v->strides();
    EXPECT_TRUE(raw(c) == elements(v)) << v->strides();
  }
}

TEST(Reshape, OfATransposedDenseTensorIsContiguousInTheNewOrder) {
  const Tensor x = ct::ops::reshape(ct::ops::arange(0, 6, 1, DType::Float32, ct::kCPU), {2, 3});
  const Tensor r = ct::ops::reshape(ct::ops::transpose(x, 0, 1), {6});
  const float* p = r->data_as<const float>();
  const float want[] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(p[i], want[i]) << i;
}
