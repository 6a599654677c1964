package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ctorch.nn.Linear;
import org.junit.jupiter.api.Test;

/**
 * PyTorch files from Java: a checkpoint torch.save wrote (tests/data/checkpoint.pt, made by
 * tests/data/make_torch_files.py) loads with its names, values and structure and into a module; a
 * state dict saved here loads back; damaged bytes are a FormatException.
 */
class TorchFileTest {
  private static Path checkpoint() {
    return Paths.get(System.getProperty("ctorch.testData", "../../../tests/data"), "checkpoint.pt");
  }

  @Test
  void aCheckpointTorchWroteLoads() throws Exception {
    try (TorchFile f = TorchFile.load(checkpoint().toString()); TensorScope scope = new TensorScope()) {
      assertEquals(List.of("model.weight", "model.bias"), List.copyOf(f.tensors().keySet()));
      assertArrayEquals(new float[] {0, 0.25f, 0.5f, 0.75f, 1, 1.25f}, f.tensors().get("model.weight").toFloatArray());
      assertArrayEquals(new long[] {2, 3}, f.tensors().get("model.weight").sizes());
      assertEquals("{\"dict\":[[\"model\",{\"ordered_dict\":[[\"weight\",{\"tensor\":0}],[\"bias\",{\"tensor\":1}]]}],"
          + "[\"epoch\",5],[\"history\",[0.25,0.125]]]}", f.structure());
      Linear fc = new Linear(3, 2);
      fc.loadStateDict(f.stateDict("model"));
      Tensor y = fc.forward(Tensor.of(new float[] {1, 1, 1}, 1, 3));
      assertArrayEquals(new float[] {1.25f, 2.5f}, y.toFloatArray());
    }
  }

  @Test
  void aSavedStateDictLoadsBack() throws Exception {
    try (TensorScope scope = new TensorScope()) {
      Map<String, Tensor> state = new LinkedHashMap<>();
      state.put("w", Tensor.of(new long[] {1, 2, 3, 4}, 2, 2));
      state.put("naïve \"name\"", Tensor.of(new boolean[] {true, false}));
      try (TorchFile f = TorchFile.fromBytes(TorchFile.stateDictBytes(state))) {
        assertEquals(List.copyOf(state.keySet()), List.copyOf(f.tensors().keySet()));
        assertArrayEquals(new long[] {1, 2, 3, 4}, f.tensors().get("w").toLongArray());
        assertArrayEquals(new boolean[] {true, false}, f.tensors().get("naïve \"name\"").toBooleanArray());
      }
      Path path = Files.createTempFile("ctorch_java", ".pt");
      TorchFile.save(path.toString(), "{\"tuple\": [{\"tensor\": 0}, 3]}", List.of(state.get("w")));
      try (TorchFile f = TorchFile.load(path.toString())) {
        assertEquals("{\"tuple\":[{\"tensor\":0},3]}", f.structure());
      }
      Files.delete(path);
    }
  }

  @Test
  void damagedFilesAndBadStructuresAreRefused() throws Exception {
    byte[] bytes = Files.readAllBytes(checkpoint());
    assertThrows(FormatException.class, () -> TorchFile.fromBytes(java.util.Arrays.copyOf(bytes, bytes.length / 2)));
    try (Tensor w = Tensor.of(new float[] {1})) {
      assertThrows(FormatException.class, () -> TorchFile.toBytes("{\"tensor\": 3}", List.of(w)));
    }
    assertThrows(IoException.class, () -> TorchFile.load("/nonexistent/x.pt"));
    assertThrows(InvalidArgumentException.class, () -> TorchFile.fromBytes(null));
  }
}
