package org.ctorch;

/** {@link Status#NONDETERMINISTIC}: a nondeterministic kernel while deterministic mode is on. */
public class NondeterministicException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public NondeterministicException(String message) {
    super(Status.NONDETERMINISTIC, message);
  }
}
