package org.ctorch;

/** Levels of the library's log messages ({@code ct_log_level}). */
public enum LogLevel {
  /** Details for debugging. */
  DEBUG,
  /** Information. */
  INFO,
  /** Warnings (the default threshold). */
  WARNING,
  /** Errors. */
  ERROR;

  static LogLevel of(int code) {
    LogLevel[] all = values();
    return code >= 0 && code < all.length ? all[code] : ERROR;
  }
}
