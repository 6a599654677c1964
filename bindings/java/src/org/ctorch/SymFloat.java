package org.ctorch;

import java.lang.ref.Reference;
import java.util.OptionalDouble;
import java.util.function.LongBinaryOperator;
import org.ctorch.jni.CTorchNative;

/** A floating number that is concrete or an expression over a {@link ShapeEnv}'s symbols. */
public final class SymFloat extends NativeObject {
  SymFloat(long handle) {
    super(handle, Kinds.SYMFLOAT);
  }

  /**
   * @param value the value
   * @return a SymFloat holding it
   */
  public static SymFloat of(double value) {
    return new SymFloat(CTorchNative.ct_symfloat_from_double(value));
  }

  private SymFloat op(LongBinaryOperator fn, SymFloat other) {
    try {
      return new SymFloat(fn.applyAsLong(handle(), Native.handle(other, "other")));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  private SymBool cmp(LongBinaryOperator fn, SymFloat other) {
    try {
      return new SymBool(fn.applyAsLong(handle(), Native.handle(other, "other")));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  /**
   * @param o the other operand
   * @return this + o
   */
  public SymFloat add(SymFloat o) {
    return op(CTorchNative::ct_symfloat_add, o);
  }

  /**
   * @param o the other operand
   * @return this - o
   */
  public SymFloat sub(SymFloat o) {
    return op(CTorchNative::ct_symfloat_sub, o);
  }

  /**
   * @param o the other operand
   * @return this * o
   */
  public SymFloat mul(SymFloat o) {
    return op(CTorchNative::ct_symfloat_mul, o);
  }

  /**
   * @param o the divisor
   * @return this / o
   */
  public SymFloat truediv(SymFloat o) {
    return op(CTorchNative::ct_symfloat_truediv, o);
  }

  /**
   * @param o the divisor
   * @return floor(this / o)
   */
  public SymFloat floordiv(SymFloat o) {
    return op(CTorchNative::ct_symfloat_floordiv, o);
  }

  /**
   * @param o the divisor
   * @return this mod o
   */
  public SymFloat mod(SymFloat o) {
    return op(CTorchNative::ct_symfloat_mod, o);
  }

  /**
   * @param o the exponent
   * @return this ** o
   */
  public SymFloat pow(SymFloat o) {
    return op(CTorchNative::ct_symfloat_pow, o);
  }

  /**
   * @param o the other operand
   * @return min(this, o)
   */
  public SymFloat min(SymFloat o) {
    return op(CTorchNative::ct_symfloat_min, o);
  }

  /**
   * @param o the other operand
   * @return max(this, o)
   */
  public SymFloat max(SymFloat o) {
    return op(CTorchNative::ct_symfloat_max, o);
  }

  /**
   * @param o the other operand
   * @return this == o
   */
  public SymBool eq(SymFloat o) {
    return cmp(CTorchNative::ct_symfloat_eq, o);
  }

  /**
   * @param o the other operand
   * @return this != o
   */
  public SymBool ne(SymFloat o) {
    return cmp(CTorchNative::ct_symfloat_ne, o);
  }

  /**
   * @param o the other operand
   * @return this &lt; o
   */
  public SymBool lt(SymFloat o) {
    return cmp(CTorchNative::ct_symfloat_lt, o);
  }

  /**
   * @param o the other operand
   * @return this &lt;= o
   */
  public SymBool le(SymFloat o) {
    return cmp(CTorchNative::ct_symfloat_le, o);
  }

  /**
   * @param o the other operand
   * @return this &gt; o
   */
  public SymBool gt(SymFloat o) {
    return cmp(CTorchNative::ct_symfloat_gt, o);
  }

  /**
   * @param o the other operand
   * @return this &gt;= o
   */
  public SymBool ge(SymFloat o) {
    return cmp(CTorchNative::ct_symfloat_ge, o);
  }

  /**
   * True when this is an expression over symbols.
   *
   * @return true when this is an expression over symbols
   */
  public boolean isSymbolic() {
    try {
      return CTorchNative.ct_symfloat_is_symbolic(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The value when concrete (no guard), else empty.
   *
   * @return the value when concrete (no guard), else empty
   */
  public OptionalDouble maybeDouble() {
    double[] value = new double[1];
    try {
      return CTorchNative.ct_symfloat_maybe_double(handle(), value) != 0 ? OptionalDouble.of(value[0]) : OptionalDouble.empty();
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The value from the hints, recording a guard when symbolic.
   *
   * @return the value from the hints, recording a guard when symbolic
   */
  public double guardFloat() {
    try {
      return Double.longBitsToDouble(CTorchNative.ct_symfloat_guard_float(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * @param values one value per symbol
   * @return the value for them (no guard)
   */
  public double evaluate(long... values) {
    try {
      return Double.longBitsToDouble(CTorchNative.ct_symfloat_evaluate(handle(), values));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The expression ("s0/2") or value.
   *
   * @return the expression ("s0/2") or value
   */
  @Override
  public String toString() {
    if (isClosed()) {
      return "SymFloat(closed)";
    }
    try {
      return Native.string(CTorchNative.ct_symfloat_to_string(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
