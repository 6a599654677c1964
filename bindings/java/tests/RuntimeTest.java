package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuntimeTest {
  @Test
  void libraryReportsVersionAndFeatures() {
    CTorch.init();
    assertTrue(CTorch.version().matches("\\d+\\.\\d+\\.\\d+"));
    assertTrue(CTorch.hasFeature("cpu"));
    assertFalse(CTorch.hasFeature("no-such-feature"));
    assertTrue(CTorch.metricsJson().contains("tensors.live"));
    assertTrue(CTorch.metric("tensors.live") >= 0);
    int threads = CTorch.getNumThreads();
    CTorch.setNumThreads(1);
    assertEquals(1, CTorch.getNumThreads());
    CTorch.setNumThreads(threads);
    assertThrows(InvalidArgumentException.class, () -> CTorch.setNumThreads(0));
  }

  @Test
  void deterministicSwitchesRoundTrip() {
    try {
      CTorch.useDeterministicAlgorithms(true, true);
      assertTrue(CTorch.areDeterministicAlgorithmsEnabled());
      assertTrue(CTorch.isDeterministicAlgorithmsWarnOnlyEnabled());
      CTorch.setDeterministicDebugMode(2);
      assertEquals(2, CTorch.getDeterministicDebugMode());
    } finally {
      CTorch.useDeterministicAlgorithms(false, false);
      CTorch.setDeterministicDebugMode(0);
    }
    assertFalse(CTorch.areDeterministicAlgorithmsEnabled());
    String before = CTorch.getFloat32MatmulPrecision();
    CTorch.setFloat32MatmulPrecision("high");
    assertEquals("high", CTorch.getFloat32MatmulPrecision());
    CTorch.setFloat32MatmulPrecision(before);
    assertThrows(InvalidArgumentException.class, () -> CTorch.setFloat32MatmulPrecision("extreme"));
  }

  @Test
  void seedsReproduceRandomNumbers() {
    try (TensorScope scope = new TensorScope()) {
      CTorch.manualSeed(1234);
      assertEquals(1234, CTorch.initialSeed());
      float[] first = Tensor.rand(5).toFloatArray();
      CTorch.manualSeed(1234);
      assertArrayEquals(first, Tensor.rand(5).toFloatArray());
      Generator g = Generator.create(Device.CPU).manualSeed(7);
      byte[] state = g.state();
      float[] a = g.randn(new long[] {4}, null, null).toFloatArray();
      assertTrue(g.offset() > 0);
      g.setState(state);
      assertArrayEquals(a, g.randn(new long[] {4}, null, null).toFloatArray());
      long[] perm = g.randperm(6, null).sort()[0].toLongArray();
      assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5}, perm);
      assertEquals(DType.INT64, g.randint(0, 10, new long[] {3}, null, null).dtype());
    }
  }

  @Test
  void defaultsAndDeviceContexts() {
    DType before = CTorch.getDefaultDtype();
    try (TensorScope scope = new TensorScope()) {
      CTorch.setDefaultDtype(DType.FLOAT64);
      assertEquals(DType.FLOAT64, Tensor.zeros(1).dtype());
    } finally {
      CTorch.setDefaultDtype(before);
    }
    try (TensorScope scope = new TensorScope()) {
      try (Guard g = CTorch.withDevice(Device.META)) {
        assertEquals(Device.META, Tensor.zeros(2).device());
      }
      assertEquals(Device.CPU, Tensor.zeros(2).device());
      assertEquals(Device.CPU, CTorch.getDefaultDevice());
    }
  }

  @Test
  void logHandlerReceivesMessages() {
    List<String> seen = new ArrayList<>();
    LogLevel level = CTorch.getLogLevel();
    CTorch.setLogHandler((l, m) -> {
      synchronized (seen) {
        seen.add(l + ": " + m);
      }
    });
    try (TensorScope scope = new TensorScope()) {
      CTorch.setLogLevel(LogLevel.DEBUG);
      assertEquals(LogLevel.DEBUG, CTorch.getLogLevel());
      CompileOptions o = new CompileOptions().recompileLimit(1);
      Compiled f = CTorch.compile(xs -> new Tensor[] {xs[0].addScalar(1)}, 1, o);
      f.call(Tensor.zeros(2));
      f.call(Tensor.zeros(2, 3));
      f.call(Tensor.zeros(2, 3, 4)); // past the recompile limit: the library says so once
    } finally {
      CTorch.setLogLevel(level);
      CTorch.setLogHandler(null);
    }
    synchronized (seen) {
      assertFalse(seen.isEmpty(), "no log message arrived");
    }
  }

  @Test
  void profilerRecordsOperators() {
    Profiler.start();
    assertTrue(Profiler.isRunning());
    try (Tensor a = Tensor.ones(2); Tensor b = a.add(a)) {
      assertEquals(2, b.numel());
    }
    String trace = Profiler.stop();
    assertFalse(Profiler.isRunning());
    assertTrue(trace.contains("\"add.Tensor\""), trace);
  }

  @Test
  void cudaWithoutAGpuIsADeviceError() {
    if (Cuda.isAvailable()) {
      try (Tensor t = Tensor.ones(new long[] {2}, null, Device.cuda(0)); Tensor c = t.toDevice(Device.CPU)) {
        assertArrayEquals(new float[] {1, 1}, c.toFloatArray());
      }
    } else {
      assertThrows(DeviceException.class, () -> Tensor.ones(new long[] {2}, null, Device.cuda(0)));
    }
  }

  @Test
  void autocastCastsProductsAndLossesAndRestores() throws Exception {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
      Tensor b = Tensor.of(new float[] {1, 0, 0, 1, 1, 1}, 3, 2);
      assertFalse(CTorch.isAutocastEnabled(Device.Type.CPU));
      try (Guard ac = CTorch.autocast(Device.Type.CPU, DType.BFLOAT16)) {
        assertTrue(CTorch.isAutocastEnabled(Device.Type.CPU));
        Tensor p = a.mm(b);
        assertEquals(DType.BFLOAT16, p.dtype());
        assertArrayEquals(new float[] {4, 5, 10, 11}, p.to(DType.FLOAT32).toFloatArray());
        assertEquals(DType.FLOAT32, p.mseLoss(p.add(p)).dtype());
        // Autocast belongs to the thread that opened it.
        boolean[] other = new boolean[1];
        Thread t = new Thread(() -> other[0] = CTorch.isAutocastEnabled(Device.Type.CPU));
        t.start();
        t.join();
        assertFalse(other[0]);
      }
      assertFalse(CTorch.isAutocastEnabled(Device.Type.CPU));
      assertEquals(DType.FLOAT32, a.mm(b).dtype());
      assertThrows(DTypeException.class, () -> CTorch.autocast(Device.Type.CPU, DType.FLOAT32));
      assertEquals(DType.FLOAT16, CTorch.getAutocastDtype(Device.Type.CUDA));
    }
  }

  @Test
  void promotionRules() {
    assertEquals(DType.INT16, CTorch.promoteTypes(DType.UINT8, DType.INT8));
    assertEquals(DType.FLOAT32, CTorch.promoteTypes(DType.FLOAT16, DType.BFLOAT16));
    assertTrue(CTorch.canCast(DType.INT64, DType.FLOAT32));
    assertFalse(CTorch.canCast(DType.FLOAT32, DType.INT64));
  }

  @Test
  void printOptionsWarnAlwaysAnomalyAndDenormals() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new float[] {1.5f, 2.25f, 3f});
      CTorch.setPrintOptions(1, 1000, 3, 80, true);
      try {
        assertEquals("tensor([1.5e+00, 2.2e+00, 3.0e+00])", x.toString());
        assertEquals(1, CTorch.getPrintOptions()[0]);
        assertThrows(InvalidArgumentException.class, () -> CTorch.setPrintOptions(31, 1000, 3, 80, null));
      } finally {
        CTorch.setPrintOptions(4, 1000, 3, 80, null);
      }
      CTorch.setWarnAlways(true);
      assertTrue(CTorch.isWarnAlwaysEnabled());
      CTorch.setWarnAlways(false);
      Tensor a = Tensor.of(new float[] {0f, 1f}).setRequiresGrad(true);
      CTorch.setAnomalyEnabled(true, true);
      try {
        CTorchException e = assertThrows(CTorchException.class, () -> a.div(a).sum().backward());
        assertTrue(e.getMessage().contains("returned nan values"), e.getMessage());
      } finally {
        CTorch.setAnomalyEnabled(false, true);
      }
      assertFalse(CTorch.isAnomalyEnabled());
    }
  }
}
