package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What the library refuses instead of crashing, as a Java caller meets it (docs/reliability.md). */
class ReliabilityTest {
  @Test
  void aCpuTensorWithAMetaIndexIsADeviceError() {
    try (Tensor x = Tensor.zeros(3);
        Tensor i = Tensor.of(new long[] {0, 1});
        Tensor meta = i.toDevice(Device.META)) {
      DeviceException e = assertThrows(DeviceException.class, () -> x.indexFill(0, meta, 1.0));
      assertTrue(e.getMessage().contains("expected all tensors on one device, got cpu (self [3]) and meta (index [2])"),
          e.getMessage());
    }
  }

  @Test
  void aReadOnlyBufferGivesATensorThatRefusesWrites() {
    ByteBuffer direct = ByteBuffer.allocateDirect(12).order(ByteOrder.nativeOrder());
    direct.asFloatBuffer().put(new float[] {1, 2, 3});
    try (Tensor t = Tensor.fromBuffer(direct.asReadOnlyBuffer(), DType.FLOAT32, 3);
        Tensor w = Tensor.fromBuffer(direct, DType.FLOAT32, 3);
        Tensor doubled = t.add(t)) {
      assertTrue(t.isReadOnly());
      assertFalse(w.isReadOnly());
      assertArrayEquals(new float[] {2, 4, 6}, doubled.toFloatArray());
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> t.addInPlace(t));
      assertTrue(e.getMessage().contains("read-only"), e.getMessage());
      assertEquals(1.0f, direct.getFloat(0));
    }
  }

  @Test
  void boolBytesOtherThanZeroAndOneAreRefused() {
    ByteBuffer direct = ByteBuffer.allocateDirect(2);
    direct.put(0, (byte) 1).put(1, (byte) 2);
    InvalidArgumentException e =
        assertThrows(InvalidArgumentException.class, () -> Tensor.fromBuffer(direct, DType.BOOL, 2));
    assertTrue(e.getMessage().contains("holds the byte 2"), e.getMessage());
  }

  @Test
  void aHookThatRunsBackwardThroughItselfStopsWithAnError() {
    AtomicReference<Tensor> loss = new AtomicReference<>();
    try (Tensor w = Tensor.of(new float[] {1, 2}).setRequiresGrad(true)) {
      w.registerHook(g -> {
        loss.get().backward(null, Grad.RETAIN_GRAPH);
        return null;
      });
      try (Tensor sq = w.mul(w); Tensor l = sq.sum()) {
        loss.set(l);
        CTorchException e = assertThrows(CTorchException.class, () -> l.backward(null, Grad.RETAIN_GRAPH));
        assertTrue(e.getMessage().contains("callbacks nest 32 deep"), e.getMessage());
      }
    }
  }

  @Test
  void aNumberItsDtypeCannotHoldIsRefused() {
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
        () -> Tensor.full(new long[] {2}, 300, DType.INT8, Device.CPU));
    assertTrue(e.getMessage().contains("cannot be converted to int8 without overflow"), e.getMessage());
  }
}
