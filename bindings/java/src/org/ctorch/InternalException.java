package org.ctorch;

/** {@link Status#INTERNAL}: a bug in ctorch, or a status this binding does not know. */
public class InternalException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public InternalException(String message) {
    super(Status.INTERNAL, message);
  }
}
