package org.ctorch;

/** {@link Status#SHAPE}: sizes do not fit the operator (broadcast, inner sizes, view). */
public class ShapeException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public ShapeException(String message) {
    super(Status.SHAPE, message);
  }
}
