package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.util.concurrent.atomic.AtomicInteger;
import org.ctorch.jni.CTorchNative;
import org.junit.jupiter.api.Test;

class CompileTest {
  @Test
  void compiledLambdaMatchesEagerAndTracesOnce() {
    AtomicInteger traces = new AtomicInteger();
    try (TensorScope scope = new TensorScope(); CompileOptions o = new CompileOptions().name("gelu_ish")) {
      Compiled f = CTorch.compile(xs -> {
        traces.incrementAndGet();
        return new Tensor[] {xs[0].mul(xs[0].mulScalar(1.702).sigmoid()).add(xs[1])};
      }, 1, o);
      Tensor x = Tensor.of(new float[] {-1, 0, 1, 2, 3, 4}, 2, 3);
      Tensor b = Tensor.of(new float[] {0.5f, 0.5f, 0.5f});
      Tensor eager = x.mul(x.mulScalar(1.702).sigmoid()).add(b);
      for (int i = 0; i < 3; i++) {
        assertArrayEquals(eager.toFloatArray(), f.call(x, b)[0].toFloatArray(), 1e-6f);
      }
      assertEquals(1, traces.get());
      assertEquals(1, f.numEntries());
      assertTrue(f.graph(0).contains("sigmoid"), f.graph(0));
      assertTrue(f.metricsJson().contains("{"));
      f.close();
    }
  }

  @Test
  void maxAutotuneBuildsCppKernelsWithEagerBits() {
    // Softmax over the last dim: the system compiler builds its kernel, which must give eager's bits.
    TracedFunction softmax = xs -> {
      Tensor e = xs[0].sub(xs[0].amax(new long[] {-1}, true)).exp();
      return new Tensor[] {e.div(e.sum(new long[] {-1}, true))};
    };
    try (TensorScope scope = new TensorScope(); CompileOptions o = new CompileOptions().mode("max-autotune")) {
      Compiled f = CTorch.compile(softmax, 1, o);
      Tensor x = Tensor.randn(6, 70);
      assertArrayEquals(softmax.apply(new Tensor[] {x})[0].toFloatArray(), f.call(x)[0].toFloatArray(), 0f);
      assertTrue(f.graph(0).contains("fused_cpp["), f.graph(0));
    }
  }

  @Test
  void hotKernelsAreBuiltInTheBackground() {
    // "cpp_kernels" "auto" (the default) builds a kernel once it is hot: here from its first call.
    TracedFunction softmax = xs -> {
      Tensor e = xs[0].sub(xs[0].amax(new long[] {-1}, true)).exp();
      return new Tensor[] {e.div(e.sum(new long[] {-1}, true))};
    };
    try (TensorScope scope = new TensorScope();
        CompileOptions o = new CompileOptions().option("cpp_kernels_hot_ms", "0")) {
      Compiled f = CTorch.compile(softmax, 1, o);
      Tensor x = Tensor.randn(7, 90);
      float[] want = softmax.apply(new Tensor[] {x})[0].toFloatArray();
      for (int pass = 0; pass < 2; ++pass) {
        assertArrayEquals(want, f.call(x)[0].toFloatArray(), 0f);
        Compiled.waitKernels();
      }
      assertTrue(f.graph(0).contains("fused_cpp["), f.graph(0));
    }
  }

  @Test
  void badCppKernelOptionsAreRefusedWithTheValuesAllowed() {
    String[][] cases = {{"cpp_kernels", "maybe", "\"auto\""}, {"cpp_kernels_hot_ms", "-1", "from 0 to 1e12"},
                        {"cpp_kernels_hot_ms", "1ms", "from 0 to 1e12"}};
    for (String[] c : cases) {
      try (CompileOptions o = new CompileOptions()) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> o.option(c[0], c[1]));
        assertTrue(e.getMessage().contains(c[0]) && e.getMessage().contains(c[2]), e.getMessage());
      }
    }
  }

  @Test
  void theBackwardIsCompiledTooAndReachesCapturedWeights() {
    try (TensorScope scope = new TensorScope()) {
      Tensor w = Tensor.of(new float[] {0.5f, -1, 2}).setRequiresGrad(true);
      Tensor x = Tensor.of(new float[] {-1, 0, 1, 2, 3, 4}, 2, 3).setRequiresGrad(true);
      TracedFunction gate = xs -> new Tensor[] {xs[0].mul(w).sigmoid().mul(xs[0]).sum()};
      gate.apply(new Tensor[] {x})[0].backward();
      float[] wantX = x.grad().toFloatArray(), wantW = w.grad().toFloatArray();
      x.setGrad(null);
      w.setGrad(null);
      Compiled f = CTorch.compile(gate, 1, null);
      Tensor loss = f.call(x)[0];
      assertEquals("CompiledFunctionBackward", loss.gradFnName());
      loss.backward();
      assertArrayEquals(wantX, x.grad().toFloatArray(), 0f);
      assertArrayEquals(wantW, w.grad().toFloatArray(), 0f);
      assertTrue(f.graph(0).startsWith("forward:") && f.graph(0).contains("\nbackward:\n"), f.graph(0));
    }
  }

  @Test
  void exceptionInTheCompiledLambdaReachesTheCaller() {
    try (TensorScope scope = new TensorScope()) {
      Compiled f = CTorch.compile(xs -> {
        throw new UnsupportedOperationException("not traceable today");
      }, 1, null);
      NotImplementedException e = assertThrows(NotImplementedException.class, () -> f.call(Tensor.zeros(2)));
      assertTrue(e.getMessage().contains("java.lang.UnsupportedOperationException: not traceable today"), e.getMessage());
      assertInstanceOf(UnsupportedOperationException.class, e.getCause());
    }
  }

  @Test
  void wrongNumberOfOutputsIsAnError() {
    try (TensorScope scope = new TensorScope()) {
      Compiled f = CTorch.compile(xs -> new Tensor[] {xs[0], xs[0]}, 1, null);
      CTorchException e = assertThrows(CTorchException.class, () -> f.call(Tensor.zeros(2)));
      assertTrue(e.getMessage().contains("returned 2 tensors where 1 were declared"), e.getMessage());
    }
  }

  @Test
  void fullgraphRefusesAGraphBreak() {
    try (TensorScope scope = new TensorScope(); CompileOptions o = new CompileOptions().fullgraph(true)) {
      Compiled f = CTorch.compile(xs -> new Tensor[] {xs[0].mulScalar(xs[0].sum().doubleValue())}, 1, o);
      assertThrows(GraphBreakException.class, () -> f.call(Tensor.ones(2)));
      assertThrows(InvalidArgumentException.class, () -> new CompileOptions().backend("nope"));
    }
  }

  @Test
  void compiledLambdaRunsOnANativeThread() {
    try (TensorScope scope = new TensorScope()) {
      Compiled f = CTorch.compile(xs -> new Tensor[] {xs[0].addScalar(1)}, 1, null);
      Tensor x = Tensor.of(new float[] {1, 2});
      long[] out = CTorchNative.ct_java_call_on_native_thread(f.handle(), new long[] {x.handle()}, 1);
      try (Tensor y = new Tensor(out[0])) {
        assertArrayEquals(new float[] {2, 3}, y.toFloatArray());
      }
      Compiled bad = CTorch.compile(xs -> {
        throw new IllegalStateException("thrown on a native thread");
      }, 1, null);
      CTorchException e = assertThrows(CTorchException.class,
          () -> CTorchNative.ct_java_call_on_native_thread(bad.handle(), new long[] {x.handle()}, 1));
      assertTrue(e.getMessage().contains("thrown on a native thread"), e.getMessage());
    }
  }
}
