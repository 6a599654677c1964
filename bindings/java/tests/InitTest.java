package org.ctorch.nn;

import static org.junit.jupiter.api.Assertions.*;

import org.ctorch.CTorch;
import org.ctorch.DTypeException;
import org.ctorch.Generator;
import org.ctorch.InvalidArgumentException;
import org.ctorch.ShapeException;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;
import org.junit.jupiter.api.Test;

class InitTest {
  @Test
  void theSameSeedGivesTheSameNumbers() {
    try (TensorScope scope = new TensorScope()) {
      CTorch.manualSeed(7);
      double[] first = Init.normalInPlace(Tensor.zeros(100), 0, 1).toDoubleArray();
      CTorch.manualSeed(7);
      double[] again = Init.normalInPlace(Tensor.zeros(100), 0, 1).toDoubleArray();
      assertArrayEquals(first, again, 0);
      CTorch.manualSeed(8);
      assertFalse(java.util.Arrays.equals(first, Init.normalInPlace(Tensor.zeros(100), 0, 1).toDoubleArray()));
      Generator g = Generator.create(null).manualSeed(3);
      double[] fromG = Init.uniformInPlace(Tensor.zeros(50), -1, 1, g).toDoubleArray();
      g.manualSeed(3);
      assertArrayEquals(fromG, Init.uniformInPlace(Tensor.zeros(50), -1, 1, g).toDoubleArray(), 0);
    }
  }

  @Test
  void uniformStaysInItsBounds() {
    try (TensorScope scope = new TensorScope()) {
      for (float v : Init.uniformInPlace(Tensor.zeros(1000), 2, 3).toFloatArray()) {
        assertTrue(v >= 2 && v <= 3, "value " + v);
      }
      assertThrows(InvalidArgumentException.class, () -> Init.uniformInPlace(Tensor.zeros(3), 1, 0));
      assertThrows(DTypeException.class, () -> Init.uniformInPlace(Tensor.of(new long[] {1}), 0, 1));
    }
  }

  @Test
  void linearDrawsFromPlusMinusOneOverRootFanIn() {
    try (TensorScope scope = new TensorScope()) {
      Tensor w = Tensor.zeros(20, 16);
      Tensor b = Tensor.zeros(20);
      Init.linearInPlace(w, b, null);
      double bound = 1 / Math.sqrt(16);
      double max = 0;
      for (float v : w.toFloatArray()) {
        max = Math.max(max, Math.abs(v));
      }
      for (float v : b.toFloatArray()) {
        max = Math.max(max, Math.abs(v));
      }
      assertTrue(max <= bound && max > bound / 2, "max " + max);
    }
  }

  @Test
  void fansAndGainsAreTorchs() {
    try (TensorScope scope = new TensorScope()) {
      assertArrayEquals(new long[] {100, 75}, Init.fanInAndFanOut(Tensor.zeros(3, 4, 5, 5)));
      assertEquals(Math.sqrt(2), Init.calculateGain("relu", 0), 1e-15);
      assertEquals(5.0 / 3, Init.calculateGain("tanh", 0), 1e-15);
      assertThrows(InvalidArgumentException.class, () -> Init.calculateGain("no_such", 0));
      assertThrows(ShapeException.class, () -> Init.fanInAndFanOut(Tensor.zeros(3)));
      assertThrows(ShapeException.class, () -> Init.kaimingUniformInPlace(Tensor.zeros(3), 0, null, null, null));
      assertThrows(InvalidArgumentException.class, () -> Init.kaimingNormalInPlace(Tensor.zeros(3, 3), 0, "fan_sideways", "relu", null));
      Tensor x = Init.xavierUniformInPlace(Tensor.zeros(30, 20), 1, null);
      double bound = Math.sqrt(6.0 / 50);
      for (float v : x.toFloatArray()) {
        assertTrue(Math.abs(v) <= bound);
      }
      Init.xavierNormalInPlace(x, 1, null);
      Init.kaimingNormalInPlace(x, 0, "fan_out", "relu", null);
    }
  }

  @Test
  void aParameterThatRequiresGradCanBeInitialized() {
    try (TensorScope scope = new TensorScope()) {
      Tensor w = Tensor.zeros(4, 4).setRequiresGrad(true);
      Init.kaimingUniformInPlace(w, Math.sqrt(5), "fan_in", "leaky_relu", null);
      assertTrue(w.isLeaf());
      assertNull(w.gradFnName());
    }
  }

  @Test
  void structuredInitializersAreTorchs() {
    try (TensorScope scope = new TensorScope()) {
      Tensor q = Init.orthogonalInPlace(Tensor.zeros(new long[] {3, 5}, org.ctorch.DType.FLOAT64, null), 2, null); // wide: orthonormal rows
      double[] v = q.toDoubleArray();
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
          double dot = 0;
          for (int c = 0; c < 5; c++) {
            dot += v[i * 5 + c] * v[j * 5 + c];
          }
          assertEquals(i == j ? 4 : 0, dot, 1e-12);
        }
      }
      for (float x : Init.truncNormalInPlace(Tensor.zeros(1000), 0, 1, -1, 1, null).toFloatArray()) {
        assertTrue(Math.abs(x) <= 1);
      }
      float[] s = Init.sparseInPlace(Tensor.zeros(4, 2), 0.5, 0.01, null).toFloatArray();
      int zeros = 0;
      for (float x : s) {
        zeros += x == 0 ? 1 : 0;
      }
      assertEquals(4, zeros);
      assertArrayEquals(new float[] {1, 0, 0, 1}, Init.eyeInPlace(Tensor.zeros(2, 2)).toFloatArray());
      assertArrayEquals(new float[] {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
          Init.diracInPlace(Tensor.zeros(2, 2, 3), 1).toFloatArray());
      assertThrows(InvalidArgumentException.class, () -> Init.diracInPlace(Tensor.zeros(2, 2, 3), 3));
      assertThrows(ShapeException.class, () -> Init.orthogonalInPlace(Tensor.zeros(3), 1, null));
    }
  }
}
