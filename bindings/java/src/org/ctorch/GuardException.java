package org.ctorch;

/** {@link Status#GUARD}: a symbolic value had to be concrete and could not be, or a guard failed. */
public class GuardException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public GuardException(String message) {
    super(Status.GUARD, message);
  }
}
