package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class AutogradTest {
  @Test
  void backwardFillsLeafGradients() {
    try (TensorScope scope = new TensorScope()) {
      Tensor w = Tensor.of(new float[] {0.5f, -1f}).setRequiresGrad(true);
      assertTrue(w.requiresGrad());
      assertTrue(w.isLeaf());
      assertNull(w.grad());
      Tensor loss = w.mul(w).sum();
      assertEquals("SumBackward", loss.gradFnName());
      loss.backward();
      assertArrayEquals(new float[] {1f, -2f}, w.grad().toFloatArray());
      w.setGrad(null);
      assertNull(w.grad());
      assertFalse(w.detach().requiresGrad());
    }
  }

  @Test
  void anInPlaceWriteThroughAViewGoesIntoItsBaseHistory() {
    try (TensorScope scope = new TensorScope()) {
      // h = x * 1; h[1:3] *= w: loss = x0 + x1 w0 + x2 w1.
      Tensor x = Tensor.of(new double[] {1, 2, 3}).setRequiresGrad(true);
      Tensor w = Tensor.of(new double[] {4, 5}).setRequiresGrad(true);
      Tensor h = x.mulScalar(1);
      h.narrow(0, 1, 2).mulInPlace(w);
      assertEquals("CopySlices", h.gradFnName());
      assertArrayEquals(new double[] {1, 8, 15}, h.toDoubleArray(), 0);
      h.sum().backward();
      assertArrayEquals(new double[] {1, 4, 5}, x.grad().toDoubleArray(), 0);
      assertArrayEquals(new double[] {2, 3}, w.grad().toDoubleArray(), 0);
      // A view of a leaf that requires grad is refused, as the leaf itself is.
      InvalidArgumentException e =
          assertThrows(InvalidArgumentException.class, () -> x.narrow(0, 0, 2).mulInPlace(w));
      assertTrue(e.getMessage().contains("of a leaf tensor that requires grad"), e.getMessage());
      assertArrayEquals(new double[] {1, 2, 3}, x.toDoubleArray(), 0);
    }
  }

  @Test
  void retainGradKeepsANonLeafGradient() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new double[] {1, 2}).setRequiresGrad(true);
      Tensor y = x.mulScalar(3);
      assertFalse(y.retainsGrad());
      y.retainGrad();
      assertTrue(y.retainsGrad());
      assertFalse(x.retainsGrad());
      assertEquals(0, y.outputNr());
      y.mul(y).sum().backward();
      assertArrayEquals(new double[] {6, 12}, y.grad().toDoubleArray(), 1e-12);
    }
  }

  @Test
  void noGradGuardRestoresTheMode() {
    try (TensorScope scope = new TensorScope()) {
      Tensor w = Tensor.of(new float[] {1f}).setRequiresGrad(true);
      assertTrue(Grad.isEnabled());
      try (Guard g = Grad.noGrad()) {
        assertFalse(Grad.isEnabled());
        assertFalse(w.mulScalar(2).requiresGrad());
      }
      assertTrue(Grad.isEnabled());
      assertTrue(w.mulScalar(2).requiresGrad());
      try (Guard g = Grad.inferenceMode()) {
        assertTrue(Tensor.zeros(1).isInference());
      }
    }
  }

  @Test
  void gradWithCreateGraphGivesSecondDerivatives() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new double[] {2.0}).setRequiresGrad(true);
      Tensor y = x.powScalar(3).sum();
      Tensor dy = Grad.grad(new Tensor[] {y}, new Tensor[] {x}, null, Grad.CREATE_GRAPH)[0];
      assertEquals(12.0, dy.sum().doubleValue(), 1e-12);    // 3x^2
      Tensor d2 = Grad.grad(new Tensor[] {dy.sum()}, new Tensor[] {x}, null, 0)[0];
      assertEquals(12.0, d2.sum().doubleValue(), 1e-12);    // 6x
      Tensor unused = Tensor.of(new double[] {1.0}).setRequiresGrad(true);
      Tensor z = x.mulScalar(2).sum();
      assertNull(Grad.grad(new Tensor[] {z}, new Tensor[] {unused}, null, Grad.ALLOW_UNUSED)[0]);
    }
  }

  @Test
  void hooksSeeAndReplaceGradients() {
    try (TensorScope scope = new TensorScope()) {
      Tensor w = Tensor.of(new float[] {1f, 2f}).setRequiresGrad(true);
      long id = w.registerHook(g -> g.mulScalar(10));
      w.sum().backward();
      assertArrayEquals(new float[] {10f, 10f}, w.grad().toFloatArray());
      w.removeHook(id);
      w.setGrad(null);
      w.sum().backward();
      assertArrayEquals(new float[] {1f, 1f}, w.grad().toFloatArray());
    }
  }

  @Test
  void postAccumulateHooksSeeTheAccumulatedGradient() {
    try (TensorScope scope = new TensorScope()) {
      Tensor w = Tensor.of(new float[] {1f, 2f}).setRequiresGrad(true);
      java.util.List<float[]> seen = new java.util.ArrayList<>();
      long id = w.registerPostAccumulateGradHook(leaf -> seen.add(leaf.grad().toFloatArray()));
      w.mulScalar(3).sum().backward();
      w.mulScalar(3).sum().backward();
      assertEquals(2, seen.size());
      assertArrayEquals(new float[] {3f, 3f}, seen.get(0));
      assertArrayEquals(new float[] {6f, 6f}, seen.get(1));
      w.removeHook(id);
      w.sum().backward();
      assertEquals(2, seen.size());
      long other = w.registerPostAccumulateGradHook(leaf -> {
        throw new IllegalStateException("no reduction today");
      });
      CTorchException e = assertThrows(CTorchException.class, () -> w.sum().backward());
      assertTrue(e.getMessage().contains("no reduction today"), e.getMessage());
      w.removeHook(other);
      Tensor notLeaf = w.mulScalar(2);
      assertThrows(InvalidArgumentException.class, () -> notLeaf.registerPostAccumulateGradHook(leaf -> {}));
    }
  }

  private static final AutogradFunction CUBE = new AutogradFunction("Cube",
      (ctx, x) -> {
        ctx.saveForBackward(x[0]);
        return new Tensor[] {x[0].powScalar(3)};
      },
      (ctx, g) -> {
        Tensor x = ctx.savedTensors()[0];
        return new Tensor[] {g[0].mul(x.square()).mulScalar(3)};
      });

  @Test
  void customFunctionRunsForwardAndBackward() {
    try (TensorScope scope = new TensorScope()) {
      Tensor t = Tensor.of(new double[] {1.0, 2.0}).setRequiresGrad(true);
      Tensor y = CUBE.apply(1, t)[0];
      assertEquals("CubeBackward", y.gradFnName());
      assertArrayEquals(new double[] {1, 8}, y.toDoubleArray());
      y.sum().backward();
      assertArrayEquals(new double[] {3, 12}, t.grad().toDoubleArray());
    }
  }

  @Test
  void customFunctionExceptionReachesTheCallerWithItsMessage() {
    AutogradFunction bad = new AutogradFunction("Bad",
        (ctx, x) -> {
          throw new IllegalStateException("forward refuses");
        },
        (ctx, g) -> g);
    AutogradFunction badBackward = new AutogradFunction("BadBackward",
        (ctx, x) -> new Tensor[] {x[0].mulScalar(2)},
        (ctx, g) -> {
          throw new ArithmeticException("backward refuses");
        });
    try (TensorScope scope = new TensorScope()) {
      Tensor t = Tensor.of(new double[] {1.0}).setRequiresGrad(true);
      CTorchException e = assertThrows(CTorchException.class, () -> bad.apply(1, t));
      assertTrue(e.getMessage().contains("java.lang.IllegalStateException: forward refuses"), e.getMessage());
      assertEquals(Status.BACKEND, e.status()); // a Java exception that is not a CTorchException
      assertInstanceOf(IllegalStateException.class, e.getCause());
      Tensor y = badBackward.apply(1, t)[0];
      CTorchException b = assertThrows(BackendException.class, () -> y.sum().backward());
      assertTrue(b.getMessage().contains("java.lang.ArithmeticException: backward refuses"), b.getMessage());
    }
  }
}
