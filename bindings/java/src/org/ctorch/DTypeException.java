package org.ctorch;

/** {@link Status#DTYPE}: a dtype the operator does not accept, or an unsafe cast. */
public class DTypeException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public DTypeException(String message) {
    super(Status.DTYPE, message);
  }
}
