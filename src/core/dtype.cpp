#include "core/dtype.h"

namespace ct {

const char* dtype_name(DType d) {
  static constexpr const char* names[kNumDTypes] = {"bool",    "uint8",    "int8",    "int16",   "int32",
                                                    "int64",   "float16",  "bfloat16", "float32", "float64",
                                                    "complex64", "complex128"};
  return names[static_cast<int>(d)];
}

DType dtype_from_c(int value) {
  CT_CHECK(value >= 0 && value < kNumDTypes, CT_ERROR_INVALID_ARGUMENT, "dtype: ", value,
           " is not a ct_dtype. Use one of CT_BOOL .. CT_FLOAT64");
  return static_cast<DType>(value);
}

DType promote_types(DType a, DType b) {
  // Rows and columns in enum order: b1 u1 i1 i2 i4 i8 f2 bf f4 f8 c8 c16 (torch.promote_types).
  // A complex dtype wins, with parts as wide as the wider floating side (complex64 with float64 is
  // complex128).
  using D = DType;
  constexpr D b1 = D::Bool, u1 = D::UInt8, i1 = D::Int8, i2 = D::Int16, i4 = D::Int32, i8 = D::Int64,
              f2 = D::Float16, bf = D::BFloat16, f4 = D::Float32, f8 = D::Float64, c8 = D::Complex64,
              c16 = D::Complex128;
  static constexpr D table[kNumDTypes][kNumDTypes] = {
      /* b1  */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c8, c16},
      /* u1  */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c8, c16},
      /* i1  */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c8, c16},
      /* i2  */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c8, c16},
      /* i4  */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c8, c16},
      /* i8  */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c8, c16},
      /* f2  */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c8, c16},
      /* bf  */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c8, c16},
      /* f4  */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c8, c16},
      /* f8  */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c16, c16},
      /* c8  */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c16, c8, c16},
      /* c16 */ {c16, c16, c16, c16, c16, c16, c16, c16, c16, c16, c16, c16},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

void fail_unsupported_dtype(const char* op, DType d) {
  fail(CT_ERROR_DTYPE, str(op, ": no kernel for dtype ", d, ". Convert the input with to() to a supported dtype"));
}

}  // namespace ct
