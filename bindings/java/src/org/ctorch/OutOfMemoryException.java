package org.ctorch;

/** {@link Status#OUT_OF_MEMORY}: an allocation failed, even after the memory-pressure handler ran. */
public class OutOfMemoryException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public OutOfMemoryException(String message) {
    super(Status.OUT_OF_MEMORY, message);
  }
}
