package org.ctorch;

/**
 * {@link Status#DISTRIBUTED}: a distributed operation failed: a peer's connection closed, the
 * ranks disagree on sizes or dtypes, or the engine reported an error (torch's DistBackendError).
 */
public class DistributedException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public DistributedException(String message) {
    super(Status.DISTRIBUTED, message);
  }
}
