package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * No leak after a million creations, by the library's own counters. Runs in its own JVM (CTest's
 * java.ownership): the counters are exact only while nothing else creates or frees tensors.
 */
@Tag("ownership")
class OwnershipTest {
  private static long[] counters() {
    return new long[] {CTorch.metric("tensors.live"), CTorch.metric("storages.live"),
        CTorch.metric("memory.cpu.allocations_live")};
  }

  /** Collects until the Cleaner has released every unreachable object (counters stop moving). */
  private static long[] settle(long[] target) throws InterruptedException {
    long[] now = counters();
    for (int i = 0; i < 200 && !java.util.Arrays.equals(now, target); i++) {
      System.gc();
      Thread.sleep(20);
      now = counters();
    }
    return now;
  }

  @Test
  void aMillionCreationsWithCloseLeakNothing() throws InterruptedException {
    long[] before = settle(counters());
    try (Tensor a = Tensor.of(new float[] {1, 2, 3})) {
      for (int i = 0; i < 1_000_000; i++) {
        try (Tensor b = a.add(a); Tensor c = b.share(); Tensor v = c.narrow(0, 1, 2)) {
          b.close();
          c.close();
          assertEquals(2, v.numel());
        }
        if (i % 100_000 == 0) {
          try (Tensor two = Tensor.ones(2)) {
            assertThrows(ShapeException.class, () -> a.add(two)); // a failure frees what it made
          }
        }
      }
    }
    assertArrayEquals(before, counters());
  }

  @Test
  void inPlaceFeedbackAndCreateGraphLeaveNoTensorAlive() throws InterruptedException {
    long[] before = settle(counters());
    for (int i = 0; i < 100; i++) {
      try (Tensor x = Tensor.of(new float[] {1, 2, 3}).setRequiresGrad(true);
          Tensor s = x.sum()) {
        x.setRequiresGrad(false);
        x.addInPlace(s); // x is returned: its history now ends at its own AccumulateGrad
      }
      try (Tensor w = Tensor.of(new float[] {1, 2, 3}).setRequiresGrad(true);
          Tensor sq = w.mul(w);
          Tensor cube = sq.mul(w);
          Tensor total = cube.sum()) {
        total.backward(null, Grad.CREATE_GRAPH);
        try (Tensor g = w.grad()) {
          assertTrue(g.requiresGrad()); // a recorded grad: it goes with w
        }
      }
    }
    assertArrayEquals(before, settle(before));
  }

  private static void forget(int n) {
    Tensor a = Tensor.of(new float[] {1, 2, 3});
    for (int i = 0; i < n; i++) {
      Tensor b = a.add(a);
      b.narrow(0, 1, 2);
    }
  }

  @Test
  void aMillionForgottenTensorsAreReleasedByTheCleaner() throws InterruptedException {
    long[] before = settle(counters());
    long leaked = CTorch.leakedObjects();
    forget(1_000_000);
    assertArrayEquals(before, settle(before));
    assertTrue(CTorch.leakedObjects() - leaked >= 2_000_000);
  }

  @Test
  void tensorsOutliveTheThreadThatMadeThemAndAreStillReleased() throws Exception {
    long[] before = settle(counters());
    long leaked = CTorch.leakedObjects();
    java.util.List<Tensor> made = new java.util.ArrayList<>();
    Thread maker = new Thread(() -> {
      for (int i = 0; i < 1000; i++) {
        made.add(Tensor.ones(3));
      }
    });
    maker.start();
    maker.join();
    // The maker ended; its tensors still work, close when asked, or are released when forgotten.
    for (int i = 0; i < 500; i++) {
      assertEquals(3.0, made.get(i).sum().doubleValue());
      made.get(i).close();
    }
    made.clear();
    assertArrayEquals(before, settle(before));
    // 500 forgotten sums and the 500 tensors never closed; the 500 closed ones are not leaks.
    assertEquals(leaked + 1000, CTorch.leakedObjects());
  }

  private static void forgetOne() {
    Tensor.zeros(1024);
  }

  @Test
  void aFailedAllocationCollectsForgottenTensorsFirst() throws InterruptedException {
    long before = settle(counters())[0];
    forgetOne();
    assertEquals(before + 1, CTorch.metric("tensors.live")); // unreachable, not yet released
    assertThrows(OutOfMemoryException.class, () -> Tensor.empty(1L << 50)); // the handler runs the GC first
    assertEquals(before, CTorch.metric("tensors.live"));
  }
}
