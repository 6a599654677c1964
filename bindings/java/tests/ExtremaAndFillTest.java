package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/**
 * The composite operators everyday torch code calls first, through the generated methods: max and
 * min in their three forms, aminmax, nansum, isclose, fill and zero in place, checked against
 * values worked out here (their numbers against torch are the Python differential suite's).
 */
class ExtremaAndFillTest {
  @Test
  void maxAndMinInThreeForms() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new float[] {1, 5, 2, 7, -1, 7}, 2, 3);
      assertArrayEquals(new double[] {7}, a.max().to(DType.FLOAT64).toDoubleArray());
      assertArrayEquals(new double[] {-1}, a.min().to(DType.FLOAT64).toDoubleArray());
      Tensor[] byRow = a.maxDim(1);
      assertArrayEquals(new float[] {5, 7}, byRow[0].toFloatArray());
      assertArrayEquals(new long[] {1, 0}, byRow[1].toLongArray()); // ties: the first index
      assertArrayEquals(new long[] {1, 3}, a.minDim(0, true)[0].sizes());
      Tensor floor = Tensor.of(new float[] {2, 2, 2});
      assertArrayEquals(new float[] {2, 5, 2, 7, 2, 7}, a.maxOther(floor).toFloatArray());
      Tensor[] lohi = a.aminmax();
      assertArrayEquals(new float[] {-1}, lohi[0].toFloatArray());
      assertArrayEquals(new float[] {7}, lohi[1].toFloatArray());
      ShapeException e = assertThrows(ShapeException.class, () -> Tensor.of(new float[0], 0).max());
      assertTrue(e.getMessage().contains("max"), e.getMessage());
    }
  }

  @Test
  void nansumAndIsclose() {
    try (TensorScope scope = new TensorScope()) {
      Tensor n = Tensor.of(new double[] {Double.NaN, 1, 2, Double.NaN}, 2, 2);
      assertArrayEquals(new double[] {3}, n.nansum().toDoubleArray());
      assertArrayEquals(new double[] {2, 1}, n.nansum(new long[] {0}, false, null).toDoubleArray());
      assertArrayEquals(new double[] {1, 2}, n.nanmean(new long[] {1}, false, null).toDoubleArray());
      Tensor m = Tensor.of(new double[] {Double.NaN, 1 + 1e-9, 2.1, 0}, 2, 2);
      assertArrayEquals(new boolean[] {false, true, false, false}, n.isclose(m).toBooleanArray());
      assertArrayEquals(new boolean[] {true, true, false, false}, n.isclose(m, 1e-5, 1e-8, true).toBooleanArray());
    }
  }

  @Test
  void fillAndZeroWriteInPlace() {
    try (TensorScope scope = new TensorScope()) {
      Tensor t = Tensor.of(new int[] {1, 2, 3});
      t.fillScalarInPlace(2.7); // truncated into int32, as torch
      assertArrayEquals(new int[] {2, 2, 2}, t.toIntArray());
      t.zeroInPlace();
      assertArrayEquals(new int[] {0, 0, 0}, t.toIntArray());
      t.fillInPlace(Tensor.scalar(9L));
      assertArrayEquals(new int[] {9, 9, 9}, t.toIntArray());
      assertThrows(ShapeException.class, () -> t.fillInPlace(Tensor.of(new int[] {1, 2})));
    }
  }
}
