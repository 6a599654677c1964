package org.ctorch;

/**
 * {@link Status#TIMEOUT}: a distributed operation or rendezvous did not finish within its group's
 * timeout (or the wait's); the message names the ranks that did not arrive where the engine can
 * know them. Unchecked, like every {@link CTorchException} (not java.util.concurrent's checked
 * exception of the same simple name).
 */
public class TimeoutException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public TimeoutException(String message) {
    super(Status.TIMEOUT, message);
  }
}
