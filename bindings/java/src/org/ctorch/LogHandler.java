package org.ctorch;

/** Receives the library's log messages ({@link CTorch#setLogHandler}); called from any thread. */
@FunctionalInterface
public interface LogHandler {
  /**
   * Handles one message; exceptions it throws are ignored.
   *
   * @param level the message's level
   * @param message the text, without a trailing newline
   */
  void log(LogLevel level, String message);
}
