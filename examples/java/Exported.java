import java.nio.file.Files;
import java.nio.file.Path;
import org.ctorch.DynamicShapes;
import org.ctorch.Program;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;

/** Exports a Java lambda to a program file with a dynamic batch, loads it and runs it. */
public final class Exported {
  private Exported() {}

  /**
   * Runs the example.
   *
   * @param args unused
   * @throws java.io.IOException when the temporary file cannot be made
   */
  public static void main(String[] args) throws java.io.IOException {
    Path file = Files.createTempFile("ctorch-example", ".ctp");
    try (TensorScope scope = new TensorScope()) {
      Tensor w = Tensor.of(new float[] {1, -1, 2, 0.5f}, 2, 2);
      Tensor b = Tensor.of(new float[] {0.1f, -0.1f});
      Tensor example = Tensor.zeros(4, 2);
      DynamicShapes dims = new DynamicShapes().dim(0, 0, "batch", 1, 1024);
      Program program = Program.export(xs -> new Tensor[] {xs[0].matmul(w).add(b).relu()}, new Tensor[] {example}, 1, dims);
      program.save(file.toString());
      Program loaded = Program.load(file.toString());       // runs without the lambda
      Tensor x = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 3, 2);  // another batch size
      Tensor y = loaded.call(x)[0];
      System.out.println(loaded.graph());
      System.out.println(y);
      Tensor expected = x.matmul(w).add(b).relu();
      if (y.sub(expected).abs().sum().doubleValue() > 1e-5) {
        throw new AssertionError("program and eager results differ");
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
