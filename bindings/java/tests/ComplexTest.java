package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/**
 * Complex tensors through the generated methods: made from their parts, multiplied, read back as
 * float pairs through {@code viewAsReal}, promotion, and the refusal of an order between complex
 * numbers.
 */
class ComplexTest {
  private static Tensor z() { // [1+2i, 3-1i]
    return Tensor.complex(Tensor.of(new float[] {1, 3}, 2), Tensor.of(new float[] {2, -1}, 2));
  }

  @Test
  void productsAndParts() {
    try (TensorScope scope = new TensorScope()) {
      Tensor z = z();
      assertEquals(DType.COMPLEX64, z.dtype());
      assertTrue(z.dtype().isComplex());
      assertFalse(z.dtype().isFloatingPoint());
      // (1+2i)^2 = -3+4i, (3-i)^2 = 8-6i
      assertArrayEquals(new float[] {-3, 4, 8, -6}, z.mul(z).viewAsReal().toFloatArray());
      assertArrayEquals(new double[] {5, -2}, z.matmul(z).itemComplex());
      assertArrayEquals(new float[] {1, -2, 3, 1}, z.conj().viewAsReal().toFloatArray());
      assertEquals(DType.FLOAT32, z.abs().dtype());
      assertEquals(DType.COMPLEX128, z.mul(Tensor.of(new double[] {2, 0.5}, 2)).dtype());
    }
  }

  @Test
  void orderIsRefused() {
    try (TensorScope scope = new TensorScope()) {
      Tensor z = z();
      CTorchException e = assertThrows(CTorchException.class, () -> z.lt(z));
      assertTrue(e.getMessage().contains("complex64"), e.getMessage());
    }
  }

  @Test
  void pointwiseMathOnComplexNumbers() {
    try (TensorScope scope = new TensorScope()) {
      // sin(1+i) = sin 1 cosh 1 + i cos 1 sinh 1
      Tensor onePlusI = Tensor.complex(Tensor.of(new double[] {1}, 1), Tensor.of(new double[] {1}, 1));
      assertArrayEquals(new double[] {Math.sin(1) * Math.cosh(1), Math.cos(1) * Math.sinh(1)},
                        onePlusI.sin().viewAsReal().toDoubleArray(), 1e-15);
      assertArrayEquals(new float[] {-3, 4, 8, -6}, z().square().viewAsReal().toFloatArray());
      Tensor inf = Tensor.complex(Tensor.of(new float[] {Float.POSITIVE_INFINITY, 1}, 2), Tensor.of(new float[] {0, 0}, 2));
      assertArrayEquals(new boolean[] {false, true}, inf.isfinite().toBooleanArray());
      // 2^(1+i) = 2 (cos ln 2 + i sin ln 2); nan_to_num replaces each part on its own.
      double ln2 = Math.log(2);
      assertArrayEquals(new double[] {2 * Math.cos(ln2), 2 * Math.sin(ln2)},
                        onePlusI.exp2().viewAsReal().toDoubleArray(), 1e-15);
      Tensor odd = Tensor.complex(Tensor.of(new double[] {Double.NaN, 1}, 2),
                                  Tensor.of(new double[] {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}, 2));
      assertArrayEquals(new double[] {1, 2, 1, -3}, odd.nanToNum(1.0, 2.0, -3.0).viewAsReal().toDoubleArray(), 0);
    }
  }

  @Test
  void powersRunningSumsAndNorms() {
    try (TensorScope scope = new TensorScope()) {
      // z = [1+2i, 3-i]: z^2 = [-3+4i, 8-6i]; cumsum = [1+2i, 4+i]; |z| = sqrt(5 + 10), real
      assertArrayEquals(new float[] {-3, 4, 8, -6}, z().pow(2).viewAsReal().toFloatArray());
      assertArrayEquals(new float[] {1, 2, 4, 1}, z().cumsum(0).viewAsReal().toFloatArray());
      Tensor norm = z().linalgVectorNorm();
      assertEquals(DType.FLOAT32, norm.dtype());
      assertEquals(Math.sqrt(15), norm.toFloatArray()[0], 1e-6);
    }
  }
  @Test
  void scatterReduceMultipliesComplexNumbers() {
    try (TensorScope scope = new TensorScope()) {
      // Both entries of z go to position 0: (1+2i)(1+2i)(3-i) = -5+15i; position 1 keeps 3-i.
      // Complex numbers have no order, so amax is refused.
      Tensor z = z();
      Tensor index = Tensor.of(new long[] {0, 0}, 2);
      assertArrayEquals(new float[] {-5, 15, 3, -1}, z.scatterReduce(0, index, z, "prod").viewAsReal().toFloatArray());
      CTorchException e = assertThrows(CTorchException.class, () -> z.scatterReduce(0, index, z, "amax"));
      assertTrue(e.getMessage().contains("no order"), e.getMessage());
    }
  }
}
