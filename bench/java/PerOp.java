import org.ctorch.DType;
import org.ctorch.Tensor;
import org.ctorch.jni.CTorchNative;

/**
 * Per-operator cost of the Java binding: {@code a.add(b)} (and close) on 1-element tensors beside
 * the same {@code ct_tensor_add} + {@code ct_tensor_release} called through the raw SWIG layer,
 * timed alternately in one run after warming up the JIT; and {@code a.add(b, 1)}, a generated
 * method that boxes its arguments for {@code ct_op_call_op}. The ratios are what the idiomatic API
 * costs over C through JNI (target: within 1.3x for the typed call).
 *
 * <pre>java -cp build/bindings/java/ctorch.jar:build/bindings/java/ctorch-bench.jar PerOp</pre>
 * (scripts/bench.sh runs it.)
 */
public final class PerOp {
  private static final int CALLS = 200_000;
  private static final int ROUNDS = 15;
  private static long sink;

  private PerOp() {}

  private static double median(double[] v) {
    double[] s = v.clone();
    java.util.Arrays.sort(s);
    return s[s.length / 2];
  }

  private static double throughC(long a, long b) {
    long t0 = System.nanoTime();
    for (int i = 0; i < CALLS; i++) {
      long out = CTorchNative.ct_tensor_add(a, b);
      sink += out & 1;
      CTorchNative.ct_tensor_release(out);
    }
    return (System.nanoTime() - t0) / (double) CALLS;
  }

  private static double throughBoxed(Tensor a, Tensor b) {
    long t0 = System.nanoTime();
    for (int i = 0; i < CALLS; i++) {
      try (Tensor c = a.add(b, 1)) {
        sink += c.isClosed() ? 1 : 0;
      }
    }
    return (System.nanoTime() - t0) / (double) CALLS;
  }

  private static double throughJava(Tensor a, Tensor b) {
    long t0 = System.nanoTime();
    for (int i = 0; i < CALLS; i++) {
      try (Tensor c = a.add(b)) {
        // Reads the result as the C loop reads its handle (hashCode() would add an identity hash).
        sink += c.isClosed() ? 1 : 0;
      }
    }
    return (System.nanoTime() - t0) / (double) CALLS;
  }

  /**
   * Prints the two costs and their ratio.
   *
   * @param args unused
   */
  public static void main(String[] args) {
    try (Tensor a = Tensor.of(new float[] {1.5f}); Tensor b = Tensor.of(new float[] {2.5f})) {
      try (Tensor c = a.add(b)) {
        if (c.toFloatArray()[0] != 4f) {
          throw new AssertionError("a.add(b) is not 4");
        }
      }
      // The same two tensors made through the raw layer, as a C program holds them.
      long ha = CTorchNative.ct_java_from_array(new float[] {1.5f}, 4, new long[] {1}, DType.FLOAT32.code());
      long hb = CTorchNative.ct_java_from_array(new float[] {2.5f}, 4, new long[] {1}, DType.FLOAT32.code());
      for (int i = 0; i < 5; i++) {
        throughC(ha, hb);
        throughJava(a, b);
        throughBoxed(a, b);
      }
      double[] c = new double[ROUNDS];
      double[] j = new double[ROUNDS];
      double[] g = new double[ROUNDS];
      for (int r = 0; r < ROUNDS; r++) {
        c[r] = throughC(ha, hb);
        j[r] = throughJava(a, b);
        g[r] = throughBoxed(a, b);
      }
      CTorchNative.ct_tensor_release(ha);
      CTorchNative.ct_tensor_release(hb);
      double cm = median(c);
      double jm = median(j);
      double gm = median(g);
      System.out.printf("Java binding, per-op cost of an add of 1-element float32 tensors (median of %d rounds of %d calls)%n",
          ROUNDS, CALLS);
      System.out.printf("%-40s %12s %12s %8s%n", "operation", "C ABI ns", "ctorch ns", "ratio");
      System.out.printf("%-40s %12.1f %12.1f %7.2fx%n", "a.add(b) + close (ct_tensor_add + release)", cm, jm, jm / cm);
      System.out.printf("%-40s %12.1f %12.1f %7.2fx%n", "a.add(b, 1) + close (boxed, ct_op_call_op)", cm, gm, gm / cm);
      if (sink == 42) {
        System.out.println();
      }
    }
  }

}
