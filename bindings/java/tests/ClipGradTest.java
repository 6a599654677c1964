package org.ctorch.optim;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.ctorch.InvalidArgumentException;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;
import org.junit.jupiter.api.Test;

class ClipGradTest {
  /** A leaf whose grad is g (the gradient of sum(p * g)). */
  private static Tensor withGrad(double... g) {
    Tensor p = Tensor.zeros(new long[] {g.length}, org.ctorch.DType.FLOAT64, null).setRequiresGrad(true);
    p.mul(Tensor.of(g)).sum().backward();
    return p;
  }

  @Test
  void normScalesEveryGradByTheCombinedNorm() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = withGrad(3.0);
      Tensor b = withGrad(4.0, 0.0);
      double total = ClipGrad.norm(List.of(a, b), 1.0);
      assertEquals(5.0, total);
      double scale = 1.0 / (5.0 + 1e-6);
      assertArrayEquals(new double[] {3 * scale}, a.grad().toDoubleArray(), 1e-15);
      assertArrayEquals(new double[] {4 * scale, 0}, b.grad().toDoubleArray(), 1e-15);
    }
  }

  @Test
  void gradsWithinTheBoundStayAsTheyAre() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = withGrad(0.3, -0.4);
      assertEquals(0.5, ClipGrad.norm(List.of(a), 10.0), 1e-15);
      assertArrayEquals(new double[] {0.3, -0.4}, a.grad().toDoubleArray(), 0);
    }
  }

  @Test
  void infinityNormIsTheLargestAbsoluteValue() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = withGrad(1.0, -7.0, 2.0);
      assertEquals(7.0, ClipGrad.norm(List.of(a), 100.0, Double.POSITIVE_INFINITY));
      Tensor none = Tensor.of(new double[] {1}).setRequiresGrad(true);
      assertEquals(0.0, ClipGrad.norm(List.of(none), 1.0)); // no grad at all
    }
  }

  @Test
  void valueClampsEachElement() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = withGrad(-3.0, 0.25, 9.0);
      ClipGrad.value(List.of(a), 0.5);
      assertArrayEquals(new double[] {-0.5, 0.25, 0.5}, a.grad().toDoubleArray(), 0);
      assertThrows(InvalidArgumentException.class, () -> ClipGrad.value(List.of(a), -1));
      assertThrows(InvalidArgumentException.class, () -> ClipGrad.norm(List.of(a), Double.NaN));
      assertThrows(InvalidArgumentException.class, () -> ClipGrad.norm(java.util.Arrays.asList(a, null), 1));
    }
  }
}
