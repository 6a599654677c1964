package org.ctorch.optim;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.ctorch.DType;
import org.ctorch.DTypeException;
import org.ctorch.FormatException;
import org.ctorch.InvalidArgumentException;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;
import org.junit.jupiter.api.Test;

class OptimizerTest {
  /** A float64 leaf requiring grad whose grad is 2p (the gradient of sum(p * p)). */
  private static Tensor paramWithGrad(double... values) {
    Tensor p = Tensor.of(values).setRequiresGrad(true);
    p.mul(p).sum().backward();
    return p;
  }

  private static void backwardSquares(Tensor p) {
    p.mul(p).sum().backward();
  }

  @Test
  void sgdStepIsParamMinusLrTimesGrad() {
    try (TensorScope scope = new TensorScope()) {
      Tensor p = paramWithGrad(1.0, -2.0, 0.5);
      Optimizer opt = Optimizer.sgd(List.of(p), 0.1);
      opt.step();
      assertArrayEquals(new double[] {1.0 + -0.1 * 2.0, -2.0 + -0.1 * -4.0, 0.5 + -0.1 * 1.0}, p.toDoubleArray());
    }
  }

  @Test
  void aComplexParameterStepsAsItsRealAndImaginaryParts() {
    try (TensorScope scope = new TensorScope()) {
      // As torch 2.x: Adam's first step moves each part by lr against its own gradient's sign.
      Tensor p = Tensor.complex(Tensor.of(new double[] {1, 0.5}), Tensor.of(new double[] {-3, 2}))
                     .setRequiresGrad(true);
      p.viewAsReal().square().sum().backward(); // the gradient is 2p
      Optimizer.adam(List.of(p), 0.1).step();
      assertArrayEquals(new double[] {0.9, -2.9, 0.4, 1.9}, p.detach().viewAsReal().toDoubleArray(), 1e-7);
      DTypeException e = assertThrows(DTypeException.class,
          () -> Optimizer.create(List.of(p), OptimizerOptions.lbfgs()));
      assertTrue(e.getMessage().contains("LBFGS optimizes only floating tensors"), e.getMessage());
    }
  }

  @Test
  void sgdMomentumKeepsABufferAcrossSteps() {
    try (TensorScope scope = new TensorScope()) {
      Tensor p = paramWithGrad(1.0);
      Optimizer opt = Optimizer.create(List.of(p), OptimizerOptions.sgd().lr(0.1).momentum(0.9).dampening(0.5));
      opt.step(); // buf = g (the first step takes the grad as it is)
      double g1 = 2.0;
      double p1 = 1.0 + -0.1 * g1;
      assertEquals(p1, p.toDoubleArray()[0], 0);
      opt.zeroGrad();
      backwardSquares(p);
      opt.step();
      double buf2 = 0.9 * g1 + (1 - 0.5) * (2 * p1);
      assertEquals(p1 + -0.1 * buf2, p.toDoubleArray()[0], 1e-15);
    }
  }

  @Test
  void adamStepsFollowTorchsFormula() {
    try (TensorScope scope = new TensorScope()) {
      Tensor p = paramWithGrad(0.5, -3.0);
      double lr = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-8;
      Optimizer opt = Optimizer.adam(List.of(p), lr);
      double[] x = {0.5, -3.0};
      double[] m = new double[2], v = new double[2];
      for (int t = 1; t <= 3; t++) {
        if (t > 1) {
          opt.zeroGrad();
          backwardSquares(p);
        }
        opt.step();
        for (int i = 0; i < 2; i++) {
          double g = 2 * x[i];
          m[i] = b1 * m[i] + (1 - b1) * g;
          v[i] = b2 * v[i] + (1 - b2) * g * g;
          double denom = Math.sqrt(v[i]) / Math.sqrt(1 - Math.pow(b2, t)) + eps;
          x[i] += -lr / (1 - Math.pow(b1, t)) * m[i] / denom;
        }
        assertArrayEquals(x, p.toDoubleArray(), 1e-12, "step " + t);
      }
    }
  }

  @Test
  void adamwDecaysTheParameterBeforeTheAdamUpdate() {
    try (TensorScope scope = new TensorScope()) {
      Tensor p = paramWithGrad(2.0);
      Optimizer opt = Optimizer.create(List.of(p), OptimizerOptions.adamw().lr(0.1).weightDecay(0.5));
      opt.step();
      double decayed = 2.0 * (1 - 0.1 * 0.5);
      // The first Adam step moves by lr * g / (|g| + eps * sqrt(1 - beta2)): about lr.
      double g = 4.0;
      double m = 0.1 * g, v = 0.001 * g * g;
      double expected = decayed + -0.1 / 0.1 * m / (Math.sqrt(v) / Math.sqrt(0.001) + 1e-8);
      assertEquals(expected, p.toDoubleArray()[0], 1e-12);
    }
  }

  @Test
  void rmspropStepDividesByTheRootOfTheSquareAverage() {
    try (TensorScope scope = new TensorScope()) {
      Tensor p = paramWithGrad(1.0);
      Optimizer opt = Optimizer.rmsprop(List.of(p), 0.01);
      opt.step();
      double s = (1 - 0.99) * 4.0;
      assertEquals(1.0 + -0.01 * 2.0 / (Math.sqrt(s) + 1e-8), p.toDoubleArray()[0], 1e-12);
    }
  }

  @Test
  void parametersWithoutAGradAreSkipped() {
    try (TensorScope scope = new TensorScope()) {
      Tensor p = Tensor.of(new double[] {1.5}).setRequiresGrad(true);
      Optimizer opt = Optimizer.sgd(List.of(p), 0.1);
      opt.step();
      assertArrayEquals(new double[] {1.5}, p.toDoubleArray());
    }
  }

  @Test
  void zeroGradSetsToNullOrWritesZeros() {
    try (TensorScope scope = new TensorScope()) {
      Tensor p = paramWithGrad(1.0, 2.0);
      Optimizer opt = Optimizer.sgd(List.of(p), 0.1);
      opt.zeroGrad(false);
      assertArrayEquals(new double[] {0, 0}, p.grad().toDoubleArray());
      opt.zeroGrad();
      assertNull(p.grad());
    }
  }

  @Test
  void lrAndOptionsReadAndWriteTheLibrarysValues() {
    try (TensorScope scope = new TensorScope()) {
      Tensor p = paramWithGrad(1.0);
      Optimizer opt = Optimizer.create(List.of(p), OptimizerOptions.adam().lr(0.5).betas(0.8, 0.99).amsgrad(true));
      assertEquals(0.5, opt.lr());
      opt.setLr(0.25);
      OptimizerOptions o = opt.options();
      assertEquals(OptimizerOptions.Kind.ADAM, o.kind());
      assertEquals(0.25, o.lr());
      assertEquals(0.8, o.beta1());
      assertEquals(0.99, o.beta2());
      assertEquals(1e-8, o.eps());
      assertTrue(o.amsgrad());
      opt.setOptions(o.weightDecay(0.1));
      assertEquals(0.1, opt.options().weightDecay());
      assertEquals("Adam(lr=0.25, betas=(0.8, 0.99), eps=1.0E-8, weight_decay=0.1, amsgrad=true, maximize=false)", opt.toString());
      assertEquals(1, opt.params().size());
      assertThrows(InvalidArgumentException.class, () -> opt.setLr(-1));
    }
  }

  @Test
  void defaultsArePyTorchs() {
    OptimizerOptions sgd = OptimizerOptions.sgd();
    assertEquals(1e-3, sgd.lr());
    assertEquals(0, sgd.momentum());
    OptimizerOptions adamw = OptimizerOptions.adamw();
    assertEquals(1e-2, adamw.weightDecay());
    assertEquals(0.999, adamw.beta2());
    OptimizerOptions rms = OptimizerOptions.rmsprop();
    assertEquals(1e-2, rms.lr());
    assertEquals(0.99, rms.alpha());
  }

  @Test
  void adagradAdadeltaAndTheAdamVariantsStep() {
    try (TensorScope scope = new TensorScope()) {
      // Adagrad's first step from sum 0.5 with grad 2: p -= lr * g / (sqrt(0.5 + g^2) + eps).
      Tensor p = paramWithGrad(1.0);
      Optimizer opt = Optimizer.create(List.of(p), OptimizerOptions.adagrad().lr(0.1).initialAccumulatorValue(0.5));
      p.setGrad(Tensor.of(new double[] {2.0}));
      opt.step();
      assertEquals(1.0 + 2.0 * -0.1 / (Math.sqrt(4.5) + 1e-10), p.toDoubleArray()[0], 0.0);
      assertEquals("Adagrad(lr=0.1, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.5, eps=1.0E-10, "
          + "maximize=false)", opt.toString());
      for (OptimizerOptions o : List.of(OptimizerOptions.adamax(), OptimizerOptions.nadam().momentumDecay(0.01),
               OptimizerOptions.radam().decoupledWeightDecay(true).weightDecay(0.1), OptimizerOptions.adadelta().rho(0.8))) {
        Tensor q = paramWithGrad(1.0);
        Optimizer each = Optimizer.create(List.of(q), o);
        q.setGrad(Tensor.of(new double[] {0.5}));
        each.step();
        assertNotEquals(1.0, q.toDoubleArray()[0]);
        assertEquals(o.toString(), each.options().toString());
      }
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
          () -> Optimizer.create(List.of(paramWithGrad(1.0)), OptimizerOptions.adadelta().rho(2)));
      assertTrue(e.getMessage().contains("rho"), e.getMessage());
      assertThrows(InvalidArgumentException.class, () -> OptimizerOptions.adam().rho(0.5));
    }
  }

  @Test
  void asgdAveragesAndRpropGrowsItsSteps() {
    try (TensorScope scope = new TensorScope()) {
      // ASGD with t0 0: mu (set after each step) is 1 for steps 1 and 2, so ax copies p; step 3 averages.
      Tensor p = Tensor.of(new double[] {1.0, -2.0}).setRequiresGrad(true);
      Optimizer opt = Optimizer.create(List.of(p), OptimizerOptions.asgd().lr(0.1).t0(0));
      assertEquals(List.of("step", "eta", "mu", "ax"), opt.stateNames());
      assertNull(opt.state(0, "ax"));
      double[] x = {1.0, -2.0};
      double[] ax = new double[2];
      double eta = (float) 0.1;
      for (int t = 1; t <= 3; t++) {
        opt.zeroGrad();
        backwardSquares(p);
        opt.step();
        for (int i = 0; i < 2; i++) {
          x[i] = x[i] * (1 - 1e-4 * eta) + 2 * x[i] * -eta;
          ax[i] = t < 3 ? x[i] : ax[i] + (x[i] - ax[i]) * 0.5;
        }
        eta = (float) (0.1 / Math.pow(1 + 1e-4 * 0.1 * t, 0.75));
      }
      assertArrayEquals(x, p.toDoubleArray());
      assertArrayEquals(ax, opt.state(0, "ax").toDoubleArray());
      assertThrows(InvalidArgumentException.class, () -> opt.state(0, "exp_avg"));
      // Rprop: the grad 2p keeps its sign, so the second step is etaplus times the first (lr).
      Tensor q = Tensor.of(new double[] {1.0, -2.0}).setRequiresGrad(true);
      Optimizer rprop = Optimizer.create(List.of(q), OptimizerOptions.rprop().lr(0.1));
      for (int t = 0; t < 2; t++) {
        rprop.zeroGrad();
        backwardSquares(q);
        rprop.step();
      }
      assertArrayEquals(new double[] {1.0 - 0.1 - 0.1 * 1.2, -2.0 + 0.1 + 0.1 * 1.2}, q.toDoubleArray());
      assertThrows(InvalidArgumentException.class,
          () -> Optimizer.create(List.of(q), OptimizerOptions.rprop().etas(0.5, 0.9)));
    }
  }

  @Test
  void lbfgsMinimizesThroughAClosureAndAThrowingClosureChangesNothing() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new double[] {3.0, -1.0, 0.5}).setRequiresGrad(true);
      Tensor c = Tensor.of(new double[] {1.0, 2.0, -3.0});
      Optimizer opt = Optimizer.create(List.of(x), OptimizerOptions.lbfgs().strongWolfe(true));
      assertThrows(InvalidArgumentException.class, opt::step);
      int[] calls = {0};
      double first = opt.step(() -> {
        calls[0]++;
        opt.zeroGrad();
        Tensor d = x.sub(c);
        Tensor loss = d.mul(d).sum();
        loss.backward();
        return loss;
      });
      assertEquals(4.0 + 9.0 + 12.25, first);
      assertTrue(calls[0] > 1);
      double[] got = x.toDoubleArray();
      double[] want = {1.0, 2.0, -3.0};
      for (int i = 0; i < 3; i++) {
        assertEquals(want[i], got[i], 1e-6);
      }
      org.ctorch.CTorchException e = assertThrows(org.ctorch.CTorchException.class, () -> opt.step(() -> {
        throw new IllegalStateException("no loss today");
      }));
      assertTrue(e.getMessage().contains("no loss today"), e.getMessage());
      assertArrayEquals(got, x.toDoubleArray());
      assertEquals("LBFGS(lr=1.0, max_iter=20, max_eval=0, tolerance_grad=1.0E-7, tolerance_change=1.0E-9, "
          + "history_size=100, line_search_fn=strong_wolfe)", opt.options().toString());
    }
  }

  @Test
  void anOptionTheKindLacksIsRefusedAtOnce() {
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> OptimizerOptions.adam().momentum(0.9));
    assertTrue(e.getMessage().contains("Adam has no such option"), e.getMessage());
    assertThrows(InvalidArgumentException.class, () -> OptimizerOptions.sgd().betas(0.9, 0.9));
  }

  @Test
  void badOptionsAndParametersAreInvalidArguments() {
    try (TensorScope scope = new TensorScope()) {
      Tensor p = paramWithGrad(1.0);
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
          () -> Optimizer.create(List.of(p), OptimizerOptions.sgd().lr(-0.5)));
      assertTrue(e.getMessage().contains("lr"), e.getMessage());
      assertThrows(InvalidArgumentException.class, () -> Optimizer.sgd(List.of(), 0.1));
      assertThrows(InvalidArgumentException.class, () -> Optimizer.sgd(List.of(p, p), 0.1));
      assertThrows(InvalidArgumentException.class, () -> Optimizer.create(List.of(p),
          OptimizerOptions.sgd().nesterov(true)));
      assertThrows(InvalidArgumentException.class, () -> Optimizer.sgd(null, 0.1));
      Tensor nonLeaf = p.mulScalar(2);
      assertThrows(InvalidArgumentException.class, () -> Optimizer.sgd(List.of(nonLeaf), 0.1));
      Tensor ints = Tensor.of(new long[] {1});
      assertThrows(org.ctorch.DTypeException.class, () -> Optimizer.sgd(List.of(ints), 0.1));
    }
  }

  @Test
  void loadedStateContinuesWithTheSameBits() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = paramWithGrad(0.3, -1.2);
      Optimizer optA = Optimizer.create(List.of(a), OptimizerOptions.adam().lr(0.05));
      for (int i = 0; i < 3; i++) {
        optA.zeroGrad();
        backwardSquares(a);
        optA.step();
      }
      byte[] state = optA.stateBytes();
      Tensor b = a.detach().deepClone().setRequiresGrad(true);
      Optimizer optB = Optimizer.adam(List.of(b), 0.001);
      optB.loadState(state);
      assertEquals(0.05, optB.lr());
      for (Optimizer o : new Optimizer[] {optA, optB}) {
        Tensor p = o == optA ? a : b;
        o.zeroGrad();
        backwardSquares(p);
        o.step();
      }
      assertArrayEquals(a.toDoubleArray(), b.toDoubleArray(), 0);
    }
  }

  @Test
  void malformedStateIsAFormatErrorAndChangesNothing() {
    try (TensorScope scope = new TensorScope()) {
      Tensor p = paramWithGrad(1.0);
      Optimizer opt = Optimizer.adam(List.of(p), 0.1);
      assertThrows(FormatException.class, () -> opt.loadState(new byte[] {1, 2, 3}));
      byte[] state = opt.stateBytes();
      assertThrows(FormatException.class, () -> opt.loadState(java.util.Arrays.copyOf(state, state.length - 1)));
      assertThrows(InvalidArgumentException.class, () -> opt.loadState(null));
      assertEquals(0.1, opt.lr());
      Tensor q = paramWithGrad(1.0);
      Optimizer sgd = Optimizer.sgd(List.of(q), 0.1);
      assertThrows(InvalidArgumentException.class, () -> sgd.loadState(state)); // another kind
      Tensor r = Tensor.of(new double[] {1, 2}).setRequiresGrad(true);
      Optimizer other = Optimizer.adam(List.of(r), 0.1);
      assertThrows(InvalidArgumentException.class, () -> other.loadState(state)); // other sizes
    }
  }

  @Test
  void closeTwiceIsHarmlessAndUseAfterCloseIsAnError() {
    Tensor p = Tensor.of(new float[] {1}).setRequiresGrad(true);
    Optimizer opt = Optimizer.sgd(List.of(p), 0.1);
    opt.close();
    opt.close();
    assertTrue(opt.isClosed());
    assertThrows(InvalidArgumentException.class, opt::step);
    assertEquals(DType.FLOAT32, p.dtype()); // the parameter outlives the optimizer
    p.close();
  }
}
