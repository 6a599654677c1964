package org.ctorch.distributed;

import java.lang.ref.Reference;
import java.time.Duration;
import org.ctorch.NativeObject;
import org.ctorch.jni.Access;
import org.ctorch.jni.CTorchNative;

/**
 * An asynchronous collective (torch.distributed's Work), returned by the {@code ...Async} methods
 * of {@link ProcessGroup}. Read the collective's outputs only after {@link #waitFor()}.
 * {@link #close()} drops the handle; the operation still runs to its end.
 */
public final class Work implements AutoCloseable {
  private final NativeObject owner;

  Work(long handle) {
    this.owner = Access.get().own(handle, "Work", CTorchNative::ct_work_release);
  }

  private long handle() {
    return Access.get().handle(owner, "work");
  }

  /**
   * Waits until the operation finishes, at most its group's timeout, and throws its failure (the
   * same on every later wait).
   *
   * @throws org.ctorch.TimeoutException when it has not finished in time
   * @throws org.ctorch.DistributedException when a peer failed
   */
  public void waitFor() {
    try {
      CTorchNative.ct_work_wait(handle(), 0);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * {@link #waitFor()} for at most timeout; a {@link org.ctorch.TimeoutException} leaves the
   * operation running (wait again, or close the group).
   *
   * @param timeout the longest wait (positive)
   */
  public void waitFor(Duration timeout) {
    if (timeout == null) {
      throw new org.ctorch.InvalidArgumentException("argument timeout is null. Pass a Duration, or call waitFor()");
    }
    // Zero would mean "the group's timeout" to C: the shortest wait is one nanosecond.
    try {
      CTorchNative.ct_work_wait(handle(), Math.max(1e-9, timeout.toNanos() / 1e9));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether the operation has finished, successfully or not; never blocks.
   *
   * @return true once it finished
   */
  public boolean isCompleted() {
    try {
      return CTorchNative.ct_work_is_completed(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether {@link #close()} ran.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return owner.isClosed();
  }

  /** Drops the handle (idempotent). */
  @Override
  public void close() {
    owner.close();
  }
}
