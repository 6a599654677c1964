package org.ctorch;

/** {@link Status#INDEX}: a dimension or index out of range. */
public class IndexException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public IndexException(String message) {
    super(Status.INDEX, message);
  }
}
