package org.ctorch;

/** {@link Status#VERSION}: the library is older than the binding, or a format version is unsupported. */
public class VersionException extends CTorchException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged
   */
  public VersionException(String message) {
    super(Status.VERSION, message);
  }
}
