package org.ctorch;

import java.lang.ref.Reference;
import java.util.function.LongBinaryOperator;
import java.util.function.LongUnaryOperator;
import org.ctorch.jni.CTorchNative;

/**
 * Helpers between org.ctorch objects and the SWIG functions: null checks that throw
 * {@link InvalidArgumentException}, the typed fast paths of generated operators, strings and
 * handle arrays. Every call keeps its Java objects reachable until the native call returned
 * ({@link Reference#reachabilityFence}), so the cleaner thread never releases a handle in use.
 */
final class Native {
  private Native() {}

  /** The handle of a non-null object. */
  static long handle(NativeObject o, String what) {
    if (o == null) {
      throw new InvalidArgumentException("argument " + what + " is null. Pass an object (or use the overload without it)");
    }
    return o.handle();
  }

  /** A tensor operator of one tensor through its typed C function. */
  static Tensor unary(LongUnaryOperator fn, Tensor a) {
    try {
      return new Tensor(fn.applyAsLong(a.handle()));
    } finally {
      Reference.reachabilityFence(a);
    }
  }

  /** A tensor operator of two tensors through its typed C function. */
  static Tensor binary(LongBinaryOperator fn, Tensor a, Tensor b, String name) {
    try {
      return new Tensor(fn.applyAsLong(a.handle(), handle(b, name)));
    } finally {
      Reference.reachabilityFence(a);
      Reference.reachabilityFence(b);
    }
  }

  /** An in-place operator of two tensors through its typed C function: returns a. */
  static Tensor inPlace(LongBinaryOperator fn, Tensor a, Tensor b, String name) {
    try {
      fn.applyAsLong(a.handle(), handle(b, name));
      return a;
    } finally {
      Reference.reachabilityFence(a);
      Reference.reachabilityFence(b);
    }
  }

  /** The String of a char* the library returned (freed). */
  static String string(long chars) {
    return CTorchNative.ct_java_take_string(chars);
  }

  /** The handles of objects (none may be null). */
  static long[] handles(NativeObject[] objects, String what) {
    if (objects == null) {
      throw new InvalidArgumentException("argument " + what + " is null. Pass an array");
    }
    long[] out = new long[objects.length];
    for (int i = 0; i < objects.length; i++) {
      out[i] = handle(objects[i], what + "[" + i + "]");
    }
    return out;
  }

  /** Tensors owning the new references in handles (0 becomes null). */
  static Tensor[] tensors(long[] handles) {
    Tensor[] out = new Tensor[handles.length];
    for (int i = 0; i < handles.length; i++) {
      out[i] = handles[i] == 0 ? null : new Tensor(handles[i]);
    }
    return out;
  }

  /** A non-null string argument. */
  static String text(String s, String what) {
    if (s == null) {
      throw new InvalidArgumentException("argument " + what + " is null");
    }
    return s;
  }

  /** The code of a non-null dtype. */
  static int handleDtype(DType d) {
    if (d == null) {
      throw new InvalidArgumentException("argument dtype is null. Pass a DType");
    }
    return d.code();
  }

  /**
   * A guard that runs restore once, when closed on the thread that opened it (the switches it
   * restores are per thread: a close from another thread would restore that thread's).
   */
  static Guard threadGuard(Runnable restore) {
    Thread owner = Thread.currentThread();
    return new Guard() {
      private boolean closed;

      @Override
      public void close() {
        if (!closed && Thread.currentThread() == owner) {
          closed = true;
          restore.run();
        }
      }
    };
  }
}
