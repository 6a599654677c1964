package org.ctorch;

import org.ctorch.jni.CTorchNative;

/** How each kind of handle is named in messages and released. */
final class Kinds {
  private Kinds() {}

  /** One kind of handle: a name for messages and its release function. */
  interface Kind {
    String name();

    void release(long handle);
  }

  static Kind of(String name, java.util.function.LongConsumer release) {
    return new Kind() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void release(long handle) {
        release.accept(handle);
      }
    };
  }

  static final Kind TENSOR = of("Tensor", CTorchNative::ct_tensor_release);
  static final Kind GENERATOR = of("Generator", CTorchNative::ct_generator_release);
  static final Kind SHAPE_ENV = of("ShapeEnv", CTorchNative::ct_shape_env_release);
  static final Kind SYMINT = of("SymInt", CTorchNative::ct_symint_release);
  static final Kind SYMFLOAT = of("SymFloat", CTorchNative::ct_symfloat_release);
  static final Kind SYMBOOL = of("SymBool", CTorchNative::ct_symbool_release);
  static final Kind COMPILE_OPTIONS = of("CompileOptions", CTorchNative::ct_compile_options_release);
  static final Kind COMPILED = of("Compiled", CTorchNative::ct_compiled_release);
  static final Kind DYNAMIC_SHAPES = of("DynamicShapes", CTorchNative::ct_dynamic_shapes_release);
  static final Kind PROGRAM = of("Program", CTorchNative::ct_program_release);
  static final Kind CHECKPOINT = of("Checkpoint", CTorchNative::ct_checkpoint_release);
}
