package org.ctorch;

import org.ctorch.jni.CTorchNative;

/**
 * One operator overload of the registry, found by name once ({@code ct_op_find}) on its first
 * call and called by its handle from then on ({@code ct_op_call_op}), so a generated method does
 * not look its name up on every call. The library keeps overloads until the process ends.
 */
final class Op {
  private final String name;
  // Plain: two threads racing the first call both find the same overload.
  private long handle;

  Op(String name) {
    this.name = name;
  }

  long handle() {
    long h = handle;
    if (h == 0) {
      h = CTorchNative.ct_java_op_find(name);
      handle = h;
    }
    return h;
  }

  @Override
  public String toString() {
    return name;
  }
}
