import org.ctorch.Grad;
import org.ctorch.Guard;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;

/** Gradient descent on a quadratic with org.ctorch's autograd. */
public final class Autograd {
  private Autograd() {}

  /**
   * Runs the example.
   *
   * @param args unused
   */
  public static void main(String[] args) {
    try (TensorScope scope = new TensorScope()) {
      Tensor w = Tensor.of(new float[] {0.5f, -1.0f}).setRequiresGrad(true);
      Tensor target = Tensor.of(new float[] {3, 2});
      for (int step = 0; step < 50; step++) {
        try (TensorScope iteration = new TensorScope()) {
          Tensor loss = w.sub(target).square().sum();     // |w - target|^2
          loss.backward();
          Tensor g = w.grad();
          try (Guard noGrad = Grad.noGrad()) {
            w.subInPlace(g.mulScalar(0.1));
          }
          w.setGrad(null);
        }
      }
      System.out.println(w);                               // close to tensor([3., 2.], requires_grad=True)
      float[] v = w.toFloatArray();
      if (Math.abs(v[0] - 3) > 1e-3 || Math.abs(v[1] - 2) > 1e-3) {
        throw new AssertionError("did not converge");
      }
    }
  }
}
