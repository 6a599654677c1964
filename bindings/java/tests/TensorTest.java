package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class TensorTest {
  @Test
  void arraysRoundTripWithSizesAndDtype() {
    try (Tensor t = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3)) {
      assertArrayEquals(new long[] {2, 3}, t.sizes());
      assertArrayEquals(new long[] {3, 1}, t.strides());
      assertEquals(DType.FLOAT32, t.dtype());
      assertEquals(Device.CPU, t.device());
      assertEquals(6, t.numel());
      assertEquals(2, t.dim());
      assertEquals(3, t.size(-1));
      assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, t.toFloatArray());
    }
    try (Tensor l = Tensor.of(new long[] {7, -8}); Tensor b = Tensor.of(new boolean[] {true, false});
        Tensor d = Tensor.scalar(0.25); Tensor u = Tensor.ofUint8(new byte[] {(byte) 200})) {
      assertEquals(DType.INT64, l.dtype());
      assertArrayEquals(new long[] {7, -8}, l.toLongArray());
      assertArrayEquals(new boolean[] {true, false}, b.toBooleanArray());
      assertEquals(0, d.dim());
      assertEquals(0.25, d.item());
      assertEquals(200L, u.item());
    }
  }

  @Test
  void oneElementArrayWithoutSizesIsOneDimensional() {
    try (TensorScope scope = new TensorScope()) {
      assertArrayEquals(new long[] {1}, Tensor.of(new long[] {7}).sizes());
      assertArrayEquals(new long[] {1}, Tensor.of(new float[] {7}, new long[0]).sizes());
      assertArrayEquals(new long[] {0}, Tensor.of(new double[0]).sizes());
      assertEquals(0, Tensor.scalar(7L).dim());
      // A last batch of one: one row of logits and its one target.
      Tensor logits = Tensor.of(new float[] {0.5f, 2f, -1f}, 1, 3);
      double expected = Math.log(Math.exp(0.5) + Math.exp(2) + Math.exp(-1)) - 2;
      assertEquals(expected, org.ctorch.nn.Loss.crossEntropy(logits, Tensor.of(new long[] {1})).doubleValue(), 1e-6);
    }
  }

  @Test
  void dataThatDoesNotFillTheSizesIsAShapeError() {
    ShapeException e = assertThrows(ShapeException.class, () -> Tensor.of(new float[] {1, 2, 3}, 2, 2));
    assertTrue(e.getMessage().contains("3 elements"), e.getMessage());
  }

  @Test
  void toArrayConvertsAndViewsAreGathered() {
    try (Tensor t = Tensor.of(new float[] {1.5f, 2.5f, 3.5f, 4.5f}, 2, 2); Tensor tt = t.transpose(0, 1)) {
      assertFalse(tt.isContiguous());
      assertArrayEquals(new float[] {1.5f, 3.5f, 2.5f, 4.5f}, tt.toFloatArray());
      assertArrayEquals(new long[] {1, 3, 2, 4}, tt.toLongArray());
      assertArrayEquals(new double[] {1.5, 3.5, 2.5, 4.5}, tt.toDoubleArray());
    }
  }

  @Test
  void directBufferIsSharedWithoutCopy() {
    ByteBuffer buffer = ByteBuffer.allocateDirect(4 * 4).order(ByteOrder.nativeOrder());
    buffer.asFloatBuffer().put(new float[] {1, 2, 3, 4});
    try (Tensor t = Tensor.fromBuffer(buffer, DType.FLOAT32, 2, 2)) {
      buffer.putFloat(0, 10f); // a write through the buffer shows in the tensor
      assertEquals(10.0, t.toFloatArray()[0]);
      try (Tensor two = Tensor.scalar(2.0f)) {
        t.mulInPlace(two); // and the reverse
      }
      assertEquals(20f, buffer.getFloat(0));
      ByteBuffer copy = t.toByteBuffer();
      assertEquals(8f, copy.getFloat(12));
    }
  }

  @Test
  void bufferTooSmallForTheSizesIsRefused() {
    ByteBuffer buffer = ByteBuffer.allocateDirect(8);
    assertThrows(ShapeException.class, () -> Tensor.fromBuffer(buffer, DType.FLOAT32, 3));
    assertThrows(InvalidArgumentException.class, () -> Tensor.fromBuffer(ByteBuffer.allocate(8), DType.FLOAT32, 2));
  }

  @Test
  void printsLikePyTorch() {
    try (Tensor t = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2); Tensor i = Tensor.of(new int[] {1, 2})) {
      assertEquals("tensor([[1., 2.],\n        [3., 4.]])", t.toString());
      assertEquals("tensor([1, 2], dtype=int32)", i.toString());
    }
  }

  @Test
  void closeTwiceIsHarmless() {
    Tensor t = Tensor.of(new float[] {1});
    t.close();
    t.close();
    assertTrue(t.isClosed());
    assertEquals("Tensor(closed)", t.toString());
  }

  @Test
  void aClosedTensorIsAnInvalidArgumentNotACrash() {
    Tensor t = Tensor.of(new float[] {1});
    t.close();
    try (Tensor other = Tensor.of(new float[] {2})) {
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> other.add(t));
      assertTrue(e.getMessage().contains("closed"), e.getMessage());
      assertThrows(InvalidArgumentException.class, t::sizes);
      assertThrows(InvalidArgumentException.class, () -> t.add(other));
    }
  }

  @Test
  void nullArgumentsAreInvalidArguments() {
    try (Tensor t = Tensor.of(new float[] {1})) {
      assertThrows(InvalidArgumentException.class, () -> t.add((Tensor) null));
      assertThrows(InvalidArgumentException.class, () -> t.matmul(null));
      assertThrows(InvalidArgumentException.class, () -> Tensor.cat(null));
      assertThrows(InvalidArgumentException.class, () -> Tensor.cat(new Tensor[] {t, null}));
      assertThrows(InvalidArgumentException.class, () -> Tensor.of((float[]) null));
      assertThrows(InvalidArgumentException.class, () -> t.to(null));
    }
  }

  @Test
  void shareIsAnotherReferenceToTheSameElements() {
    Tensor t = Tensor.of(new float[] {1, 2});
    Tensor s = t.share();
    t.close();
    assertArrayEquals(new float[] {1, 2}, s.toFloatArray());
    s.close();
  }

  @Test
  void scalarsKeepTheirJavaType() {
    try (Tensor f = Tensor.scalar(1.5f); Tensor d = Tensor.scalar(1.5); Tensor l = Tensor.scalar(3); Tensor b = Tensor.scalar(true)) {
      assertEquals(DType.FLOAT32, f.dtype());
      assertEquals(DType.FLOAT64, d.dtype());
      assertEquals(DType.INT64, l.dtype());
      assertEquals(Boolean.TRUE, b.item());
      assertEquals(3L, l.longValue());
      assertEquals(1.5, f.doubleValue());
    }
  }

  @Test
  void metaTensorsHaveSizesButNoData() {
    try (Tensor m = Tensor.zeros(new long[] {2, 3}, DType.FLOAT32, Device.META)) {
      assertEquals(Device.META, m.device());
      assertArrayEquals(new long[] {2, 3}, m.sizes());
      assertThrows(DeviceException.class, m::toFloatArray);
    }
    assertEquals(Device.cuda(1), Device.parse("cuda:1"));
    assertThrows(DeviceException.class, () -> Device.parse("nowhere"));
  }
}
