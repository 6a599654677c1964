package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckpointTest {
  private static Map<String, Tensor> sample() {
    Map<String, Tensor> m = new LinkedHashMap<>();
    m.put("weight", Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3));
    m.put("step", Tensor.of(new long[] {7}));
    m.put("mask", Tensor.of(new boolean[] {true, false}));
    return m;
  }

  @Test
  void saveAndOpenRoundTripTensorsAndMetadata() throws Exception {
    Path dir = Files.createTempDirectory("ctorch-ckpt");
    Path file = dir.resolve("m.safetensors");
    try (TensorScope scope = new TensorScope()) {
      Map<String, String> meta = new LinkedHashMap<>();
      meta.put("epoch", "30");
      meta.put("note", "quote \" backslash \\ tab \t é 😀");
      Checkpoint.save(file.toString(), sample(), meta);
      try (Checkpoint ck = Checkpoint.open(file.toString())) {
        assertEquals(3, ck.size());
        // Data is ordered by dtype size (largest first), then name, as the reference writer does.
        assertEquals(List.of("step", "weight", "mask"), ck.names());
        assertTrue(ck.contains("weight"));
        assertFalse(ck.contains("bias"));
        Tensor w = ck.get("weight");
        assertArrayEquals(new long[] {2, 3}, w.sizes());
        assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, w.toFloatArray());
        assertFalse(w.requiresGrad());
        assertArrayEquals(new long[] {7}, ck.get("step").toLongArray());
        assertArrayEquals(new boolean[] {true, false}, ck.get("mask").toBooleanArray());
        assertEquals(meta, ck.metadata());
        assertEquals(3, ck.tensors().size());
      }
    } finally {
      Files.deleteIfExists(file);
      Files.delete(dir);
    }
  }

  @Test
  void bytesRoundTripAndATensorOutlivesItsCheckpoint() {
    try (TensorScope scope = new TensorScope()) {
      byte[] bytes = Checkpoint.toBytes(sample(), null);
      Tensor w;
      try (Checkpoint ck = Checkpoint.fromBytes(bytes)) {
        assertEquals(Map.of(), ck.metadata());
        assertEquals("null", ck.metadataJson());
        w = ck.get("weight");
      }
      assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, w.toFloatArray());
      Map<String, Tensor> unicode = Map.of("couche.😀", Tensor.zeros(2));
      try (Checkpoint ck = Checkpoint.fromBytes(Checkpoint.toBytes(unicode, Map.of()))) {
        assertEquals(List.of("couche.😀"), ck.names());
        assertArrayEquals(new long[] {2}, ck.get("couche.😀").sizes());
        assertEquals("{}", ck.metadataJson());
      }
    }
  }

  @Test
  void malformedBytesAreAFormatError() {
    assertThrows(FormatException.class, () -> Checkpoint.fromBytes(new byte[0]));
    assertThrows(FormatException.class, () -> Checkpoint.fromBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, '{', '}'}));
    byte[] good;
    try (TensorScope scope = new TensorScope()) {
      good = Checkpoint.toBytes(sample(), null);
    }
    FormatException e = assertThrows(FormatException.class, () -> Checkpoint.fromBytes(java.util.Arrays.copyOf(good, good.length - 1)));
    assertEquals(Status.FORMAT, e.status());
    byte[] badJson = good.clone();
    badJson[8] = 'x';
    assertThrows(FormatException.class, () -> Checkpoint.fromBytes(badJson));
    assertThrows(InvalidArgumentException.class, () -> Checkpoint.fromBytes(null));
  }

  @Test
  void missingFilesNamesAndBadArgumentsHaveTheirKinds() {
    assertThrows(IoException.class, () -> Checkpoint.open("/nonexistent/model.safetensors"));
    try (TensorScope scope = new TensorScope()) {
      Checkpoint ck = Checkpoint.fromBytes(Checkpoint.toBytes(sample(), null));
      assertThrows(IndexException.class, () -> ck.get("bias"));
      assertThrows(InvalidArgumentException.class, () -> ck.get(null));
      Tensor t = Tensor.zeros(1);
      assertThrows(InvalidArgumentException.class, () -> Checkpoint.toBytes(Map.of("__metadata__", t), null));
      assertThrows(InvalidArgumentException.class, () -> Checkpoint.toBytes(Map.of("", t), null));
      assertThrows(InvalidArgumentException.class, () -> Checkpoint.toBytes(Map.of("a\0b", t), null));
      Map<String, Tensor> withNull = new LinkedHashMap<>();
      withNull.put("a", null);
      assertThrows(InvalidArgumentException.class, () -> Checkpoint.toBytes(withNull, null));
      assertThrows(InvalidArgumentException.class, () -> Checkpoint.toBytes(null, null));
      assertThrows(IoException.class, () -> Checkpoint.save("/nonexistent/dir/m.safetensors", Map.of("a", t)));
      ck.close();
      ck.close();
      assertThrows(InvalidArgumentException.class, ck::names);
    }
  }
}
