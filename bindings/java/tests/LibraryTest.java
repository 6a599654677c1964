package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class LibraryTest {
  @Test
  void customOperatorWithAJavaKernel() {
    Library.define("javatest::scale(Tensor x, float factor=2.0) -> Tensor");
    Library.impl("javatest::scale", "cpu", args -> new Tensor[] {((Tensor) args[0]).mulScalar((Double) args[1])});
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new float[] {1, 2});
      assertArrayEquals(new float[] {2, 4}, Ops.call1("javatest::scale", x).toFloatArray());
      assertArrayEquals(new float[] {3, 6}, Ops.call1("javatest::scale", x, 3.0).toFloatArray());
      assertTrue(Ops.schema("javatest::scale").contains("float factor=2.0"));
    }
  }

  @Test
  void kernelArgumentsArriveAsJavaValues() {
    Library.define("javatest::echo(Tensor[] xs, int[] dims, int n, bool flag, ScalarType dtype, str note) -> Tensor");
    Object[][] seen = new Object[1][];
    Library.impl("javatest::echo", "cpu", args -> {
      seen[0] = args;
      return new Tensor[] {((Tensor[]) args[0])[1].share()};
    });
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new float[] {1});
      Tensor b = Tensor.of(new float[] {5});
      Tensor r = Ops.call1("javatest::echo", new Tensor[] {a, b}, new long[] {3, 4}, 7, true, DType.INT32, "hi");
      assertArrayEquals(new float[] {5}, r.toFloatArray());
      assertArrayEquals(new long[] {3, 4}, (long[]) seen[0][1]);
      assertEquals(7L, seen[0][2]);
      assertEquals(Boolean.TRUE, seen[0][3]);
      assertEquals(DType.INT32, seen[0][4]);
      assertEquals("hi", seen[0][5]);
    }
  }

  @Test
  void kernelExceptionReachesTheCallerUnderTheOperatorName() {
    Library.define("javatest::fail(Tensor x) -> Tensor");
    Library.impl("javatest::fail", "cpu", args -> {
      throw new ShapeException("x must be 2-D, got [2]");
    });
    try (Tensor x = Tensor.of(new float[] {1, 2})) {
      ShapeException e = assertThrows(ShapeException.class, () -> Ops.call1("javatest::fail", x));
      assertTrue(e.getMessage().contains("javatest::fail") && e.getMessage().contains("x must be 2-D, got [2]"), e.getMessage());
    }
    Library.define("javatest::npe(Tensor x) -> Tensor");
    Library.impl("javatest::npe", "cpu", args -> {
      Object nothing = null;
      return new Tensor[] {(Tensor) nothing.getClass().cast(args[0])};
    });
    try (Tensor x = Tensor.of(new float[] {1, 2})) {
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> Ops.call1("javatest::npe", x));
      assertTrue(e.getMessage().contains("java.lang.NullPointerException"), e.getMessage());
      assertInstanceOf(NullPointerException.class, e.getCause());
    }
    Library.setDeterminism("javatest::fail", "cpu", Library.Determinism.BITWISE);
  }
}
