package org.ctorch;

import org.ctorch.jni.CTorchNative;
import org.ctorch.jni.CTorchNativeConstants;

/**
 * Options of {@link CTorch#compile}, with torch.compile's defaults; each setter validates its
 * value at once and returns this options object. {@code compile} copies what it needs.
 *
 * <pre>{@code
 * try (var o = new CompileOptions().dynamic(CompileOptions.Dynamic.AUTOMATIC).name("gelu")) { ... }
 * }</pre>
 */
public final class CompileOptions extends NativeObject {
  /** When sizes become symbolic ({@code ct_dynamic}). */
  public enum Dynamic {
    /** Every size static. */
    OFF(CTorchNativeConstants.CT_DYNAMIC_OFF),
    /** Every size of 2 or more symbolic from the first trace. */
    ON(CTorchNativeConstants.CT_DYNAMIC_ON),
    /** Sizes that change between calls become symbolic (the default). */
    AUTOMATIC(CTorchNativeConstants.CT_DYNAMIC_AUTOMATIC);

    private final int code;

    Dynamic(int code) {
      this.code = code;
    }
  }

  /** Options with the defaults: backend "fused", mode "default", dynamic automatic, limit 8. */
  public CompileOptions() {
    super(CTorchNative.ct_compile_options_create(), Kinds.COMPILE_OPTIONS);
  }

  /**
   * The backend.
   *
   * @param backend "fused" or "eager"
   * @return this
   */
  public CompileOptions backend(String backend) {
    CTorchNative.ct_compile_options_set_backend(handle(), Native.text(backend, "backend"));
    return this;
  }

  /**
   * The mode (not together with {@link #option}).
   *
   * @param mode "default", "reduce-overhead" or "max-autotune" (cpu kernels built as C++ by the
   *     system compiler while compiling: the option "cpp_kernels" "true")
   * @return this
   */
  public CompileOptions mode(String mode) {
    CTorchNative.ct_compile_options_set_mode(handle(), Native.text(mode, "mode"));
    return this;
  }

  /**
   * A pass switch or setting.
   *
   * @param key "fusion", "cse", "dce", "constant_folding" (booleans, "true" by default);
   *     "cpp_kernels" ("auto" by default: a cpu kernel is built as C++ by the system compiler in the
   *     background once it has run its loops for "cpp_kernels_hot_ms", see {@link
   *     Compiled#waitKernels}; "true": all of them while compiling; "false": never);
   *     "cpp_kernels_hot_ms" (milliseconds, "20" by default)
   * @param value "true" or "false", "auto", or a number
   * @return this
   */
  public CompileOptions option(String key, String value) {
    CTorchNative.ct_compile_options_set_option(handle(), Native.text(key, "key"), Native.text(value, "value"));
    return this;
  }

  /**
   * When sizes become symbolic.
   *
   * @param dynamic the policy
   * @return this
   */
  public CompileOptions dynamic(Dynamic dynamic) {
    CTorchNative.ct_compile_options_set_dynamic(handle(), dynamic.code);
    return this;
  }

  /**
   * Whether a graph break is an error ({@link GraphBreakException}) instead of an eager fallback.
   *
   * @param fullgraph true to refuse breaks
   * @return this
   */
  public CompileOptions fullgraph(boolean fullgraph) {
    CTorchNative.ct_compile_options_set_fullgraph(handle(), fullgraph ? 1 : 0);
    return this;
  }

  /**
   * Entries per function before calls that miss run eagerly.
   *
   * @param limit at least 1
   * @return this
   */
  public CompileOptions recompileLimit(long limit) {
    CTorchNative.ct_compile_options_set_recompile_limit(handle(), limit);
    return this;
  }

  /**
   * The name used in messages and metrics.
   *
   * @param name the name
   * @return this
   */
  public CompileOptions name(String name) {
    CTorchNative.ct_compile_options_set_name(handle(), Native.text(name, "name"));
    return this;
  }

  /**
   * Whether calls run the function eagerly.
   *
   * @param disable true to skip compilation
   * @return this
   */
  public CompileOptions disable(boolean disable) {
    CTorchNative.ct_compile_options_set_disable(handle(), disable ? 1 : 0);
    return this;
  }
}
