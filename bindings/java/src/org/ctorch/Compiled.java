package org.ctorch;

import java.lang.ref.Reference;
import org.ctorch.jni.CTorchNative;

/**
 * A compiled function ({@link CTorch#compile}). Several threads may call it at once; gradients
 * flow through it as through eager code. Closing it frees its cache and the Java function.
 */
public final class Compiled extends NativeObject {
  private final int nOutputs;

  Compiled(long handle, int nOutputs) {
    super(handle, Kinds.COMPILED);
    if (nOutputs < 0) {
      close();
      throw new InvalidArgumentException("CTorch.compile: nOutputs is negative");
    }
    this.nOutputs = nOutputs;
  }

  /**
   * Runs the function: traced on the first call (and on a guard miss), replayed after.
   *
   * @param inputs the inputs
   * @return the outputs (new tensors)
   */
  public Tensor[] call(Tensor... inputs) {
    long[] outs = new long[nOutputs];
    try {
      CTorchNative.ct_compiled_call(handle(), Native.handles(inputs, "inputs"), outs);
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(inputs);
    }
    return Native.tensors(outs);
  }

  /**
   * The number of cached entries (compiled graphs).
   *
   * @return the count
   */
  public long numEntries() {
    try {
      return CTorchNative.ct_compiled_num_entries(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The graph of one entry, as text.
   *
   * @param entry from 0 to numEntries() - 1
   * @return the graph
   */
  public String graph(long entry) {
    try {
      return Native.string(CTorchNative.ct_compiled_graph(handle(), entry));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Blocks until the background builder has built (or failed to build) every C++ kernel asked of
   * it so far (ct_compile_wait_kernels); from then on those kernels run as C++, with the same bits.
   * Programs never need to wait; a benchmark of the steady state, or a test of it, does.
   */
  public static void waitKernels() {
    CTorchNative.ct_compile_wait_kernels();
  }

  /**
   * This function's compile metrics (entries, recompiles, guards, graph breaks) as JSON.
   *
   * @return the JSON
   */
  public String metricsJson() {
    try {
      return Native.string(CTorchNative.ct_compiled_metrics_json(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
