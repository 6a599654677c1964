package org.ctorch;

/** {@link Status#RECOMPILE_LIMIT}: a compiled function hit its recompile limit. */
public class RecompileLimitException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public RecompileLimitException(String message) {
    super(Status.RECOMPILE_LIMIT, message);
  }
}
