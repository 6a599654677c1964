package org.ctorch;

/**
 * A failure of a ctorch call: the {@link Status} kind and the library's message, unchanged (it
 * names the operator, the shapes, dtypes and devices involved, and what to do). Unchecked; each
 * kind has its subclass ({@link ShapeException}, {@link DTypeException}...), so callers catch
 * what they can handle. The exception is {@link Status#IO}: a file that cannot be read or written
 * is an {@link IoException}, a checked {@link java.io.IOException}, as Java's file APIs throw.
 *
 * <p>When a Java callback (a custom function, a compiled function, a kernel, a hook) threw, the
 * message of the call that ran it includes the callback's exception, and {@link #getCause()} is
 * that exception when the call failed on the thread that ran the callback.
 */
public class CTorchException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final Status status;

  /**
   * An exception of a status with the library's message.
   *
   * @param status the kind of failure
   * @param message the message, shown unchanged
   */
  public CTorchException(Status status, String message) {
    super(message);
    this.status = status;
  }

  /**
   * The kind of failure.
   *
   * @return the status the C call returned
   */
  public Status status() {
    return status;
  }

  /**
   * {@code CT_ERROR_<KIND>: <message>}.
   *
   * @return {@code CT_ERROR_<KIND>: <message>}
   */
  @Override
  public String toString() {
    return getClass().getName() + ": CT_ERROR_" + status.name() + ": " + getMessage();
  }

  /**
   * The exception for a status: called by the JNI layer with {@code ct_last_error()}.
   *
   * @param code the {@code ct_status}
   * @param message the library's message
   * @return the subclass of the status (an IoException for {@link Status#IO}), carrying a pending
   *     callback exception as its cause
   */
  static Exception create(int code, String message) {
    Status status = Status.of(code);
    Exception e;
    switch (status) {
      case INVALID_ARGUMENT: e = new InvalidArgumentException(message); break;
      case SHAPE: e = new ShapeException(message); break;
      case DTYPE: e = new DTypeException(message); break;
      case DEVICE: e = new DeviceException(message); break;
      case OUT_OF_MEMORY: e = new OutOfMemoryException(message); break;
      case NOT_IMPLEMENTED: e = new NotImplementedException(message); break;
      case INDEX: e = new IndexException(message); break;
      case NONDETERMINISTIC: e = new NondeterministicException(message); break;
      case GUARD: e = new GuardException(message); break;
      case GRAPH_BREAK: e = new GraphBreakException(message); break;
      case RECOMPILE_LIMIT: e = new RecompileLimitException(message); break;
      case IO: e = new IoException(message); break;
      case FORMAT: e = new FormatException(message); break;
      case BACKEND: e = new BackendException(message); break;
      case VERSION: e = new VersionException(message); break;
      case LINALG: e = new LinAlgException(message); break;
      case TIMEOUT: e = new TimeoutException(message); break;
      case DISTRIBUTED: e = new DistributedException(message); break;
      default: e = new InternalException(message); break;
    }
    Throwable cause = Callbacks.takePending(message);
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }
}
