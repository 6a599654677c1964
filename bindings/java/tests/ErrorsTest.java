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
      CTorchException e = CTorchException.create(s.code(), "m");
      assertEquals(s == Status.OK ? Status.INTERNAL : s, e.status());
      assertEquals("m", e.getMessage());
    }
    assertEquals(Status.INTERNAL, Status.of(1000));
  }

  @Test
  void unknownOperatorMessageListsCloseNames() {
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> Ops.call("ad", Tensor.zeros(1)));
    assertTrue(e.getMessage().contains("add"), e.getMessage());
  }
}
