package org.ctorch;

import java.lang.ref.Reference;
import org.ctorch.jni.CTorchNative;

/**
 * The environment of symbolic sizes: symbols with value ranges and the guards recorded whenever
 * a concrete answer was demanded from a symbolic value.
 */
public final class ShapeEnv extends NativeObject {
  /** A new, empty environment. */
  public ShapeEnv() {
    super(CTorchNative.ct_shape_env_create(), Kinds.SHAPE_ENV);
  }

  /**
   * A size symbol.
   *
   * @param name its name ("s0", "batch")
   * @param hint the example value guards are decided with
   * @param min the least value
   * @param max the largest value
   * @return the symbol
   */
  public SymInt createSymbol(String name, long hint, long min, long max) {
    try {
      return new SymInt(CTorchNative.ct_shape_env_create_symbol(handle(), Native.text(name, "name"), hint, min, max));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A symbol without a hint (a data-dependent value, "u0").
   *
   * @return the symbol
   */
  public SymInt createUnbacked() {
    try {
      return new SymInt(CTorchNative.ct_shape_env_create_unbacked(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The number of symbols.
   *
   * @return the count
   */
  public long numSymbols() {
    try {
      return CTorchNative.ct_shape_env_num_symbols(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The number of distinct guards recorded.
   *
   * @return the count
   */
  public long numGuards() {
    try {
      return CTorchNative.ct_shape_env_num_guards(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The guards as JSON.
   *
   * @return the JSON
   */
  public String guardsJson() {
    try {
      return Native.string(CTorchNative.ct_shape_env_guards_json(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Checks every guard for values of the symbols (in creation order).
   *
   * @param values one value per symbol
   * @return the index of the first failing guard, or -1 when all hold
   */
  public long checkGuards(long... values) {
    try {
      return CTorchNative.ct_shape_env_check_guards(handle(), values);
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
