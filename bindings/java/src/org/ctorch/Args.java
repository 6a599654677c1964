package org.ctorch;

import java.lang.ref.Reference;
import org.ctorch.jni.CTorchNative;
import org.ctorch.jni.CTorchNativeConstants;

/**
 * Boxed arguments of {@code ct_op_call} and {@code ct_op_call_op}, in the encoding their JNI helpers
 * ({@code ct_java_op_call}, {@code ct_java_op_call_op}) read: one kind
 * per argument, its integer (a handle, an int, a bool, a dtype), its double, and its object (a
 * long[] for lists of ints, tensors and symbolic ints; a String for devices and strings). The
 * Java objects stay reachable until the call returned. Up to four arguments without objects are
 * kept in fields and passed as primitives ({@code ct_java_op_call_op4}).
 */
final class Args {
  // The first FIELDS arguments of a call live in fields while none of them has an object: most
  // generated methods then allocate no array and cross JNI with primitives only
  // (ct_java_op_call_op4). A fifth argument or an object moves them into the arrays.
  private static final int FIELDS = 4;
  private int k0, k1, k2, k3;
  private long i0, i1, i2, i3;
  private double f0, f1, f2, f3;
  private Object keep0, keep1, keep2, keep3;
  private final int capacity;
  private int[] kinds;
  private long[] ints;
  private double[] floats;
  private Object[] objects;
  private Object[] alive;
  private int n;

  Args(int capacity) {
    this.capacity = Math.max(capacity, FIELDS + 1);
  }

  private Args put(int kind, long i, double f, Object object, Object keep) {
    if (kinds == null && n < FIELDS && object == null) {
      switch (n) {
        case 0: k0 = kind; i0 = i; f0 = f; keep0 = keep; break;
        case 1: k1 = kind; i1 = i; f1 = f; keep1 = keep; break;
        case 2: k2 = kind; i2 = i; f2 = f; keep2 = keep; break;
        default: k3 = kind; i3 = i; f3 = f; keep3 = keep; break;
      }
      n++;
      return this;
    }
    if (kinds == null) {
      spill();
    }
    kinds[n] = kind;
    ints[n] = i;
    floats[n] = f;
    objects[n] = object;
    alive[n] = keep;
    n++;
    return this;
  }

  /** Moves the arguments held in fields into the arrays the general JNI call reads. */
  private void spill() {
    kinds = new int[capacity];
    ints = new long[capacity];
    floats = new double[capacity];
    objects = new Object[capacity];
    alive = new Object[capacity];
    if (n > 0) {
      set(0, k0, i0, f0, keep0);
    }
    if (n > 1) {
      set(1, k1, i1, f1, keep1);
    }
    if (n > 2) {
      set(2, k2, i2, f2, keep2);
    }
    if (n > 3) {
      set(3, k3, i3, f3, keep3);
    }
  }

  private void set(int a, int kind, long i, double f, Object keep) {
    kinds[a] = kind;
    ints[a] = i;
    floats[a] = f;
    alive[a] = keep;
  }

  Args none() {
    return put(CTorchNativeConstants.CT_VALUE_NONE, 0, 0, null, null);
  }

  Args tensor(Tensor t, String name) {
    return put(CTorchNativeConstants.CT_VALUE_TENSOR, Native.handle(t, name), 0, null, t);
  }

  Args optTensor(Tensor t, String name) {
    return t == null ? none() : tensor(t, name);
  }

  Args tensors(Tensor[] ts, String name) {
    return put(CTorchNativeConstants.CT_VALUE_TENSORS, 0, 0, Native.handles(ts, name), ts);
  }

  Args integer(long v) {
    return put(CTorchNativeConstants.CT_VALUE_INT, v, 0, null, null);
  }

  Args optInteger(Long v) {
    return v == null ? none() : integer(v);
  }

  Args ints(long[] v, String name) {
    if (v == null) {
      throw new InvalidArgumentException("argument " + name + " is null. Pass an array (empty for none)");
    }
    return put(CTorchNativeConstants.CT_VALUE_INTS, 0, 0, v.clone(), null);
  }

  Args optInts(long[] v, String name) {
    return v == null ? none() : ints(v, name);
  }

  Args real(double v) {
    return put(CTorchNativeConstants.CT_VALUE_FLOAT, 0, v, null, null);
  }

  Args optReal(Double v) {
    return v == null ? none() : real(v);
  }

  Args bool(boolean v) {
    return put(CTorchNativeConstants.CT_VALUE_BOOL, v ? 1 : 0, 0, null, null);
  }

  Args optBool(Boolean v) {
    return v == null ? none() : bool(v);
  }

  /** A Scalar: Long, Integer, Short and Byte are ints, other Numbers doubles. */
  Args scalar(Number v, String name) {
    if (v == null) {
      throw new InvalidArgumentException("argument " + name + " is null. Pass a number");
    }
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return integer(v.longValue());
    }
    return real(v.doubleValue());
  }

  Args optScalar(Number v, String name) {
    return v == null ? none() : scalar(v, name);
  }

  Args dtype(DType d, String name) {
    if (d == null) {
      throw new InvalidArgumentException("argument " + name + " is null. Pass a DType");
    }
    return put(CTorchNativeConstants.CT_VALUE_DTYPE, d.code(), 0, null, null);
  }

  Args optDtype(DType d, String name) {
    return d == null ? none() : dtype(d, name);
  }

  Args device(Device d, String name) {
    if (d == null) {
      throw new InvalidArgumentException("argument " + name + " is null. Pass a Device");
    }
    return put(CTorchNativeConstants.CT_VALUE_DEVICE, 0, 0, d.toString(), null);
  }

  Args optDevice(Device d, String name) {
    return d == null ? none() : device(d, name);
  }

  Args string(String s, String name) {
    return put(CTorchNativeConstants.CT_VALUE_STRING, 0, 0, Native.text(s, name), null);
  }

  Args optString(String s, String name) {
    return s == null ? none() : string(s, name);
  }

  Args symint(SymInt s, String name) {
    return put(CTorchNativeConstants.CT_VALUE_SYMINT, Native.handle(s, name), 0, null, s);
  }

  Args symints(SymInt[] s, String name) {
    return put(CTorchNativeConstants.CT_VALUE_SYMINTS, 0, 0, Native.handles(s, name), s);
  }

  /** Any Java value Ops.call accepts, by its class. */
  Args value(Object v, int position) {
    String name = "args[" + position + "]";
    if (v == null) {
      return none();
    } else if (v instanceof Tensor) {
      return tensor((Tensor) v, name);
    } else if (v instanceof Tensor[]) {
      return tensors((Tensor[]) v, name);
    } else if (v instanceof Boolean) {
      return bool((Boolean) v);
    } else if (v instanceof Number) {
      return scalar((Number) v, name);
    } else if (v instanceof long[]) {
      return ints((long[]) v, name);
    } else if (v instanceof int[]) {
      return ints(java.util.Arrays.stream((int[]) v).asLongStream().toArray(), name);
    } else if (v instanceof DType) {
      return dtype((DType) v, name);
    } else if (v instanceof Device) {
      return device((Device) v, name);
    } else if (v instanceof String) {
      return string((String) v, name);
    } else if (v instanceof SymInt) {
      return symint((SymInt) v, name);
    } else if (v instanceof SymInt[]) {
      return symints((SymInt[]) v, name);
    }
    throw new InvalidArgumentException("Ops.call: " + name + " is a " + v.getClass().getName()
        + ", which no schema type takes. Pass a Tensor, Tensor[], Number, Boolean, long[], DType, Device, String, SymInt or SymInt[]");
  }

  /** Calls the operator by name and returns its nouts results. */
  Tensor[] call(String name, int nouts) {
    if (kinds == null) {
      spill();
    }
    long[] outs = new long[nouts];
    try {
      CTorchNative.ct_java_op_call(Native.text(name, "name"), n, kinds, ints, floats, objects, outs);
    } finally {
      Reference.reachabilityFence(alive);
    }
    return Native.tensors(outs);
  }

  /** Calls an overload found once and returns its nouts results. */
  Tensor[] call(Op op, int nouts) {
    if (kinds == null) {
      spill();
    }
    long[] outs = new long[nouts];
    try {
      CTorchNative.ct_java_op_call_op(op.handle(), n, kinds, ints, floats, objects, outs);
    } finally {
      Reference.reachabilityFence(alive);
    }
    return Native.tensors(outs);
  }

  /** Calls an overload with one result. */
  Tensor call1(Op op) {
    if (kinds != null) {
      return call(op, 1)[0];
    }
    long out;
    try {
      out = CTorchNative.ct_java_op_call_op4(op.handle(), n, k0, i0, f0, k1, i1, f1, k2, i2, f2, k3, i3, f3);
    } finally {
      Reference.reachabilityFence(keep0);
      Reference.reachabilityFence(keep1);
      Reference.reachabilityFence(keep2);
      Reference.reachabilityFence(keep3);
    }
    return new Tensor(out);
  }

  /** Calls an in-place overload, whose result is self: returns self without a second object. */
  Tensor callInPlace(Op op, Tensor self) {
    call1(op).close();
    return self;
  }
}
