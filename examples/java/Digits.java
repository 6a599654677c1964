import java.math.BigDecimal;
import java.math.RoundingMode;
import org.ctorch.CTorch;
import org.ctorch.Checkpoint;
import org.ctorch.DType;
import org.ctorch.Grad;
import org.ctorch.Guard;
import org.ctorch.Tensor;
import org.ctorch.TensorScope;
import org.ctorch.nn.Linear;
import org.ctorch.nn.Loss;
import org.ctorch.nn.NnModule;
import org.ctorch.nn.ReLU;
import org.ctorch.nn.Sequential;
import org.ctorch.optim.Optimizer;

/**
 * The digits recipe (examples/digits.md) in Java: a multilayer perceptron trained on the
 * handwritten digits with org.ctorch.nn and org.ctorch.optim, the same library calls in the same
 * order as every other language, so the printed losses are the same bits. The numbered comments
 * are the recipe's steps. In step 4 each {@code Linear} makes its weight and bias with
 * {@code empty}, fills them with {@code init_linear_} and makes them require grad, one layer after
 * the other: only {@code init_linear_} draws numbers, so the draws are the recipe's.
 *
 * <pre>
 * java -cp ctorch.jar:ctorch-example-Digits.jar Digits [examples/data/digits.safetensors]
 * </pre>
 */
public final class Digits {
  private static final long SAMPLES = 1797;
  private static final long TRAIN = 1437;
  private static final long BATCH = 64;
  private static final int EPOCHS = 30;

  private Digits() {}

  /** A double with 9 (or 2) decimals, rounded from its exact binary value as C's printf does. */
  private static String fixed(double x, int decimals) {
    return new BigDecimal(x).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
  }

  /** The 16 lowercase hex digits of a double's IEEE-754 bits. */
  private static String bits(double x) {
    String hex = Long.toHexString(Double.doubleToRawLongBits(x));
    return "0".repeat(16 - hex.length()) + hex;
  }

  /**
   * Trains and evaluates the model.
   *
   * @param args the data file (default examples/data/digits.safetensors)
   * @throws java.io.IOException when the data file cannot be read
   */
  public static void main(String[] args) throws java.io.IOException {
    String path = args.length > 0 ? args[0] : "examples/data/digits.safetensors";
    try (TensorScope scope = new TensorScope()) {
      CTorch.manualSeed(0);                                                      // 1
      Tensor pixels;
      Tensor labels;
      try (Checkpoint data = Checkpoint.open(path)) {                            // 2
        pixels = data.get("pixels");
        labels = data.get("labels");
      }
      Tensor x = pixels.to(DType.FLOAT32).divScalar(16);
      Tensor perm = Tensor.randperm(SAMPLES);                                    // 3
      Tensor train = perm.narrow(0, 0, TRAIN);
      Tensor test = perm.narrow(0, TRAIN, SAMPLES - TRAIN);
      NnModule model = new Sequential(new Linear(64, 64), new ReLU(), new Linear(64, 10)); // 4
      Optimizer opt = Optimizer.adam(model.parameters(), 0.01);                  // 5
      for (int epoch = 1; epoch <= EPOCHS; epoch++) {                            // 6
        double total = 0;
        try (TensorScope epochScope = new TensorScope()) {
          Tensor order = Tensor.randperm(TRAIN);
          for (long start = 0; start < TRAIN; start += BATCH) {
            try (TensorScope batch = new TensorScope()) {
              long n = Math.min(BATCH, TRAIN - start);
              Tensor idx = train.indexSelect(0, order.narrow(0, start, n));
              Tensor xb = x.indexSelect(0, idx);
              Tensor yb = labels.indexSelect(0, idx);
              Tensor loss = Loss.crossEntropy(model.forward(xb), yb);
              opt.zeroGrad(true);
              loss.backward();
              opt.step();
              total += loss.doubleValue() * n;
            }
          }
        }
        double epochLoss = total / TRAIN;
        System.out.println(String.format("epoch %2d  loss %s  bits %s", epoch, fixed(epochLoss, 9), bits(epochLoss))); // 7
      }
      try (Guard noGrad = Grad.noGrad()) {                                       // 8
        Tensor pred = model.forward(x.indexSelect(0, test)).argmax(1L, false);
        long correct = pred.eq(labels.indexSelect(0, test)).sum().longValue();
        long held = SAMPLES - TRAIN;
        System.out.println("held-out accuracy " + fixed(100.0 * correct / held, 2) + "% (" + correct + "/" + held + ")");
      }
      model.close(); // also closed by the scope; closing twice is harmless
    }
  }
}
