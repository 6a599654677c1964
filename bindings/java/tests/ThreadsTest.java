package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class ThreadsTest {
  @Test
  void eightThreadsShareTensors() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (Tensor range = Tensor.arange(0, 1000); Tensor a = range.to(DType.FLOAT32); Tensor b = Tensor.ones(1000)) {
      double expected = 1000.0 * 999 / 2 + 1000;
      List<Future<Double>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        results.add(pool.submit(() -> {
          double last = 0;
          for (int i = 0; i < 500; i++) {
            try (TensorScope scope = new TensorScope()) {
              last = a.add(b).sum().doubleValue();        // shared inputs, per-thread results
              try (Guard g = Grad.noGrad()) {             // grad mode is per thread
                assertFalse(Grad.isEnabled());
              }
            }
          }
          return last;
        }));
      }
      for (Future<Double> r : results) {
        assertEquals(expected, r.get(), 1e-3);
      }
      assertTrue(Grad.isEnabled());
    } finally {
      pool.shutdown();
    }
  }

  @Test
  void customKernelRunsOnManyThreadsAtOnce() throws Exception {
    Library.define("javatest::twice(Tensor x) -> Tensor");
    Library.impl("javatest::twice", "cpu", args -> new Tensor[] {((Tensor) args[0]).mulScalar(2)});
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (Tensor x = Tensor.of(new float[] {1, 2, 3})) {
      List<Future<float[]>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        results.add(pool.submit(() -> {
          float[] last = null;
          for (int i = 0; i < 200; i++) {
            try (Tensor y = Ops.call1("javatest::twice", x)) {
              last = y.toFloatArray();
            }
          }
          return last;
        }));
      }
      for (Future<float[]> r : results) {
        assertArrayEquals(new float[] {2, 4, 6}, r.get());
      }
    } finally {
      pool.shutdown();
    }
  }
}
