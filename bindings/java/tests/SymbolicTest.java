package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class SymbolicTest {
  @Test
  void symbolsBuildExpressionsAndGuardsAreCounted() {
    try (TensorScope scope = new TensorScope()) {
      ShapeEnv env = new ShapeEnv();
      SymInt s0 = env.createSymbol("s0", 8, 1, 1024);
      assertTrue(s0.isSymbolic());
      assertEquals("s0", s0.toString());
      SymInt e = s0.mul(SymInt.of(50));
      assertEquals("50*s0", e.toString());
      assertEquals(150, e.evaluate(3));
      assertFalse(e.maybeInt().isPresent());
      assertEquals(7, SymInt.of(7).maybeInt().getAsLong());
      assertEquals(0, env.numGuards());
      assertTrue(s0.gt(SymInt.of(4)).guardBool()); // hint 8 > 4: records a guard
      assertEquals(1, env.numGuards());
      assertEquals(-1, env.checkGuards(10));
      assertEquals(0, env.checkGuards(2));
      assertEquals(8, Sym.max(s0, SymInt.of(1)).guardInt());
      assertEquals(4.0, s0.truediv(SymInt.of(2)).guardFloat());
      assertEquals(-2, SymInt.of(-7).floordiv(SymInt.of(4)).guardInt()); // Python's rule
      assertEquals(1, SymInt.of(-7).mod(SymInt.of(4)).guardInt());
      assertFalse(SymBool.of(true).not().guardBool());
    }
  }

  @Test
  void symbolicMetaTensorsGoThroughOperators() {
    try (TensorScope scope = new TensorScope()) {
      ShapeEnv env = new ShapeEnv();
      SymInt s0 = env.createSymbol("s0", 4, 1, 1024);
      Tensor t = Tensor.emptySymbolic(new SymInt[] {s0, SymInt.of(100)}, DType.FLOAT32);
      assertTrue(t.isSymbolic());
      Tensor y = t.view(-1, 2);
      assertEquals("50*s0", y.symSize(0).toString());
      assertEquals("100*s0", y.symNumel().toString());
      Tensor z = Ops.call1("view", t, new SymInt[] {s0.mul(SymInt.of(10)), SymInt.of(10)});
      assertEquals("10*s0", z.symSize(0).toString());
    }
  }
}
