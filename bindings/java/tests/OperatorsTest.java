package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class OperatorsTest {
  @Test
  void javaNumbersReachTheScalarOverloadsAndOptionalArguments() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new float[] {1, -2, 3, -4}, 2, 2);
      Tensor ints = Tensor.of(new long[] {1, 2, 3});
      assertArrayEquals(new float[] {2, -1, 4, -3}, x.add(1).toFloatArray());
      assertArrayEquals(new float[] {0.5f, -1, 1.5f, -2}, x.mul(0.5).toFloatArray());
      assertArrayEquals(new float[] {-1, -4, 1, -6}, x.sub(2L).toFloatArray());
      assertArrayEquals(new float[] {3, 0, 5, -2}, x.add(1, 2).toFloatArray()); // other + alpha
      assertArrayEquals(new float[] {0.5f, -1, 1.5f, -2}, x.div(2).toFloatArray());
      assertArrayEquals(new boolean[] {false, false, true, false}, x.eq(3).toBooleanArray());
      assertArrayEquals(new float[] {1, 4, 9, 16}, x.pow(2).toFloatArray());
      // An int stays an integer Scalar, so integer tensors stay integral; a double promotes.
      assertEquals(DType.INT64, ints.add(1).dtype());
      assertArrayEquals(new long[] {2, 3, 4}, ints.add(1).toLongArray());
      assertEquals(DType.FLOAT32, ints.mul(0.5).dtype());
      // An int where the schema has an optional int (a Long in Java): int dims need no 1L.
      assertArrayEquals(new long[] {0, 0}, x.argmax(1, false).toLongArray());
      assertArrayEquals(new long[] {1, 1}, x.argmin(1, false).toLongArray());
      assertArrayEquals(new long[] {2, 1}, x.argmax(1, true).sizes(), "keepdim");
      assertEquals(2L, x.argmax(null, false).longValue(), "null is still no dim");
      Tensor y = x.deepClone();
      assertSame(y, y.addInPlace(1));
      assertArrayEquals(new float[] {2, -1, 4, -3}, y.toFloatArray());
    }
  }

  @Test
  void deepCloneWithAMemoryFormatKeepsOrSetsTheLayout() {
    try (TensorScope scope = new TensorScope()) {
      // torch's numbers: 0 contiguous_format, 1 preserve_format, 2 channels_last.
      Tensor t = Tensor.of(new float[] {0, 1, 2, 3, 4, 5}, 2, 3).transpose(0, 1);
      Tensor kept = t.deepClone(1L);
      assertArrayEquals(new long[] {1, 3}, kept.strides(), "a permuted dense layout is preserved");
      assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, kept.toFloatArray());
      assertArrayEquals(new long[] {2, 1}, t.deepClone().strides(), "no format: a row-major copy");
      Tensor x = Tensor.zeros(new long[] {2, 3, 4, 5});
      assertArrayEquals(new long[] {60, 1, 15, 3}, x.deepClone(2L).strides());
      CTorchException e = assertThrows(CTorchException.class, () -> t.deepClone(2L));
      assertTrue(e.getMessage().contains("channels_last needs a 4-D tensor"), e.getMessage());
    }
  }

  @Test
  void methodsChainLikePyTorch() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new float[] {1, -2, 3, -4}, 2, 2);
      Tensor w = Tensor.of(new float[] {1, 0, 0, 1}, 2, 2);
      assertArrayEquals(new float[] {1, 0, 3, 0}, x.matmul(w).relu().toFloatArray());
      assertArrayEquals(new float[] {3, -6, 9, -12}, x.add(x, 2).toFloatArray()); // alpha
      assertArrayEquals(new float[] {2, -1, 4, -3}, x.addScalar(1).toFloatArray());
      assertEquals(-2.0, x.sum().doubleValue());
      assertArrayEquals(new float[] {-1, -1}, x.sum(new long[] {1}, false).toFloatArray());
      assertArrayEquals(new long[] {4, 1}, x.view(4, 1).sizes());
      assertArrayEquals(new long[] {2, 2}, x.permute(1, 0).sizes());
      // Other names of operators (numpy's, torch's comparison words) give the same results.
      assertArrayEquals(x.mul(w).toFloatArray(), x.multiply(w).toFloatArray());
      assertArrayEquals(x.transpose(0, 1).toFloatArray(), x.swapaxes(0, 1).toFloatArray());
      assertArrayEquals(x.gt(w).toBooleanArray(), x.greater(w).toBooleanArray());
    }
  }

  @Test
  void thresholdBackwardIsReluGradient() {
    try (TensorScope scope = new TensorScope()) {
      Tensor grad = Tensor.of(new float[] {Float.POSITIVE_INFINITY, 1, -2, 3});
      Tensor self = Tensor.of(new float[] {-1, 0.5f, 0.25f, 2});
      assertArrayEquals(new float[] {0, 1, 0, 3}, Tensor.thresholdBackward(grad, self, 0.25).toFloatArray());
      CTorchException e = assertThrows(CTorchException.class,
          () -> Tensor.thresholdBackward(grad, Tensor.of(new float[] {1, 2, 3}), 0));
      assertTrue(e.getMessage().contains("threshold_backward"), e.getMessage());
    }
  }

  @Test
  void staticFactoriesAndListArguments() {
    try (TensorScope scope = new TensorScope()) {
      assertArrayEquals(new long[] {2, 3}, Tensor.zeros(2, 3).sizes());
      assertEquals(DType.INT64, Tensor.zeros(new long[] {1}, DType.INT64, null).dtype());
      Tensor a = Tensor.of(new float[] {1, 2});
      Tensor c = Tensor.cat(new Tensor[] {a, a});
      assertArrayEquals(new float[] {1, 2, 1, 2}, c.toFloatArray());
      Tensor cond = Tensor.of(new boolean[] {true, false});
      assertArrayEquals(new float[] {1, 0}, Tensor.where(cond, a, Tensor.zeros(2)).toFloatArray());
      assertArrayEquals(new long[] {0, 1, 2}, Tensor.arange(0, 3).toLongArray());
    }
  }

  @Test
  void severalReturnsComeBackInSchemaOrder() {
    try (TensorScope scope = new TensorScope()) {
      Tensor[] r = Tensor.of(new float[] {3, 1, 2}).sort();
      assertEquals(2, r.length);
      assertArrayEquals(new float[] {1, 2, 3}, r[0].toFloatArray());
      assertArrayEquals(new long[] {1, 2, 0}, r[1].toLongArray());
    }
  }

  @Test
  void inPlaceOperatorsReturnTheSameObject() {
    try (Tensor x = Tensor.of(new float[] {1, 2}); Tensor y = Tensor.of(new float[] {1, 1})) {
      assertSame(x, x.addInPlace(y));
      assertSame(x, x.mulScalarInPlace(3));
      assertArrayEquals(new float[] {6, 9}, x.toFloatArray());
    }
  }

  @Test
  void boxedCallTakesDefaultsAndNulls() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
      assertArrayEquals(new float[] {4, 6}, Ops.call1("sum.dim_IntList", x, new long[] {0}).toFloatArray());
      assertArrayEquals(new float[] {3, 7}, Ops.call1("sum.dim_IntList", x, new int[] {1}, false).toFloatArray());
      assertArrayEquals(new float[] {10}, Ops.call1("sum.dim_IntList", x, null, true).view(1).toFloatArray());
      assertEquals(2, Ops.call("sort", x).length);
      assertTrue(Ops.schema("add").contains("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"));
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> Ops.call("add.Tensor", x, new Object()));
      assertTrue(e.getMessage().contains("java.lang.Object"), e.getMessage());
    }
  }

  @Test
  void everyBuiltinOverloadOfTheRegistryHasAMethod() {
    String json = Ops.registryJson();
    Matcher m = Pattern.compile("\"name\": ?\"([^\"]+)\", ?\"overload\": ?\"([^\"]*)\"").matcher(json);
    java.util.Set<String> generated = new java.util.HashSet<>(java.util.Arrays.asList(TensorOps.GENERATED_OVERLOADS));
    int builtin = 0;
    while (m.find()) {
      String name = m.group(1) + (m.group(2).isEmpty() ? "" : "." + m.group(2));
      if (!name.contains("::")) {
        builtin++;
        assertTrue(generated.contains(name), name + " has no generated method: run codegen/gen_ops.py");
      }
    }
    assertEquals(generated.size(), builtin);
  }
}
