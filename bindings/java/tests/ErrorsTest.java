package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class ErrorsTest {
  @Test
  void shapeErrorCarriesKindOperatorAndShapes() {
    try (Tensor a = Tensor.zeros(4, 3); Tensor b = Tensor.zeros(2, 3)) {
      ShapeException e = assertThrows(ShapeException.class, () -> a.add(b));
      assertEquals(Status.SHAPE, e.status());
      assertEquals("add: shapes [4, 3] and [2, 3] do not broadcast (dim 0: 4 vs 2). Make the sizes equal, or one of them 1",
          e.getMessage());
      assertTrue(e.toString().contains("CT_ERROR_SHAPE"));
    }
  }

  @Test
  void matmulInnerSizesNameBothShapes() {
    try (Tensor a = Tensor.zeros(8, 5); Tensor b = Tensor.zeros(4, 6)) {
      ShapeException e = assertThrows(ShapeException.class, () -> a.matmul(b));
      assertTrue(e.getMessage().startsWith("matmul: "), e.getMessage());
      assertTrue(e.getMessage().contains("[8, 5]") && e.getMessage().contains("[4, 6]"), e.getMessage());
    }
  }

  @Test
  void eachStatusHasItsSubclass() {
    try (Tensor a = Tensor.zeros(2); Tensor i = Tensor.of(new long[] {1})) {
      assertThrows(IndexException.class, () -> a.size(5));
      assertThrows(DTypeException.class, a::bitwiseNot); // float bits
      assertEquals(DType.INT64, i.bitwiseNot().dtype());
      assertThrows(InvalidArgumentException.class, () -> Ops.call("no_such_operator", a));
      assertThrows(IoException.class, () -> Program.load("/nonexistent/model.ctp"));
      assertThrows(FormatException.class, () -> Library.define("myext::broken(Tensor x -> Tensor"));
    }
    for (Status s : Status.values()) {
      Exception e = CTorchException.create(s.code(), "m");
      Status kind = e instanceof IoException ? ((IoException) e).status() : ((CTorchException) e).status();
      assertEquals(s == Status.OK ? Status.INTERNAL : s, kind);
      assertEquals(s == Status.IO, e instanceof java.io.IOException, s.name());
      assertEquals("m", e.getMessage());
    }
    assertEquals(Status.INTERNAL, Status.of(1000));
  }

  @Test
  void missingFilesAreWhatJavaCatchesAsIOException() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("ctorch-io");
    String missing = dir.resolve("missing").toString();
    try {
      Checkpoint.open(missing + ".safetensors").close();
      fail("opened a missing checkpoint");
    } catch (java.io.IOException e) {
      assertTrue(e.getMessage().contains(missing + ".safetensors"), e.getMessage());
      assertEquals(Status.IO, ((IoException) e).status());
      assertTrue(e.toString().contains("CT_ERROR_IO"), e.toString());
    }
    try {
      Program.load(missing + ".ctp").close();
      fail("loaded a missing program");
    } catch (java.io.IOException e) {
      assertTrue(e.getMessage().contains(missing + ".ctp"), e.getMessage());
    }
    try {
      TorchFile.load(missing + ".pt").close();
      fail("loaded a missing torch file");
    } catch (java.io.IOException e) {
      assertTrue(e.getMessage().contains(missing + ".pt"), e.getMessage());
    }
    try (Tensor t = Tensor.zeros(2)) {
      Checkpoint.save(dir.resolve("no/such/dir/m.safetensors").toString(), java.util.Map.of("t", t));
      fail("saved into a missing directory");
    } catch (java.io.IOException e) {
      assertTrue(e.getMessage().contains("no/such/dir"), e.getMessage());
    }
    java.nio.file.Files.delete(dir);
  }

  @Test
  void unknownOperatorMessageListsCloseNames() {
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> Ops.call("ad", Tensor.zeros(1)));
    assertTrue(e.getMessage().contains("add"), e.getMessage());
  }
}
