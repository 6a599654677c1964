package org.ctorch;

/** {@link Status#BACKEND}: a device backend or plugin failed (also: a Java callback threw an exception that is not a CTorchException). */
public class BackendException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public BackendException(String message) {
    super(Status.BACKEND, message);
  }
}
