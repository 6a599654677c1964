import org.ctorch.CTorch;
import org.ctorch.CompileOptions;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;

/** A function compiled from a Java lambda: traced on the first call, replayed after. */
public final class Compiled {
  private Compiled() {}

  /**
   * Runs the example.
   *
   * @param args unused
   */
  public static void main(String[] args) {
    try (TensorScope scope = new TensorScope();
        CompileOptions options = new CompileOptions().name("gelu_ish")) {
      org.ctorch.Compiled f = CTorch.compile(
          xs -> new Tensor[] {xs[0].mul(xs[0].mulScalar(1.702).sigmoid()).add(xs[1])}, 1, options);
      Tensor x = Tensor.of(new float[] {-1, 0, 1, 2, 3, 4}, 2, 3);
      Tensor bias = Tensor.of(new float[] {0.5f, 0.5f, 0.5f});
      Tensor out = f.call(x, bias)[0];
      Tensor eager = x.mul(x.mulScalar(1.702).sigmoid()).add(bias);
      System.out.println(out);
      System.out.println(f.graph(0));
      if (out.sub(eager).abs().sum().doubleValue() > 1e-5) {
        throw new AssertionError("compiled and eager results differ");
      }
      f.close();
    }
  }
}
