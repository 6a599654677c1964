package org.ctorch.nn;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;
import org.ctorch.CTorch;
import org.ctorch.Checkpoint;
import org.ctorch.InvalidArgumentException;
import org.ctorch.ShapeException;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;
import org.junit.jupiter.api.Test;

class ModuleTest {
  @Test
  void linearHasTorchsShapesAndRequiresGrad() {
    try (TensorScope scope = new TensorScope()) {
      Linear l = new Linear(3, 5);
      assertArrayEquals(new long[] {5, 3}, l.weight().sizes());
      assertArrayEquals(new long[] {5}, l.bias().sizes());
      assertTrue(l.weight().requiresGrad() && l.bias().requiresGrad());
      assertEquals(List.of("weight", "bias"), List.copyOf(l.namedParameters().keySet()));
      assertArrayEquals(new long[] {2, 5}, l.forward(Tensor.zeros(2, 3)).sizes());
      assertEquals("Linear(in_features=3, out_features=5, bias=true)", l.toString());
      Linear noBias = new Linear(3, 5, false, org.ctorch.DType.FLOAT64, null);
      assertNull(noBias.bias());
      assertEquals(1, noBias.parameters().size());
      assertThrows(ShapeException.class, () -> l.forward(Tensor.zeros(2, 4)));
    }
  }

  @Test
  void linearGradientsAreTheInputsSums() {
    try (TensorScope scope = new TensorScope()) {
      Linear l = new Linear(2, 3);
      Tensor x = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
      l.forward(x).sum().backward();
      // d sum(x W^T + b) / dW[o, i] = sum_n x[n, i]; / db[o] = N.
      assertArrayEquals(new float[] {4, 6, 4, 6, 4, 6}, l.weight().grad().toFloatArray());
      assertArrayEquals(new float[] {2, 2, 2}, l.bias().grad().toFloatArray());
    }
  }

  @Test
  void linearInitializationIsReproducible() {
    try (TensorScope scope = new TensorScope()) {
      CTorch.manualSeed(0);
      float[] a = new Linear(8, 4).weight().toFloatArray();
      CTorch.manualSeed(0);
      assertArrayEquals(a, new Linear(8, 4).weight().toFloatArray());
    }
  }

  @Test
  void sequentialChainsAndNamesParametersByIndex() {
    try (TensorScope scope = new TensorScope()) {
      Sequential model = new Sequential(new Linear(4, 8), new ReLU(), new Linear(8, 3));
      assertEquals(List.of("0.weight", "0.bias", "2.weight", "2.bias"), List.copyOf(model.stateDict().keySet()));
      assertEquals(4, model.parameters().size());
      Tensor y = model.forward(Tensor.ones(5, 4));
      assertArrayEquals(new long[] {5, 3}, y.sizes());
      Loss.crossEntropy(y, Tensor.of(new long[] {0, 1, 2, 0, 1})).backward();
      for (Tensor p : model.parameters()) {
        assertNotNull(p.grad(), "every parameter gets a grad");
      }
      assertSame(((Linear) model.get(2)).weight(), model.namedParameters().get("2.weight"));
      assertThrows(InvalidArgumentException.class, () -> new Sequential(new ReLU(), null));
      assertTrue(model.toString().startsWith("Sequential(\n  (0): Linear("));
    }
  }

  @Test
  void relUIsElementwiseMaxWithZero() {
    try (TensorScope scope = new TensorScope()) {
      assertArrayEquals(new float[] {0, 0, 2}, new ReLU().forward(Tensor.of(new float[] {-1, 0, 2})).toFloatArray());
    }
  }

  @Test
  void lossesMatchTheirDefinitions() {
    try (TensorScope scope = new TensorScope()) {
      Tensor logits = Tensor.zeros(2, 3);
      assertEquals(Math.log(3), Loss.crossEntropy(logits, Tensor.of(new long[] {0, 2})).doubleValue(), 1e-6);
      Tensor ignored = Loss.crossEntropy(Tensor.of(new float[] {0, 10, 0, 0}, 2, 2), Tensor.of(new long[] {1, -100}),
          null, Loss.Reduction.SUM, -100, 0);
      assertEquals(Math.log(1 + Math.exp(-10)), ignored.doubleValue(), 1e-6);
      Tensor a = Tensor.of(new float[] {1, 2, 3});
      Tensor b = Tensor.of(new float[] {1, 4, 0});
      assertEquals((0 + 4 + 9) / 3.0, Loss.mseLoss(a, b).doubleValue(), 1e-6);
      assertArrayEquals(new float[] {0, 4, 9}, Loss.mseLoss(a, b, Loss.Reduction.NONE).toFloatArray());
      assertEquals(13, Loss.mseLoss(a, b, Loss.Reduction.SUM).doubleValue(), 1e-6);
      assertEquals(5 / 3.0, Loss.l1Loss(a, b).doubleValue(), 1e-6);
      assertThrows(InvalidArgumentException.class, () -> Loss.mseLoss(null, b));
    }
  }

  @Test
  void stateDictRoundTripsThroughACheckpoint() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("ctorch-module");
    String path = dir.resolve("model.safetensors").toString();
    try (TensorScope scope = new TensorScope()) {
      Sequential a = new Sequential(new Linear(4, 3), new ReLU(), new Linear(3, 2));
      Checkpoint.save(path, a.stateDict(), Map.of("epoch", "3"));
      Sequential b = new Sequential(new Linear(4, 3), new ReLU(), new Linear(3, 2));
      try (Checkpoint ck = Checkpoint.open(path)) {
        b.loadStateDict(ck.tensors());
      }
      Tensor x = Tensor.rand(5, 4);
      assertArrayEquals(a.forward(x).toFloatArray(), b.forward(x).toFloatArray());
      assertTrue(b.parameters().get(0).requiresGrad());
      assertThrows(InvalidArgumentException.class, () -> b.loadStateDict(Map.of("0.weight", Tensor.zeros(3, 4))));
      Map<String, Tensor> wrong = new java.util.HashMap<>(a.stateDict());
      wrong.put("0.bias", Tensor.zeros(4));
      assertThrows(ShapeException.class, () -> b.loadStateDict(wrong));
    } finally {
      java.nio.file.Files.deleteIfExists(java.nio.file.Path.of(path));
      java.nio.file.Files.delete(dir);
    }
  }

  @Test
  void closingAModuleClosesItsParameters() {
    Sequential model = new Sequential(new Linear(2, 2), new ReLU());
    Tensor w = model.parameters().get(0);
    model.close();
    model.close();
    assertTrue(w.isClosed());
  }
}
