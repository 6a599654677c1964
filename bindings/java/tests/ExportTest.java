package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExportTest {
  @Test
  void exportedProgramRunsAfterSaveAndLoadWithAnotherBatch(@TempDir Path dir) throws Exception {
    try (TensorScope scope = new TensorScope()) {
      Tensor w = Tensor.of(new float[] {1, -1, 2, 0.5f}, 2, 2);
      DynamicShapes dims = new DynamicShapes().dim(0, 0, "batch", 1, 1024);
      Program p = Program.export(xs -> new Tensor[] {xs[0].matmul(w).relu()}, new Tensor[] {Tensor.zeros(4, 2)}, 1, dims);
      assertEquals(1, p.numInputs());
      assertEquals(1, p.numOutputs());
      assertTrue(p.json().contains("batch"), p.json());
      String file = dir.resolve("m.ctp").toString();
      p.save(file);
      Program loaded = Program.load(file);
      Tensor x = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 3, 2);
      assertArrayEquals(x.matmul(w).relu().toFloatArray(), loaded.call(x)[0].toFloatArray());
      Program fromBytes = Program.fromBytes(p.toBytes());
      assertArrayEquals(x.matmul(w).relu().toFloatArray(), fromBytes.call(x)[0].toFloatArray());
      assertThrows(ShapeException.class, () -> loaded.call(Tensor.zeros(3, 5)));
      assertThrows(DTypeException.class, () -> loaded.call(Tensor.zeros(new long[] {3, 2}, DType.INT64, null)));
    }
  }

  @Test
  void malformedProgramsAreFormatErrors(@TempDir Path dir) throws java.io.IOException {
    assertThrows(FormatException.class, () -> Program.fromBytes(new byte[] {1, 2, 3}));
    Path bad = dir.resolve("bad.ctp");
    Files.write(bad, new byte[] {'n', 'o', 'p', 'e'});
    assertThrows(FormatException.class, () -> Program.load(bad.toString()));
    assertThrows(IoException.class, () -> Program.load(dir.resolve("missing.ctp").toString()));
  }
}
