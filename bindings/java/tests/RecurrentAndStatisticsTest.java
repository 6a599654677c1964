package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/**
 * The recurrent operators (lstm, gru, the cells) and the statistics and search functions
 * (quantile, bincount, histc, cov, searchsorted, bucketize, repeat_interleave) through the
 * generated methods, checked against values worked out here (their numbers against torch are the
 * Python differential suite's).
 */
class RecurrentAndStatisticsTest {
  private static void close(double[] expected, Tensor actual) {
    double[] got = actual.to(DType.FLOAT64).toDoubleArray();
    assertEquals(expected.length, got.length);
    for (int i = 0; i < got.length; ++i) assertEquals(expected[i], got[i], 1e-6, "element " + i);
  }

  @Test
  void lstmOverTwoSteps() {
    try (TensorScope scope = new TensorScope()) {
      // Zero weights: every gate is sigmoid(0) = 0.5 and the candidate 0, so each step halves the
      // cell and h = 0.5 tanh(c).
      Tensor x = Tensor.zeros(2, 1, 1);
      Tensor[] hx = {Tensor.zeros(1, 1, 1), Tensor.ones(1, 1, 1)};
      Tensor[] params = {Tensor.zeros(4, 1), Tensor.zeros(4, 1), Tensor.zeros(4), Tensor.zeros(4)};
      Tensor[] r = Tensor.lstm(x, hx, params, true, 1, 0.0, false, false, false);
      assertEquals(3, r.length);
      assertArrayEquals(new long[] {2, 1, 1}, r[0].sizes());
      close(new double[] {0.5 * Math.tanh(0.5), 0.5 * Math.tanh(0.25)}, r[0]);
      close(new double[] {0.25}, r[2]);
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
          () -> Tensor.lstm(x, hx, params, true, 2, 0.0, false, false, false));
      assertTrue(e.getMessage().contains("params"), e.getMessage());
      Tensor h = Tensor.gruCell(Tensor.zeros(1, 1), Tensor.zeros(1, 1), Tensor.zeros(3, 1), Tensor.zeros(3, 1));
      close(new double[] {0}, h);  // n = tanh(0) = 0 and h = 0
    }
  }

  @Test
  void quantilesCountsAndSearch() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new double[] {4, 1, 3, 2});
      close(new double[] {2.5}, x.quantileScalar(0.5));
      close(new double[] {2}, x.quantileScalar(0.5, null, false, "lower"));
      assertThrows(CTorchException.class, () -> x.quantileScalar(1.5));
      assertArrayEquals(new long[] {1, 0, 2}, Tensor.of(new long[] {0, 2, 2}).bincount().toLongArray());
      close(new double[] {1, 2}, Tensor.of(new float[] {0.5f, 1.5f, 1.5f, 9}).histc(2, 0.0, 2.0));
      Tensor seq = Tensor.of(new long[] {1, 3, 5});
      Tensor v = Tensor.of(new long[] {3, 6});
      assertArrayEquals(new long[] {1, 3}, Tensor.searchsorted(seq, v).toLongArray());
      assertArrayEquals(new long[] {2, 3}, Tensor.searchsorted(seq, v, false, false, "right", null).toLongArray());
      assertArrayEquals(new long[] {1, 3}, v.bucketize(seq).toLongArray());
      Tensor rows = Tensor.of(new double[] {1, 2, 3, 2, 4, 6}, 2, 3);
      close(new double[] {1, 2, 2, 4}, rows.cov());
      close(new double[] {1, 1, 1, 1}, rows.corrcoef());
      assertArrayEquals(new long[] {1, 1, 2, 2}, Tensor.of(new long[] {1, 2}).repeatInterleaveSelfInt(2).toLongArray());
    }
  }

  @Test
  void matrixPowerAndMatrixExp() {
    try (TensorScope scope = new TensorScope()) {
      // [[1, 1], [0, 1]]^n = [[1, n], [0, 1]]; exp of the nilpotent [[0, 2], [0, 0]] is I + N.
      Tensor a = Tensor.of(new double[] {1, 1, 0, 1}, 2, 2);
      close(new double[] {1, 7, 0, 1}, a.matrixPower(7));
      close(new double[] {1, 2, 0, 1}, Tensor.of(new double[] {0, 2, 0, 0}, 2, 2).matrixExp());
      close(new double[] {1, -2, 0, 1}, a.matrixPower(-2)); // the inverse's power
    }
  }

  @Test
  void poissonAndBinomialDrawWholeCountsInRange() {
    try (TensorScope scope = new TensorScope()) {
      double[] x = Tensor.full(new long[] {5000}, 20.0).poisson().to(DType.FLOAT64).toDoubleArray();
      double mean = 0;
      for (double v : x) {
        assertTrue(v >= 0 && v == Math.floor(v));
        mean += v / x.length;
      }
      assertEquals(20.0, mean, 0.4);
      double[] b = Tensor.binomial(Tensor.full(new long[] {5000}, 12.0), Tensor.full(new long[] {1}, 0.25))
          .to(DType.FLOAT64).toDoubleArray();
      for (double v : b) {
        assertTrue(v >= 0 && v <= 12 && v == Math.floor(v));
      }
      assertThrows(InvalidArgumentException.class, () -> Tensor.of(new float[] {-1f}).poisson());
    }
  }
}
