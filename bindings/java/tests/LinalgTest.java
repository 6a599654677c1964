package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/**
 * Linear algebra on LAPACK through the generated methods: solvers, inverses, determinants and
 * factorizations against values worked out here (their numbers against torch are the Python
 * differential suite's), and a singular matrix as {@link LinAlgException}.
 */
class LinalgTest {
  private static void close(double[] expected, Tensor actual) {
    double[] got = actual.to(DType.FLOAT64).toDoubleArray();
    assertEquals(expected.length, got.length);
    for (int i = 0; i < got.length; ++i) assertEquals(expected[i], got[i], 1e-12, "element " + i);
  }

  @Test
  void solveInverseAndDeterminant() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new double[] {4, 1, 2, 3}, 2, 2); // det 10
      close(new double[] {1, 1}, Tensor.linalgSolve(a, Tensor.of(new double[] {5, 5}, 2, 1)));
      close(new double[] {0.3, -0.1, -0.2, 0.4}, Tensor.linalgInv(a));
      close(new double[] {10}, Tensor.linalgDet(a));
      close(new double[] {2, 0, 1, 2}, Tensor.linalgCholesky(Tensor.of(new double[] {4, 2, 2, 5}, 2, 2)));
    }
  }

  @Test
  void onCudaAsOnTheCpu() {
    if (!Cuda.isAvailable()) return; // cuSOLVER needs a GPU; scripts/gpu_suite.sh runs this there
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new double[] {4, 1, 2, 3}, 2, 2).toDevice(Device.cuda(0));
      close(new double[] {1, 1}, Tensor.linalgSolve(a, Tensor.of(new double[] {5, 5}, 2, 1).toDevice(Device.cuda(0)))
          .toDevice(Device.CPU));
      close(new double[] {0.3, -0.1, -0.2, 0.4}, Tensor.linalgInv(a).toDevice(Device.CPU));
      close(new double[] {10}, Tensor.linalgDet(a).toDevice(Device.CPU));
      close(new double[] {2, 0, 1, 2},
          Tensor.linalgCholesky(Tensor.of(new double[] {4, 2, 2, 5}, 2, 2).toDevice(Device.cuda(0))).toDevice(Device.CPU));
      Tensor[] ldl = Tensor.of(new double[] {1, 2, 2, 1}, 2, 2).toDevice(Device.cuda(0)).linalgLdlFactor(); // indefinite
      close(new double[] {1, 1},
          Tensor.linalgLdlSolve(ldl[0], ldl[1], Tensor.of(new double[] {3, 3}, 2, 1).toDevice(Device.cuda(0)))
              .toDevice(Device.CPU));
      // eig of a rotation by 90 degrees: i and -i, the positive imaginary part first (LAPACK's order)
      Tensor[] eig = Tensor.linalgEig(Tensor.of(new double[] {0, -1, 1, 0}, 2, 2).toDevice(Device.cuda(0)));
      close(new double[] {0, 1, 0, -1}, eig[0].viewAsReal().toDevice(Device.CPU));
      assertThrows(LinAlgException.class,
          () -> Tensor.linalgInv(Tensor.of(new double[] {1, 2, 2, 4}, 2, 2).toDevice(Device.cuda(0))));
    }
  }

  @Test
  void randomizedLowRankSvd() {
    try (TensorScope scope = new TensorScope()) {
      // A = [1, 2, 2]^T [2, 1] has rank 1: singular values 3 sqrt 5 and 0 whatever the random draw,
      // and U diag(S) V^T gives A back. pcaLowrank refuses a q above min(m, n).
      Tensor a = Tensor.of(new double[] {2, 1, 4, 2, 4, 2}, 3, 2);
      Tensor[] usv = Tensor.svdLowrank(a, 2L, null, null);
      close(new double[] {3 * Math.sqrt(5), 0}, usv[1]);
      close(new double[] {2, 1, 4, 2, 4, 2}, usv[0].mul(usv[1]).matmul(usv[2].transpose(0, 1)));
      CTorchException e = assertThrows(CTorchException.class, () -> Tensor.pcaLowrank(a, 3L, true, 2));
      assertTrue(e.getMessage().contains("min(m, n) = 2"), e.getMessage());
    }
  }

  @Test
  void matrixSqrthAndPolar() {
    try (TensorScope scope = new TensorScope()) {
      close(new double[] {Math.sqrt(2), 0, 0, 3}, Tensor.of(new double[] {2, 0, 0, 9}, 2, 2).linalgMatrixSqrth());
      Tensor[] uh = Tensor.linalgPolar(Tensor.of(new double[] {3, 0, 0, -2}, 2, 2));
      close(new double[] {1, 0, 0, -1}, uh[0]);
      close(new double[] {3, 0, 0, 2}, uh[1]);
      CTorchException e = assertThrows(CTorchException.class,
          () -> Tensor.linalgPolar(Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, 2, 3)));
      assertTrue(e.getMessage().contains("at least as many rows as columns"), e.getMessage());
    }
  }

  @Test
  void factorizationsAndLeastSquares() {
    try (TensorScope scope = new TensorScope()) {
      Tensor[] wv = Tensor.linalgEigh(Tensor.of(new double[] {2, 1, 1, 2}, 2, 2));
      close(new double[] {1, 3}, wv[0]);
      Tensor[] usv = Tensor.linalgSvd(Tensor.of(new double[] {3, 0, 0, -2}, 2, 2));
      close(new double[] {3, 2}, usv[1]);
      Tensor m = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, 3, 2);
      Tensor[] qr = Tensor.linalgQr(m);
      close(new double[] {1, 2, 3, 4, 5, 6}, qr[0].matmul(qr[1]));
      // y = 1 + 2 t at t = 0..3
      Tensor a = Tensor.of(new double[] {1, 0, 1, 1, 1, 2, 1, 3}, 4, 2);
      Tensor[] fit = a.linalgLstsq(Tensor.of(new double[] {1, 3, 5, 7}, 4, 1), null, "gelsd");
      close(new double[] {1, 2}, fit[0]);
      assertArrayEquals(new long[] {2}, fit[2].toLongArray());
    }
  }

  @Test
  void ldlSolvesAnIndefiniteSystem() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new double[] {1, 2, 2, 1}, 2, 2); // eigenvalues 3 and -1
      Tensor[] ldl = a.linalgLdlFactor();
      close(new double[] {1, 1}, Tensor.linalgLdlSolve(ldl[0], ldl[1], Tensor.of(new double[] {3, 3}, 2, 1)));
      assertThrows(LinAlgException.class, () -> Tensor.linalgCholesky(a));
    }
  }

  @Test
  void singularMatrixIsALinAlgException() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new double[] {1, 2, 2, 4}, 2, 2);
      LinAlgException e = assertThrows(LinAlgException.class, () -> Tensor.linalgInv(a));
      assertTrue(e.getMessage().contains("singular"), e.getMessage());
      assertEquals(Status.LINALG, e.status());
      assertArrayEquals(new int[] {2}, Tensor.linalgInvEx(a)[1].toIntArray());
      assertThrows(DTypeException.class, () -> Tensor.linalgDet(Tensor.of(new long[] {1, 0, 0, 1}, 2, 2)));
    }
  }

  @Test
  void eigOfAGeneralMatrixIsComplex() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new double[] {0, -1, 1, 0}, 2, 2); // a rotation: eigenvalues i and -i
      Tensor[] lv = Tensor.linalgEig(a);
      assertEquals(DType.COMPLEX128, lv[0].dtype());
      assertArrayEquals(new double[] {0, 1, 0, -1}, lv[0].viewAsReal().toDoubleArray(), 1e-15);
      // A V = V diag(L)
      Tensor residual = a.to(DType.COMPLEX128).matmul(lv[1]).sub(lv[1].mul(lv[0])).abs().amax();
      assertTrue(residual.toDoubleArray()[0] < 1e-15);
      assertArrayEquals(new double[] {0, 1, 0, -1}, Tensor.linalgEigvals(a).viewAsReal().toDoubleArray(), 1e-15);
      CTorchException e = assertThrows(CTorchException.class,
          () -> Tensor.linalgEig(Tensor.of(new double[] {1, Double.NaN, 0, 1}, 2, 2)));
      assertTrue(e.getMessage().contains("infs or NaNs"), e.getMessage());
    }
  }

  @Test
  void complexSolveAndDeterminant() {
    try (TensorScope scope = new TensorScope()) {
      // B = [[2, i], [i, 1]]: det 3; B [1, 1] = [2 + i, 1 + i]
      Tensor b = Tensor.complex(Tensor.of(new double[] {2, 0, 0, 1}, 2, 2), Tensor.of(new double[] {0, 1, 1, 0}, 2, 2));
      Tensor rhs = Tensor.complex(Tensor.of(new double[] {2, 1}, 2), Tensor.of(new double[] {1, 1}, 2));
      assertArrayEquals(new double[] {3, 0}, Tensor.linalgDet(b).viewAsReal().toDoubleArray(), 1e-15);
      assertArrayEquals(new double[] {1, 0, 1, 0}, Tensor.linalgSolve(b, rhs).viewAsReal().toDoubleArray(), 1e-15);
    }
  }
}
