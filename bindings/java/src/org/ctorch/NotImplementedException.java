package org.ctorch;

/** {@link Status#NOT_IMPLEMENTED}: no kernel for this device and dtype, or a missing feature. */
public class NotImplementedException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public NotImplementedException(String message) {
    super(Status.NOT_IMPLEMENTED, message);
  }
}
