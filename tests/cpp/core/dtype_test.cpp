#include <gtest/gtest.h>

#include "core/dtype.h"

using ct::DType;

namespace {

constexpr DType kAll[] = {DType::Bool,    DType::UInt8,   DType::Int8,    DType::Int16,     DType::Int32,   DType::Int64,
                          DType::Float16, DType::BFloat16, DType::Float32, DType::Float64, DType::Complex64,
                          DType::Complex128};
static_assert(sizeof kAll / sizeof kAll[0] == ct::kNumDTypes, "kAll lists every dtype");

}  // namespace

// Written out from torch.promote_types (PyTorch's _promoteTypesLookup), not from src/core/dtype.cpp.
TEST(PromoteTypes, MatchesTorchPromoteTypesForEveryPair) {
  constexpr DType B = DType::Bool, U8 = DType::UInt8, I8 = DType::Int8, I16 = DType::Int16, I32 = DType::Int32,
                  I64 = DType::Int64, F16 = DType::Float16, BF = DType::BFloat16, F32 = DType::Float32,
                  F64 = DType::Float64, C64 = DType::Complex64, C128 = DType::Complex128;
  const DType expected[12][12] = {
      /*          b     u8    i8    i16   i32   i64   f16   bf16  f32   f64   c64   c128 */
      /* b    */ {B, U8, I8, I16, I32, I64, F16, BF, F32, F64, C64, C128},
      /* u8   */ {U8, U8, I16, I16, I32, I64, F16, BF, F32, F64, C64, C128},
      /* i8   */ {I8, I16, I8, I16, I32, I64, F16, BF, F32, F64, C64, C128},
      /* i16  */ {I16, I16, I16, I16, I32, I64, F16, BF, F32, F64, C64, C128},
      /* i32  */ {I32, I32, I32, I32, I32, I64, F16, BF, F32, F64, C64, C128},
      /* i64  */ {I64, I64, I64, I64, I64, I64, F16, BF, F32, F64, C64, C128},
      /* f16  */ {F16, F16, F16, F16, F16, F16, F16, F32, F32, F64, C64, C128},
      /* bf16 */ {BF, BF, BF, BF, BF, BF, F32, BF, F32, F64, C64, C128},
      /* f32  */ {F32, F32, F32, F32, F32, F32, F32, F32, F32, F64, C64, C128},
      /* f64  */ {F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, C128, C128},
      /* c64  */ {C64, C64, C64, C64, C64, C64, C64, C64, C64, C128, C64, C128},
      /* c128 */ {C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128},
  };
  int checked = 0;
  for (int i = 0; i < ct::kNumDTypes; ++i) {
    for (int j = 0; j < ct::kNumDTypes; ++j) {
      EXPECT_EQ(ct::promote_types(kAll[i], kAll[j]), expected[i][j]) << kAll[i] << " with " << kAll[j];
      ++checked;
    }
  }
  EXPECT_EQ(checked, 144);
}

TEST(PromoteTypes, IsSymmetric) {
  for (DType a : kAll)
    for (DType b : kAll) EXPECT_EQ(ct::promote_types(a, b), ct::promote_types(b, a)) << a << " with " << b;
}

TEST(DType, ItemsizesAndCategoriesMatchTorch) {
  const size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  for (int i = 0; i < ct::kNumDTypes; ++i) EXPECT_EQ(ct::itemsize(kAll[i]), sizes[i]) << kAll[i];
  EXPECT_TRUE(ct::is_floating(DType::BFloat16));
  EXPECT_FALSE(ct::is_floating(DType::Int64));
  EXPECT_TRUE(ct::is_integral(DType::Bool, true));
  EXPECT_FALSE(ct::is_integral(DType::Bool, false));
  EXPECT_FALSE(ct::is_integral(DType::Float16, true));
  EXPECT_STREQ(ct::dtype_name(DType::BFloat16), "bfloat16");
  EXPECT_STREQ(ct::dtype_name(DType::Complex128), "complex128");
  // Complex dtypes are neither floating (torch.is_floating_point) nor integral.
  EXPECT_FALSE(ct::is_floating(DType::Complex64));
  EXPECT_FALSE(ct::is_integral(DType::Complex64, true));
  EXPECT_TRUE(ct::is_complex(DType::Complex128));
  EXPECT_EQ(ct::real_dtype(DType::Complex64), DType::Float32);
  EXPECT_EQ(ct::complex_dtype(DType::Float64), DType::Complex128);
  EXPECT_EQ(ct::complex_dtype(DType::BFloat16), DType::Complex64);
}

TEST(DType, FromCRejectsOutOfRangeValuesWithInvalidArgument) {
  EXPECT_EQ(ct::dtype_from_c(4), DType::Int32);
  try {
    ct::dtype_from_c(12);
    FAIL() << "dtype_from_c(12) did not raise";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(e.message().find("12"), std::string::npos) << e.message();
  }
  EXPECT_THROW(ct::dtype_from_c(-1), ct::Error);
}

TEST(VisitDType, RaisesForADTypeOutsideTheAllowedMask) {
  int seen = 0;
  ct::visit_dtype<ct::kFloatingDTypes>(DType::Float16, "test", [&](auto tag) {
    using T = typename decltype(tag)::type;
    seen = std::is_same<T, ct::Half>::value ? 1 : 2;
  });
  EXPECT_EQ(seen, 1);
  EXPECT_THROW(ct::visit_dtype<ct::kFloatingDTypes>(DType::Int32, "test", [](auto) {}), ct::Error);
}
