package org.ctorch;

import org.ctorch.jni.CTorchNative;

/**
 * Any operator by name, built-in or custom ({@link Library}), and the registry's descriptions.
 *
 * <pre>{@code
 * Tensor[] r = Ops.call("add.Tensor", a, b, 2);     // a + 2 * b
 * Tensor y = Ops.call1("myext::scale", x);           // a custom operator, defaults filled in
 * }</pre>
 */
public final class Ops {
  private Ops() {}

  /**
   * Calls an operator with boxed arguments in schema order; trailing defaults may be left out
   * and null takes an argument's default.
   *
   * @param name "add" (the first overload accepting the arguments) or "add.Tensor"
   * @param args Tensor, Tensor[], Number (Long/Integer are ints), Boolean, long[] or int[], DType,
   *     Device, String, SymInt, SymInt[], or null
   * @return one new tensor per return of the schema
   * @throws InvalidArgumentException for an unknown name or arguments no overload accepts (the
   *     message lists the schemas)
   */
  public static Tensor[] call(String name, Object... args) {
    Object[] a = args == null ? new Object[] {null} : args;
    Args boxed = new Args(a.length);
    for (int i = 0; i < a.length; i++) {
      boxed.value(a[i], i);
    }
    return boxed.call(name, returns(name));
  }

  /**
   * Calls an operator with one return (see {@link #call}).
   *
   * @param name the operator
   * @param args its arguments
   * @return the result
   */
  public static Tensor call1(String name, Object... args) {
    Tensor[] r = call(name, args);
    if (r.length != 1) {
      for (Tensor t : r) {
        t.close();
      }
      throw new InvalidArgumentException("Ops.call1: " + name + " returns " + r.length + " tensors. Use Ops.call");
    }
    return r[0];
  }

  /**
   * The schemas of every overload of an operator, one per line.
   *
   * @param name "add" or "myext::scale"
   * @return e.g. "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -&gt; Tensor"
   */
  public static String schema(String name) {
    return Native.string(CTorchNative.ct_op_schema(Native.text(name, "name")));
  }

  /**
   * Every registered operator as one JSON document (names, arguments, defaults, returns,
   * backends, determinism, derivatives).
   *
   * @return the registry's JSON
   */
  public static String registryJson() {
    return Native.string(CTorchNative.ct_op_registry_json());
  }

  /** The most returns any overload of name has (ct_op_call fills extra slots with NULL). */
  private static int returns(String name) {
    String base = Native.text(name, "name");
    int dot = base.lastIndexOf('.');
    String opName = dot > base.lastIndexOf(':') && dot > 0 ? base.substring(0, dot) : base;
    String schemas;
    try {
      schemas = schema(opName);
    } catch (InvalidArgumentException unknown) {
      return 1; // ct_op_call reports the unknown name, with close names
    }
    int most = 1;
    for (String line : schemas.split("\n")) {
      int arrow = line.lastIndexOf("->");
      if (arrow < 0) {
        continue;
      }
      String ret = line.substring(arrow + 2).trim();
      int count = ret.startsWith("(") ? ret.split(",").length : ret.equals("()") ? 0 : 1;
      most = Math.max(most, count);
    }
    return most;
  }
}
