package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class ScopeTest {
  @Test
  void scopeClosesWhatWasCreatedInsideAndKeepMovesOut() {
    Tensor kept;
    Tensor inner;
    Tensor outerOnly;
    try (TensorScope outer = new TensorScope()) {
      try (TensorScope scope = new TensorScope()) {
        inner = Tensor.ones(2);
        kept = scope.keep(inner.addScalar(1));
        assertEquals(1, scope.size());
      }
      assertTrue(inner.isClosed());
      assertFalse(kept.isClosed());
      outerOnly = kept;
      assertEquals(1, outer.size());
    }
    assertTrue(outerOnly.isClosed()); // kept joined the enclosing scope
  }

  @Test
  void objectsOfOtherKindsAreClosedToo() {
    SymInt s;
    ShapeEnv env;
    try (TensorScope scope = new TensorScope()) {
      env = new ShapeEnv();
      s = env.createSymbol("s0", 2, 1, 10);
    }
    assertTrue(s.isClosed());
    assertTrue(env.isClosed());
  }
}
