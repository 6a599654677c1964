package org.ctorch;

/**
 * {@link Status#IO}: reading or writing a file failed (a missing file, a directory that does not
 * exist, no permission, a full disk). It is a {@link java.io.IOException}, checked as Java's own
 * file APIs are, so {@code catch (IOException e)} handles it; the methods that touch files
 * ({@link Checkpoint#open}, {@link Checkpoint#save}, {@link Program#load}, {@link Program#save},
 * {@link TorchFile#load}, {@link TorchFile#save}, {@link TorchFile#saveStateDict},
 * {@link Profiler#stopToFile}) declare it. Every other failure is an unchecked
 * {@link CTorchException}, a malformed file's {@link FormatException} included.
 */
public class IoException extends java.io.IOException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the library's message.
   *
   * @param message the message, shown unchanged (it names the file and the reason)
   */
  public IoException(String message) {
    super(message);
  }

  /**
   * The kind of failure, as {@link CTorchException#status()} gives it.
   *
   * @return {@link Status#IO}
   */
  public Status status() {
    return Status.IO;
  }

  /**
   * {@code CT_ERROR_IO: <message>}.
   *
   * @return the class, {@code CT_ERROR_IO} and the message
   */
  @Override
  public String toString() {
    return getClass().getName() + ": CT_ERROR_IO: " + getMessage();
  }
}
