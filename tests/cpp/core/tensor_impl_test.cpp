#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/tensor.h"
#include "core/tensor_impl.h"

using ct::DType;
using ct::IntArrayRef;
using ct::Tensor;
using ct::TensorImpl;

TEST(ContiguousStrides, AreRowMajorAndTreatSizeZeroAndOneAsOne) {
  EXPECT_TRUE(ct::contiguous_strides(IntArrayRef{2, 3, 4}).ref().equals({12, 4, 1}));
  EXPECT_TRUE(ct::contiguous_strides(IntArrayRef{}).ref().equals({}));
  EXPECT_TRUE(ct::contiguous_strides(IntArrayRef{5}).ref().equals({1}));
  // torch: torch.empty(2, 0, 3).stride() == (3, 3, 1); size-1 dims likewise.
  EXPECT_TRUE(ct::contiguous_strides(IntArrayRef{2, 0, 3}).ref().equals({3, 3, 1}));
  EXPECT_TRUE(ct::contiguous_strides(IntArrayRef{2, 1, 3}).ref().equals({3, 3, 1}));
}

TEST(ComputeContiguous, IgnoresStridesOfSizeOneDimsAndEmptyTensors) {
  EXPECT_TRUE(ct::compute_contiguous({2, 3}, {3, 1}));
  EXPECT_FALSE(ct::compute_contiguous({2, 3}, {1, 2}));  // transposed
  EXPECT_FALSE(ct::compute_contiguous({2, 3}, {0, 1}));  // expanded
  EXPECT_TRUE(ct::compute_contiguous({2, 1, 3}, {3, 99, 1}));
  EXPECT_TRUE(ct::compute_contiguous({1, 1}, {7, 5}));
  EXPECT_TRUE(ct::compute_contiguous({}, {}));
  EXPECT_TRUE(ct::compute_contiguous({2, 0, 3}, {5, 7, 9}));
  EXPECT_FALSE(ct::compute_contiguous({2, 3}, {6, 2}));  // every other column
}

TEST(CheckedNumel, MultipliesSizes) {
  EXPECT_EQ(ct::checked_numel(IntArrayRef{2, 3, 4}, "test"), 24);
  EXPECT_EQ(ct::checked_numel(IntArrayRef{}, "test"), 1);
  EXPECT_EQ(ct::checked_numel(IntArrayRef{5, 0, std::numeric_limits<int64_t>::max()}, "test"), 0);
}

TEST(CheckedNumel, OverflowRaisesInvalidArgument) {
  const int64_t big = int64_t(1) << 32;
  try {
    ct::checked_numel(IntArrayRef{big, big}, "myop");
    FAIL() << "2^64 elements did not raise";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(e.message().find("myop"), std::string::npos) << e.message();
  }
  try {
    ct::checked_numel(IntArrayRef{std::numeric_limits<int64_t>::max(), 2}, "myop");
    FAIL() << "INT64_MAX * 2 did not raise";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INVALID_ARGUMENT);
  }
}

TEST(CheckedNumel, NegativeSizeRaisesInvalidArgument) {
  try {
    ct::checked_numel(IntArrayRef{2, -1}, "myop");
    FAIL() << "negative size did not raise";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INVALID_ARGUMENT);
  }
}

TEST(TensorImpl, EmptyIsContiguousWithRowMajorStrides) {
  Tensor t = Tensor::adopt(TensorImpl::empty({2, 3, 4}, DType::Float32, ct::kCPU));
  EXPECT_EQ(t->dim(), 3u);
  EXPECT_TRUE(t->sizes().equals({2, 3, 4}));
  EXPECT_TRUE(t->strides().equals({12, 4, 1}));
  EXPECT_EQ(t->numel(), 24);
  EXPECT_EQ(t->storage_offset(), 0);
  EXPECT_TRUE(t->is_contiguous());
  EXPECT_FALSE(t->is_wrapped_number());
  EXPECT_EQ(t->use_count(), 1);
  EXPECT_TRUE(t->alive());
  EXPECT_GE(t->storage()->nbytes(), 24 * sizeof(float));
  EXPECT_NE(t->data(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->data()) % 64, 0u);
  // sym_sizes has the same bits as sizes.
  ASSERT_EQ(t->sym_sizes().size(), 3u);
  EXPECT_EQ(t->sym_sizes()[1].expect_int(), 3);
}

TEST(TensorImpl, ZeroDimTensorHasOneElement) {
  Tensor t = Tensor::adopt(TensorImpl::empty({}, DType::Int64, ct::kCPU));
  EXPECT_EQ(t->dim(), 0u);
  EXPECT_EQ(t->numel(), 1);
  EXPECT_TRUE(t->is_contiguous());
  *t->data_as<int64_t>() = 7;
  EXPECT_EQ(*t->data_as<int64_t>(), 7);
}

TEST(TensorImpl, MetaTensorsHaveNoData) {
  Tensor t = Tensor::adopt(TensorImpl::empty({1000, 1000}, DType::Float64, ct::kMeta));
  EXPECT_TRUE(t->device().is_meta());
  EXPECT_EQ(t->data(), nullptr);
  EXPECT_EQ(t->numel(), 1000000);
}

TEST(TensorImpl, ViewsShareStorageAndKeepItAlive) {
  Tensor base = Tensor::adopt(TensorImpl::empty({2, 3}, DType::Float32, ct::kCPU));
  float* p = base->data_as<float>();
  for (int i = 0; i < 6; ++i) p[i] = static_cast<float>(i);
  ct::StorageImpl* storage = base->storage();

  // Transposed view and a view at an offset (row 1).
  Tensor t = Tensor::adopt(TensorImpl::view_of(*base, {3, 2}, {1, 3}, 0));
  Tensor row = Tensor::adopt(TensorImpl::view_of(*base, {3}, {1}, 3));
  EXPECT_EQ(t->storage(), storage);
  EXPECT_EQ(row->storage(), storage);
  EXPECT_FALSE(t->is_contiguous());
  EXPECT_TRUE(row->is_contiguous());
  EXPECT_EQ(t->dtype(), DType::Float32);
  EXPECT_EQ(row->data_as<float>(), p + 3);
  EXPECT_EQ(row->data_as<float>()[2], 5.0f);

  // Writes through one are seen by the others.
  row->data_as<float>()[0] = 42.0f;
  EXPECT_EQ(p[3], 42.0f);
  EXPECT_EQ(t->data_as<float>()[1 * 1 + 0 * 3 + 0], p[1]);

  // The base going away leaves the storage to the views.
  base = Tensor();
  EXPECT_EQ(t->storage(), storage);
  EXPECT_EQ(row->data_as<float>()[0], 42.0f);
  EXPECT_EQ(t->data_as<float>()[1 * 3 + 0 * 1 - 0], 42.0f);  // element [0, 1] of the transpose
  t = Tensor();
  EXPECT_EQ(row->data_as<float>()[1], 4.0f);
}

TEST(Tensor, CopyAndMoveAdjustTheRefcount) {
  Tensor a = Tensor::adopt(TensorImpl::empty({4}, DType::Int32, ct::kCPU));
  EXPECT_EQ(a->use_count(), 1);
  {
    Tensor b = a;
    EXPECT_EQ(a->use_count(), 2);
    Tensor c = std::move(b);
    EXPECT_FALSE(b.defined());
    EXPECT_EQ(a->use_count(), 2);
    Tensor d = Tensor::borrow(a.impl());
    EXPECT_EQ(a->use_count(), 3);
  }
  EXPECT_EQ(a->use_count(), 1);
  a = a;  // self-assignment keeps the tensor
  EXPECT_TRUE(a.defined());
  EXPECT_EQ(a->use_count(), 1);
}
