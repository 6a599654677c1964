package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/**
 * Rearranging and combining tensors (rot90, diagflat, the view scatters, unfold, block_diag,
 * cartesian_prod, combinations), products (inner, addr, cross, vander), selections (nanmedian,
 * isin) and the signal windows through the generated methods, checked against values worked out
 * here (their numbers against torch are the Python differential suite's).
 */
class RearrangementsAndWindowsTest {
  private static void close(double[] expected, Tensor actual) {
    double[] got = actual.to(DType.FLOAT64).toDoubleArray();
    assertEquals(expected.length, got.length);
    for (int i = 0; i < got.length; ++i) assertEquals(expected[i], got[i], 1e-6, "element " + i);
  }

  @Test
  void rotationsDiagonalsAndScatters() {
    try (TensorScope scope = new TensorScope()) {
      Tensor m = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
      close(new double[] {2, 4, 1, 3}, m.rot90());
      close(new double[] {4, 3, 2, 1}, m.rot90(2, 0, 1));
      assertThrows(InvalidArgumentException.class, () -> m.rot90(1, 0, 0));
      Tensor d = Tensor.of(new float[] {5, 6}).diagflat(1);
      assertArrayEquals(new long[] {3, 3}, d.sizes());
      close(new double[] {0, 5, 0, 0, 0, 6, 0, 0, 0}, d);
      close(new double[] {1, 0, 3, 0}, m.sliceScatter(Tensor.zeros(2, 1), 1, 1L, null, 1));
      ShapeException e = assertThrows(ShapeException.class, () -> m.sliceScatter(Tensor.zeros(2, 2), 1, 1L, null, 1));
      assertTrue(e.getMessage().contains("slice_scatter"), e.getMessage());
      Tensor windows = Tensor.of(new float[] {1, 2, 3, 4, 5}).unfold(0, 2, 2);
      assertArrayEquals(new long[] {2, 2}, windows.sizes());
      close(new double[] {1, 2, 3, 4}, windows);
    }
  }

  @Test
  void blocksProductsAndCombinations() {
    try (TensorScope scope = new TensorScope()) {
      Tensor b = Tensor.blockDiag(new Tensor[] {Tensor.of(new float[] {1, 2, 3, 4}, 2, 2), Tensor.of(new float[] {7})});
      close(new double[] {1, 2, 0, 3, 4, 0, 0, 0, 7}, b);
      Tensor pairs = Tensor.cartesianProd(new Tensor[] {Tensor.of(new long[] {1, 2}), Tensor.of(new long[] {3, 4})});
      close(new double[] {1, 3, 1, 4, 2, 3, 2, 4}, pairs);
      close(new double[] {1, 2, 1, 3, 2, 3}, Tensor.of(new long[] {1, 2, 3}).combinations());
      Tensor x = Tensor.of(new double[] {1, 0, 0});
      Tensor y = Tensor.of(new double[] {0, 1, 0});
      close(new double[] {0, 0, 1}, x.cross(y));
      close(new double[] {0}, x.inner(y));
      close(new double[] {4, 2, 1, 9, 3, 1}, Tensor.vander(Tensor.of(new double[] {2, 3}), 3L, false));
      close(new double[] {3, 4, 6, 8}, Tensor.zeros(2, 2).addr(Tensor.of(new float[] {1, 2}), Tensor.of(new float[] {3, 4})));
    }
  }

  @Test
  void nanMedianMembershipAndWindows() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new double[] {Double.NaN, 3, 1, 2});
      close(new double[] {2}, x.nanmedian());
      Tensor[] r = x.reshape(2, 2).nanmedianDim(1);
      close(new double[] {3, 1}, r[0]);
      close(new double[] {1, 0}, r[1]);
      close(new double[] {1, 0, 1}, Tensor.isin(Tensor.of(new long[] {1, 2, 3}), Tensor.of(new long[] {3, 1})));
      close(new double[] {0, 0.75, 0.75, 0}, Tensor.hannWindowPeriodic(4, false));
      assertThrows(DTypeException.class, () -> Tensor.hannWindow(4, DType.INT64, null));
    }
  }
}
