package org.ctorch;

import java.lang.ref.Reference;
import java.util.Optional;
import java.util.function.LongBinaryOperator;
import org.ctorch.jni.CTorchNative;

/** A boolean that is concrete or an expression over a {@link ShapeEnv}'s symbols. */
public final class SymBool extends NativeObject {
  SymBool(long handle) {
    super(handle, Kinds.SYMBOOL);
  }

  /**
   * @param value the value
   * @return a SymBool holding it
   */
  public static SymBool of(boolean value) {
    return new SymBool(CTorchNative.ct_symbool_from_bool(value ? 1 : 0));
  }

  private SymBool op(LongBinaryOperator fn, SymBool other) {
    try {
      return new SymBool(fn.applyAsLong(handle(), Native.handle(other, "other")));
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  /**
   * @param o the other operand
   * @return this and o
   */
  public SymBool and(SymBool o) {
    return op(CTorchNative::ct_symbool_and, o);
  }

  /**
   * @param o the other operand
   * @return this or o
   */
  public SymBool or(SymBool o) {
    return op(CTorchNative::ct_symbool_or, o);
  }

  /**
   * Not this, without a guard.
   *
   * @return not this, without a guard
   */
  public SymBool not() {
    try {
      return new SymBool(CTorchNative.ct_sym_not(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * True when this is an expression over symbols.
   *
   * @return true when this is an expression over symbols
   */
  public boolean isSymbolic() {
    try {
      return CTorchNative.ct_symbool_is_symbolic(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The value when concrete (no guard), else empty.
   *
   * @return the value when concrete (no guard), else empty
   */
  public Optional<Boolean> maybeBool() {
    int[] value = new int[1];
    try {
      return CTorchNative.ct_symbool_maybe_bool(handle(), value) != 0 ? Optional.of(value[0] != 0) : Optional.empty();
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The value from the hints, recording a guard when symbolic.
   *
   * @return the value from the hints, recording a guard when symbolic
   */
  public boolean guardBool() {
    try {
      return CTorchNative.ct_symbool_guard_bool(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * @param values one value per symbol
   * @return the value for them (no guard)
   */
  public boolean evaluate(long... values) {
    try {
      return CTorchNative.ct_symbool_evaluate(handle(), values) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The expression ("s0 &lt;= 1024") or value.
   *
   * @return the expression ("s0 &lt;= 1024") or value
   */
  @Override
  public String toString() {
    if (isClosed()) {
      return "SymBool(closed)";
    }
    try {
      return Native.string(CTorchNative.ct_symbool_to_string(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
