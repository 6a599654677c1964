package org.ctorch;

import java.lang.ref.Reference;
import org.ctorch.jni.CTorchNative;

/**
 * An exported program: a graph with its constants, symbol ranges and guards, runnable without
 * the function that made it, from any language. Immutable; any thread may call it.
 *
 * <pre>{@code
 * try (var dims = new DynamicShapes().dim(0, 0, "batch", 1, 1024);
 *      Program p = Program.export(xs -> new Tensor[] {xs[0].matmul(w).relu()}, new Tensor[] {example}, 1, dims)) {
 *   p.save("model.ctp");
 * }
 * }</pre>
 */
public final class Program extends NativeObject {
  Program(long handle) {
    super(handle, Kinds.PROGRAM);
  }

  /**
   * Traces fn once, on this thread, on proxies of the example inputs; tensors fn reads that are
   * not inputs become constants of the program.
   *
   * @param fn the function
   * @param exampleInputs real or meta tensors with the inputs' dtypes and example sizes
   * @param nOutputs how many tensors fn returns
   * @param dynamicShapes the dynamic dimensions, or null for all static
   * @return the program
   */
  public static Program export(TracedFunction fn, Tensor[] exampleInputs, int nOutputs, DynamicShapes dynamicShapes) {
    try {
      return new Program(CTorchNative.ct_java_export(fn, Native.handles(exampleInputs, "exampleInputs"), nOutputs,
          dynamicShapes == null ? 0 : dynamicShapes.handle()));
    } finally {
      Reference.reachabilityFence(exampleInputs);
      Reference.reachabilityFence(dynamicShapes);
    }
  }

  /**
   * Loads a program file (validated field by field; no code runs).
   *
   * @param path the file
   * @return the program
   * @throws IoException when the file cannot be read
   * @throws FormatException when it is not a valid program
   */
  public static Program load(String path) throws IoException {
    return new Program(CTorchNative.ct_program_load(Native.text(path, "path")));
  }

  /**
   * Loads a program from the bytes {@link #toBytes} gave.
   *
   * @param bytes the program's bytes
   * @return the program
   */
  public static Program fromBytes(byte[] bytes) {
    return new Program(CTorchNative.ct_java_program_load_bytes(bytes));
  }

  /**
   * Runs the program.
   *
   * @param inputs inputs matching its signature (dtypes, devices, sizes within ranges)
   * @return the outputs (new tensors)
   * @throws ShapeException when a size breaks the signature
   */
  public Tensor[] call(Tensor... inputs) {
    long[] outs = new long[(int) numOutputs()];
    try {
      CTorchNative.ct_program_call(handle(), Native.handles(inputs, "inputs"), outs);
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(inputs);
    }
    return Native.tensors(outs);
  }

  /**
   * The number of inputs.
   *
   * @return the count
   */
  public long numInputs() {
    try {
      return CTorchNative.ct_program_num_inputs(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The number of outputs.
   *
   * @return the count
   */
  public long numOutputs() {
    try {
      return CTorchNative.ct_program_num_outputs(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The graph as text.
   *
   * @return the graph
   */
  public String graph() {
    try {
      return Native.string(CTorchNative.ct_program_graph(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The signature (symbolic sizes, ranges, guards) as JSON.
   *
   * @return the JSON
   */
  public String json() {
    try {
      return Native.string(CTorchNative.ct_program_json(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Writes the program to a file (docs/program-format.md).
   *
   * @param path the file
   * @throws IoException when the file cannot be written
   */
  public void save(String path) throws IoException {
    try {
      CTorchNative.ct_program_save(handle(), Native.text(path, "path"));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The program file's bytes.
   *
   * @return the bytes {@link #fromBytes} reads
   */
  public byte[] toBytes() {
    try {
      return CTorchNative.ct_java_program_save_bytes(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
