package org.ctorch;

import java.lang.ref.Reference;
import org.ctorch.jni.CTorchNative;

/** Builders of symbolic expressions that record no guard (torch's sym_max, sym_ite...). */
public final class Sym {
  private Sym() {}

  /**
   * @param xs the operands
   * @return max(xs), one n-ary node
   */
  public static SymInt max(SymInt... xs) {
    try {
      return new SymInt(CTorchNative.ct_sym_max(Native.handles(xs, "xs")));
    } finally {
      Reference.reachabilityFence(xs);
    }
  }

  /**
   * @param xs the operands
   * @return min(xs), one n-ary node
   */
  public static SymInt min(SymInt... xs) {
    try {
      return new SymInt(CTorchNative.ct_sym_min(Native.handles(xs, "xs")));
    } finally {
      Reference.reachabilityFence(xs);
    }
  }

  /**
   * @param xs the operands
   * @return their sum, one n-ary node
   */
  public static SymInt sum(SymInt... xs) {
    try {
      return new SymInt(CTorchNative.ct_sym_sum(Native.handles(xs, "xs")));
    } finally {
      Reference.reachabilityFence(xs);
    }
  }

  /**
   * c ? a : b without a guard.
   *
   * @param c the condition
   * @param a the value when c holds
   * @param b the value otherwise
   * @return the expression
   */
  public static SymInt ite(SymBool c, SymInt a, SymInt b) {
    try {
      return new SymInt(CTorchNative.ct_sym_ite(Native.handle(c, "c"), Native.handle(a, "a"), Native.handle(b, "b")));
    } finally {
      Reference.reachabilityFence(c);
      Reference.reachabilityFence(a);
      Reference.reachabilityFence(b);
    }
  }

  /**
   * c ? a : b for floats, without a guard.
   *
   * @param c the condition
   * @param a the value when c holds
   * @param b the value otherwise
   * @return the expression
   */
  public static SymFloat ite(SymBool c, SymFloat a, SymFloat b) {
    try {
      return new SymFloat(CTorchNative.ct_sym_ite_float(Native.handle(c, "c"), Native.handle(a, "a"), Native.handle(b, "b")));
    } finally {
      Reference.reachabilityFence(c);
      Reference.reachabilityFence(a);
      Reference.reachabilityFence(b);
    }
  }

  /**
   * @param a an integer
   * @return a as a SymFloat
   */
  public static SymFloat toFloat(SymInt a) {
    try {
      return new SymFloat(CTorchNative.ct_sym_float(Native.handle(a, "a")));
    } finally {
      Reference.reachabilityFence(a);
    }
  }

  /**
   * @param a a float
   * @return a truncated to a SymInt
   */
  public static SymInt toInt(SymFloat a) {
    try {
      return new SymInt(CTorchNative.ct_sym_int(Native.handle(a, "a")));
    } finally {
      Reference.reachabilityFence(a);
    }
  }
}
