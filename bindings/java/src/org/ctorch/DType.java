package org.ctorch;

/** Element types ({@code ct_dtype}), with the library's codes and names. */
public enum DType {
  /** bool, one byte. */
  BOOL(0, 1),
  /** uint8. */
  UINT8(1, 1),
  /** int8. */
  INT8(2, 1),
  /** int16. */
  INT16(3, 2),
  /** int32. */
  INT32(4, 4),
  /** int64. */
  INT64(5, 8),
  /** IEEE half precision. */
  FLOAT16(6, 2),
  /** bfloat16. */
  BFLOAT16(7, 2),
  /** float32, the default dtype. */
  FLOAT32(8, 4),
  /** float64. */
  FLOAT64(9, 8),
  /** complex64: (real, imaginary) float32 pairs; read them as floats through viewAsReal. */
  COMPLEX64(10, 8),
  /** complex128: (real, imaginary) float64 pairs. */
  COMPLEX128(11, 16);

  private final int code;
  private final int itemSize;

  DType(int code, int itemSize) {
    this.code = code;
    this.itemSize = itemSize;
  }

  /**
   * The {@code ct_dtype} value.
   *
   * @return the code
   */
  public int code() {
    return code;
  }

  /**
   * Bytes per element.
   *
   * @return the item size
   */
  public int itemSize() {
    return itemSize;
  }

  /**
   * Whether elements are floating point.
   *
   * @return true for float16, bfloat16, float32 and float64
   */
  public boolean isFloatingPoint() {
    return this == FLOAT16 || this == BFLOAT16 || this == FLOAT32 || this == FLOAT64;
  }

  /**
   * Whether elements are complex numbers (complex dtypes are not floating point, as in torch).
   *
   * @return true for complex64 and complex128
   */
  public boolean isComplex() {
    return this == COMPLEX64 || this == COMPLEX128;
  }

  /**
   * The library's name: "float32", "int64".
   *
   * @return the library's name: "float32", "int64"...
   */
  @Override
  public String toString() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * The dtype of a code.
   *
   * @param code a {@code ct_dtype} value
   * @return its dtype
   * @throws InvalidArgumentException for a code outside ct_dtype
   */
  public static DType of(int code) {
    DType[] all = values();
    if (code < 0 || code >= all.length) {
      throw new InvalidArgumentException("DType.of: unknown dtype code " + code);
    }
    return all[code];
  }
}
