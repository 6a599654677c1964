package org.ctorch;

import org.ctorch.jni.CTorchNative;
import org.ctorch.jni.CTorchNativeConstants;

/**
 * The Java side of the JNI trampolines (jni_callbacks.i): each method runs one callback of the
 * library, possibly on a native thread, inside its own {@link TensorScope} (tensors it creates
 * are closed when it returns; its results get a new reference for the library). No exception
 * leaves these methods: a Throwable becomes {@code ct_error_set(status, message)} and the
 * returned status, and is remembered on this thread so that the {@link CTorchException} of the
 * call that ran the callback carries it as its cause.
 */
final class Callbacks {
  private static final ThreadLocal<Throwable> PENDING = new ThreadLocal<>();

  private Callbacks() {}

  /** The status a Throwable of a callback reports. */
  static Status statusOf(Throwable t) {
    if (t instanceof CTorchException) {
      return ((CTorchException) t).status();
    } else if (t instanceof java.io.IOException || t instanceof java.io.UncheckedIOException) {
      return Status.IO;
    } else if (t instanceof IllegalArgumentException || t instanceof NullPointerException || t instanceof ClassCastException) {
      return Status.INVALID_ARGUMENT;
    } else if (t instanceof IndexOutOfBoundsException) {
      return Status.INDEX;
    } else if (t instanceof UnsupportedOperationException) {
      return Status.NOT_IMPLEMENTED;
    } else if (t instanceof OutOfMemoryError) {
      return Status.OUT_OF_MEMORY;
    }
    return Status.BACKEND;
  }

  private static String messageOf(Throwable t) {
    return t instanceof CTorchException || t instanceof IoException ? t.getMessage() : t.toString();
  }

  private static int fail(Throwable t) {
    Status status = statusOf(t);
    try {
      PENDING.set(t);
      CTorchNative.ct_error_set(status.code(), messageOf(t));
    } catch (Throwable ignored) {
      // The status still reaches the library.
    }
    return status.code();
  }

  /** The pending callback exception when message reports it (then cleared), else null. */
  static Throwable takePending(String message) {
    Throwable t = PENDING.get();
    if (t == null) {
      return null;
    }
    PENDING.remove();
    String own = messageOf(t);
    return message != null && own != null && message.contains(own) ? t : null;
  }

  /** Tensors owning a new reference to each borrowed handle (0 gives null). */
  private static Tensor[] borrow(long[] handles) {
    Tensor[] out = new Tensor[handles.length];
    for (int i = 0; i < handles.length; i++) {
      if (handles[i] != 0) {
        CTorchNative.ct_tensor_retain(handles[i]);
        out[i] = new Tensor(handles[i]);
      }
    }
    return out;
  }

  /** Writes a new reference to each result into out; nulls only where allowed. */
  private static void give(Tensor[] results, long[] out, String what, boolean nullable) {
    if (results == null || results.length != out.length) {
      throw new InvalidArgumentException(what + " returned " + (results == null ? "null" : results.length + " tensors")
          + " where " + out.length + " were declared. Return exactly that many");
    }
    for (int i = 0; i < results.length; i++) {
      if (results[i] == null && !nullable) {
        throw new InvalidArgumentException(what + " returned null as result " + i + ". Return a tensor");
      }
    }
    for (int i = 0; i < results.length; i++) {
      if (results[i] != null) {
        long h = results[i].handle();
        CTorchNative.ct_tensor_retain(h);
        out[i] = h;
      }
    }
  }

  static int traced(Object fn, long[] inputs, long[] outputs) {
    try (TensorScope scope = new TensorScope()) {
      give(((TracedFunction) fn).apply(borrow(inputs)), outputs, "the traced function", false);
      return 0;
    } catch (Throwable t) {
      return fail(t);
    }
  }

  static int forward(Object fn, long ctx, long[] inputs, long[] outputs) {
    AutogradFunction f = (AutogradFunction) fn;
    try (TensorScope scope = new TensorScope()) {
      give(f.forward().apply(new AutogradContext(ctx), borrow(inputs)), outputs, f.name() + " forward", false);
      return 0;
    } catch (Throwable t) {
      return fail(t);
    }
  }

  static int backward(Object fn, long ctx, long[] grads, long[] gradInputs) {
    AutogradFunction f = (AutogradFunction) fn;
    try (TensorScope scope = new TensorScope()) {
      give(f.backward().apply(new AutogradContext(ctx), borrow(grads)), gradInputs, f.name() + " backward", true);
      return 0;
    } catch (Throwable t) {
      return fail(t);
    }
  }

  @SuppressWarnings("unchecked")
  static int hook(Object fn, long grad, long[] replacement) {
    try (TensorScope scope = new TensorScope()) {
      Tensor result = ((java.util.function.UnaryOperator<Tensor>) fn).apply(borrow(new long[] {grad})[0]);
      give(new Tensor[] {result}, replacement, "the hook", true);
      return 0;
    } catch (Throwable t) {
      return fail(t);
    }
  }

  @SuppressWarnings("unchecked")
  static int closure(Object fn, double[] loss) {
    try (TensorScope scope = new TensorScope()) {
      loss[0] = ((java.util.function.Supplier<Tensor>) fn).get().doubleValue();
      return 0;
    } catch (Throwable t) {
      return fail(t);
    }
  }

  static int kernel(Object fn, int[] kinds, long[] ints, double[] floats, Object[] objects, long[] outs) {
    try (TensorScope scope = new TensorScope()) {
      Object[] args = new Object[kinds.length];
      for (int i = 0; i < kinds.length; i++) {
        args[i] = unbox(kinds[i], ints[i], floats[i], objects[i]);
      }
      give(((Kernel) fn).compute(args), outs, "the kernel", false);
      return 0;
    } catch (Throwable t) {
      return fail(t);
    }
  }

  /** One ct_value as the Java object a Kernel receives. */
  private static Object unbox(int kind, long i, double f, Object object) {
    switch (kind) {
      case CTorchNativeConstants.CT_VALUE_TENSOR:
        return borrow(new long[] {i})[0];
      case CTorchNativeConstants.CT_VALUE_INT:
        return i;
      case CTorchNativeConstants.CT_VALUE_FLOAT:
        return f;
      case CTorchNativeConstants.CT_VALUE_BOOL:
        return i != 0;
      case CTorchNativeConstants.CT_VALUE_INTS:
        return object;
      case CTorchNativeConstants.CT_VALUE_TENSORS:
        return borrow((long[]) object);
      case CTorchNativeConstants.CT_VALUE_DTYPE:
        return DType.of((int) i);
      case CTorchNativeConstants.CT_VALUE_DEVICE:
        return Device.parse((String) object);
      case CTorchNativeConstants.CT_VALUE_STRING:
        return object;
      case CTorchNativeConstants.CT_VALUE_SYMINT:
        CTorchNative.ct_symint_retain(i);
        return new SymInt(i);
      case CTorchNativeConstants.CT_VALUE_SYMINTS: {
        long[] hs = (long[]) object;
        SymInt[] out = new SymInt[hs.length];
        for (int k = 0; k < hs.length; k++) {
          CTorchNative.ct_symint_retain(hs[k]);
          out[k] = new SymInt(hs[k]);
        }
        return out;
      }
      default:
        return null;
    }
  }

  static void log(Object fn, int level, String message) {
    try {
      ((LogHandler) fn).log(LogLevel.of(level), message);
    } catch (Throwable t) {
      // A log handler has no caller to report to.
    }
  }

  static int memoryPressure(Object fn, int deviceType, long nbytes) {
    try {
      return ((MemoryPressureHandler) fn).onMemoryPressure(Device.Type.values()[deviceType], nbytes) ? 1 : 0;
    } catch (Throwable t) {
      return 0;
    }
  }
}
