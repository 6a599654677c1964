package org.ctorch;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/**
 * The elementwise math operators defined once by their element functions (docs/extending.md),
 * called through the generated methods and checked against values worked out here: each is
 * reachable from Java with its argument order, overloads and result dtype.
 */
class SpecialMathTest {
  private static final double EULER = 0.5772156649015329;

  private static void close(double[] want, Tensor got) {
    double[] g = got.to(DType.FLOAT64).toDoubleArray();
    assertEquals(want.length, g.length);
    for (int i = 0; i < g.length; i++) {
      if (Double.isNaN(want[i])) {
        assertTrue(Double.isNaN(g[i]), "element " + i + " is " + g[i]);
      } else {
        assertEquals(want[i], g[i], 1e-12 * Math.max(1, Math.abs(want[i])), "element " + i);
      }
    }
  }

  @Test
  void binaryMath() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new double[] {1, -2, 0.5});
      Tensor b = Tensor.of(new double[] {-3, 4, 0.25});
      close(new double[] {-1, 2, 0.5}, a.copysign(b));
      close(new double[] {-1, -2, -0.5}, a.copysignScalar(-1.0));
      close(new double[] {Math.log(Math.exp(1) + Math.exp(-3)), Math.log(Math.exp(-2) + Math.exp(4)),
          Math.log(Math.exp(0.5) + Math.exp(0.25))}, a.logaddexp(b));
      close(new double[] {Math.hypot(1, -3), Math.hypot(-2, 4), Math.hypot(0.5, 0.25)}, a.hypot(b));
      close(new double[] {1, 4, 0.5}, a.fmax(Tensor.of(new double[] {Double.NaN, 4, 0})));
      close(new double[] {1, -2, 0}, a.fmin(Tensor.of(new double[] {Double.NaN, 4, 0})));
      close(new double[] {1, 0, 1}, a.heaviside(Tensor.of(new double[] {7, 7, 7})));
      close(new double[] {Math.pow(1, -3), Math.pow(-2, 4), Math.pow(0.5, 0.25)}, a.floatPower(b));
      // floatPowerInPlace writes its float64 result into a float64 self, and refuses any other.
      Tensor c = Tensor.of(new double[] {1, -2, 0.5});
      c.floatPowerInPlace(b);
      close(new double[] {Math.pow(1, -3), Math.pow(-2, 4), Math.pow(0.5, 0.25)}, c);
      assertThrows(DTypeException.class,
          () -> Tensor.of(new float[] {1, 2}).floatPowerTensorScalarInPlace(2.0));
      close(new double[] {Math.nextAfter(1.0, -3.0), Math.nextAfter(-2.0, 4.0), Math.nextAfter(0.5, 0.25)},
          a.nextafter(b));
      Tensor x = Tensor.of(new double[] {0, 2});
      Tensor y = Tensor.of(new double[] {0, 3});
      close(new double[] {0, 2 * Math.log(3)}, x.xlogy(y));
      close(new double[] {0, 2 * Math.log(3)}, x.xlogyScalarOther(3.0));
      close(new double[] {Double.NEGATIVE_INFINITY, 2 * Math.log(3)}, Tensor.xlogyScalarSelf(2.0, y));
      close(new double[] {8, -1, 2}, a.ldexp(Tensor.of(new long[] {3, -1, 2})));
    }
  }

  @Test
  void integerMathKeepsIntegers() {
    try (TensorScope scope = new TensorScope()) {
      Tensor a = Tensor.of(new long[] {12, -18, 0, 7});
      Tensor b = Tensor.of(new long[] {18, 12, 5, 0});
      Tensor g = a.gcd(b);
      assertEquals(DType.INT64, g.dtype());
      assertArrayEquals(new long[] {6, 6, 5, 7}, g.toLongArray());
      assertArrayEquals(new long[] {36, 36, 0, 0}, a.lcm(b).toLongArray());
    }
  }

  @Test
  void unaryMath() {
    try (TensorScope scope = new TensorScope()) {
      Tensor x = Tensor.of(new double[] {0, 0.5, -1.5});
      close(new double[] {1, Math.sin(Math.PI * 0.5) / (Math.PI * 0.5), Math.sin(Math.PI * -1.5) / (Math.PI * -1.5)},
          x.sinc());
      close(new double[] {0, Math.toRadians(0.5), Math.toRadians(-1.5)}, x.deg2rad());
      close(new double[] {0, Math.toDegrees(0.5), Math.toDegrees(-1.5)}, x.rad2deg());
      close(new double[] {0, 0, -1}, x.fix());
      Tensor sign = Tensor.of(new double[] {-0.0, 0.0, -3}).signbit();
      assertEquals(DType.BOOL, sign.dtype());
      assertArrayEquals(new boolean[] {true, false, true}, sign.toBooleanArray());
      Tensor pos = Tensor.of(new double[] {1, 2, 0.5});
      close(new double[] {0, 0, Math.log(Math.sqrt(Math.PI))}, pos.lgamma());
      close(new double[] {-EULER, 1 - EULER, -EULER - 2 * Math.log(2)}, pos.digamma());
      // polygamma(n, x) takes n first, as torch.polygamma does; its series (torch's) is good to ~1e-9.
      assertEquals(Math.PI * Math.PI / 6, Tensor.polygamma(1, Tensor.of(new double[] {1})).doubleValue(), 1e-8);
      close(new double[] {1}, Tensor.of(new double[] {0}).i0());
      close(new double[] {Math.log(0.25 / 0.75), 0}, Tensor.of(new double[] {0.25, 0.5}).logit());
      close(new double[] {Math.log(0.25 / 0.75)}, Tensor.of(new double[] {0}).logit(0.25));
    }
  }

  @Test
  void frexpReturnsMantissaAndExponent() {
    try (TensorScope scope = new TensorScope()) {
      Tensor[] r = Tensor.of(new double[] {8, -0.75, 0}).frexp();
      assertEquals(2, r.length);
      close(new double[] {0.5, -0.75, 0}, r[0]);
      assertEquals(DType.INT32, r[1].dtype());
      assertArrayEquals(new int[] {4, 0, 0}, r[1].toIntArray());
    }
  }
}
