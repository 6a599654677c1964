package org.ctorch;

import org.ctorch.jni.CTorchNative;

/** The operator profiler: spans of every operator call on every thread, as a Chrome trace. */
public final class Profiler {
  private Profiler() {}

  /** Starts recording (one profiler per process). */
  public static void start() {
    CTorchNative.ct_profiler_start();
  }

  /**
   * Whether the profiler records.
   *
   * @return whether the profiler records
   */
  public static boolean isRunning() {
    return CTorchNative.ct_profiler_is_running() != 0;
  }

  /**
   * The Chrome trace JSON of the operators run since {@link #start}, which stops.
   *
   * @return the Chrome trace JSON of the operators run since {@link #start}, which stops
   */
  public static String stop() {
    return Native.string(CTorchNative.ct_profiler_stop_to_string());
  }

  /**
   * @param path where to write the Chrome trace; the profiler stops
   * @throws IoException when the file cannot be written
   */
  public static void stopToFile(String path) throws IoException {
    CTorchNative.ct_profiler_stop_to_file(Native.text(path, "path"));
  }
}
