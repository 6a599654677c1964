package org.ctorch;

/** {@link Status#IO}: reading or writing a file failed. */
public class IoException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public IoException(String message) {
    super(Status.IO, message);
  }
}
