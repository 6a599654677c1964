package org.ctorch.nn;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.ctorch.Grad;
import org.ctorch.Guard;
import org.ctorch.InvalidArgumentException;
import org.ctorch.ShapeException;
import org.ctorch.Tensor;

/**
 * A layer or a model (torch.nn.Module): a forward function of one tensor and named parameters.
 * Parameters are the module's own tensors: use them (an optimizer retains its own references) but
 * do not close them; {@link #close()} closes them all.
 *
 * <pre>{@code
 * try (NnModule model = new Sequential(new Linear(64, 64), new ReLU(), new Linear(64, 10));
 *      Optimizer opt = Optimizer.adam(model.parameters(), 0.01)) {
 *   Tensor loss = Loss.crossEntropy(model.forward(x), y);
 * }
 * }</pre>
 */
public interface NnModule extends AutoCloseable {
  /**
   * Applies the module.
   *
   * @param input the input
   * @return a new tensor
   */
  Tensor forward(Tensor input);

  /**
   * The parameters by name ("weight", "0.bias" inside a {@link Sequential}), in registration
   * order: torch's named_parameters().
   *
   * @return an ordered, unmodifiable map of the module's own tensors
   */
  Map<String, Tensor> namedParameters();

  /**
   * The parameters in registration order (what an optimizer takes).
   *
   * @return the module's own tensors
   */
  default List<Tensor> parameters() {
    return new ArrayList<>(namedParameters().values());
  }

  /**
   * The state to save (torch's state_dict()): the parameters by name, in order; the modules of
   * this package have no buffers. {@code Checkpoint.save(path, model.stateDict(), null)} writes
   * it.
   *
   * @return an ordered, unmodifiable map of the module's own tensors
   */
  default Map<String, Tensor> stateDict() {
    return namedParameters();
  }

  /**
   * Copies saved values into the parameters, in place and without recording gradients
   * (torch's load_state_dict(strict=True)).
   *
   * @param state tensors by name, exactly the names of {@link #stateDict()}, each of the same sizes
   *     (any dtype; values are converted)
   * @throws InvalidArgumentException for missing or unexpected names (the message lists them)
   * @throws ShapeException for a tensor of other sizes
   */
  default void loadStateDict(Map<String, Tensor> state) {
    if (state == null) {
      throw new InvalidArgumentException("argument state is null. Pass a map of names to tensors (Checkpoint.tensors())");
    }
    Map<String, Tensor> own = stateDict();
    TreeSet<String> missing = new TreeSet<>(own.keySet());
    missing.removeAll(state.keySet());
    TreeSet<String> unexpected = new TreeSet<>(state.keySet());
    unexpected.removeAll(own.keySet());
    if (!missing.isEmpty() || !unexpected.isEmpty()) {
      throw new InvalidArgumentException("loadStateDict: missing keys " + missing + ", unexpected keys " + unexpected
          + ". Pass the names of stateDict()");
    }
    for (Map.Entry<String, Tensor> e : own.entrySet()) {
      long[] want = e.getValue().sizes();
      long[] got = state.get(e.getKey()).sizes();
      if (!java.util.Arrays.equals(want, got)) {
        throw new ShapeException("loadStateDict: " + e.getKey() + " has sizes " + java.util.Arrays.toString(got)
            + ", the module's " + java.util.Arrays.toString(want) + ". Load a state saved from the same architecture");
      }
    }
    try (Guard g = Grad.noGrad()) {
      for (Map.Entry<String, Tensor> e : own.entrySet()) {
        e.getValue().copyInPlace(state.get(e.getKey()));
      }
    }
  }

  /** Closes the module's parameters (and its submodules); idempotent. */
  @Override
  void close();
}
