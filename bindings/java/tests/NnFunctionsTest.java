package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/**
 * Functions of torch.nn.functional and torch that everyday models and data code call, through the
 * generated methods: distances, one_hot, pixel_shuffle, glu, the margin losses, diff,
 * logcumsumexp, the stacking functions and the triangle factories, checked against values worked
 * out here (their numbers against torch are the Python differential suite's).
 */
class NnFunctionsTest {
  private static void close(double[] expected, Tensor actual) {
    double[] got = actual.to(DType.FLOAT64).toDoubleArray();
    assertEquals(expected.length, got.length);
    for (int i = 0; i < got.length; ++i) assertEquals(expected[i], got[i], 1e-5, "element " + i);
  }

  @Test
  void distances() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new float[] {3, 4, 1, 0}, 2, 2);
      Tensor b = Tensor.of(new float[] {3, 4, 0, 1}, 2, 2);
      close(new double[] {1, 0}, Tensor.cosineSimilarity(a, b));
      close(new double[] {0, Math.sqrt(2)}, Tensor.pairwiseDistance(a, b, 2.0, 0.0, false));
      close(new double[] {0, Math.sqrt(18), Math.sqrt(20), Math.sqrt(2)}, Tensor.cdist(a, b));
      ShapeException e = assertThrows(ShapeException.class, () -> Tensor.cdist(a, Tensor.of(new float[] {1, 2, 3})));
      assertTrue(e.getMessage().contains("cdist"), e.getMessage());
    }
  }

  @Test
  void oneHotPixelShuffleAndGlu() {
    try (TensorScope scope = new TensorScope()) {
      Tensor classes = Tensor.of(new long[] {2, 0, 1});
      assertArrayEquals(new long[] {0, 0, 1, 1, 0, 0, 0, 1, 0}, classes.oneHot().toLongArray());
      assertArrayEquals(new long[] {3, 4}, classes.oneHot(4).sizes());
      assertThrows(CTorchException.class, () -> Tensor.of(new long[] {-1}).oneHot());
      Tensor x = Tensor.of(new float[] {0, 1, 2, 3, 4, 5, 6, 7}, 1, 4, 1, 2);
      Tensor up = x.pixelShuffle(2);
      assertArrayEquals(new long[] {1, 1, 2, 4}, up.sizes());
      assertArrayEquals(new float[] {0, 2, 1, 3, 4, 6, 5, 7}, up.toFloatArray());
      assertArrayEquals(x.toFloatArray(), up.pixelUnshuffle(2).toFloatArray());
      close(new double[] {0.5, 1}, Tensor.of(new double[] {1, 2, 0, 0}).glu());
    }
  }

  @Test
  void poolsInOneDimAndAdaptiveMax() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new float[] {1, 5, 2, 8, 3, 0}, 1, 1, 6);
      close(new double[] {5, 8, 3}, x.maxPool1d(2));
      close(new double[] {8.0 / 3, 11.0 / 3}, x.avgPool1d(3));
      Tensor[] r = x.adaptiveMaxPool1d(2); // windows [0, 3) and [3, 6)
      close(new double[] {5, 8}, r[0]);
      assertArrayEquals(new long[] {1, 3}, r[1].toLongArray());
      assertThrows(CTorchException.class, () -> x.maxPool1d(2, 2));
    }
  }

  @Test
  void instanceNormNormalizesEachSampleAndChannel() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new double[] {1, 2, 3}, 1, 1, 3); // mean 2, biased variance 2/3
      double s = Math.sqrt(2.0 / 3);
      close(new double[] {-1 / s, 0, 1 / s}, Tensor.instanceNorm(x, null, null, null, null, true, 0.1, 0.0, false));
      assertThrows(CTorchException.class, () -> Tensor.instanceNorm(x, null, null, null, null, false, 0.1, 1e-5, false));
    }
  }

  @Test
  void marginLosses() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new float[] {1, 2});
      Tensor b = Tensor.of(new float[] {2, 1});
      Tensor y = Tensor.of(new float[] {1, 1});
      close(new double[] {0.5}, Tensor.marginRankingLoss(a, b, y));
      Tensor anchor = Tensor.of(new float[] {0, 0}, 1, 2);
      Tensor pos = Tensor.of(new float[] {1, 0}, 1, 2);
      Tensor neg = Tensor.of(new float[] {3, 0}, 1, 2);
      close(new double[] {0}, Tensor.tripletMarginLoss(anchor, pos, neg));
      close(new double[] {1}, Tensor.tripletMarginLoss(anchor, pos, neg, 3.0, 2.0, 0.0, false, 0));
    }
  }

  @Test
  void scansStacksAndFactories() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new double[] {1, 4, 9, 16});
      close(new double[] {3, 5, 7}, x.diff());
      close(new double[] {2, 2}, x.diff(2, 0, null, null));
      Tensor z = Tensor.of(new double[] {0, 0});
      close(new double[] {0, Math.log(2)}, z.logcumsumexp(0));
      assertArrayEquals(new long[] {6}, Tensor.hstack(new Tensor[] {z, x}).sizes());
      assertArrayEquals(new long[] {2, 2}, Tensor.vstack(new Tensor[] {z, z}).sizes());
      assertThrows(CTorchException.class, () -> Tensor.vstack(new Tensor[] {z, x}));
      assertArrayEquals(new long[] {0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2}, Tensor.trilIndices(3, 3).toLongArray());
      close(new double[] {1, 10, 100}, Tensor.logspace(0, 2, 3));
      Tensor m = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
      close(new double[] {5}, m.trace());
      close(new double[] {2, 3}, m.takeAlongDim(Tensor.of(new long[] {1, 0}, 2, 1), 1L));
      close(new double[] {2, 2, 3, 3}, m.clamp(2, 3));
    }
  }

  @Test
  void upsampling() {
    try (TensorScope scope = new TensorScope()) {
      Tensor img = Tensor.of(new float[] {0, 1, 2, 3}, 1, 1, 2, 2);
      assertArrayEquals(
          new float[] {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3},
          img.upsampleNearest2d(new long[] {4, 4}).toFloatArray());
      close(new double[] {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3}, img.upsampleBilinear2d(new long[] {3, 3}, true));
    }
  }

  @Test
  void volumesTransposed1dAndFold() {
    try (TensorScope scope = new TensorScope()) {
      // One 2 x 2 x 2 volume holding 0..8: a kernel of ones sums it; the max pool finds 7 at 7.
      Tensor v = Tensor.of(new float[] {0, 1, 2, 3, 4, 5, 6, 7}, 1, 1, 2, 2, 2);
      Tensor ones = Tensor.of(new float[] {1, 1, 1, 1, 1, 1, 1, 1}, 1, 1, 2, 2, 2);
      close(new double[] {28}, Tensor.conv3d(v, ones));
      Tensor[] pooled = v.maxPool3dWithIndices(2);
      close(new double[] {7}, pooled[0]);
      assertArrayEquals(new long[] {7}, pooled[1].toLongArray());
      Tensor back = pooled[0].maxUnpool3d(pooled[1], new long[] {2, 2, 2}, new long[] {2}, 0);
      close(new double[] {0, 0, 0, 0, 0, 0, 0, 7}, back);
      // conv_transpose1d of [1, 2] by [1, 1] with stride 2 spreads each value over two positions.
      Tensor x = Tensor.of(new float[] {1, 2}, 1, 1, 2);
      Tensor w = Tensor.of(new float[] {1, 1}, 1, 1, 2);
      close(new double[] {1, 1, 2, 2},
          Tensor.convTranspose1d(x, w, null, new long[] {2}, new long[] {0}, new long[] {0}, 1, 1));
      // col2im of im2col's blocks of ones counts the 2 x 2 blocks covering each pixel.
      Tensor img = Tensor.of(new float[] {0, 1, 2, 3, 4, 5, 6, 7, 8}, 1, 1, 3, 3);
      Tensor cols = img.im2col(new long[] {2, 2}, new long[] {1, 1}, new long[] {0, 0}, 1, 1);
      assertArrayEquals(new long[] {1, 4, 4}, cols.sizes());
      Tensor counts = Tensor.ones(1, 4, 4).col2im(new long[] {3, 3}, new long[] {2, 2}, new long[] {1, 1},
          new long[] {0, 0}, 1, 1);
      close(new double[] {1, 2, 1, 2, 4, 2, 1, 2, 1}, counts);
      CTorchException e = assertThrows(CTorchException.class, () -> Tensor.conv3d(img, ones));
      assertTrue(e.getMessage().contains("conv3d"), e.getMessage());
    }
  }

  @Test
  void asStridedViewsTheStorage() {
    try (TensorScope scope = new TensorScope()) {
      Tensor v = Tensor.of(new float[] {0, 1, 2, 3, 4, 5});
      close(new double[] {1, 2, 3, 3, 4, 5}, v.asStrided(new long[] {2, 3}, new long[] {2, 1}, 1L));
      CTorchException e = assertThrows(CTorchException.class, () -> v.asStrided(new long[] {3, 3}, 2, 1));
      assertTrue(e.getMessage().contains("as_strided"), e.getMessage());
    }
  }

  @Test
  void incompleteGamma() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new double[] {1, 1});
      Tensor x = Tensor.of(new double[] {1, 2});
      close(new double[] {1 - Math.exp(-1), 1 - Math.exp(-2)}, a.igamma(x));
      close(new double[] {Math.exp(-1), Math.exp(-2)}, a.igammac(x));
    }
  }
}
