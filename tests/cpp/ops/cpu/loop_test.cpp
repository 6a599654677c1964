#include <gtest/gtest.h>

#include <cstring>

#include "ops/cpu/loop.h"
#include "ops/functions.h"

using ct::DType;
using ct::Tensor;
using ct::cpu::LoopPlan;
using ct::cpu::make_plan;

namespace {
Tensor range(std::initializer_list<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return ct::ops::reshape(ct::ops::arange(0, static_cast<double>(n), 1, DType::Float32, ct::kCPU), sizes);
}
Tensor empty(std::initializer_list<int64_t> sizes) { return ct::ops::empty(sizes, DType::Float32, ct::kCPU); }
}  // namespace

TEST(MakePlan, MergesContiguousOperandsIntoOneDim) {
  Tensor a = range({2, 3, 4}), b = range({2, 3, 4}), out = empty({2, 3, 4});
  const ct::TensorImpl* in[] = {a.impl(), b.impl()};
  LoopPlan p = make_plan(*out, in, 2);
  EXPECT_EQ(p.nops, 3);
  EXPECT_EQ(p.ndim, 1);
  EXPECT_EQ(p.numel, 24);
  EXPECT_EQ(p.shape[0], 24);
  for (int o = 0; o < 3; ++o) EXPECT_EQ(p.strides[o][0], 4) << o;
  EXPECT_EQ(p.base[0], out->data());
  EXPECT_EQ(p.base[1], a->data());
}

TEST(MakePlan, SingleElementInputBroadcastsWithStrideZero) {
  Tensor a = range({2, 3}), s = ct::ops::full({}, ct::Scalar(2.0), DType::Float32, ct::kCPU), out = empty({2, 3});
  const ct::TensorImpl* in[] = {a.impl(), s.impl()};
  LoopPlan p = make_plan(*out, in, 2);
  EXPECT_EQ(p.ndim, 1);
  EXPECT_EQ(p.shape[0], 6);
  EXPECT_EQ(p.strides[2][0], 0);
}

TEST(MakePlan, KeepsTransposedDimsSeparate) {
  Tensor t = ct::ops::transpose(range({2, 3}), 0, 1);  // sizes [3, 2], strides [1, 3]
  Tensor out = empty({3, 2});
  const ct::TensorImpl* in[] = {t.impl()};
  LoopPlan p = make_plan(*out, in, 1);
  ASSERT_EQ(p.ndim, 2);
  EXPECT_EQ(p.shape[0], 3);
  EXPECT_EQ(p.shape[1], 2);
  EXPECT_EQ(p.strides[0][0], 8);
  EXPECT_EQ(p.strides[0][1], 4);
  EXPECT_EQ(p.strides[1][0], 4);
  EXPECT_EQ(p.strides[1][1], 12);
}

TEST(MakePlan, MergesOuterDimsOfABroadcastRowButKeepsTheRow) {
  Tensor row = range({4}), out = empty({2, 3, 4});
  const ct::TensorImpl* in[] = {row.impl()};
  LoopPlan p = make_plan(*out, in, 1);
  ASSERT_EQ(p.ndim, 2);
  EXPECT_EQ(p.shape[0], 6);
  EXPECT_EQ(p.shape[1], 4);
  EXPECT_EQ(p.strides[0][0], 16);
  EXPECT_EQ(p.strides[0][1], 4);
  EXPECT_EQ(p.strides[1][0], 0);
  EXPECT_EQ(p.strides[1][1], 4);
}

TEST(MakePlan, BroadcastColumnGetsStrideZeroInTheInnerDim) {
  Tensor col = range({3, 1}), out = empty({3, 4});
  const ct::TensorImpl* in[] = {col.impl()};
  LoopPlan p = make_plan(*out, in, 1);
  ASSERT_EQ(p.ndim, 2);
  EXPECT_EQ(p.shape[0], 3);
  EXPECT_EQ(p.shape[1], 4);
  EXPECT_EQ(p.strides[1][0], 4);
  EXPECT_EQ(p.strides[1][1], 0);
}

TEST(MakePlan, NarrowedRowsStayTwoDims) {
  Tensor n = ct::ops::narrow(range({4, 6}), 1, 1, 3);  // sizes [4, 3], strides [6, 1], offset 1
  Tensor out = empty({4, 3});
  const ct::TensorImpl* in[] = {n.impl()};
  LoopPlan p = make_plan(*out, in, 1);
  ASSERT_EQ(p.ndim, 2);
  EXPECT_EQ(p.strides[1][0], 24);
  EXPECT_EQ(p.strides[1][1], 4);
  EXPECT_EQ(p.base[1], static_cast<char*>(n->storage()->data()) + 4);
}

TEST(MakePlan, SizeOneDimsAreDroppedAndZeroDimHasOneElement) {
  Tensor a = range({1, 5, 1}), out = empty({1, 5, 1});
  const ct::TensorImpl* in[] = {a.impl()};
  LoopPlan p = make_plan(*out, in, 1);
  EXPECT_EQ(p.ndim, 1);
  EXPECT_EQ(p.shape[0], 5);
  Tensor z = ct::ops::full({}, ct::Scalar(1.0), DType::Float32, ct::kCPU), zo = empty({});
  const ct::TensorImpl* zin[] = {z.impl()};
  LoopPlan pz = make_plan(*zo, zin, 1);
  EXPECT_EQ(pz.ndim, 1);
  EXPECT_EQ(pz.numel, 1);
  EXPECT_EQ(pz.shape[0], 1);
}

TEST(Elementwise, StridedAndBroadcastOperandsGiveTorchValues) {
  Tensor t = ct::ops::transpose(range({2, 3}), 0, 1);  // [[0, 3], [1, 4], [2, 5]]
  Tensor col = range({3, 1});                           // [[0], [1], [2]]
  Tensor out = ct::ops::add(t, col);
  const float want[] = {0, 3, 2, 5, 4, 7};
  ASSERT_TRUE(out->sizes().equals({3, 2}));
  ASSERT_TRUE(out->is_contiguous());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out->data_as<float>()[i], want[i]) << i;
}

TEST(Elementwise, LargeStridedAddWithBroadcastMatchesAScalarLoop) {
  const int64_t r = 300, c = 257;
  Tensor a = ct::ops::transpose(range({c, r}), 0, 1);  // [r, c] non-contiguous
  Tensor b = range({c});
  Tensor out = ct::ops::add(a, b);
  const float* pa = a->storage()->data() ? static_cast<const float*>(a->storage()->data()) : nullptr;
  ASSERT_NE(pa, nullptr);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j)
      ASSERT_EQ(out->data_as<float>()[i * c + j], pa[j * r + i] + static_cast<float>(j)) << i << "," << j;
}

// Note [Casting in the loop]: an input of another dtype is converted chunk by chunk as it is read.
// The result must equal converting it whole first, across chunk boundaries (rows of 1000 and 257),
// for a strided input, a broadcast row and a broadcast single element.
TEST(Elementwise, InputsOfAnotherDtypeConvertAsTheyAreRead) {
  const int64_t r = 300, c = 1000;
  Tensor a = ct::ops::transpose(range({c, r}), 0, 1);                             // [r, c] strided float32
  Tensor h = ct::ops::to(ct::ops::mul(range({r, c}), 0.37), DType::Float16);        // dense float16
  Tensor i = ct::ops::to(ct::ops::transpose(range({257, r}), 0, 1), DType::Int32);  // [r, 257] strided int32
  Tensor row = ct::ops::to(range({c}), DType::Int64);                               // broadcast row
  Tensor one = ct::ops::to(ct::ops::full({1}, 3, DType::Float32, ct::kCPU), DType::Int16);
  const auto same = [](const Tensor& x, const Tensor& y) {
    ASSERT_EQ(x->dtype(), y->dtype());
    ASSERT_TRUE(x->sizes().equals(y->sizes()));
    const Tensor xc = ct::ops::contiguous(x), yc = ct::ops::contiguous(y);
    ASSERT_EQ(std::memcmp(xc->data(), yc->data(), x->numel() * ct::itemsize(x->dtype())), 0);
  };
  same(ct::ops::add(a, h), ct::ops::add(a, ct::ops::to(h, DType::Float32)));
  same(ct::ops::mul(h, a), ct::ops::mul(ct::ops::to(h, DType::Float32), a));
  same(ct::ops::sub(ct::ops::narrow(a, 1, 0, 257), i),
       ct::ops::sub(ct::ops::narrow(a, 1, 0, 257), ct::ops::to(i, DType::Float32)));
  same(ct::ops::add(h, row), ct::ops::add(h, ct::ops::to(row, DType::Float16)));  // float16, as in torch
  same(ct::ops::maximum(a, one), ct::ops::maximum(a, ct::ops::to(one, DType::Float32)));
  same(ct::ops::lt(i, ct::ops::narrow(a, 1, 0, 257)), ct::ops::lt(ct::ops::to(i, DType::Float32), ct::ops::narrow(a, 1, 0, 257)));
  const Tensor cond = ct::ops::gt(a, 500);
  same(ct::ops::where(cond, a, h), ct::ops::where(cond, a, ct::ops::to(h, DType::Float32)));
  same(ct::ops::addcmul(a, h, row), ct::ops::addcmul(a, ct::ops::to(h, DType::Float32), ct::ops::to(row, DType::Float32)));
  same(ct::ops::clamp(i, -0.5, 99.5), ct::ops::clamp(ct::ops::to(i, DType::Float32), -0.5, 99.5));
  // Unary operators on integers compute in the default float dtype.
  same(ct::ops::exp(ct::ops::mul(i, -1)), ct::ops::exp(ct::ops::to(ct::ops::mul(i, -1), DType::Float32)));
  same(ct::ops::sqrt(row), ct::ops::sqrt(ct::ops::to(row, DType::Float32)));
  same(ct::ops::sigmoid(i), ct::ops::sigmoid(ct::ops::to(i, DType::Float32)));
  same(ct::ops::polygamma(1, ct::ops::add(i, 1)), ct::ops::polygamma(1, ct::ops::to(ct::ops::add(i, 1), DType::Float32)));
}

TEST(MakePlan, FollowsTheOutputsMemoryOrder) {  // Note [Loop order follows the output]
  Tensor out = ct::ops::transpose(empty({3, 2}), 0, 1);  // sizes [2, 3], strides [1, 2]
  Tensor same = ct::ops::transpose(range({3, 2}), 0, 1);
  const ct::TensorImpl* in[] = {same.impl()};
  LoopPlan p = make_plan(*out, in, 1);
  ASSERT_EQ(p.ndim, 1);
  EXPECT_EQ(p.shape[0], 6);
  EXPECT_EQ(p.strides[0][0], 4);
  EXPECT_EQ(p.strides[1][0], 4);
  Tensor dense = range({2, 3});
  const ct::TensorImpl* in2[] = {dense.impl()};
  p = make_plan(*out, in2, 1);
  ASSERT_EQ(p.ndim, 2);
  EXPECT_EQ(p.shape[1], 2);  // the output's dense dim innermost
  EXPECT_EQ(p.strides[0][1], 4);
  EXPECT_EQ(p.strides[1][1], 12);
}
