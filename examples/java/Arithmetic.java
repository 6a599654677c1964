import org.ctorch.DType;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;

/** Arithmetic with org.ctorch: creation, operators as methods, printing, data back to Java. */
public final class Arithmetic {
  private Arithmetic() {}

  /**
   * Runs the example.
   *
   * @param args unused
   */
  public static void main(String[] args) {
    try (TensorScope scope = new TensorScope()) { // closes every tensor made below
      Tensor x = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
      Tensor w = Tensor.ones(new long[] {2, 2}, DType.FLOAT32, null);
      Tensor y = x.matmul(w).relu();
      System.out.println(y.mulScalar(2));                 // tensor([[ 6.,  6.], [14., 14.]])
      System.out.println(x.add(x).sub(w).sum());          // tensor(16.)
      float[] values = y.toFloatArray();
      if (values[0] != 3f || values[3] != 7f) {
        throw new AssertionError("unexpected values");
      }
      Tensor ints = Tensor.arange(0, 6).view(2, 3);
      System.out.println(ints.dtype() + " " + java.util.Arrays.toString(ints.sizes()));  // int64 [2, 3]
    }
  }
}
