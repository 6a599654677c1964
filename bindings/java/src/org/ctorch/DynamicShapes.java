package org.ctorch;

import org.ctorch.jni.CTorchNative;

/** Which input dimensions of {@link Program#export} are dynamic, and their ranges. */
public final class DynamicShapes extends NativeObject {
  /** No dynamic dimension yet: every size static. */
  public DynamicShapes() {
    super(CTorchNative.ct_dynamic_shapes_create(), Kinds.DYNAMIC_SHAPES);
  }

  /**
   * Declares a dimension dynamic. Dimensions declared with one name are one symbol.
   *
   * @param input the input's position
   * @param dim the dimension (negative counts from the end)
   * @param name the symbol's name ("batch")
   * @param min the least size
   * @param max the largest size (Long.MAX_VALUE: no bound)
   * @return this
   */
  public DynamicShapes dim(long input, long dim, String name, long min, long max) {
    CTorchNative.ct_dynamic_shapes_set_dim(handle(), input, dim, Native.text(name, "name"), min, max);
    return this;
  }
}
