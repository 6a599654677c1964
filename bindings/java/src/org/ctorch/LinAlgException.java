package org.ctorch;

/**
 * {@link Status#LINALG}: a matrix a linear-algebra function cannot factor or invert (singular, not
 * positive-definite, no convergence); the message names the batch element, as torch's LinAlgError.
 */
public class LinAlgException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public LinAlgException(String message) {
    super(Status.LINALG, message);
  }
}
