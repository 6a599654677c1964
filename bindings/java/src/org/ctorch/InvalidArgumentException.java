package org.ctorch;

/** {@link Status#INVALID_ARGUMENT}: a null or closed object, a bad option value, an unknown name. */
public class InvalidArgumentException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public InvalidArgumentException(String message) {
    super(Status.INVALID_ARGUMENT, message);
  }
}
