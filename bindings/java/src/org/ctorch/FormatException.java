package org.ctorch;

/** {@link Status#FORMAT}: a malformed file or string. */
public class FormatException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public FormatException(String message) {
    super(Status.FORMAT, message);
  }
}
