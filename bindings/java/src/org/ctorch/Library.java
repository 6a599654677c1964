package org.ctorch;

import org.ctorch.jni.CTorchNative;

/**
 * Operators defined from Java: a schema, then a {@link Kernel} per device. They are reached with
 * {@link Ops#call} here and from every other language (and from exported programs) once
 * registered.
 *
 * <pre>{@code
 * Library.define("myext::scale(Tensor x, float factor=2.0) -> Tensor");
 * Library.impl("myext::scale", "cpu", args -> new Tensor[] {((Tensor) args[0]).mulScalar((Double) args[1])});
 * Tensor y = Ops.call1("myext::scale", x);
 * }</pre>
 */
public final class Library {
  private Library() {}

  /**
   * Registers an operator from its schema; it has no kernel until {@link #impl}.
   *
   * @param schema "ns::name(Tensor x, float factor=2.0) -&gt; Tensor"; a namespace is required
   * @throws FormatException when the schema does not parse
   */
  public static void define(String schema) {
    CTorchNative.ct_library_define(Native.text(schema, "schema"));
  }

  /**
   * Gives an operator a kernel for a device. An exception the kernel throws fails the
   * operator's call with its message ({@code myext::scale: java.lang.IllegalStateException: ...}).
   *
   * @param name "ns::name" or "ns::name.overload"
   * @param device "cpu", "meta", "cuda", or a plugin's name
   * @param kernel computes the results; may run on any thread
   */
  public static void impl(String name, String device, Kernel kernel) {
    CTorchNative.ct_java_library_impl(Native.text(name, "name"), Native.text(device, "device"), kernel);
  }

  /** How reproducible a kernel is ({@code ct_determinism}). */
  public enum Determinism {
    /** Same bits run to run. */
    DETERMINISTIC,
    /** Same bits for any thread count too. */
    BITWISE,
    /** Uses atomics: refused in deterministic mode. */
    ATOMIC
  }

  /**
   * Declares how reproducible an operator's kernel on a device is.
   *
   * @param name the operator
   * @param device the device of the kernel
   * @param determinism its reproducibility
   */
  public static void setDeterminism(String name, String device, Determinism determinism) {
    int code;
    switch (determinism) {
      case DETERMINISTIC: code = org.ctorch.jni.CTorchNativeConstants.CT_DETERMINISM_DETERMINISTIC; break;
      case BITWISE: code = org.ctorch.jni.CTorchNativeConstants.CT_DETERMINISM_BITWISE; break;
      default: code = org.ctorch.jni.CTorchNativeConstants.CT_DETERMINISM_ATOMIC; break;
    }
    CTorchNative.ct_library_set_determinism(Native.text(name, "name"), Native.text(device, "device"), code);
  }
}
