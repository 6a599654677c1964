#include <gtest/gtest.h>

#include "core/tensor.h"
#include "ops/functions.h"
#include "ops/op_common.h"

using ct::DType;
using ct::Scalar;
using ct::Tensor;
using ct::TensorImpl;
using ct::ops::ResultType;

namespace {
Tensor dimmed(DType d) { return Tensor::adopt(TensorImpl::empty({2}, d, ct::kCPU)); }
Tensor zero_dim(DType d) { return Tensor::adopt(TensorImpl::empty({}, d, ct::kCPU)); }

DType result(std::initializer_list<const Tensor*> ts, std::initializer_list<Scalar> ss = {}) {
  ResultType r;
  for (const Tensor* t : ts) r.add(**t);
  for (const Scalar& s : ss) r.add(s);
  return r.result();
}
}  // namespace

// Each expectation is torch.result_type for the same inputs.
TEST(ResultType, DimensionedTensorsPromoteLikePromoteTypes) {
  Tensor i32 = dimmed(DType::Int32), f16 = dimmed(DType::Float16), u8 = dimmed(DType::UInt8), i8 = dimmed(DType::Int8);
  EXPECT_EQ(result({&i32, &f16}), DType::Float16);
  EXPECT_EQ(result({&u8, &i8}), DType::Int16);
}

TEST(ResultType, ZeroDimTensorOfTheSameCategoryDoesNotWiden) {
  Tensor u8 = dimmed(DType::UInt8), i64 = zero_dim(DType::Int64), i8 = zero_dim(DType::Int8);
  EXPECT_EQ(result({&u8, &i64}), DType::UInt8);
  EXPECT_EQ(result({&u8, &i8}), DType::UInt8);
  Tensor f16 = dimmed(DType::Float16), f64 = zero_dim(DType::Float64), bf = dimmed(DType::BFloat16);
  EXPECT_EQ(result({&f16, &f64}), DType::Float16);
  Tensor z16 = zero_dim(DType::Float16);
  EXPECT_EQ(result({&bf, &z16}), DType::BFloat16);
}

TEST(ResultType, ZeroDimTensorOfAHigherCategoryKeepsItsOwnDType) {
  Tensor f64 = zero_dim(DType::Float64), i32 = dimmed(DType::Int32);
  EXPECT_EQ(result({&f64, &i32}), DType::Float64);
  EXPECT_EQ(result({&i32, &f64}), DType::Float64);
  Tensor b = dimmed(DType::Bool), u8 = zero_dim(DType::UInt8);
  EXPECT_EQ(result({&b, &u8}), DType::UInt8);
  Tensor i8 = dimmed(DType::Int8), h = zero_dim(DType::Float16);
  EXPECT_EQ(result({&i8, &h}), DType::Float16);
}

TEST(ResultType, WrappedNumbersRankBelowTensors) {
  Tensor b = dimmed(DType::Bool), i32 = dimmed(DType::Int32), f16 = dimmed(DType::Float16);
  Tensor wi = ct::ops::wrap_scalar(Scalar(int64_t(3))), wf = ct::ops::wrap_scalar(Scalar(2.5));
  Tensor wb = ct::ops::wrap_scalar(Scalar(true));
  EXPECT_TRUE(wi->is_wrapped_number());
  EXPECT_EQ(wi->dtype(), DType::Int64);
  EXPECT_EQ(wf->dtype(), DType::Float64);
  EXPECT_EQ(result({&b, &wi}), DType::Int64);
  EXPECT_EQ(result({&i32, &wf}), DType::Float32);
  EXPECT_EQ(result({&f16, &wf}), DType::Float16);
  EXPECT_EQ(result({&i32, &wi}), DType::Int32);
  EXPECT_EQ(result({&b, &wb}), DType::Bool);
  EXPECT_EQ(result({&b, &wf}), DType::Float32);
}

TEST(ResultType, ScalarsBehaveLikeWrappedNumbers) {
  Tensor b = dimmed(DType::Bool), i32 = dimmed(DType::Int32), f16 = dimmed(DType::Float16), u8 = dimmed(DType::UInt8);
  EXPECT_EQ(result({&b}, {Scalar(int64_t(1))}), DType::Int64);
  EXPECT_EQ(result({&b}, {Scalar(true)}), DType::Bool);
  EXPECT_EQ(result({&i32}, {Scalar(2.0)}), DType::Float32);
  EXPECT_EQ(result({&f16}, {Scalar(2.0)}), DType::Float16);
  EXPECT_EQ(result({&u8}, {Scalar(1000)}), DType::UInt8);
  Tensor z = zero_dim(DType::Int64);
  EXPECT_EQ(result({&z}, {Scalar(1.5)}), DType::Float32);  // torch.result_type(torch.tensor(1), 1.5)
}

TEST(ResultType, AllThreeGroupsCombine) {
  Tensor i16 = dimmed(DType::Int16), z64 = zero_dim(DType::Int64);
  EXPECT_EQ(result({&i16, &z64}, {Scalar(0.5)}), DType::Float32);
  Tensor zf64 = zero_dim(DType::Float64);
  EXPECT_EQ(result({&i16, &zf64}, {Scalar(0.5)}), DType::Float64);
}

TEST(ResultType, BinaryOperatorsUseTheResultType) {
  Tensor u8 = ct::ops::zeros({3}, DType::UInt8, ct::kCPU);
  Tensor z = ct::ops::full({}, Scalar(int64_t(300)), DType::Int64, ct::kCPU);
  EXPECT_EQ(ct::ops::add(u8, z)->dtype(), DType::UInt8);
  Tensor i32 = ct::ops::zeros({3}, DType::Int32, ct::kCPU);
  EXPECT_EQ(ct::ops::add(i32, Scalar(2.5))->dtype(), DType::Float32);
  EXPECT_EQ(ct::ops::add(i32, Scalar(2))->dtype(), DType::Int32);
  Tensor h = ct::ops::zeros({3}, DType::Float16, ct::kCPU);
  EXPECT_EQ(ct::ops::mul(i32, h)->dtype(), DType::Float16);
  Tensor b = ct::ops::zeros({3}, DType::Bool, ct::kCPU);
  EXPECT_EQ(ct::ops::add(b, Scalar(1))->dtype(), DType::Int64);
}

TEST(BroadcastShapes, AlignsTrailingDimsAndRejectsMismatches) {
  EXPECT_TRUE(ct::ops::broadcast_shapes("t", ct::IntArrayRef{2, 1, 3}, ct::IntArrayRef{4, 1}).ref().equals({2, 4, 3}));
  EXPECT_TRUE(ct::ops::broadcast_shapes("t", ct::IntArrayRef{}, ct::IntArrayRef{5}).ref().equals({5}));
  EXPECT_TRUE(ct::ops::broadcast_shapes("t", ct::IntArrayRef{0, 1}, ct::IntArrayRef{1, 7}).ref().equals({0, 7}));
  try {
    ct::ops::broadcast_shapes("myop", ct::IntArrayRef{2, 3}, ct::IntArrayRef{4});
    FAIL() << "no error";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_SHAPE);
    EXPECT_NE(e.message().find("myop"), std::string::npos);
  }
}

TEST(WrapDim, AcceptsNegativeDimsAndZeroDimTensors) {
  EXPECT_EQ(ct::ops::wrap_dim("t", -1, 3), 2);
  EXPECT_EQ(ct::ops::wrap_dim("t", 0, 0), 0);
  EXPECT_EQ(ct::ops::wrap_dim("t", -1, 0), 0);
  try {
    ct::ops::wrap_dim("t", 3, 3);
    FAIL() << "no error";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INDEX);
  }
  EXPECT_THROW(ct::ops::wrap_dim("t", -4, 3), ct::Error);
  EXPECT_THROW(ct::ops::wrap_dim("t", 1, 0), ct::Error);
}
