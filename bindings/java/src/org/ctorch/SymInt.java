package org.ctorch;

import java.lang.ref.Reference;
import java.util.OptionalLong;
import java.util.function.LongBinaryOperator;
import org.ctorch.jni.CTorchNative;

/**
 * An integer that is concrete or an expression over a {@link ShapeEnv}'s symbols (a tensor size
 * under tracing). Arithmetic builds expressions with Python's rules for negative floordiv and mod;
 * {@link #guardInt} demands a concrete value and records a guard.
 */
public final class SymInt extends NativeObject {
  SymInt(long handle) {
    super(handle, Kinds.SYMINT);
  }

  /**
   * A concrete value.
   *
   * @param value the value
   * @return a SymInt holding it
   */
  public static SymInt of(long value) {
    return new SymInt(CTorchNative.ct_symint_from_int(value));
  }

  private SymInt op(LongBinaryOperator fn, SymInt other) {
    try {
      return new SymInt(fn.applyAsLong(handle(), Native.handle(other, "other")));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  private SymBool cmp(LongBinaryOperator fn, SymInt other) {
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
  public SymInt add(SymInt o) {
    return op(CTorchNative::ct_symint_add, o);
  }

  /**
   * @param o the other operand
   * @return this - o
   */
  public SymInt sub(SymInt o) {
    return op(CTorchNative::ct_symint_sub, o);
  }

  /**
   * @param o the other operand
   * @return this * o
   */
  public SymInt mul(SymInt o) {
    return op(CTorchNative::ct_symint_mul, o);
  }

  /**
   * @param o the other operand
   * @return floor(this / o)
   */
  public SymInt floordiv(SymInt o) {
    return op(CTorchNative::ct_symint_floordiv, o);
  }

  /**
   * @param o the other operand
   * @return this mod o, with o's sign
   */
  public SymInt mod(SymInt o) {
    return op(CTorchNative::ct_symint_mod, o);
  }

  /**
   * @param o the exponent
   * @return this ** o
   */
  public SymInt pow(SymInt o) {
    return op(CTorchNative::ct_symint_pow, o);
  }

  /**
   * @param o the other operand
   * @return min(this, o)
   */
  public SymInt min(SymInt o) {
    return op(CTorchNative::ct_symint_min, o);
  }

  /**
   * @param o the other operand
   * @return max(this, o)
   */
  public SymInt max(SymInt o) {
    return op(CTorchNative::ct_symint_max, o);
  }

  /**
   * -this.
   *
   * @return -this
   */
  public SymInt neg() {
    try {
      return new SymInt(CTorchNative.ct_symint_neg(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * @param o the divisor
   * @return this / o as a SymFloat
   */
  public SymFloat truediv(SymInt o) {
    try {
      return new SymFloat(CTorchNative.ct_symint_truediv(handle(), Native.handle(o, "other")));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(o);
    }
  }

  /**
   * @param o the other operand
   * @return this == o
   */
  public SymBool eq(SymInt o) {
    return cmp(CTorchNative::ct_symint_eq, o);
  }

  /**
   * @param o the other operand
   * @return this != o
   */
  public SymBool ne(SymInt o) {
    return cmp(CTorchNative::ct_symint_ne, o);
  }

  /**
   * @param o the other operand
   * @return this &lt; o
   */
  public SymBool lt(SymInt o) {
    return cmp(CTorchNative::ct_symint_lt, o);
  }

  /**
   * @param o the other operand
   * @return this &lt;= o
   */
  public SymBool le(SymInt o) {
    return cmp(CTorchNative::ct_symint_le, o);
  }

  /**
   * @param o the other operand
   * @return this &gt; o
   */
  public SymBool gt(SymInt o) {
    return cmp(CTorchNative::ct_symint_gt, o);
  }

  /**
   * @param o the other operand
   * @return this &gt;= o
   */
  public SymBool ge(SymInt o) {
    return cmp(CTorchNative::ct_symint_ge, o);
  }

  /**
   * True when this is an expression over symbols.
   *
   * @return true when this is an expression over symbols
   */
  public boolean isSymbolic() {
    try {
      return CTorchNative.ct_symint_is_symbolic(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The value when concrete (no guard), else empty.
   *
   * @return the value when concrete (no guard), else empty
   */
  public OptionalLong maybeInt() {
    long[] value = new long[1];
    try {
      return CTorchNative.ct_symint_maybe_int(handle(), value) != 0 ? OptionalLong.of(value[0]) : OptionalLong.empty();
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The value from the hints, recording a guard when symbolic.
   *
   * @return the value from the hints, recording a guard when symbolic
   */
  public long guardInt() {
    try {
      return CTorchNative.ct_symint_guard_int(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The value for given values of the env's symbols (no guard).
   *
   * @param values one value per symbol, in creation order
   * @return the value
   */
  public long evaluate(long... values) {
    try {
      return CTorchNative.ct_symint_evaluate(handle(), values);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * "8", "s0", "50*s0".
   *
   * @return "8", "s0", "50*s0"
   */
  @Override
  public String toString() {
    if (isClosed()) {
      return "SymInt(closed)";
    }
    try {
      return Native.string(CTorchNative.ct_symint_to_string(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
