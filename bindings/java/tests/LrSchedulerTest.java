package org.ctorch.optim;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.ctorch.InvalidArgumentException;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;
import org.junit.jupiter.api.Test;

class LrSchedulerTest {
  private static Optimizer sgd(double lr) {
    return Optimizer.sgd(List.of(Tensor.of(new double[] {1}).setRequiresGrad(true)), lr);
  }

  @Test
  void stepLRMultipliesByGammaEveryStepSizeSteps() {
    try (TensorScope scope = new TensorScope()) {
      Optimizer opt = sgd(1.0);
      LrScheduler s = LrScheduler.stepLR(opt, 2, 0.5);
      assertEquals(0, s.lastEpoch());
      double[] want = {1.0, 0.5, 0.5, 0.25, 0.25, 0.125};
      for (int e = 0; e < want.length; e++) {
        s.step();
        assertEquals(want[e], opt.lr(), 0, "epoch " + (e + 1));
        assertEquals(opt.lr(), s.lastLr());
      }
      assertEquals(6, s.lastEpoch());
    }
  }

  @Test
  void cosineAnnealingFollowsTheHalfCosine() {
    try (TensorScope scope = new TensorScope()) {
      Optimizer opt = sgd(1.0);
      LrScheduler s = LrScheduler.cosineAnnealingLR(opt, 4, 0.1);
      for (int e = 1; e <= 4; e++) {
        s.step();
        assertEquals(0.1 + 0.9 * (1 + Math.cos(Math.PI * e / 4)) / 2, opt.lr(), 1e-12, "epoch " + e);
      }
    }
  }

  @Test
  void linearLRWarmsUpFromTheStartFactor() {
    try (TensorScope scope = new TensorScope()) {
      Optimizer opt = sgd(0.3);
      LrScheduler s = LrScheduler.linearLR(opt); // torch's defaults: 1/3 to 1 over 5 steps
      assertEquals(0.1, opt.lr(), 1e-15);
      for (int e = 1; e <= 7; e++) {
        s.step();
        assertEquals(0.3 * (1.0 / 3 + (1 - 1.0 / 3) * Math.min(e, 5) / 5), opt.lr(), 1e-12, "epoch " + e);
      }
    }
  }

  private static double[] run(LrScheduler s, Optimizer opt, int n) {
    double[] lrs = new double[n + 1];
    lrs[0] = opt.lr();
    for (int e = 1; e <= n; e++) {
      s.step();
      lrs[e] = opt.lr();
    }
    return lrs;
  }

  @Test
  void multiStepExponentialConstantPolynomialAndWarmRestarts() {
    try (TensorScope scope = new TensorScope()) {
      Optimizer opt = sgd(1.0);
      double[] multi = run(LrScheduler.multiStepLR(opt, new long[] {2, 4, 4}, 0.5), opt, 5);
      assertArrayEquals(new double[] {1, 1, 0.5, 0.5, 0.125, 0.125}, multi);
      opt = sgd(1.0);
      assertArrayEquals(new double[] {1, 0.5, 0.25}, run(LrScheduler.exponentialLR(opt, 0.5), opt, 2));
      opt = sgd(1.0);
      LrScheduler constant = LrScheduler.constantLR(opt, 0.5, 2);
      assertArrayEquals(new double[] {0.5, 0.5, 1, 1}, run(constant, opt, 3));
      opt = sgd(1.0);
      assertArrayEquals(new double[] {1, 0.5, 0, 0}, run(LrScheduler.polynomialLR(opt, 2, 1.0), opt, 3));
      opt = sgd(1.0);
      double[] restarts = run(LrScheduler.cosineAnnealingWarmRestarts(opt, 2, 1, 0.0), opt, 4);
      assertEquals(1.0, restarts[2]);
      assertEquals(0.5, restarts[3], 1e-15);
      Optimizer last = sgd(1.0);
      InvalidArgumentException e =
          assertThrows(InvalidArgumentException.class, () -> LrScheduler.constantLR(last, 0.0, 2));
      assertTrue(e.getMessage().contains("factor"), e.getMessage());
      assertThrows(InvalidArgumentException.class, () -> LrScheduler.multiStepLR(last, null, 0.1));
      LrScheduler linear = LrScheduler.linearLR(last, 0.5, 1.0, 2);
      linear.step();
      assertEquals(0.75, last.lr());
      linear.restart(); // step(0) from the base lr
      assertEquals(0.5, last.lr());
      assertEquals(0, linear.lastEpoch());
    }
  }

  @Test
  void settingsOutOfRangeAreInvalidArguments() {
    try (TensorScope scope = new TensorScope()) {
      Optimizer opt = sgd(1.0);
      assertThrows(InvalidArgumentException.class, () -> LrScheduler.stepLR(opt, 0));
      assertThrows(InvalidArgumentException.class, () -> LrScheduler.cosineAnnealingLR(opt, 0));
      assertThrows(InvalidArgumentException.class, () -> LrScheduler.linearLR(opt, 0, 1, 5));
      assertThrows(InvalidArgumentException.class, () -> LrScheduler.stepLR(null, 1));
      assertEquals(1.0, opt.lr()); // nothing was applied
    }
  }

  @Test
  void theScheduleKeepsItsOptimizerAlive() {
    try (TensorScope scope = new TensorScope()) {
      Optimizer opt = sgd(1.0);
      LrScheduler s = LrScheduler.stepLR(opt, 1, 0.5);
      opt.close();
      s.step();
      assertEquals(0.5, s.lastLr());
      s.close();
      s.close();
      assertTrue(s.isClosed());
      assertThrows(InvalidArgumentException.class, s::step);
    }
  }
}
