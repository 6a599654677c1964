package org.ctorch;

/** Restores a thread-local setting (grad mode, default device) when closed. */
public interface Guard extends AutoCloseable {
  /** Restores the previous setting. */
  @Override
  void close();
}
