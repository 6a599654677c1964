package org.ctorch.jni;

import java.util.function.LongConsumer;
import org.ctorch.NativeObject;
import org.ctorch.Tensor;

/**
 * What org.ctorch keeps package-private, for its own subpackages ({@code org.ctorch.nn},
 * {@code org.ctorch.optim}): the handle of an object, a {@code Tensor} owning a new reference, and
 * an object owning any other handle (closed, scoped and cleaned like every {@link NativeObject}).
 * Internal, as all of this package: org.ctorch installs the bridge when it loads.
 */
public final class Access {
  /** The operations org.ctorch provides. */
  public interface Bridge {
    /**
     * The handle of an open object.
     *
     * @param o the object
     * @param what the argument's name, for the message when o is null or closed
     * @return the handle
     */
    long handle(NativeObject o, String what);

    /**
     * A tensor owning a new reference.
     *
     * @param newReference a handle the library returned
     * @return the tensor
     */
    Tensor tensor(long newReference);

    /**
     * An object owning a new reference of another kind of handle.
     *
     * @param newReference a handle the library returned
     * @param kind the kind's name in messages ("Optimizer")
     * @param release the kind's release function
     * @return the owner
     */
    NativeObject own(long newReference, String kind, LongConsumer release);
  }

  private static volatile Bridge bridge;

  private Access() {}

  /**
   * Installs the bridge; only org.ctorch calls it, once.
   *
   * @param b the bridge
   */
  public static synchronized void install(Bridge b) {
    if (bridge != null) {
      throw new IllegalStateException("org.ctorch.jni.Access: the bridge is installed already");
    }
    bridge = b;
  }

  /**
   * The bridge, loading org.ctorch first when needed.
   *
   * @return the bridge
   */
  public static Bridge get() {
    Bridge b = bridge;
    if (b != null) {
      return b;
    }
    try {
      Class.forName("org.ctorch.NativeObject", true, Access.class.getClassLoader()); // installs it
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    return bridge;
  }
}
