package org.ctorch;

import org.ctorch.jni.CTorchNative;
import org.ctorch.jni.CTorchNativeConstants;

/**
 * The library: version, features, threads, global switches (determinism, defaults, precision,
 * seeds), metrics, logging, memory pressure, and {@link #compile}.
 *
 * <p>Loading the binding runs {@code ct_init} (a version mismatch or a plugin that failed to load
 * is reported by {@link #init()}) and installs the memory-pressure handler
 * {@link #collectGarbage}: when an allocation fails, the JVM collects garbage and waits for the
 * cleaner thread to release forgotten tensors, then the allocation is retried.
 */
public final class CTorch {
  private static volatile CTorchException initFailure;

  static {
    try {
      CTorchNative.ct_init(CTorchNativeConstants.CT_ABI_VERSION);
    } catch (CTorchException e) {
      initFailure = e; // reported by init(); built-in operators work
    }
    CTorchNative.ct_java_set_memory_pressure_handler((MemoryPressureHandler) CTorch::collectGarbage);
  }

  private CTorch() {}

  /** Runs the static initializer (ct_init, the memory-pressure handler) once. */
  static void ensureLoaded() {}

  /**
   * The outcome of {@code ct_init}: the ABI handshake and the loading of plugin backends.
   *
   * @throws VersionException when the library is older than this binding
   * @throws BackendException when a plugin on CTORCH_BACKEND_PATH failed to load (built-in
   *     operators still work)
   */
  public static void init() {
    if (initFailure != null) {
      throw initFailure;
    }
  }

  /**
   * The library's version.
   *
   * @return "0.9.0"
   */
  public static String version() {
    return CTorchNative.ct_version();
  }

  /**
   * Whether this build and machine support a feature.
   *
   * @param name "cpu", "openblas", "threads", "compile", "cuda", "nvrtc"
   * @return true when supported
   */
  public static boolean hasFeature(String name) {
    return CTorchNative.ct_has_feature(Native.text(name, "name")) != 0;
  }

  /**
   * Sets the number of CPU threads kernels may use (process-wide).
   *
   * @param n between 1 and 1024
   */
  public static void setNumThreads(int n) {
    CTorchNative.ct_set_num_threads(n);
  }

  /**
   * The number of CPU threads kernels may use.
   *
   * @return the count
   */
  public static int getNumThreads() {
    return (int) CTorchNative.ct_get_num_threads();
  }

  // ---- Determinism, defaults, precision, seeds ----

  /**
   * Deterministic mode: nondeterministic kernels raise {@link NondeterministicException} (or warn).
   *
   * @param enabled whether to turn it on
   * @param warnOnly warn instead of raising
   */
  public static void useDeterministicAlgorithms(boolean enabled, boolean warnOnly) {
    CTorchNative.ct_use_deterministic_algorithms(enabled ? 1 : 0, warnOnly ? 1 : 0);
  }

  /**
   * Whether deterministic mode is on.
   *
   * @return true when on
   */
  public static boolean areDeterministicAlgorithmsEnabled() {
    return CTorchNative.ct_are_deterministic_algorithms_enabled() != 0;
  }

  /**
   * Whether deterministic mode only warns.
   *
   * @return true when it warns instead of raising
   */
  public static boolean isDeterministicAlgorithmsWarnOnlyEnabled() {
    return CTorchNative.ct_is_deterministic_algorithms_warn_only_enabled() != 0;
  }

  /**
   * The deterministic debug mode: 0 off, 1 warn, 2 error.
   *
   * @param mode the mode
   */
  public static void setDeterministicDebugMode(int mode) {
    CTorchNative.ct_set_deterministic_debug_mode(mode);
  }

  /**
   * The deterministic debug mode.
   *
   * @return 0 off, 1 warn, 2 error
   */
  public static int getDeterministicDebugMode() {
    return CTorchNative.ct_get_deterministic_debug_mode();
  }

  /**
   * Seeds every device's default generator.
   *
   * @param seed the seed
   */
  public static void manualSeed(long seed) {
    CTorchNative.ct_manual_seed(seed);
  }

  /**
   * The seed of the CPU's default generator.
   *
   * @return the seed
   */
  public static long initialSeed() {
    return CTorchNative.ct_initial_seed();
  }

  /**
   * The dtype factories use for floating values (process-wide).
   *
   * @param dtype float32 or float64 (or a half type)
   */
  public static void setDefaultDtype(DType dtype) {
    CTorchNative.ct_set_default_dtype(Native.handleDtype(dtype));
  }

  /**
   * The default floating dtype.
   *
   * @return the dtype
   */
  public static DType getDefaultDtype() {
    return DType.of(CTorchNative.ct_get_default_dtype());
  }

  /**
   * The device factories use on this thread.
   *
   * @param device the device
   */
  public static void setDefaultDevice(Device device) {
    CTorchNative.ct_set_default_device(device == null ? null : device.toString());
  }

  /**
   * The device factories use on this thread.
   *
   * @return the device
   */
  public static Device getDefaultDevice() {
    long packed = CTorchNative.ct_get_default_device();
    return Device.of(Device.Type.values()[(int) (packed >>> 32)], (int) packed);
  }

  /**
   * Makes factories on this thread use device until the guard closes (a device context).
   *
   * @param device the device
   * @return the guard popping the context
   */
  public static Guard withDevice(Device device) {
    CTorchNative.ct_device_push(Native.text(device == null ? null : device.toString(), "device"));
    return Native.threadGuard(CTorchNative::ct_device_pop);
  }

  /**
   * The dtype tensors of dtypes a and b combine to (torch.promote_types).
   *
   * @param a a dtype
   * @param b another
   * @return the promoted dtype
   */
  public static DType promoteTypes(DType a, DType b) {
    return DType.of((int) CTorchNative.ct_promote_types(Native.handleDtype(a), Native.handleDtype(b)));
  }

  /**
   * Whether an operator may write a result of dtype from into a tensor of dtype to (torch.can_cast).
   *
   * @param from the result's dtype
   * @param to the destination's dtype
   * @return true unless floating into integral or bool, or integral into bool
   */
  public static boolean canCast(DType from, DType to) {
    return CTorchNative.ct_can_cast(Native.handleDtype(from), Native.handleDtype(to)) != 0;
  }

  /**
   * Opens an autocast region (torch.autocast) on this thread until the guard closes: operator calls
   * whose tensors are on devices of {@code type} follow PyTorch's autocast lists. Matrix products,
   * linear and convolutions cast float32 inputs to {@code dtype}; losses, norms and the other
   * precision-sensitive operators compute in float32; the rest run in the dtypes they are given;
   * float64 is never cast. Autograd records the casts. Closing restores what was set before.
   *
   * @param type the device type (CPU, CUDA or a plugin type)
   * @param dtype BFLOAT16 (PyTorch's choice on the CPU) or FLOAT16 (on CUDA)
   * @return the guard closing the region
   * @throws DTypeException for another dtype
   */
  public static Guard autocast(Device.Type type, DType dtype) {
    final int t = type.ordinal();
    final boolean savedEnabled = CTorchNative.ct_autocast_is_enabled(t) != 0;
    final int savedDtype = (int) CTorchNative.ct_autocast_get_dtype(t);
    CTorchNative.ct_autocast_set_dtype(t, Native.handleDtype(dtype));
    CTorchNative.ct_autocast_set_enabled(t, 1);
    return Native.threadGuard(() -> {
      CTorchNative.ct_autocast_set_dtype(t, savedDtype);
      CTorchNative.ct_autocast_set_enabled(t, savedEnabled ? 1 : 0);
    });
  }

  /**
   * Whether autocast is on for a device type on this thread.
   *
   * @param type the device type
   * @return true inside an autocast region
   */
  public static boolean isAutocastEnabled(Device.Type type) {
    return CTorchNative.ct_autocast_is_enabled(type.ordinal()) != 0;
  }

  /**
   * The dtype autocast computes the lower-precision operators in for a device type.
   *
   * @param type the device type
   * @return BFLOAT16 or FLOAT16
   */
  public static DType getAutocastDtype(Device.Type type) {
    return DType.of((int) CTorchNative.ct_autocast_get_dtype(type.ordinal()));
  }

  /**
   * The precision of float32 matrix products: "highest", "high" or "medium" (TF32 on CUDA).
   *
   * @param precision the precision
   */
  public static void setFloat32MatmulPrecision(String precision) {
    CTorchNative.ct_set_float32_matmul_precision(Native.text(precision, "precision"));
  }

  /**
   * The precision of float32 matrix products.
   *
   * @return "highest", "high" or "medium"
   */
  public static String getFloat32MatmulPrecision() {
    return CTorchNative.ct_get_float32_matmul_precision();
  }

  /**
   * How tensors print (torch.set_printoptions), process-wide: toString of every tensor after it.
   *
   * @param precision digits after the point, in [0, 30] (torch's default 4)
   * @param threshold more elements than this print summarized (1000; Long.MAX_VALUE: never)
   * @param edgeitems items shown at each end of a summarized dim (3)
   * @param linewidth characters per line (80)
   * @param sciMode null chooses from the values (the default), true always scientific, false never
   */
  public static void setPrintOptions(int precision, long threshold, long edgeitems, long linewidth, Boolean sciMode) {
    CTorchNative.ct_java_set_print_options(precision, threshold, edgeitems, linewidth,
        sciMode == null ? -1 : sciMode ? 1 : 0);
  }

  /**
   * The current print options.
   *
   * @return {precision, threshold, edgeitems, linewidth, sci_mode (-1 chosen, 0 never, 1 always)}
   */
  public static long[] getPrintOptions() {
    return CTorchNative.ct_java_get_print_options();
  }

  /**
   * Warnings the library gives once per process come every time while on (torch.set_warn_always).
   *
   * @param on whether to warn always
   */
  public static void setWarnAlways(boolean on) {
    CTorchNative.ct_set_warn_always(on ? 1 : 0);
  }

  /**
   * Whether {@link #setWarnAlways} is on.
   *
   * @return the setting
   */
  public static boolean isWarnAlwaysEnabled() {
    return CTorchNative.ct_is_warn_always_enabled() != 0;
  }

  /**
   * Anomaly detection (torch.set_anomaly_enabled): while on with checkNan, backward throws at the
   * first node whose gradient holds NaN, naming it. Process-wide.
   *
   * @param enabled on or off
   * @param checkNan whether to check gradients for NaN
   */
  public static void setAnomalyEnabled(boolean enabled, boolean checkNan) {
    CTorchNative.ct_set_anomaly_enabled(enabled ? 1 : 0, checkNan ? 1 : 0);
  }

  /**
   * Whether anomaly detection is on.
   *
   * @return the setting
   */
  public static boolean isAnomalyEnabled() {
    return CTorchNative.ct_is_anomaly_enabled() != 0;
  }

  // torch.set_flush_denormal has no Java form: the JVM resets the thread's floating-point control
  // register around native calls, so the mode ct_set_flush_denormal sets would not last.

  // ---- Metrics, logging, memory ----

  /**
   * One of the library's counters ("tensors.live", "storages.live", "compile.graphs"...).
   *
   * @param name the metric
   * @return its value
   */
  public static long metric(String name) {
    return CTorchNative.ct_metric_get(Native.text(name, "name"));
  }

  /**
   * Every metric as one JSON object.
   *
   * @return the JSON
   */
  public static String metricsJson() {
    return Native.string(CTorchNative.ct_metrics_json());
  }

  /**
   * The loaded and failed plugin backends as JSON.
   *
   * @return the JSON
   */
  public static String pluginsJson() {
    return Native.string(CTorchNative.ct_plugins_json());
  }

  /**
   * Routes the library's log messages to handler (null restores stderr). The library never
   * writes to stdout.
   *
   * @param handler receives each message, on any thread
   */
  public static void setLogHandler(LogHandler handler) {
    CTorchNative.ct_java_set_log_handler(handler);
  }

  /**
   * The least level of messages the library emits.
   *
   * @param level the threshold
   */
  public static void setLogLevel(LogLevel level) {
    CTorchNative.ct_set_log_level(level.ordinal());
  }

  /**
   * The least level of messages the library emits.
   *
   * @return the threshold
   */
  public static LogLevel getLogLevel() {
    return LogLevel.of(CTorchNative.ct_get_log_level());
  }

  /**
   * Replaces the memory-pressure handler ({@link #collectGarbage} by default; null removes it).
   *
   * @param handler called on the allocating thread when an allocation fails
   */
  public static void setMemoryPressureHandler(MemoryPressureHandler handler) {
    CTorchNative.ct_java_set_memory_pressure_handler(handler);
  }

  /**
   * The default memory-pressure handler: runs the garbage collector and waits (at most half a
   * second) until the cleaner thread has released the tensors that became unreachable.
   *
   * @param device the device that ran out
   * @param nbytes the failed allocation's size
   * @return true when the cleaner thread released something, so the allocation is worth retrying
   */
  public static boolean collectGarbage(Device.Type device, long nbytes) {
    long before = NativeObject.cleaned();
    long seen = before;
    System.gc();
    for (int i = 0; i < 50; i++) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      long now = NativeObject.cleaned();
      if (now != before && now == seen) {
        break; // the cleaner thread freed something and has gone quiet
      }
      seen = now;
    }
    return NativeObject.cleaned() != before;
  }

  /**
   * How many objects the cleaner thread released because they were never closed.
   *
   * @return the count of leaks since the binding loaded
   */
  public static long leakedObjects() {
    return NativeObject.leaked();
  }

  // ---- Compilation ----

  /**
   * A compiled callable over fn: the first call traces fn into a graph, later calls whose
   * inputs pass its guards replay the optimized graph.
   *
   * @param fn the function
   * @param nOutputs how many tensors fn returns
   * @param options the options, or null for the defaults
   * @return the compiled function (close it when done)
   */
  public static Compiled compile(TracedFunction fn, int nOutputs, CompileOptions options) {
    long o = options == null ? 0 : options.handle();
    try {
      return new Compiled(CTorchNative.ct_java_compile(fn, o), nOutputs);
    } finally {
      java.lang.ref.Reference.reachabilityFence(options);
    }
  }
}
