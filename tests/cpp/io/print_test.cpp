#include <gtest/gtest.h>

#include <vector>

#include "io/print.h"
#include "ops/functions.h"

using ct::DType;
using ct::Tensor;
using ct::io::to_string;

namespace {

template <typename T>
Tensor tensor_of(const std::vector<T>& v, std::initializer_list<int64_t> sizes, DType d) {
  Tensor t = ct::ops::empty(sizes, d, ct::kCPU);
  EXPECT_EQ(t->numel(), static_cast<int64_t>(v.size()));
  T* p = t->data_as<T>();
  for (size_t i = 0; i < v.size(); ++i) p[i] = v[i];
  return t;
}
Tensor floats(const std::vector<float>& v) { return tensor_of(v, {static_cast<int64_t>(v.size())}, DType::Float32); }
Tensor arange(double n, DType d) { return ct::ops::arange(0, n, 1, d, ct::kCPU); }

}  // namespace

// Every expected string is what PyTorch 2.x prints for the same tensor (with ctorch's dtype names).
TEST(ToString, IntegersPrintPlain) {
  EXPECT_EQ(to_string(arange(5, DType::Int64)), "tensor([0, 1, 2, 3, 4])");
  EXPECT_EQ(to_string(tensor_of<int64_t>({-5, 10, 100}, {3}, DType::Int64)), "tensor([ -5,  10, 100])");
}

TEST(ToString, IntegralFloatsPrintWithATrailingPoint) {
  EXPECT_EQ(to_string(floats({1, 2, 3})), "tensor([1., 2., 3.])");
  EXPECT_EQ(to_string(floats({0, 100})), "tensor([  0., 100.])");
  EXPECT_EQ(to_string(floats({-1, 2})), "tensor([-1.,  2.])");
}

TEST(ToString, FractionalFloatsPrintFourDecimals) {
  EXPECT_EQ(to_string(floats({1.5f, 2.25f, 3.125f})), "tensor([1.5000, 2.2500, 3.1250])");
  EXPECT_EQ(to_string(floats({-1.5f, 2.0f})), "tensor([-1.5000,  2.0000])");
  EXPECT_EQ(to_string(floats({0.1f, 10.5f})), "tensor([ 0.1000, 10.5000])");
}

TEST(ToString, WideRangesPrintScientific) {
  EXPECT_EQ(to_string(floats({1e-5f, 1e3f})), "tensor([1.0000e-05, 1.0000e+03])");
  EXPECT_EQ(to_string(tensor_of<double>({1e9, 1.0}, {2}, DType::Float64)),
            "tensor([1.0000e+09, 1.0000e+00], dtype=float64)");
}

TEST(ToString, BoolsPadToTheWidestValue) {
  EXPECT_EQ(to_string(tensor_of<bool>({true, false}, {2}, DType::Bool)), "tensor([ True, False])");
  EXPECT_EQ(to_string(tensor_of<bool>({true}, {1}, DType::Bool)), "tensor([True])");
}

TEST(ToString, TwoDimsIndentRows) {
  EXPECT_EQ(to_string(ct::ops::reshape(arange(4, DType::Float32), {2, 2})), "tensor([[0., 1.],\n        [2., 3.]])");
}

TEST(ToString, ThreeDimsSeparateBlocksWithABlankLine) {
  EXPECT_EQ(to_string(ct::ops::reshape(arange(8, DType::Int64), {2, 2, 2})),
            "tensor([[[0, 1],\n"
            "         [2, 3]],\n"
            "\n"
            "        [[4, 5],\n"
            "         [6, 7]]])");
}

TEST(ToString, LongTensorsAreSummarized) {
  EXPECT_EQ(to_string(arange(2000, DType::Int64)), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  EXPECT_EQ(to_string(ct::ops::zeros({2000}, DType::Float32, ct::kCPU)), "tensor([0., 0., 0.,  ..., 0., 0., 0.])");
}

TEST(ToString, LongRowsWrapAtEightyColumns) {
  EXPECT_EQ(to_string(arange(30, DType::Float32)),
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
            "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
            "        28., 29.])");
}

TEST(ToString, ZeroDimTensorsPrintTheBareValue) {
  EXPECT_EQ(to_string(ct::ops::full({}, ct::Scalar(3.5), DType::Float32, ct::kCPU)), "tensor(3.5000)");
  EXPECT_EQ(to_string(ct::ops::full({}, ct::Scalar(int64_t(3)), DType::Int64, ct::kCPU)), "tensor(3)");
  EXPECT_EQ(to_string(ct::ops::full({}, ct::Scalar(2.0), DType::Float32, ct::kCPU)), "tensor(2.)");
}

TEST(ToString, EmptyTensors) {
  EXPECT_EQ(to_string(ct::ops::zeros({0}, DType::Float32, ct::kCPU)), "tensor([])");
  EXPECT_EQ(to_string(ct::ops::zeros({0, 3}, DType::Float32, ct::kCPU)), "tensor([], size=(0, 3))");
}

// torch: an empty tensor has no values to show its dtype by, so every non-default-float dtype is
// printed, int64 included: torch.zeros(0, dtype=torch.int64) -> tensor([], dtype=torch.int64).
TEST(ToString, EmptyTensorsShowEveryDTypeButTheDefaultFloat) {
  EXPECT_EQ(to_string(ct::ops::zeros({0}, DType::Int64, ct::kCPU)), "tensor([], dtype=int64)");
  EXPECT_EQ(to_string(ct::ops::zeros({0}, DType::Bool, ct::kCPU)), "tensor([], dtype=bool)");
  EXPECT_EQ(to_string(ct::ops::zeros({0}, DType::Int32, ct::kCPU)), "tensor([], dtype=int32)");
}

TEST(ToString, NonDefaultDTypesGetASuffix) {
  EXPECT_EQ(to_string(arange(3, DType::Int32)), "tensor([0, 1, 2], dtype=int32)");
  EXPECT_EQ(to_string(tensor_of<double>({1.5}, {1}, DType::Float64)), "tensor([1.5000], dtype=float64)");
  EXPECT_EQ(to_string(ct::ops::to(floats({0.5f, 1.0f}), DType::Float16)), "tensor([0.5000, 1.0000], dtype=float16)");
  EXPECT_EQ(to_string(ct::ops::to(floats({1, 2}), DType::UInt8)), "tensor([1, 2], dtype=uint8)");
}

TEST(ToString, NonFiniteValues) {
  EXPECT_EQ(to_string(floats({1.0f, INFINITY, NAN})), "tensor([1., inf, nan])");
  EXPECT_EQ(to_string(floats({-INFINITY, 0.5f})), "tensor([  -inf, 0.5000])");
}

TEST(ToString, StridedTensorsPrintInLogicalOrder) {
  EXPECT_EQ(to_string(ct::ops::transpose(ct::ops::reshape(arange(6, DType::Int64), {2, 3}), 0, 1)),
            "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])");
}

TEST(ToString, MetaTensorsShowDeviceAndSize) {
  EXPECT_EQ(to_string(ct::ops::empty({2, 3}, DType::Float32, ct::kMeta)), "tensor(..., device='meta', size=(2, 3))");
}

TEST(ToString, LongMatricesSummarizeRows) {
  EXPECT_EQ(to_string(ct::ops::reshape(arange(3000, DType::Int64), {1000, 3})),
            "tensor([[   0,    1,    2],\n"
            "        [   3,    4,    5],\n"
            "        [   6,    7,    8],\n"
            "        ...,\n"
            "        [2991, 2992, 2993],\n"
            "        [2994, 2995, 2996],\n"
            "        [2997, 2998, 2999]])");
}
